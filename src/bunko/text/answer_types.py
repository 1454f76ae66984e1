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
from bunko.text.scripts import KATAKANA, has_ja_zh
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
_QUESTION_PATTERNS: list[tuple[AnswerType, str]] = [
    (AnswerType.WHICH_DOCUMENT, r"\bwhich (?:chapter|section|document|page|part)\b|どの(?:章|節|文書|資料|ページ)|第?何章|哪(?:一|个)?(?:章|节|部分|文档|页)"),
    (AnswerType.PACKAGE, r"\b(?:which|what) (?:[\w.-]+ ){0,2}package\b|\bpackage (?:provides|gives|contains)\b"
                         r"|どの(?:\w{0,4})?パッケージ|何という(?:\w{0,4})?パッケージ|パッケージ(?:は|名は)(?:何|どれ)|パッケージ名|パッケージ(?:は|名は)?(?:ですか)?[？?]\s*$"
                         r"|哪个(?:\w{0,4})?(?:软件)?包|什么(?:软件)?包|软件包(?:是|叫)什么|包名"),
    (AnswerType.PATH, r"\b(?:which|what) (?:[\w.-]+ ){0,2}(?:file|files|directory|folder|path|config(?:uration)? file)\b|\bwhere (?:does|do|is|are|can)\b.*\b(?:keep|store|stored|save|saved|kept|located|live|put|written|log)\b"
                      r"|どの(?:\w{0,6})?(?:ファイル|ディレクトリ|フォルダ|パス)|何という(?:ファイル|ディレクトリ)|(?:ファイル|ディレクトリ|パス)(?:は|名は)(?:どこ|何|どれ)|(?:ファイル|ディレクトリ|パス)(?:は|名は)?[？?]\s*$|どこに(?:保存|置|記録|格納)"
                      r"|哪个(?:\w{0,4})?(?:文件|目录|路径)|什么(?:文件|目录|路径)|在哪(?:个|里)?(?:文件|目录)|(?:存放|保存|记录)在哪"),
    (AnswerType.OPTION, r"\b(?:which|what) (?:[\w.-]+ ){0,2}(?:option|flag|switch|parameter|directive|setting|argument|variable|boot parameter)s?\b|\bwhat (?:should|must|do) i (?:pass|give|specify|set|add)\b"
                        r"|オプション|パラメ[ーー]?タ[ーー]?|引数|設定項目|ディレクティブ|変数|何を(?:渡|指定|付け|設定)"
                        r"|选项|参数|加什么|指定什么|设置什么|变量"),
    (AnswerType.COMMAND, r"\b(?:which|what) (?:[\w.-]+ ){0,2}(?:(?:sub)?command|tool|program|utility|invocation)s?\b|\bhow (?:do|can|should) i\b|\bhow to\b"
                         r"|\bwhat (?:do|does|should|can|could|would) (?:i|we|you|it|they|one) use\b"
                         r"|コマンド|ツール|プログラム|どう(?:書|打|入力|実行|すれば|やって)|どのように|方法|何を使(?:う|え|い|っ)"
                         r"|命令|工具|程序|怎么|怎样|如何|用什么(?!格式|编码|字符集|语言|协议|算法|文件系统)|什么办法"),
    (AnswerType.VALUE, r"\bhow (?:many|much|long|often|large|big)\b|\b(?:which|what) (?:[\w.-]+ ){0,2}(?:value|number|port|address|size|limit|group|encoding|level|priority|name|month)\b|\bdefault\b"
                       rf"|{SHORTCUT_NAMES}"
                       r"|いくつ|何(?:日|回|人|件|年|月|時間|分|秒|個|%|％|バイト|番)|どのくらい|どれくらい|値|ポート|アドレス|グループ|エンコーディング|文字コード|何％|(?:どの|何の?)(?:形式|フォーマット)"
                       r"|多少|几|多长|多久|多大|哪(?:个|种)(?:端口|组|值|编码|格式)|什么(?:端口|组|值|编码|格式)|端口|默认"),
    (AnswerType.REASON, r"\bwhy\b|\bfor what reason\b|なぜ|どうして|理由|为什么|为何|原因"),
    (AnswerType.DEFINITION, r"^\s*what (?:is|are|does)\b|\bwhat (?:is|are) (?:meant|called)\b|\bstands? for\b|\bmeaning of\b|とは|何(?:を|の)意味|意味|何ですか|代表什么|是什么意思|什么意思|是什么|指的是"),
    (AnswerType.LIST, r"\b(?:list|name) (?:the|all)\b|\bwhat are the\b|どんな.*(?:が|を)ありますか|一覧|有哪些|列出"),
    (AnswerType.YES_NO, r"^\s*(?:is|are|can|does|do|should|will)\b|ありますか|できますか|でしょうか|是否|能不能|可以吗|吗[？?]?\s*$"),
]
_QUESTION_RES = [(kind, re.compile(pattern, re.IGNORECASE)) for kind, pattern in _QUESTION_PATTERNS]
_NOT_ASKED = re.compile(
    r"\bwithout (?:any )?(?:options?|flags?|arguments?|parameters?)\b"
    r"|(?:何も)?(?:オプション|引数)(?:を|は)?(?:何も)?(?:付けず|つけず|指定せず|与えず|なし|無し)"
    r"|(?:什么|任何)?(?:选项|参数)都不(?:加|带|给)|不(?:加|带|给|指定)(?:任何)?(?:选项|参数)",
    re.IGNORECASE,
)
"""A setting the question says it does *not* use ("mounted without any option", オプションを付けずに, 什么选项都不加) is
the situation, not what is asked: "…without options, which encoding does mount assume?" asks for an encoding."""


