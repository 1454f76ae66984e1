"""Every word list and phrase pattern of a natural language lives in `bunko/text/lexicon/` (issue 45): one package per
language, so a rule's Japanese, Chinese and English words are found, reviewed and extended in one place.

The check reads every module under src/bunko outside text/lexicon/ (its AST, nothing is imported) and reports a
module- or class-level assignment that holds

* a collection (set, frozenset, list, tuple, dict) with WORDS_IN_A_LIST or more natural-language words;
* a string with a Japanese or Chinese word in a regex (``|``, ``(?``, ``[``, ``\\``) or a run of CJK_RUN letters
  written as a character list ("的了是在…");
* a regex alternating WORDS_IN_A_LIST or more English words (``how|what|which|when``);
* a string of WORDS_IN_A_LIST or more words that the module splits into a list (``"about above after".split()``);
* what bunko *says* in a language: a table of strings keyed by language code (``{"ja": …, "zh": …, "en": …}``, or
  one whose values are), or a string holding a Japanese or Chinese word (a message, a heading, a mask, a demo
  question). Each language's messages live in its lexicon under one name, read by language key
  (`bunko.text.lexicon.speaking`).

A *natural-language word* is a string holding a Han or kana letter (a range such as ``ァ-ヺ`` and the marks
ー々〆ヶ are script, not words), or lower-case English: letters, single spaces, apostrophes and hyphens inside
("see also", "isn't"). Not word lists: English prose that quotes a Japanese or Chinese example (a model's
instructions, a format's help: more English words than CJK letters), a field's ``description=``/``help=`` (its
documentation), a setting per language that is not a string (``{"en": 30, "ja": 12}``), identifiers (a collection
holding a snake_case name is a set of keys, a ``Literal[…]`` a type, ``A, B = "a", "b"`` names constants). ALLOWED
names the few constants left that are made of English-looking words but are identifiers of a format or a program,
each with the reason; an allowance the check would not report is stale and fails.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "bunko"
LEXICON = SRC / "text" / "lexicon"

WORDS_IN_A_LIST = 4
CJK_RUN = 4
LANGUAGE_KEYS = frozenset({"ja", "zh", "en"})

_CJK_LETTER = re.compile(r"[\u3041-\u3096\u309d-\u309f\u30a1-\u30fa\u30fd-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_CJK_RANGE = re.compile(r".-.")
_SCRIPT_MARKS = re.compile(r"[ー々〆ヶ]")
_PROSE_WORD = re.compile(r"[A-Za-z]{2,}")
_DOCUMENTATION = frozenset({"description", "help"})
_REGEX_SIGN = re.compile(r"\||\(\?|\[|\\")
_ENGLISH_WORD = re.compile(r"[a-z]+(?:[ '-][a-z]+)*")
_ESCAPE = re.compile(r"\\[A-Za-z]")
_ALTERNATED_WORD = re.compile(r"(?:(?<=\|)|(?<=\(\?:)|(?<=\()|^)([A-Za-z]{2,})(?:\?|s\?|\b)(?=\||\)|$)")

ALLOWED = {
    # module (relative to src/bunko) and constant: why it is not a word list
    ("cli/help_types.py", "_NAMES"): "Python type names",
    ("config.py", "DOCUMENT_KINDS"): "configuration values (document template names)",
    ("evaluate/golden.py", "QUESTION_TYPES"): "golden-file field values",
    ("evaluate/judge.py", "_REASON_KEYS"): "JSON keys a judge model's reply may use",
    ("evaluate/formatting.py", "RELIABILITY_HEADER"): "report column titles (what bunko writes)",
    ("parse/html.py", "_DROP_TAGS"): "HTML element names",
    ("parse/roff.py", "_SPECIAL"): "groff special-character names (\\(em, \\[bu]) and the characters they print",
    ("parse/html.py", "_DROP_ROLES"): "ARIA role names",
    ("parse/html.py", "_BLOCKS"): "HTML element names",
    ("parse/html.py", "_DROP_NAMES"): "HTML class and id names of page furniture",
    ("parse/html.py", "_CALLOUT_NAMES"): "HTML class names of callouts",
    ("parse/html_switches.py", "_BLOCK_TAGS"): "HTML element names",
    ("evaluate/golden_format.py", "GOLDEN_FORMAT"): "the golden-set format as `--help` shows it (what bunko writes; its examples are in ja/zh/en)",
    ("cli/sources.py", "SOURCE_TYPES"): "configuration values (source kinds, the names of SPECS)",
    ("text/lazy_regex.py", "_METHODS"): "names of re.Pattern's methods",
    ("text/lazy_regex.py", "_DISPATCHED"): "names of re.Pattern's methods",
    ("parse/email.py", "HEADER_FIELDS"): "e-mail header names",
    ("parse/pdf_layout.py", "_MONOSPACE"): "font family names",
    ("parse/pdf_layout.py", "_BOLD"): "font weight names",
    ("parse/pptx.py", "_FILE_NAME"): "image file extensions",
    ("ingest/connectors/registry.py", "SPECS"): "configuration values (source kinds)",
    ("parse/adapters.py", "_MODULES"): "Python package names",
    ("retrieve/router.py", "TOPIC_ROUTES"): "route names",
    ("text/entities.py", "_CHINESE_NOUN_TAGS"): "jieba part-of-speech tags",
    ("llm/fencing.py", "_FENCE_BREAK"): "tag names of bunko's prompt fences",
    ("text/injection.py", "_CONTROL"): "tag names of bunko's prompt fences and chat templates",
}


def _is_cjk_word(text: str) -> bool:
    return bool(_CJK_LETTER.search(_SCRIPT_MARKS.sub("", _CJK_RANGE.sub("", text))))


def _is_english_prose(text: str) -> bool:
    """English that quotes a Japanese or Chinese example ("Replace pronouns (it, それ, 它)"): more English words than
    CJK letters."""
    return len(_PROSE_WORD.findall(text)) > len(_CJK_LETTER.findall(text))


def _is_word(text: str) -> bool:
    return _is_cjk_word(text) or bool(_ENGLISH_WORD.fullmatch(text))


def _strings(node: ast.AST) -> Iterator[str]:
    for child in ast.walk(node):
        if isinstance(child, ast.Constant) and isinstance(child.value, str):
            yield child.value


def _is_message_table(node: ast.Dict) -> bool:
    """A table of strings keyed by language code, or whose values are: what bunko says (or reads) in each language.
    A setting per language that holds no string (``{"en": 30, "ja": 12}``) is not one."""
    def language_keyed(d: ast.AST) -> bool:
        keys = [k.value for k in d.keys if isinstance(k, ast.Constant)] if isinstance(d, ast.Dict) else []
        return bool(keys) and set(keys) <= LANGUAGE_KEYS
    return (language_keyed(node) or (bool(node.values) and all(language_keyed(v) for v in node.values))) and any(
        isinstance(c, ast.Constant) and isinstance(c.value, str) for v in node.values for c in ast.walk(v)
    )


def _documentation(node: ast.AST) -> set[int]:
    """ids of the nodes inside a ``description=`` or ``help=`` argument: a field's documentation, not what bunko says."""
    return {id(c) for k in ast.walk(node) if isinstance(k, ast.keyword) and k.arg in _DOCUMENTATION for c in ast.walk(k.value)}


