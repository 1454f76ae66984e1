"""The named things of a text, found without an LLM: the nodes an entity graph links passages through.

GraphRAG's "fast" indexing and LazyGraphRAG found that noun phrases and their
co-occurrence carry most of what an LLM-extracted graph does, at a fraction of
the cost; and small LLMs extract next to nothing (LightRAG #1354). So an entity
here is what a rule can see:

- identifiers, commands, paths, package and file names (``apt-get``,
  ``/etc/fstab``, ``sources.list``, ``ext4``, ``--purge``): first-class
  entities, the strongest links in technical documents;
- English noun-phrase candidates: content words and adjacent pairs of them
  between stop words, and runs of capitalised words (``Apache HTTP Server``);
- Japanese compound nouns (SudachiPy's nouns when installed, else runs of
  kanji and katakana, which kana-written grammar separates);
- Chinese nouns (jieba's noun tags when installed, else runs between
  function characters, long runs as overlapping bigrams).

One thing is one node: `entity_key` folds width (NFKC), case, English plurals
and the optional long-vowel mark of katakana words (サーバー = サーバ), so the
spellings a document mixes merge. A key never loses the mention it came from:
each `Mention` keeps its surface form and character span in the chunk text.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from bisect import bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import pairwise
from typing import Any

from bunko.text.inflection import acronym, acronym_plural, singular
from bunko.text.lazy_regex import lazy_compile
from bunko.text.lexicon import en, ja, zh
from bunko.text.scripts import HAN, KANA_CHAR, KATAKANA

MAX_PHRASE_WORDS = 4
"""Capitalised runs longer than this are headings or titles, not names."""


@dataclass(frozen=True)
class Mention:
    """One occurrence of an entity: the key its spellings merge under, and where in the text it was written."""

    key: str
    surface: str
    start: int
    end: int


EntityExtractor = Callable[[str], list[Mention]]
"""text -> its mentions, in text order; the rule-based `extract_entities` or an LLM extractor behind the same call."""

STOPWORDS = en.STOPWORDS | en.ENTITY_STOPWORDS
"""Words that never make an entity alone or start or end one: grammar, and the verbs and adverbs of any manual."""

_PATH = r"~?/[\w.+@-]+(?:/[\w.+@*-]+)*/?"
_OPTION = r"--?[a-zA-Z][\w-]*"
_DOTTED = r"[A-Za-z0-9_+-]*[A-Za-z][A-Za-z0-9_+-]*(?:[._:][A-Za-z0-9_+-]+)+"
_HYPHENATED_CODE = r"[a-z0-9+]+(?:-[a-z0-9+]+)+|(?=[A-Za-z-]*\d)[A-Za-z0-9+]+(?:-[A-Za-z0-9+]+)+"
"""apt-get, libc6-dev, E-1024: lower case or holding a digit (a capitalised "Pre-installed" is a phrase)."""
_MIXED = r"(?=[A-Za-z]*\d)(?=\d*[A-Za-z])[A-Za-z0-9]{2,}(?:[_+][A-Za-z0-9]+)*"
_SNAKE = r"[A-Za-z0-9]+(?:_[A-Za-z0-9]+)+"
_TECHNICAL = lazy_compile(
    rf"(?<![A-Za-z0-9_/.~-])(?:{_PATH}|{_OPTION}|{_DOTTED}|{_SNAKE}|{_HYPHENATED_CODE}|{_MIXED})(?![A-Za-z0-9_/-])", re.ASCII
)
"""ASCII boundaries: in Japanese and Chinese text a path is followed by a Han letter, which `\\w` would count as part of it."""
_LATIN_WORD = lazy_compile(r"[A-Za-z][A-Za-z']*[A-Za-z]|[A-Za-z]")
_PHRASE_BREAK = lazy_compile(r"[^\sA-Za-z']")
_TRAILING_PUNCT = ".:,;'"

_KANJI_KATAKANA_RUN = lazy_compile(rf"[{HAN}{KATAKANA}々〆ヶ]{{2,}}")
_KATAKANA_LONG_VOWEL = lazy_compile(rf"(?<=[{KATAKANA}]{{3}})ー(?![{KATAKANA}])")
_HAN_RUN = lazy_compile(f"[{HAN}]+")
_CHINESE_FUNCTION_CHARS = lazy_compile(f"[{zh.FUNCTION_CHARACTERS}{zh.NOUN_RUN_BREAKS}]")
_CHINESE_NOUN_TAGS = ("n", "nr", "ns", "nt", "nz", "nw", "vn", "eng")


@lru_cache(maxsize=1 << 16)
def entity_key(surface: str, *, identifier: bool = False) -> str:
    """The node a spelling belongs to: width and case folded, whitespace collapsed, plurals and katakana long vowels dropped.

    Identifiers keep their punctuation (``apt-get`` is not ``apt get``) and their number (``debs`` is a name);
    a phrase's hyphens read as spaces (``pre-installed`` = ``pre installed``) and its last word is singular
    (`inflection.singular`: ``aliases`` = ``alias``, never ``alia``), unless written as an acronym (``DNS``, ``macOS``).
    A pure function of its spelling, memoised (bounded): a collection's words recur, and ingest keyed each mention anew.
    """
    written = " ".join(unicodedata.normalize("NFKC", surface).split()).strip(_TRAILING_PUNCT)
    key = written.casefold()
    if identifier:
        return key
    key = _KATAKANA_LONG_VOWEL.sub("", key.replace("-", " "))
    words = key.split(" ")
    last_written = written.replace("-", " ").split(" ")[-1]
    if acronym_plural(last_written):
        words[-1] = words[-1][:-1]
    elif not acronym(last_written):
        words[-1] = singular(words[-1])
    return " ".join(words)


def _technical(text: str) -> Iterator[Mention]:
    for match in _TECHNICAL.finditer(text):
        surface = match.group().rstrip(_TRAILING_PUNCT)
        if len(surface) < 2 or surface.isdigit():
            continue
        yield Mention(entity_key(surface, identifier=True), surface, match.start(), match.start() + len(surface))


def _english(text: str, taken: list[tuple[int, int]]) -> Iterator[Mention]:
    """Content words, adjacent pairs of them, and capitalised runs, outside the spans identifiers already took."""
    words = list(_LATIN_WORD.finditer(text))
    if taken:
        words = [m for m in words if not _inside(m.start(), taken)]
    run: list[re.Match[str]] = []
    capitalised: list[re.Match[str]] = []
    previous_end = -1
    for word in words:
        surface, start = word.group(), word.start()
        gap = text[previous_end:start] if previous_end >= 0 else ""
        previous_end = word.end()
        broken = bool(gap) and ("\n" in gap or bool(_PHRASE_BREAK.search(gap)))
        lower = surface.lower()
        content = _is_content(lower)
        if broken or not content:
            if len(run) > 1:
                yield from _pairs(text, run)
            run = []
        if content:
            run.append(word)
            yield Mention(entity_key(surface), surface, start, previous_end)
        is_capital = surface[0].isupper() and lower not in STOPWORDS
        if capitalised and (broken or not is_capital):
            yield from _proper(text, capitalised)
            capitalised = []
        if is_capital:
            capitalised.append(word)
    yield from _pairs(text, run)
    yield from _proper(text, capitalised)


def _is_content(word: str) -> bool:
    """A word that can name something: not grammar, and not an adverb (-ly) or a past participle (-ed), the words
    that otherwise pair with nouns into "easily confirm" or "administrators picked"."""
    if word in STOPWORDS or len(word) < 3:
        return False
    return len(word) < 5 or not word.endswith(("ly", "ed"))


def _pairs(text: str, run: list[re.Match[str]]) -> Iterator[Mention]:
    for first, second in pairwise(run):
        surface = text[first.start() : second.end()]
        yield Mention(entity_key(surface), surface, first.start(), second.end())


def _proper(text: str, run: list[re.Match[str]]) -> Iterator[Mention]:
    """A run of 3–4 capitalised words is one name (``Apache HTTP Server``); pairs are already content-word pairs."""
    if 3 <= len(run) <= MAX_PHRASE_WORDS:
        surface = text[run[0].start() : run[-1].end()]
        yield Mention(entity_key(surface), surface, run[0].start(), run[-1].end())


def _inside(position: int, spans: list[tuple[int, int]]) -> bool:
    """Whether `position` falls in one of `spans`, which are in text order and do not overlap (matches of one pattern)."""
    at = bisect_right(spans, (position, float("inf"))) - 1
    return at >= 0 and position < spans[at][1]


@cache
def _sudachi_dictionary() -> Any | None:
    try:
        from sudachipy import dictionary, tokenizer
    except ImportError:
        return None
    return dictionary.Dictionary(dict="core"), tokenizer.Tokenizer.SplitMode.C


_SUDACHI_PER_THREAD = threading.local()


def _sudachi() -> Any | None:
    """SudachiPy's tokenizer for this thread and its mode, or None without SudachiPy. One dictionary is shared; a
    tokenizer is not ("A Tokenizer instance cannot be used concurrently"): an ingest extracting entities and a search
    reading a question's entities run in two threads at once."""
    loaded = _sudachi_dictionary()
    if loaded is None:
        return None
    shared, mode = loaded
    segmenter = getattr(_SUDACHI_PER_THREAD, "segmenter", None)
    if segmenter is None:
        segmenter = _SUDACHI_PER_THREAD.segmenter = shared.tokenizer()
    return segmenter, mode