_QUANTITY_QUESTION = re.compile(
    r"いくら|何[日回人件年時分秒週月個本枚通文字円%％度台名ヶか点]|何[" + KATAKANA + r"]|どのくらい|どれくらい|何時|いつ|"
    r"多少|几|多长|多久|多大|何时|什么时候|"
    r"\bhow (?:many|much|long|often|soon|old|large|big|quickly)\b|\bwhen\b"
    r"|\b(?:limit|maximum|minimum|rate|number|amount|price|period|deadline|duration|fee|cost|size)s?\b",
    re.IGNORECASE,
)


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


_PATH = re.compile(r"(?<![\w/])(?:~|\.{1,2})?/(?:[\w.*@%+-]+/)*[\w.*@%+-]+/?|(?<![\w/])~/[\w.*@%+-]+|\"?\$HOME/[\w./-]+")
_OPTION = re.compile(
    r"(?<![\w-])--?[A-Za-z][\w-]*(?:=[\w./:-]+)?"  # -t, --verbose, --opt=value
    r"|\b[A-Za-z][\w-]*=[\w\"'./:,-]+"  # break=init, MAILTO=root
    r"|\b[A-Z][A-Za-z0-9]*(?:::[A-Za-z0-9-]+)+"  # APT::Acquire::http::Dl-Limit
    r"|\$[A-Z_][A-Z0-9_]+"  # $LANGUAGE
    r"|\$[({][A-Za-z_][A-Za-z0-9_]*[)}]"  # $(DESTDIR), ${HOME}
    r"|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b"  # KERN_ERR, GRUB_TIMEOUT
)
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*(?:[~+][0-9A-Za-z.]+|-\d[0-9A-Za-z.]*)*")
"""A number with the version suffixes it may carry ("1.0.1-1~rc1", "2.36-9+deb12u1"): the span is the whole version, so
"1.0.1-1~rc1" is new beside a question that names 1.0.1-1."""
_NOT_A_VALUE = re.compile(
    r"\b[a-z][\w.+-]*\(\d[a-z]?\)"  # manual references: sudo(8)
    r"|第\s*[\d.]+\s*[章节節条]|[\d.]+\s*[章节節]|\b(?:Section|Chapter|Table|Figure)\s+[\d.]+"  # cross-references
    r"|[表図图]\s*[\d.]+",
    re.IGNORECASE,
)
"""Numbers that are not values: a manual section, a chapter, section or table reference."""
_PROMPT_LINE = re.compile(r"^\s*(?:[$#%>]|\w+@[\w.-]+[:$#])\s*\S", re.MULTILINE)
_PACKAGE = re.compile(r"(?<![\w./-])[a-z0-9][a-z0-9+.]*-[a-z0-9+.-]+|(?<![\w./-])[a-z][a-z0-9]*\d[a-z0-9]*(?![\w/])", re.IGNORECASE)
_PROGRAM_REFERENCE = re.compile(r"\b[a-z][\w.+-]*\(\d[a-z]?\)")
"""A program or file named as in Unix manuals: checkbashisms(1), crontab(5)."""
_NAMED_PROGRAM = re.compile(
    r"[A-Za-z][\w.+-]*\s?(?:程序|命令|工具|脚本|コマンド|ツール|プログラム|スクリプト)"
    r"|(?:程序|命令|工具|脚本|コマンド|ツール|プログラム|スクリプト)\s?[A-Za-z][\w.+-]*"
)
"""A Latin name called a program, command, tool or script in Japanese or Chinese prose ("xeyes 程序", "コマンド chvt",
"update-inetd スクリプト")."""
_PROGRAM_WORDS = r"(?:command|program|tool|utility|daemon|script)s?\b"
_CALLED_PROGRAM = re.compile(
    r"\b(?:the|an?)\s+(?!(?:same|following|next|previous|above|below|first|last|other|new|main|whole|entire|actual|original"
    r"|corresponding|appropriate|relevant|specific|given|single|simple|complete|basic|default|right|only|real|useful|small"
    r"|powerful|special|separate|standard|common|various|external|dedicated|interactive|graphical)\b)([a-z][\w.+-]*)\s+"
    + _PROGRAM_WORDS
    + r"|\b([a-z][\w+]*(?:[-_.][\w+]+)+|[a-z]+\d\w*)\s+" + _PROGRAM_WORDS
    + r"|([A-Za-z][\w.+-]*)\s?(?:は|とは|是|就是)[^。．！？!?\n]{0,40}?(?:プログラム|コマンド|ツール|程序|命令|工具)",
)
"""A name an English sentence calls a command, program or tool ("the mount command", "an aa-unconfined command",
"update-inetd script"; not "the following command"), or that a Japanese or Chinese sentence defines as one
("logrotate はログファイルの循環を担当しているプログラム", "apt-get 是一个命令行工具")."""
_NAMED_SETTING = re.compile(
    r"\b([A-Z][A-Z0-9_]{2,}|[A-Za-z]\w*(?:[._]|::)[\w.:]+)\s+(?:variable|setting|directive|parameter|option)s?\b"
    r"|([A-Za-z][\w.:-]*)\s?(?:変数|变量|ディレクティブ|指令|パラメータ|オプション|选项|選項|参数)"
)
"""A name a sentence calls a variable, setting, directive or option ("the QUOTAUSER variable", "QUOTAUSER 変数",
"LANG 变量", "pgpsigurlmangle 选项", "noatime オプション"):
the setting an option question asks for, written without the dash, ``=`` or underscore `_OPTION` knows it by. In
English only a name-shaped word counts (capitals, a dot, ``::``), so "this setting" names nothing."""
_LATIN_RUN = re.compile(r"[A-Za-z][\w.+-]*")
_COMMAND_CELL = re.compile(r"[a-z][\w.+-]*(?:\s+[^\s/]+)+")
"""A table cell holding a command line: a lower-case program name and arguments ("aptitude safe-upgrade",
"postsuper -d ALL"), at least one of which is option- or identifier-shaped (`_COMMAND_ARGUMENT`), so that a cell of
plain words ("normal but significant condition") is not one."""
_COMMAND_ARGUMENT = re.compile(r"[-=]|\w\.\w|\b[A-Z]{2,}\b")
_COMMAND_HEADER = re.compile(r"\bcommands?\b|コマンド|命令", re.IGNORECASE)
"""A column header naming commands ("Command snippets", "コマンド断片", "命令片段", "postfix 命令"): its cells are
command lines whatever their arguments look like ("systemd-analyze blame")."""
_PROGRAM_NAME = re.compile(r"[a-z][\w.+-]*(?:\s+\S+)*")
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


