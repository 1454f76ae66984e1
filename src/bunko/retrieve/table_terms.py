"""How a table question's words are matched against a table's own words: column names through a ja/zh/en synonym
dictionary, counting columns by the thing they count, headings without their numbering and filler words, plurals,
scripts, and the things a question names that a table must hold. The planner (`retrieve/table_plan.py`) weighs
these matches; nothing here chooses a table.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from bunko.index.table_data import TEXT
from bunko.index.table_db import StoredTable
from bunko.retrieve.key_terms import key_terms
from bunko.text.lazy_regex import lazy_compile
from bunko.text.lexicon import en, ja, zh
from bunko.text.numbers import normalize
from bunko.text.scripts import HAN_CHAR, HIRAGANA, KANA_CHAR

SYNONYMS: tuple[frozenset[str], ...] = tuple(
    frozenset((*english, *japanese, *chinese))
    for english, japanese, chinese in zip(en.COLUMN_SYNONYMS, ja.COLUMN_SYNONYMS, zh.COLUMN_SYNONYMS, strict=True)
)
"""Words that name the same column, in any of the three languages."""


def term_boundary(term: str) -> str:
    """A term as a pattern: ASCII words on word boundaries (with a plural), CJK anywhere."""
    escaped = re.escape(term)
    if re.fullmatch(r"[a-z0-9][a-z0-9 ._/-]*", term):
        return rf"(?<![a-z0-9]){escaped}(?:s|es)?(?![a-z0-9])"
    return escaped


def contains_term(text: str, term: str) -> int:
    """Where `term` is in `text` (both normalised and lowercased), or -1."""
    if not term:
        return -1
    if len(term) == 1 and not re.fullmatch(r"[\u4e00-\u9fff]", term):
        return -1
    if term not in text:  # every pattern holds the term itself: most cells of most tables stop here, uncompiled
        return -1
    match = re.search(term_boundary(term), text)
    return match.start() if match else -1


_NAME_STOPWORDS = frozenset((*en.COLUMN_NAME_STOPWORDS, *ja.COLUMN_NAME_STOPWORDS, *zh.COLUMN_NAME_STOPWORDS))
_COUNT_COLUMN = lazy_compile(f"{en.COUNT_COLUMN}|{ja.COUNT_COLUMN}|{zh.COUNT_COLUMN}", re.IGNORECASE)
_NUMBERING = lazy_compile(
    rf"^\s*(?:(?:{en.HEADING_NUMBER_LABEL})\s+|(?:{ja.HEADING_NUMBER_LABEL}|{zh.HEADING_NUMBER_LABEL})\s*)?[\d.\s]+"
    rf"(?:{ja.HEADING_NUMBER_COUNTER}|{zh.HEADING_NUMBER_COUNTER})?[.:：\s]*", re.IGNORECASE)


def counted_thing(name: str) -> str | None:
    """What a counting column counts ("number of files" → "files", ダウンロード数 → ダウンロード), or None."""
    match = _COUNT_COLUMN.match(clean_name(normalize(name).lower()))
    return next((g.strip() for g in match.groups() if g), None) if match else None


HIRAGANA_CHAR = lazy_compile(f"[{HIRAGANA}]")
_HEADING_FILLER = frozenset((*en.HEADING_FILLER, *ja.HEADING_FILLER, *zh.HEADING_FILLER))


def heading_texts(table: StoredTable) -> list[str]:
    """The table's own headings, normalised and lowercased: its title's last part (its caption, else its section's
    title) and its section's title when that differs — each without its numbering, without the words that say it is
    a table ("List of …", …のリスト) and without its columns' names ("… related packages" of a table with a
    package column): what is left is what tells it from the tables beside it, which share those."""
    names = [table.title.split(" > ")[-1], *table.section_path[-1:]]
    cleaned = [clean_name(normalize(c.name).lower()) for c in table.columns]
    column_words = {plural_stem(n) for n in cleaned if re.fullmatch(r"[a-z0-9]+", n)}
    column_names = sorted((n for n in cleaned if len(n) >= 2 and not re.fullmatch(r"[a-z0-9]+", n)), key=len, reverse=True)
    headings = []
    for name in names:
        text = _NUMBERING.sub("", normalize(name)).strip().lower()
        for word in (*column_names, *(f for f in _HEADING_FILLER if not f.isascii())):
            text = text.replace(word, " ")
        text = re.sub(r"[a-z0-9][a-z0-9+._-]*", lambda m: " " if plural_stem(m.group()) in column_words or m.group() in _HEADING_FILLER
                      else m.group(), text)
        if text := " ".join(text.split()):
            headings.append(text)
    return list(dict.fromkeys(headings))


def plural_stem(word: str) -> str:
    """An ASCII word without a plural ending ("agents" → "agent", "utilities" → "utility"), for matching a heading."""
    if word.isascii() and len(word) > 3:
        if word.endswith("ies"):
            return word[:-3] + "y"
        if word.endswith("s") and not word.endswith("ss"):
            return word[:-1]
    return word


def script_of(text: str) -> str:
    """"ja" (kana), "zh" (Han without kana) or "en": the script a question or a table's headers are written in."""
    if KANA_CHAR.search(text):
        return "ja"
    return "zh" if HAN_CHAR.search(text) else "en"