@cache
def _jieba_posseg() -> Any | None:
    try:
        import jieba
        import jieba.posseg
    except ImportError:
        return None
    jieba.setLogLevel(60)
    return jieba.posseg


def _japanese(text: str) -> Iterator[Mention]:
    """Compound nouns: SudachiPy's longest nouns (mode C) joined while they follow each other; else kanji/katakana runs."""
    if _sudachi() is None:
        for match in _KANJI_KATAKANA_RUN.finditer(text):
            yield Mention(entity_key(match.group()), match.group(), match.start(), match.end())
        return
    for match in _KANJI_KATAKANA_RUN.finditer(text):
        offset = match.start()
        for start, end in _japanese_nouns(match.group()):
            surface = text[offset + start : offset + end]
            yield Mention(entity_key(surface), surface, offset + start, offset + end)


@lru_cache(maxsize=1 << 14)
def _japanese_nouns(run: str) -> tuple[tuple[int, int], ...]:
    """The spans of a kanji/katakana run's mentions by SudachiPy, in the order they are yielded: the compounds, then
    (when a compound has several nouns) each noun. A pure function of the run, memoised (bounded): a collection's
    terms recur (a quarter of the runs of the Debian Reference's Japanese pages are distinct)."""
    analysed = _sudachi()
    assert analysed is not None
    segmenter, mode = analysed
    nouns: list[tuple[int, int]] = []
    for morpheme in segmenter.tokenize(run, mode):
        pos = morpheme.part_of_speech()
        if pos[0] in ja.SUDACHI_NOUNS and pos[1] not in ja.SUDACHI_SKIP_SUBTYPES:
            nouns.append((morpheme.begin(), morpheme.end()))
    spans = [(start, end) for start, end in _joined(nouns) if end - start >= 2]
    if len(nouns) > 1:
        spans += [(start, end) for start, end in nouns if end - start >= 2]
    return tuple(spans)


