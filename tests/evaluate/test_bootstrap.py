"""Paired bootstrap: no difference gives a zero interval; a real one excludes zero; noise does not."""

from __future__ import annotations

import numpy as np

from bunko.evaluate.bootstrap import quantile_difference, ratio_difference, resample_indices


def test_identical_runs_have_a_zero_interval() -> None:
    rng = np.random.default_rng(1)
    scores = rng.integers(0, 2, 60).astype(float)
    ones = np.ones(60)
    interval = ratio_difference(scores, ones, scores, ones, resample_indices(60, 500))
    assert interval is not None and (interval.diff, interval.low, interval.high) == (0.0, 0.0, 0.0)
    assert not interval.significant


def test_a_consistent_improvement_is_significant_because_pairs_are_kept() -> None:
    # b answers the same questions as a plus 12 of the 60 that a missed: +0.2 in every resample's pairing.
    a = np.array([1.0] * 30 + [0.0] * 30)
    b = a.copy()
    b[30:42] = 1.0
    ones = np.ones(60)
    interval = ratio_difference(a, ones, b, ones, resample_indices(60, 2000, seed=3))
    assert interval is not None and abs(interval.diff - 0.2) < 1e-12
    assert interval.significant and 0.05 < interval.low < 0.2 < interval.high < 0.35


def test_swapped_answers_are_not_significant() -> None:
    # same score overall, different questions right: the mean difference is 0 and the interval spans it
    a = np.array([1.0, 0.0] * 30)
    b = np.array([0.0, 1.0] * 30)
    ones = np.ones(60)
    interval = ratio_difference(a, ones, b, ones, resample_indices(60, 2000))
    assert interval is not None and interval.diff == 0.0 and interval.low < 0 < interval.high
    assert not interval.significant


def test_ratio_metrics_resample_numerators_and_denominators_together() -> None:
    # abstention precision: (right abstentions) / (abstentions); questions without an abstention add 0 / 0
    num_a, den_a = np.array([1.0, 0.0, 0.0, 0.0]), np.array([1.0, 1.0, 0.0, 0.0])
    num_b, den_b = np.array([1.0, 0.0, 0.0, 0.0]), np.array([1.0, 0.0, 0.0, 0.0])
    interval = ratio_difference(num_a, den_a, num_b, den_b, resample_indices(4, 500))
    assert interval is not None and interval.diff == 0.5  # 1/1 - 1/2


def test_a_metric_that_applies_to_no_question_has_no_interval() -> None:
    zeros = np.zeros(3)
    assert ratio_difference(zeros, zeros, zeros, zeros, resample_indices(3, 100)) is None


def test_latency_quantiles() -> None:
    a = np.array([0.10, 0.20, 0.30, 0.40, np.nan])
    b = a + 0.05
    interval = quantile_difference(a, b, 50.0, resample_indices(5, 500))
    assert interval is not None and abs(interval.diff - 0.05) < 1e-12
    assert quantile_difference(np.full(3, np.nan), np.ones(3), 50.0, resample_indices(3, 10)) is None
