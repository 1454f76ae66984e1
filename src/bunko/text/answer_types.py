"""What kind of answer a question asks for, and whether a quotable unit holds one.

"Which option of tool X does Y?" is answered by an option line, not by the
DESCRIPTION paragraph that repeats the question's words; "Which file …?" by a
unit holding a path. The extractive generator scores units on meaning and
shared words, which both favour the paragraph, so it also asks two questions
this module answers in ja/zh/en:

- `question_type`: the kind of answer wanted (option, command, path, value,
  package, reason, definition, list, yes/no, which-document, or none);
- `holds_type`: does a unit contain an answer of that kind — checkable for the
  kinds with a surface form (a path has slashes, an option a dash or ``=``,
  a value a digit, a command a code line or a program name), and for the
  others always true, since any sentence may state a reason.

`short_answer` isolates the typed span (``-t``, ``/etc/hostname``) from the
quoted unit, so an answer can state it first and then cite the unit it came
from.
"""

from __future__ import annotations

import re
from enum import StrEnum
from functools import lru_cache

from bunko.text.dimensions import SHORTCUT_NAMES, asked_dimension, states_dimension
from bunko.text.lazy_regex import lazy_compile
from bunko.text.lexicon import en, ja, zh
from bunko.text.scripts import has_ja_zh
from bunko.text.units import row_pairs


class AnswerType(StrEnum):
    OPTION = "option"
    COMMAND = "command"
    PATH = "path"
    VALUE = "value"
    PACKAGE = "package"
    REASON = "reason"
    DEFINITION = "definition"
    LIST = "list"
    YES_NO = "yes_no"
    WHICH_DOCUMENT = "which_document"
    NONE = "none"


# Checked in this order: the first pattern that matches decides, so the specific kinds come first
# ("which file does the command … read" asks for a path, "which package provides the command" for a package).
_ASKED_ORDER = (AnswerType.WHICH_DOCUMENT, AnswerType.PACKAGE, AnswerType.PATH, AnswerType.OPTION, AnswerType.COMMAND,
                AnswerType.VALUE, AnswerType.REASON, AnswerType.DEFINITION, AnswerType.LIST, AnswerType.YES_NO)


def _question_pattern(kind: AnswerType) -> str:
    """The ja/zh/en questions that want `kind`; a key combination's name asks for a value too."""
    english = en.ANSWER_TYPE_QUESTIONS[kind.value]
    if kind == AnswerType.VALUE:
        english = f"{english}|{SHORTCUT_NAMES}"
    return "|".join((english, ja.ANSWER_TYPE_QUESTIONS[kind.value], zh.ANSWER_TYPE_QUESTIONS[kind.value]))


_QUESTION_PATTERNS: list[tuple[AnswerType, str]] = [(kind, _question_pattern(kind)) for kind in _ASKED_ORDER]
_QUESTION_RES = [(kind, lazy_compile(pattern, re.IGNORECASE)) for kind, pattern in _QUESTION_PATTERNS]
_NOT_ASKED = lazy_compile(f"{en.NOT_ASKED}|{ja.NOT_ASKED}|{zh.NOT_ASKED}", re.IGNORECASE)
"""A setting the question says it does *not* use ("mounted without any option", オプションを付けずに, 什么选项都不加) is
the situation, not what is asked: "…without options, which encoding does mount assume?" asks for an encoding."""


_QUANTITY_QUESTION = lazy_compile(f"{ja.QUANTITY_QUESTION}|{zh.QUANTITY_QUESTION}|{en.QUANTITY_QUESTION}", re.IGNORECASE)


def wants_quantity(question: str) -> bool:
    """How many, how long, how much: the answer is a number (with its unit)."""
    return bool(_QUANTITY_QUESTION.search(question))


def states_number(text: str) -> bool:
    """Whether the text gives a number, not counting the digits of references (sudo(8), 第 3 章, Section 2.1, 表 3.7)."""
    return _NUMBER.search(_NOT_A_VALUE.sub(" ", text)) is not None


