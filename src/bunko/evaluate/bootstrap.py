"""Paired bootstrap confidence intervals for the difference between two configurations.

Why paired: both configurations answered the *same* questions, and questions differ far more
from each other than configurations do. Resampling question indices once and applying the same
indices to both runs keeps each question's difficulty on both sides, so the interval reflects
only the configurations' difference (Efron & Tibshirani 1993; Koehn 2004 for NLP use).

For each of B resamples (indices drawn with replacement from the n questions) the metric is
recomputed exactly as on the full set — Σ num / Σ den for ratio metrics, a percentile for
latencies — on both runs, and the difference b − a recorded. The interval is the
(α/2, 1 − α/2) percentile of those B differences; it excludes 0 when the difference is
unlikely to be resampling noise.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Interval:
    diff: float
    low: float
    high: float

    @property
    def significant(self) -> bool:
        """The interval excludes zero."""
        return self.low > 0 or self.high < 0


def resample_indices(n: int, resamples: int = 2000, seed: int = 0) -> np.ndarray:
    """A (resamples × n) matrix of question indices, drawn with replacement; one seed, reproducible reports."""
    return np.random.default_rng(seed).integers(0, n, size=(resamples, n))


def percentile_interval(diff: float, samples: np.ndarray, confidence: float) -> Interval | None:
    samples = samples[np.isfinite(samples)]
    if not np.isfinite(diff) or samples.size == 0:
        return None
    alpha = (1.0 - confidence) / 2.0
    low, high = np.percentile(samples, [100 * alpha, 100 * (1 - alpha)])
    return Interval(float(diff), float(low), float(high))


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray | float:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def ratio_difference(
    num_a: np.ndarray, den_a: np.ndarray, num_b: np.ndarray, den_b: np.ndarray, indices: np.ndarray, confidence: float = 0.95,
) -> Interval | None:
    """CI of (Σ num_b / Σ den_b) − (Σ num_a / Σ den_a); arrays are per question, aligned; None if undefined."""
    num_a, den_a, num_b, den_b = (np.asarray(x, dtype=float) for x in (num_a, den_a, num_b, den_b))
    diff = float(_ratio(num_b.sum(), den_b.sum()) - _ratio(num_a.sum(), den_a.sum()))
    samples = _ratio(num_b[indices].sum(1), den_b[indices].sum(1)) - _ratio(num_a[indices].sum(1), den_a[indices].sum(1))
    return percentile_interval(diff, np.asarray(samples), confidence)


def quantile_difference(
    values_a: np.ndarray, values_b: np.ndarray, q: float, indices: np.ndarray, confidence: float = 0.95,
) -> Interval | None:
    """CI of percentile_q(b) − percentile_q(a); NaN marks a question without a value."""
    values_a, values_b = np.asarray(values_a, dtype=float), np.asarray(values_b, dtype=float)
    if np.isnan(values_a).all() or np.isnan(values_b).all():
        return None
    diff = float(np.nanpercentile(values_b, q) - np.nanpercentile(values_a, q))
    with warnings.catch_warnings():  # a resample may draw only questions without a value: an all-NaN row
        warnings.simplefilter("ignore", RuntimeWarning)
        samples = np.nanpercentile(values_b[indices], q, axis=1) - np.nanpercentile(values_a[indices], q, axis=1)
    return percentile_interval(diff, samples, confidence)