def same_data(one: StoredTable, other: StoredTable) -> bool:
    """Two tables holding the same data (a manual's table in two of its translations): the same rows, the same kinds
    of column and the same keys in their first text column."""
    if one.n_rows != other.n_rows or [c.kind for c in one.columns] != [c.kind for c in other.columns]:
        return False
    first = next((i for i, c in enumerate(one.columns) if c.kind == TEXT), None)
    return first is None or set(one.values.get(first, [])) == set(other.values.get(first, []))


def synonym_share(part: str, question: str) -> tuple[float, int]:
    """The share of a name part the question holds word by word, through the header dictionary (ASCII words) or
    piece by piece (CJK: the dictionary's terms found inside the part), and where the first held piece is named."""
    def named(term: str) -> int:
        direct = contains_term(question, term)
        if direct >= 0:
            return direct
        for group in SYNONYMS:
            if term in group:
                hits = [pos for other in group if (pos := contains_term(question, other)) >= 0]
                if hits:
                    return min(hits)
        return -1

    words = [w for w in re.split(r"[\s/_,.:;()\-]+", part) if w and w not in _NAME_STOPWORDS]
    if words and all(re.fullmatch(r"[a-z0-9²³]+", w) for w in words):
        found = [named(w) for w in words]
        held = [f for f in found if f >= 0]
        return (len(held) / len(words), min(held)) if held else (0.0, -1)
    covered = [False] * len(part)
    first = -1
    for group in SYNONYMS:
        for term in group:
            start = part.find(term)
            if start < 0 or len(term) < 2:
                continue
            at = named(term)
            if at >= 0:
                covered[start:start + len(term)] = [True] * len(term)
                first = at if first < 0 else min(first, at)
    meaningful = [c for c, ch in zip(covered, part, strict=True) if ch not in "のの的 "]
    return (sum(meaningful) / len(meaningful), first) if meaningful and any(meaningful) else (0.0, -1)


def clean_name(part: str) -> str:
    return re.sub(r"[(（\[][^()（）\[\]]*[)）\]]", "", part).strip()


def named_things(question: str, tokens: Sequence[str]) -> list[str]:
    """The question's key terms written as names: identifiers ("arm64", "/var/log/journal") or with a capital ("MSS",
    "Debian"); a lowercase word in a mixed question ("population … 関東") may be a column's translation."""
    def written_as_name(term: str) -> bool:
        if any(not c.isalpha() for c in term):
            return True
        lowercase = re.search(rf"(?<![A-Za-z]){re.escape(term)}(?![A-Za-z])", question)
        return lowercase is None
    return [term for term in key_terms(question, tokens) if written_as_name(term)]


def holds_all(table: StoredTable, terms: Sequence[str]) -> bool:
    """Whether each term is in the table's title, sheet, section, column names or text cells."""
    if not terms:
        return True
    text = normalize(" ".join([table.title, table.sheet or "", *table.section_path, *(c.name for c in table.columns),
                               *(v for values in table.values.values() for v in values)])).lower()
    return all(term in text for term in terms)