def question_type(question: str) -> AnswerType:
    """The kind of answer the question wants; NONE when no pattern speaks for one."""
    asked = _NOT_ASKED.sub(" ", question)
    for kind, pattern in _QUESTION_RES:
        if pattern.search(asked):
            return kind
    return AnswerType.NONE


_PATH = lazy_compile(r"(?<![\w/])(?:~|\.{1,2})?/(?:[\w.*@%+-]+/)*[\w.*@%+-]+/?|(?<![\w/])~/[\w.*@%+-]+|\"?\$HOME/[\w./-]+")
_OPTION = lazy_compile(
    r"(?<![\w-])--?[A-Za-z][\w-]*(?:=[\w./:-]+)?"  # -t, --verbose, --opt=value
    r"|\b[A-Za-z][\w-]*=[\w\"'./:,-]+"  # break=init, MAILTO=root
    r"|\b[A-Z][A-Za-z0-9]*(?:::[A-Za-z0-9-]+)+"  # APT::Acquire::http::Dl-Limit
    r"|\$[A-Z_][A-Z0-9_]+"  # $LANGUAGE
    r"|\$[({][A-Za-z_][A-Za-z0-9_]*[)}]"  # $(DESTDIR), ${HOME}
    r"|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b"  # KERN_ERR, GRUB_TIMEOUT
)
_NUMBER = lazy_compile(r"\d+(?:[.,]\d+)*(?:[~+][0-9A-Za-z.]+|-\d[0-9A-Za-z.]*)*")
"""A number with the version suffixes it may carry ("1.0.1-1~rc1", "2.36-9+deb12u1"): the span is the whole version, so
"1.0.1-1~rc1" is new beside a question that names 1.0.1-1."""
_NOT_A_VALUE = lazy_compile(
    r"\b[a-z][\w.+-]*\(\d[a-z]?\)"  # manual references: sudo(8)
    f"|{zh.CHAPTER_REFERENCES}|{en.CROSS_REFERENCES}|{zh.FIGURE_REFERENCES}",  # cross-references
    re.IGNORECASE,
)
"""Numbers that are not values: a manual section, a chapter, section or table reference."""
_PROMPT_LINE = lazy_compile(r"^\s*(?:[$#%>]|\w+@[\w.-]+[:$#])\s*\S", re.MULTILINE)
_PACKAGE = lazy_compile(r"(?<![\w./-])[a-z0-9][a-z0-9+.]*-[a-z0-9+.-]+|(?<![\w./-])[a-z][a-z0-9]*\d[a-z0-9]*(?![\w/])", re.IGNORECASE)
_PROGRAM_REFERENCE = lazy_compile(r"\b[a-z][\w.+-]*\(\d[a-z]?\)")
"""A program or file named as in Unix manuals: checkbashisms(1), crontab(5)."""
_NAMED_PROGRAM = lazy_compile(
    rf"[A-Za-z][\w.+-]*\s?(?:{zh.PROGRAM_WORDS}|{ja.PROGRAM_WORDS})"
    rf"|(?:{zh.PROGRAM_WORDS}|{ja.PROGRAM_WORDS})\s?[A-Za-z][\w.+-]*"
)
"""A Latin name called a program, command, tool or script in Japanese or Chinese prose ("xeyes 程序", "コマンド chvt",
"update-inetd スクリプト")."""
_CALLED_PROGRAM = lazy_compile(
    rf"\b(?:the|an?)\s+(?!(?:{en.GENERIC_BEFORE_PROGRAM})\b)([a-z][\w.+-]*)\s+"
    + en.PROGRAM_WORDS
    + r"|\b([a-z][\w+]*(?:[-_.][\w+]+)+|[a-z]+\d\w*)\s+" + en.PROGRAM_WORDS
    + rf"|([A-Za-z][\w.+-]*)\s?(?:{ja.DEFINES_AS}|{zh.DEFINES_AS})[^。．！？!?\n]{{0,40}}?(?:{ja.PROGRAM_NOUNS}|{zh.PROGRAM_NOUNS})",

)
"""A name an English sentence calls a command, program or tool ("the mount command", "an aa-unconfined command",
"update-inetd script"; not "the following command"), or that a Japanese or Chinese sentence defines as one
("logrotate はログファイルの循環を担当しているプログラム", "apt-get 是一个命令行工具")."""
_NAMED_SETTING = lazy_compile(
    r"\b([A-Z][A-Z0-9_]{2,}|[A-Za-z]\w*(?:[._]|::)[\w.:]+)\s+" + en.SETTING_WORDS
    + rf"|([A-Za-z][\w.:-]*)\s?(?:{ja.SETTING_WORDS}|{zh.SETTING_WORDS})"
)
"""A name a sentence calls a variable, setting, directive or option ("the QUOTAUSER variable", "QUOTAUSER 変数",
"LANG 变量", "pgpsigurlmangle 选项", "noatime オプション"):
the setting an option question asks for, written without the dash, ``=`` or underscore `_OPTION` knows it by. In
English only a name-shaped word counts (capitals, a dot, ``::``), so "this setting" names nothing."""
_LATIN_RUN = lazy_compile(r"[A-Za-z][\w.+-]*")
_COMMAND_CELL = lazy_compile(r"[a-z][\w.+-]*(?:\s+[^\s/]+)+")
"""A table cell holding a command line: a lower-case program name and arguments ("aptitude safe-upgrade",
"postsuper -d ALL"), at least one of which is option- or identifier-shaped (`_COMMAND_ARGUMENT`), so that a cell of
plain words ("normal but significant condition") is not one."""
_COMMAND_ARGUMENT = lazy_compile(r"[-=]|\w\.\w|\b[A-Z]{2,}\b")
_COMMAND_HEADER = lazy_compile(f"{en.COMMAND_HEADER}|{ja.COMMAND_HEADER}|{zh.COMMAND_HEADER}", re.IGNORECASE)
"""A column header naming commands ("Command snippets", "コマンド断片", "命令片段", "postfix 命令"): its cells are
command lines whatever their arguments look like ("systemd-analyze blame")."""
_PROGRAM_NAME = lazy_compile(r"[a-z][\w.+-]*(?:\s+\S+)*")
_CELL_QUOTES = "\"'“”「」`"


