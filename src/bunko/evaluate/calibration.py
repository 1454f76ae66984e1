"""Does an answer's confidence mean what it says? Expected calibration error and the reliability table of a run.

`Answer.confidence` claims the probability that the answer is right. For a question of a golden set,
*right* is:

- an absent question: never (no answer to it is right, so a well-calibrated claim is low);
- an answerable question with expected answers: the expected string is in the answer — or, when bunko
  abstained, in the passage it would have quoted (`Grade.quoted`, kept as `QuestionRecord.draft`). An
  abstention at confidence 0.3 on a question the quote would have answered counts as a right answer
  claimed at 0.3, so refusals are judged as claims too and not silently dropped.

Questions with neither (answerable without an expected answer), or whose ask failed, are left out.
ECE = Σ_bins (n_bin / n) · |mean confidence_bin − share right_bin| over ten equal-width bins
(`bunko.generate.confidence.expected_calibration_error`, the same function the fit is judged by).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from bunko.evaluate.bootstrap import Interval, percentile_interval
from bunko.evaluate.golden import GoldenItem
from bunko.evaluate.metrics import fact_match
from bunko.evaluate.records import QuestionRecord
from bunko.generate.confidence import expected_calibration_error

ECE = "ece"
Claim = tuple[float, float]
"""(confidence, 1.0 if right else 0.0) of one question."""


@dataclass
class Reliability:
    ece: float | None
    """None when no question could be judged."""
    questions: int
    bins: list[dict[str, float]] = field(default_factory=list)
    """Non-empty bins: low, high, count, confidence (mean), accuracy (share right)."""


def claim(item: GoldenItem, record: QuestionRecord) -> Claim | None:
    """The question's (confidence, right); None when rightness cannot be judged."""
    if record.error is not None:
        return None
    if item.absent:
        return (record.confidence, 0.0)
    if not item.expected_answers:
        return None
    said = record.draft if record.abstained else record.answer
    return (record.confidence, float(fact_match(said, item.expected_answers)))


def claims(items: Sequence[GoldenItem], records: Sequence[QuestionRecord]) -> list[Claim | None]:
    return [claim(item, record) for item, record in zip(items, records, strict=True)]


def reliability(judged: Sequence[Claim | None]) -> Reliability:
    pairs = [c for c in judged if c is not None]
    if not pairs:
        return Reliability(None, 0)
    ece, table = expected_calibration_error([p for p, _ in pairs], [y for _, y in pairs])
    return Reliability(round(ece, 4), len(pairs), table)


def _ece_of(rows: np.ndarray) -> float:
    """ECE of (confidence, right) rows; NaN rows are questions that cannot be judged."""
    rows = rows[~np.isnan(rows[:, 0])]
    return expected_calibration_error(rows[:, 0], rows[:, 1])[0] if len(rows) else float("nan")


def ece_difference(
    base: Sequence[Claim | None], other: Sequence[Claim | None], indices: np.ndarray, confidence: float = 0.95,
) -> Interval | None:
    """Paired-bootstrap CI of ECE(other) − ECE(base): the same resampled questions on both sides; None when a run
    has no claims aligned with the resampled questions."""
    if len(base) != indices.shape[1] or len(other) != indices.shape[1]:
        return None
    a = np.array([c if c is not None else (np.nan, np.nan) for c in base], dtype=float).reshape(-1, 2)
    b = np.array([c if c is not None else (np.nan, np.nan) for c in other], dtype=float).reshape(-1, 2)
    diff = _ece_of(b) - _ece_of(a)
    samples = np.array([_ece_of(b[row]) - _ece_of(a[row]) for row in indices])
    return percentile_interval(diff, samples, confidence)
