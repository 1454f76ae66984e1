"""The retrieval grade (the default): is the evidence enough to answer? A confidence in [0, 1] from retrieval signals.

Two signals, because each fails differently: dense similarity drifts upward for
any on-topic question, while idf-weighted keyword coverage is exact but blind
to paraphrase. Their sum, `similarity + COVERAGE_WEIGHT * coverage`, goes
through a logistic centred where the sample golden set separates answerable
from absent-answer questions (bench/sample_quality.py shows the distribution);
`[answer] min_confidence` is the abstention threshold on the result.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bunko.retrieve.coverage import keyword_coverage
from bunko.schema import Hit
from bunko.text.analyzers import Analyzer, cjk_bigrams, identifiers
from bunko.text.lazy_regex import lazy_compile
from bunko.text.lexicon import zh
from bunko.text.scripts import CJK_CHAR, HAN, HIRAGANA, KATAKANA


@dataclass
class RetrievalGrade:
    sufficient: bool
    confidence: float
    similarity: float
    coverage: float


RETRIEVAL_THRESHOLD = 0.5
"""The default `min_confidence` of this grade: its logistic is centred where the samples separate."""
COVERAGE_WEIGHT = 0.5
EVIDENCE_CENTER = 0.56
EVIDENCE_SCALE = 0.04


def _logistic(x: float, center: float, scale: float) -> float:
    return 1.0 / (1.0 + math.exp(-(x - center) / scale))


IDENTIFIER_CONFIDENCE = 0.8
"""Floor when every identifier of the question (E-1024, ERR_CONN_RESET) occurs in the evidence.

An exact code match is the strongest evidence there is, and the one that
embeddings and cross-language bigrams both miss."""


def grade(hits: list[Hit], similarity: float, coverage: float, min_confidence: float, identifiers_found: bool = False) -> RetrievalGrade:
    if not hits:
        return RetrievalGrade(False, 0.0, similarity, coverage)
    confidence = _logistic(similarity + COVERAGE_WEIGHT * coverage, EVIDENCE_CENTER, EVIDENCE_SCALE)
    if identifiers_found:
        confidence = max(confidence, IDENTIFIER_CONFIDENCE)
    return RetrievalGrade(confidence >= min_confidence, round(confidence, 4), similarity, coverage)


_HIRAGANA = lazy_compile(f"[{HIRAGANA}]")
_FUNCTION_CHARACTER = lazy_compile(
    f"[{HIRAGANA}]|[{zh.FUNCTION_CHARACTERS}{zh.QUESTION_FUNCTION_CHARACTERS}]"
)
"""Hiragana (Japanese particles and endings) and the Chinese characters of pronouns, particles, auxiliaries and
question words: a character pair holding one straddles a word boundary far more often than it is a word."""


_JAPANESE_WORD = lazy_compile(f"[{HAN}{KATAKANA}]{{2,}}")
"""A run of kanji or katakana: in Japanese, where hiragana separates the words, a word or a compound."""


def junction_pairs(
    question: str, tokens: Sequence[str], weights: Mapping[str, float] | None, unseen_idf: float | None,
) -> set[str]:
    """The question's CJK character pairs that no passage of the collection holds (their idf is `unseen_idf`, the
    store's idf of `retrieve.base.UNSEEN_PROBE`) and that hold a function character: pairs across a word boundary of a
    conversational question (我还, 但听, 说有, のです), which no passage could cover. They were half of a chatty Chinese
    question's weight, and its grade said "absent" with the answering passage first. A pair of content characters the
    collection lacks (退職金's 職金) is a word it does not hold and stays, as does a Latin word (a name it does not know);
    and when a Japanese question names a word the collection never writes (駐車場: each of its pairs unseen), its
    junctions stay too: that question is about something the documents lack, however it is phrased."""
    if not weights or unseen_idf is None:
        return set()
    unseen = {t for t in tokens if CJK_CHAR.search(t) and weights.get(t, 0.0) >= unseen_idf - 1e-9}
    if _HIRAGANA.search(question) and any(set(cjk_bigrams(word)) <= unseen for word in _JAPANESE_WORD.findall(question)):
        return set()
    return {t for t in unseen if _FUNCTION_CHARACTER.search(t)}


GRADE_DEPTH = 3
"""The grade looks at the best few hits: the answer, when present, is near the top after rerank."""


def grade_hits(
    hits: list[Hit], query_tokens: list[str], weights: Mapping[str, float] | None, analyzer: Analyzer, min_confidence: float,
) -> RetrievalGrade:
    """Grade the best of the top hits, each on its own similarity and coverage, and whether every identifier was found.

    Similarity and coverage are taken from the same hit: one chunk close in meaning and
    another holding the question's words do not add up to evidence for an absent answer.
    """
    top = hits[:GRADE_DEPTH]
    top_tokens = [set(analyzer(h.chunk.embed_text)) for h in top]
    scored = [(1.0 - h.distance if h.distance is not None else 0.0, keyword_coverage(query_tokens, tokens, weights))
              for h, tokens in zip(top, top_tokens, strict=True)]
    similarity, coverage = max(scored, key=lambda pair: pair[0] + COVERAGE_WEIGHT * pair[1], default=(0.0, 0.0))
    codes = identifiers(query_tokens)
    codes_found = bool(codes) and any(codes <= tokens for tokens in top_tokens)
    return grade(hits, similarity, coverage, min_confidence, codes_found)