def _command_cells(row: str) -> list[str]:
    """The cells of a row unit ("header: value / header: value") that hold a command line, without the quotes a manual
    puts around one ("\"systemd-analyze blame\"")."""
    cells = [(header, cell.strip().strip(_CELL_QUOTES).strip()) for header, cell in row_pairs(row) if header]
    return [
        cell for header, cell in cells
        if (_COMMAND_HEADER.search(header) and _PROGRAM_NAME.fullmatch(cell))
        or (_COMMAND_CELL.fullmatch(cell) and _COMMAND_ARGUMENT.search(cell.split(None, 1)[1]))
    ]


def _named(pattern: re.Pattern[str], text: str) -> list[str]:
    """The names `pattern` (`_CALLED_PROGRAM`, `_NAMED_SETTING`) finds, without the words around them."""
    return [next(name for name in m.groups() if name) for m in pattern.finditer(text)]


_EXCLUDED = lazy_compile(f"{en.EXCLUDED}|{ja.EXCLUDED}|{zh.EXCLUDED}", re.IGNORECASE)
_LIST_WORD = lazy_compile(r"[A-Za-z0-9][\w.~/-]{2,}")


@lru_cache(maxsize=256)
def excluded_words(question: str) -> frozenset[str]:
    """The alternatives a question rules out ("a cron job at a custom time, not just hourly, daily, weekly or
    monthly", "/etc/dupload.conf ではなく", "而不是 /etc/foo"): a span naming one is not the answer asked for. Memoised:
    `holds_type` asks it of every unit an ask scores, always of the same question."""
    words: set[str] = set()
    for match in _EXCLUDED.finditer(question):
        phrase = next(group for group in match.groups() if group)
        words.update(w.casefold().rstrip(".") for w in _LIST_WORD.findall(phrase) if w.casefold() not in en.EXCLUDED_LIST_GLUE)
    return frozenset(words)


