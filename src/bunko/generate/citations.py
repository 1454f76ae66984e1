"""The citation check: every sentence of a model's answer is held against the chunks it cites.

The answer is split into sentences the way documents are (。！？ as well as
. ! ?, `bunko.text.sentences`); ``[n]`` markers become citations of source
n. A marker standing at the start of a sentence ("…です。[1]" splits as
"…です。" + "[1]") belongs to the sentence before it.

A sentence is *supported* when its cited chunks back it up by either of two
signals, and every number it states appears in them:

- lexical: the share of the sentence's keyword tokens (CJK bigrams, words)
  found in the cited chunks — high for quotes and close paraphrases;
- semantic: the best cosine between the sentence and any sentence or row of
  the cited chunks — catches paraphrase and a Japanese answer citing an
  English source, where no token is shared.

Numbers are checked separately because "上限は15,000円です" against a chunk
saying 12,000円 shares almost every token and most of the meaning, and is
exactly the error that matters. The thresholds are calibrated by
``bench/bench_answers.py`` (section "calibration") on the sample documents:
answer-like sentences against the chunk that holds their fact versus against
the best-ranked chunk of another document.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from bunko.embed.base import Embedder
from bunko.schema import Chunk, Hit
from bunko.text.analyzers import Analyzer
from bunko.text.lazy_regex import lazy_compile
from bunko.text.lexicon import en, zh
from bunko.text.scripts import HIRAGANA
from bunko.text.sentences import split_sentences
from bunko.text.units import split_units

LEXICAL_MIN = 0.7
"""Share of a sentence's content tokens that must occur in its cited chunks (see the module docstring)."""
SEMANTIC_MIN = 0.55
"""Cosine (USE multilingual) between the sentence and its best-matching cited unit.

Calibration (bench/results/answers.md): claims against the chunk holding their fact have medians
lexical 0.78 / semantic 0.62, against another document's best chunk 0.14 / 0.35. With these two
thresholds and the number check, 90% of supported claims pass, every other-document claim and 93%
of claims with a changed number fail. Another embedder shifts the cosine scale: re-run the bench."""

SUPPORTED, UNSUPPORTED, UNCITED = "supported", "unsupported", "uncited"

_MARKER = lazy_compile(r"\s?[\[［【]\s*(\d{1,3}(?:\s*[,，、]\s*\d{1,3})*)\s*[\]］】]")


def without_markers(text: str) -> str:
    """`text` with its citation markers ([1], ［2］, 【1, 3】) taken out."""
    return _MARKER.sub("", text)


_LEADING_MARKERS = lazy_compile(r"^(?:\s*[\[［【]\s*\d{1,3}(?:\s*[,，、]\s*\d{1,3})*\s*[\]］】])+")
_NUMBER = lazy_compile(r"\d+(?:[.,]\d+)*")
_FUNCTION_CHARS = lazy_compile(f"[{HIRAGANA}{zh.FUNCTION_CHARACTERS}{zh.CITATION_FUNCTION_CHARACTERS}]")
"""Hiragana (Japanese particles and endings) and Chinese function characters: a bigram holding one is grammar, not content."""


def content_tokens(tokens: list[str]) -> set[str]:
    """Tokens that carry meaning: bigrams of grammar (の宿, です, 的年) would make any Japanese sentence look unsupported."""
    kept = {t for t in tokens if not _FUNCTION_CHARS.search(t)}
    return kept or set(tokens)


@dataclass
class CheckedSentence:
    text: str
    """Without its markers."""
    source_ids: list[int] = field(default_factory=list)
    """Valid 1-based source ids cited by the sentence."""
    invalid_ids: list[int] = field(default_factory=list)
    lexical: float = 0.0
    semantic: float = 0.0
    numbers_ok: bool = True
    verdict: str = UNCITED
    quotes: dict[int, str] = field(default_factory=dict)
    """Per cited source id, its unit that best matches the sentence (the citation's quote)."""

    @property
    def support(self) -> float:
        return round(max(self.lexical, self.semantic), 4)


def _ids(group: str) -> list[int]:
    return [int(n) for n in re.findall(r"\d+", group)]


def parse_sentences(answer: str) -> list[tuple[str, list[int]]]:
    """(sentence without markers, cited ids in order) for each sentence of the answer."""
    parsed: list[tuple[str, list[int]]] = []
    for raw in split_sentences(answer.strip()):
        leading = _LEADING_MARKERS.match(raw)
        if leading and parsed:
            parsed[-1][1].extend(i for i in _ids(leading.group()) if i not in parsed[-1][1])
            raw = raw[leading.end():]
        ids: list[int] = []
        for match in _MARKER.finditer(raw):
            ids.extend(i for i in _ids(match.group(1)) if i not in ids)
        text = _MARKER.sub("", raw).strip()
        text = re.sub(r"\s+([.,;:!?。、，；：！？])", r"\1", text)
        if text and re.search(r"\w", text):
            parsed.append((text, ids))
        elif ids and parsed:
            parsed[-1][1].extend(i for i in ids if i not in parsed[-1][1])
    return parsed


_NUMERALS = {**zh.NUMERAL_DIGITS, **en.NUMERAL_DIGITS}
_NUMERAL = lazy_compile(f"[{''.join(zh.NUMERAL_DIGITS)}]" + r"|\b(?:" + "|".join(k for k in _NUMERALS if k.isascii()) + r")\b", re.IGNORECASE)


