"""Is the evidence enough to answer? A confidence in [0, 1] from retrieval signals.

Two independent signals, because each fails differently: dense similarity
drifts upward for any on-topic question, while keyword coverage is exact but
blind to paraphrase. Confidence is the larger of the two calibrated scores;
`min_confidence` in bunko.toml is the abstention threshold.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from bunko.schema import Hit


@dataclass
class Grade:
    sufficient: bool
    confidence: float
    similarity: float
    coverage: float


SIMILARITY_CENTER = 0.40
SIMILARITY_SCALE = 0.06
COVERAGE_CENTER = 0.55
COVERAGE_SCALE = 0.10


def _logistic(x: float, center: float, scale: float) -> float:
    return 1.0 / (1.0 + math.exp(-(x - center) / scale))


def keyword_coverage(query_tokens: list[str], text_tokens: set[str]) -> float:
    distinct = set(query_tokens)
    if not distinct:
        return 0.0
    return len(distinct & text_tokens) / len(distinct)


def grade(hits: list[Hit], similarity: float, coverage: float, min_confidence: float) -> Grade:
    if not hits:
        return Grade(False, 0.0, similarity, coverage)
    confidence = max(
        _logistic(similarity, SIMILARITY_CENTER, SIMILARITY_SCALE), _logistic(coverage, COVERAGE_CENTER, COVERAGE_SCALE)
    )
    return Grade(confidence >= min_confidence, round(confidence, 4), similarity, coverage)