def _new(spans: list[str], question: str) -> bool:
    """Whether a span is one the question does not already name, nor one of the alternatives it rules out
    (`excluded_words`): the answer is what the question lacks."""
    asked = question.casefold()
    excluded = excluded_words(question)
    return any(
        (span := candidate.casefold().strip("\"'()")) not in asked and not any(word in span for word in excluded)
        for candidate in spans
    )


def _found(pattern: re.Pattern[str], text: str) -> list[str]:
    return [m.group(0) for m in pattern.finditer(text)]


def _latin_words_in_cjk(text: str) -> list[str]:
    """In Japanese or Chinese prose a Latin word is a named thing: a command, a package, an option."""
    return _found(_LATIN_RUN, text) if has_ja_zh(text) else []


def holds_type(text: str, kind: AnswerType, code: bool = False, question: str = "", row: bool = False) -> bool:
    """Whether the unit holds an answer of this kind that the question does not already state; `code` and `row`
    say the unit is a code block or a table row (whose command-line cells hold commands).

    Always true for kinds without a surface form. "locales 软件包没有包含预编译的数据" restates a
    question about the locales package; the command that answers it is the next unit's.
    """
    if kind is AnswerType.PATH:
        return _new(_found(_PATH, text), question)
    if kind is AnswerType.OPTION:
        return _new(_found(_OPTION, text) + _named(_NAMED_SETTING, text), question)
    if kind is AnswerType.VALUE:
        values = _found(_NUMBER, _NOT_A_VALUE.sub(" ", text))
        if wants_quantity(question):
            dimension = asked_dimension(question)
            return (dimension is None or states_dimension(text, dimension)) and _new(values, question)
        return _new(values + _latin_words_in_cjk(text) + _found(_OPTION, text), question)
    if kind is AnswerType.COMMAND:
        return code or bool(_PROMPT_LINE.search(text)) or _new(
            _found(_NAMED_PROGRAM, text) + _found(_OPTION, text) + _found(_PROGRAM_REFERENCE, text) + _named(_CALLED_PROGRAM, text)
            + (_command_cells(text) if row else []), question,
        )
    if kind is AnswerType.PACKAGE:
        return _new(_found(_PACKAGE, text) + _latin_words_in_cjk(text) + _found(_PROGRAM_REFERENCE, text), question)
    return True


CHECKABLE = frozenset({AnswerType.PATH, AnswerType.OPTION, AnswerType.VALUE, AnswerType.COMMAND, AnswerType.PACKAGE})
"""Kinds whose presence in a unit `holds_type` can actually test."""
NAMED_KINDS = frozenset({AnswerType.PATH, AnswerType.OPTION, AnswerType.COMMAND, AnswerType.PACKAGE})
"""Kinds whose answer is a named thing, never a bare number, whatever quantity the question mentions."""


def short_answer(text: str, kind: AnswerType, question: str) -> str | None:
    """The one typed span of the unit that the question does not already name, or None when there is not exactly one.

    "-t" from "-t  Use TCP instead of UDP" for an option question; None when the
    unit names two options, since picking one would be a guess.
    """
    pattern = {AnswerType.PATH: _PATH, AnswerType.OPTION: _OPTION}.get(kind)
    if pattern is None:
        return None
    asked = question.casefold()
    spans = list(dict.fromkeys(m.group(0).strip("\"'") for m in pattern.finditer(text)))
    fresh = [s for s in spans if s.casefold() not in asked and len(s) > 1]
    return fresh[0] if len(fresh) == 1 else None