_EXCLUDED = re.compile(
    r"\b(?:not (?:just|only|simply)|other than|instead of|rather than|except(?: for)?)\s+"
    r"((?:[\w.~/-]+(?:,\s*(?:or\s+|and\s+)?|\s+or\s+|\s+and\s+)?){1,8})"
    r"|([\w.~/-]+)\s*(?:ではなく|じゃなく|以外の)"
    r"|(?:而不是|而非|除了)\s*([\w.~/-]+)",
    re.IGNORECASE,
)
_LIST_WORD = re.compile(r"[A-Za-z0-9][\w.~/-]{2,}")


@lru_cache(maxsize=256)
def excluded_words(question: str) -> frozenset[str]:
    """The alternatives a question rules out ("a cron job at a custom time, not just hourly, daily, weekly or
    monthly", "/etc/dupload.conf ではなく", "而不是 /etc/foo"): a span naming one is not the answer asked for. Memoised:
    `holds_type` asks it of every unit an ask scores, always of the same question."""
    words: set[str] = set()
    for match in _EXCLUDED.finditer(question):
        phrase = next(group for group in match.groups() if group)
        words.update(w.casefold().rstrip(".") for w in _LIST_WORD.findall(phrase) if w.casefold() not in {"and", "the", "for", "any"})
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