def _messages(value: ast.AST) -> list[str]:
    """What bunko says, outside the lexicon: a table keyed by language code, or a string holding a Japanese or
    Chinese word that is not English prose quoting one."""
    tables = [d for d in ast.walk(value) if isinstance(d, ast.Dict) and _is_message_table(d)]
    if tables:
        keys = sorted({k.value for d in tables for k in d.keys if isinstance(k, ast.Constant) and k.value in LANGUAGE_KEYS})
        return [f"a table keyed by language ({', '.join(keys) or 'its values'}): what bunko says per language"]
    documentation = _documentation(value)
    said = [
        c.value for c in ast.walk(value)
        if isinstance(c, ast.Constant) and isinstance(c.value, str) and id(c) not in documentation
        and _is_cjk_word(c.value) and not _is_english_prose(c.value)
    ]
    return [f"a Japanese or Chinese string ({said[0][:30]!r})"] if said else []


def _collections(node: ast.AST) -> Iterator[list[ast.expr]]:
    """The element lists of the collection literals in `node`, skipping message tables and ``Literal[…]`` types."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "Literal":
        return
    if isinstance(node, ast.Dict):
        if _is_message_table(node):
            return
        yield [k for k in node.keys if k is not None] + node.values
    elif isinstance(node, (ast.Set, ast.List, ast.Tuple)):
        yield node.elts
    for child in ast.iter_child_nodes(node):
        yield from _collections(child)


def _message_strings(node: ast.AST) -> set[int]:
    """ids of the string constants inside message tables."""
    return {id(c) for d in ast.walk(node) if isinstance(d, ast.Dict) and _is_message_table(d) for c in ast.walk(d)}


def _problems(value: ast.AST, names_constants: bool) -> list[str]:
    problems = _messages(value)
    for elements in [] if names_constants else _collections(value):
        strings = [e.value for e in elements if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        identifiers = any("_" in s for s in strings)
        words = [s for s in strings if _is_cjk_word(s) or (not identifiers and _is_word(s))]
        if len(words) >= WORDS_IN_A_LIST:
            problems.append(f"a collection of {len(words)} words ({', '.join(words[:3])}, …)")
            break
    messages = _message_strings(value)
    for child in ast.walk(value):
        if not (isinstance(child, ast.Constant) and isinstance(child.value, str)) or id(child) in messages:
            continue
        text = child.value
        character_list = child is value and len(_CJK_LETTER.findall(text)) >= CJK_RUN and " " not in text
        if _is_cjk_word(text) and (_REGEX_SIGN.search(text) or character_list):
            problems.append(f"Japanese or Chinese words in a pattern or character list ({text[:30]!r})")
            break
        alternated = {w.lower() for w in _ALTERNATED_WORD.findall(_ESCAPE.sub("", text))}
        if "|" in text and len(alternated) >= WORDS_IN_A_LIST:
            problems.append(f"a pattern alternating {len(alternated)} English words ({text[:30]!r})")
            break
    return problems


def _split_word_strings(tree: ast.Module) -> dict[str, str]:
    """Module-level strings that are split into words (``"about above after again".split()``): name → problem."""
    strings = {
        target.id: statement.value.value
        for statement in tree.body
        if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Constant) and isinstance(statement.value.value, str)
        for target in statement.targets
        if isinstance(target, ast.Name)
    }
    found = {}
    for call in ast.walk(tree):
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "split" and not call.args:
            split = call.func.value
            text = split.value if isinstance(split, ast.Constant) else strings.get(split.id) if isinstance(split, ast.Name) else None
            words = [w for w in text.split() if _is_word(w)] if isinstance(text, str) else []
            if len(words) >= WORDS_IN_A_LIST:
                found[split.id if isinstance(split, ast.Name) else f"line {call.lineno}"] = f"a string of {len(words)} words split into a list"
    return found


def word_lists(source: str) -> list[tuple[str, str]]:
    """(constant, problem) for each module- or class-level assignment of `source` that holds a word list or a phrase
    pattern."""
    tree = ast.parse(source)
    found = list(_split_word_strings(tree).items())
    class_bodies = [s for c in tree.body if isinstance(c, ast.ClassDef) for s in c.body]
    for statement in [*tree.body, *class_bodies]:
        if isinstance(statement, ast.Assign):
            targets, value = statement.targets, statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            targets, value = [statement.target], statement.value
        else:
            continue
        names = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
        if "__all__" in names:
            continue
        for problem in _problems(value, names_constants=any(isinstance(t, ast.Tuple) for t in targets)):
            found.append((", ".join(names), problem))
    return found


def _modules(root: Path = SRC) -> list[Path]:
    lexicon = root / "text" / "lexicon"
    return sorted(p for p in root.rglob("*.py") if lexicon not in p.parents)


def outside_the_lexicon(root: Path = SRC) -> dict[str, str]:
    """``module: constant`` → problem, for every word list or message of the package at `root` outside its
    text/lexicon/ and not ALLOWED."""
    return {
        f"{path.relative_to(root)}: {name}": problem
        for path in _modules(root)
        for name, problem in word_lists(path.read_text(encoding="utf-8"))
        if (str(path.relative_to(root)), name) not in ALLOWED
    }


@pytest.mark.parametrize(
    "source",
    [
        'GREETINGS = {"hello", "thanks", "good morning", "bye"}',
        'STOP = frozenset(["the", "of", "and", "isn\'t"])',
        '_ASK = re.compile(r"\\b(?:how|what|which|when)\\b", re.I)',
        '_JA_LEAD = re.compile(r"^(それでは|なら|では)")',
        'PARTICLES = ("は", "が", "を", "に")',
        '_ZH_TAIL = re.compile(r"呢\\s*[？?]?$")',
        'FUNCTION_CHARACTERS = "的了是在有和"',
        'UNITS = {"円": "JPY", "元": "CNY", "美元": "USD", "ドル": "USD"}',
        'SYNONYMS = tuple(frozenset(g) for g in ({"price", "cost", "fee", "価格"},))',
        '_EXTRA = "about above after again"\nSTOPWORDS = frozenset(_EXTRA.split())',
        'class Rules:\n    LEADS = ("それでは", "それなら", "では", "じゃあ")',
        'MESSAGES = {"ja": "資料内では確認できません。", "zh": "资料中未找到相关内容。", "en": "The documents do not contain this."}',
        'TABLE = {"sum": {"en": "Sum of {m}", "ja": "{m}の合計", "zh": "{m}的总和"}}',
        'NAMES = {"ja": "Japanese", "zh": "Simplified Chinese", "en": "English"}',
        'SEPARATORS = {"ja": ("：", "、"), "zh": ("：", "，"), "en": (": ", "; ")}',
        'HEADING = {"ja": "出典", "zh": "来源"}',
        'NOTICE = "※確信度が低いため、担当者による確認が必要です。"',
        'DEMO = ("東京の宿泊費の上限は？", "婚假有几天？", "How many requests per minute?")',
        'SUDACHI_NOUNS = frozenset({"名詞"})',
        'class Reply:\n    GREETING: str = "您好。请就资料提问。"',
    ],
)
def test_the_check_finds_a_planted_word_list(source: str) -> None:
    assert word_lists(source), source


@pytest.mark.parametrize(
    "source",
    [
        'from bunko.text.lexicon import ja\n_JA_LEAD = re.compile(rf"^\\s*({ja.FOLLOW_UP_LEAD})")',
        '_SENTENCE_END = re.compile(r"(?<=[。！？])[」』）]*")',
        '_KATAKANA_WORD = re.compile(r"[ァ-ヺ][ァ-ヺー]{2,}")',
        'SUFFIXES = (".safetensors", ".bin", ".pt", ".onnx")',
        'KEYS = ("doc_id", "chunk_id", "ingested_at", "mime")',
        'SYSTEM = "You rewrite the question. Replace pronouns (it, それ, 它) with what they refer to."',
        '_RUN = lazy_compile(rf"[{HAN}{KATAKANA}々〆ヶ]{{2,}}")',
        'MIN_CHARS = {"en": 30, "ja": 12, "zh": 12}',
        'class Settings:\n    weight: float = Field(1.5, description="for a topic (a short phrase such as 软件包状态)")',
        'from bunko.text.lexicon import speaking\nABSTAIN = speaking("ja").ABSTAIN_MESSAGE',
    ],
)
def test_the_check_leaves_messages_punctuation_and_identifiers_alone(source: str) -> None:
    assert word_lists(source) == [], source


def test_a_message_planted_in_a_package_is_found_and_the_lexicon_is_not(tmp_path: Path) -> None:
    """The scan of a whole package: a message table in generate/ is reported, the same words in text/lexicon/ are not."""
    (tmp_path / "generate").mkdir()
    (tmp_path / "text" / "lexicon").mkdir(parents=True)
    (tmp_path / "generate" / "notices.py").write_text(
        'REVIEW = {"ja": "※確認が必要です。", "zh": "※需要人工审核。", "en": "Review this."}\n'
        'def notice(language: str) -> str:\n    return REVIEW[language]\n', encoding="utf-8",
    )
    (tmp_path / "text" / "lexicon" / "ja.py").write_text('NEEDS_REVIEW = "※確認が必要です。"\n', encoding="utf-8")
    assert list(outside_the_lexicon(tmp_path)) == ["generate/notices.py: REVIEW"]


def test_no_word_list_outside_the_lexicon() -> None:
    found = outside_the_lexicon()
    assert found == {}, "word lists belong in bunko/text/lexicon/{en,ja,zh}/:\n" + "\n".join(f"{k}: {v}" for k, v in found.items())


def test_every_allowance_is_still_needed() -> None:
    """An allowance outlives nothing: when a constant goes or stops looking like a word list, so does its line."""
    reported = {(str(path.relative_to(SRC)), name) for path in _modules() for name, _ in word_lists(path.read_text(encoding="utf-8"))}
    assert set(ALLOWED) - reported == set()


def test_the_lexicon_imports_nothing_from_bunko() -> None:
    """Every layer reads the lexicon (text/ is the lowest), so it may read nothing but itself."""
    imported = {
        f"{path.name}: {name}"
        for path in LEXICON.glob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        for name in (
            [alias.name for alias in node.names] if isinstance(node, ast.Import)
            else [node.module or ""] if isinstance(node, ast.ImportFrom) else []
        )
        if name.startswith("bunko") and not name.startswith("bunko.text.lexicon")
    }
    assert imported == set()