def _joined(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Adjacent spans merged: the nouns of one compound."""
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and merged[-1][1] == start:
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


def _chinese(text: str) -> Iterator[Mention]:
    posseg = _jieba_posseg()
    for run in _HAN_RUN.finditer(text):
        if posseg is None:
            yield from _chinese_fallback(run.group(), run.start())
            continue
        offset = run.start()
        for start, end in _chinese_nouns(run.group()):
            surface = text[offset + start : offset + end]
            yield Mention(entity_key(surface), surface, offset + start, offset + end)


@lru_cache(maxsize=1 << 14)
def _chinese_nouns(run: str) -> tuple[tuple[int, int], ...]:
    """The spans of a Han run's mentions by jieba's noun tags, in the order they are yielded: the joined nouns, then
    each noun not already one. A pure function of the run, memoised (bounded) as `_japanese_nouns` is."""
    posseg = _jieba_posseg()
    assert posseg is not None
    position, nouns = 0, []
    for word, flag in posseg.cut(run):
        if flag in _CHINESE_NOUN_TAGS and len(word) >= 2:
            nouns.append((position, position + len(word)))
        position += len(word)
    spans = _joined(nouns)
    return (*spans, *(n for n in nouns if n not in spans))


def _chinese_fallback(run: str, offset: int) -> Iterator[Mention]:
    """Without a dictionary: pieces between function characters; short pieces whole, long ones as bigrams."""
    position = 0
    for piece in _CHINESE_FUNCTION_CHARS.split(run):
        start = run.index(piece, position) if piece else position
        position = start + len(piece)
        if len(piece) < 2:
            continue
        if len(piece) <= 4:
            yield Mention(entity_key(piece), piece, offset + start, offset + position)
            continue
        for i in range(len(piece) - 1):
            yield Mention(entity_key(piece[i : i + 2]), piece[i : i + 2], offset + start + i, offset + start + i + 2)


def extract_entities(text: str) -> list[Mention]:
    """Every mention in `text`, in text order; Japanese when the text holds kana, Chinese when Han without kana."""
    technical = list(_technical(text))
    taken = [(m.start, m.end) for m in technical]
    mentions = [*technical, *_english(text, taken)]
    if KANA_CHAR.search(text):
        mentions.extend(_japanese(text))
    elif _HAN_RUN.search(text):
        mentions.extend(_chinese(text))
    return sorted((m for m in mentions if m.key), key=lambda m: (m.start, -m.end))


def entity_keys(text: str) -> list[str]:
    """The distinct keys of `text`'s mentions, in first-mention order: what a chunk is linked to in the graph."""
    return list(dict.fromkeys(m.key for m in extract_entities(text)))
