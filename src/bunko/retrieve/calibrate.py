"""Choosing `max_distance` and `min_confidence` from a golden set instead of by guess.

For questions the documents answer ("should find"), the distance that matters
is the dense distance of the best *relevant* hit; for absent-answer questions
("should not find") it is the distance of the top hit, which any threshold must
reject. The suggested threshold is the one that best separates the two
(maximum balanced accuracy); the same is done for the answer grade's confidence.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import PurePosixPath
from typing import Protocol

import numpy as np

from bunko.schema import Answer, Hit


class Askable(Protocol):
    def search(self, query: str, k: int | None = None, filters: None = None, mode: str | None = None) -> list[Hit]: ...
    def ask(self, question: str) -> Answer: ...


class CalibrationItem(Protocol):
    """Read-only, so a frozen golden item (whose `absent` is derived from its type) satisfies it."""

    @property
    def question(self) -> str: ...
    @property
    def relevant_sources(self) -> tuple[str, ...]: ...
    @property
    def absent(self) -> bool: ...


@dataclass
class Calibration:
    should_find: list[float] = field(default_factory=list)
    should_not_find: list[float] = field(default_factory=list)
    confidence_answerable: list[float] = field(default_factory=list)
    confidence_absent: list[float] = field(default_factory=list)
    missed: int = 0
    """Answerable questions whose relevant source was not among the dense candidates at all."""

    @property
    def suggested_max_distance(self) -> float | None:
        return best_threshold(self.should_find, self.should_not_find, accept_below=True)

    @property
    def suggested_min_confidence(self) -> float | None:
        return best_threshold(self.confidence_answerable, self.confidence_absent, accept_below=False)


def best_threshold(positives: Sequence[float], negatives: Sequence[float], accept_below: bool) -> float | None:
    """Threshold with the best balanced accuracy; midway between neighbouring values."""
    if not positives or not negatives:
        return None
    values = sorted(set(positives) | set(negatives))
    candidates: list[float] = [values[0] - 1e-6] + [(a + b) / 2 for a, b in pairwise(values)] + [values[-1] + 1e-6]
    pos, neg = np.asarray(positives), np.asarray(negatives)

    def balanced(t: float) -> float:
        if accept_below:
            return float(np.mean(pos <= t) + np.mean(neg > t)) / 2
        return float(np.mean(pos >= t) + np.mean(neg < t)) / 2

    best = max(candidates, key=balanced)
    return round(best, 4)


def _matches(source: str, relevant: Iterable[str]) -> bool:
    name = PurePosixPath(source).name
    return any(source == r or name == r or source.endswith("/" + r) for r in relevant)


def calibrate(kb: Askable, items: Iterable[CalibrationItem], candidates: int = 50) -> Calibration:
    result = Calibration()
    for item in items:
        hits = [h for h in kb.search(item.question, k=candidates, mode="dense") if h.distance is not None]
        confidence = kb.ask(item.question).confidence
        if item.absent:
            if hits:
                result.should_not_find.append(hits[0].distance or 0.0)
            result.confidence_absent.append(confidence)
            continue
        relevant = [h for h in hits if _matches(h.chunk.source, item.relevant_sources)]
        if relevant:
            result.should_find.append(relevant[0].distance or 0.0)
        else:
            result.missed += 1
        result.confidence_answerable.append(confidence)
    return result


def percentiles(values: Sequence[float]) -> dict[str, float]:
    if not values:
        return {}
    array = np.asarray(values)
    return {f"p{q}": round(float(np.percentile(array, q)), 4) for q in (5, 25, 50, 75, 95)} | {"n": len(values)}