def numbers(text: str) -> set[str]:
    """Numbers as written, without thousands separators: "12,000" and "12000" are the same number."""
    folded = unicodedata.normalize("NFKC", text)
    return {n.replace(",", "") for n in _NUMBER.findall(folded)}


def stated_numbers(sentence: str) -> set[str]:
    """The numbers a sentence asserts. "1" is left out: "1泊", "1分あたり", "per 1 user" restate a unit, not a fact."""
    return numbers(sentence) - {"1"}


def source_numbers(text: str) -> set[str]:
    """Numbers in a source, including small ones spelled out (三家, three suppliers) that an answer may write as digits."""
    return numbers(text) | {_NUMERALS[m.group().lower()] for m in _NUMERAL.finditer(text)}


class CitationChecker:
    def __init__(
        self, embedder: Embedder, analyzer: Analyzer, lexical_min: float = LEXICAL_MIN, semantic_min: float = SEMANTIC_MIN,
        lazy: bool = True,
    ) -> None:
        """`lazy` skips embedding sentences that the lexical signal already backs (calibration turns it off)."""
        self.lazy = lazy
        self.embedder = embedder
        self.analyzer = analyzer
        self.lexical_min = lexical_min
        self.semantic_min = semantic_min

    def check(self, answer: str, hits: Sequence[Hit]) -> list[CheckedSentence]:
        """Each sentence with its valid citations, support signals and verdict; `hits[n-1]` is source n."""
        return self.check_sentences(parse_sentences(answer), hits)

    def check_sentences(self, sentences: Sequence[tuple[str, list[int]]], hits: Sequence[Hit]) -> list[CheckedSentence]:
        """Like `check`, for sentences already split (a stream, or extractive units)."""
        checked = []
        for text, ids in sentences:
            valid = [i for i in ids if 1 <= i <= len(hits)]
            checked.append(CheckedSentence(text, valid, [i for i in ids if i not in valid]))
        cited = [c for c in checked if c.source_ids]
        if cited:
            self._score(cited, hits)
        return checked

    def attribute(self, sentence: str, hits: Sequence[Hit]) -> CheckedSentence | None:
        """A sentence that cites nothing, held against each source alone: the source that backs it best, by the same
        check and thresholds as a cited sentence, or None when none does.

        Small local models write the documents' facts but rarely the ``[n]`` marks; the citation a reader needs is
        then the source the check finds, never a guess: a sentence no source backs stays uncited."""
        candidates = [CheckedSentence(sentence, [i]) for i in range(1, len(hits) + 1)]
        if not candidates:
            return None
        self._score(candidates, hits)
        backed = [c for c in candidates if c.verdict == SUPPORTED]
        return max(backed, key=lambda c: (c.support, -c.source_ids[0])) if backed else None

    def support(self, sentence: str, chunks_text: Sequence[str]) -> CheckedSentence:
        """Check one sentence against explicit texts (for tests and calibration)."""
        hits = [Hit(Chunk(f"t#{i}", "t", "t", i, t, t), 0.0) for i, t in enumerate(chunks_text)]
        item = CheckedSentence(sentence, list(range(1, len(hits) + 1)))
        self._score([item], hits)
        return item

    def _score(self, items: list[CheckedSentence], hits: Sequence[Hit]) -> None:
        """Lexical first; only sentences it does not settle are embedded (quotes, as from extractive, never are)."""
        needed = sorted({i for item in items for i in item.source_ids})
        units = {i: split_units(hits[i - 1].chunk.text) or [hits[i - 1].chunk.text] for i in needed}
        unit_tokens = {i: [set(self.analyzer(u)) for u in units[i]] for i in needed}
        tokens = {i: set(self.analyzer(hits[i - 1].chunk.embed_text)) for i in needed}
        for item in items:
            sentence_tokens = content_tokens(self.analyzer(item.text))
            cited_tokens = set().union(*(tokens[i] for i in item.source_ids))
            item.lexical = round(len(sentence_tokens & cited_tokens) / len(sentence_tokens), 4) if sentence_tokens else 0.0
            cited_text = " ".join(hits[i - 1].chunk.text for i in item.source_ids)
            item.numbers_ok = stated_numbers(item.text) <= source_numbers(cited_text)
            for i in item.source_ids:
                overlaps = [len(sentence_tokens & t) for t in unit_tokens[i]]
                item.quotes[i] = units[i][int(np.argmax(overlaps))] if overlaps else hits[i - 1].chunk.text
        unsettled = [item for item in items if not self.lazy or (item.lexical < self.lexical_min and item.numbers_ok)]
        if unsettled:
            wanted = sorted({i for item in unsettled for i in item.source_ids})
            flat = [(i, u) for i in wanted for u in units[i]]
            vectors = self.embedder.embed([item.text for item in unsettled] + [u for _, u in flat])
            sentence_vectors, unit_vectors = vectors[: len(unsettled)], vectors[len(unsettled):]
            owner = np.array([i for i, _ in flat])
            for item, vector in zip(unsettled, sentence_vectors, strict=True):
                mask = np.isin(owner, item.source_ids)
                if not mask.any():
                    continue
                similarities = unit_vectors[mask] @ vector
                item.semantic = round(float(similarities.max()), 4)
                best_owner, best_unit = [flat[j] for j in np.flatnonzero(mask)][int(np.argmax(similarities))]
                item.quotes[best_owner] = best_unit
        for item in items:
            backed = item.lexical >= self.lexical_min or item.semantic >= self.semantic_min
            item.verdict = SUPPORTED if backed and item.numbers_ok else UNSUPPORTED
