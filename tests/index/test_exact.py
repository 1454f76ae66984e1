"""Exact dense search: the top k rows by cosine, within a filter mask, whichever path the mask size takes."""

from __future__ import annotations

import numpy as np
import pytest

from bunko.index.base import DenseIndex
from bunko.index.exact import SUBSET_SHARE, ExactIndex


def _unit(rows: int, seed: int) -> np.ndarray:
    x = np.random.default_rng(seed).standard_normal((rows, 32))
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def _expected(vectors: np.ndarray, query: np.ndarray, k: int, allowed: np.ndarray | None) -> list[int]:
    scores = vectors @ query
    if allowed is not None:
        scores = np.where(allowed, scores, -np.inf)
    return [int(i) for i in np.argsort(-scores, kind="stable")[:k] if np.isfinite(scores[i])]


@pytest.mark.parametrize("share", [None, 0.05, 0.6])  # no filter, a small subset (its own product), a large one (a mask)
def test_exact_search_returns_the_true_top_rows_within_the_filter(share: float | None) -> None:
    vectors = _unit(2000, seed=0)
    index: DenseIndex = ExactIndex(vectors)
    allowed = None if share is None else np.random.default_rng(1).random(len(vectors)) < share
    if share is not None:
        assert (allowed.sum() < SUBSET_SHARE * len(vectors)) == (share < SUBSET_SHARE)
    for query in _unit(20, seed=2):
        found = index.search(query, 10, allowed)
        assert [row for row, _ in found] == _expected(vectors, query, 10, allowed)
        assert all(score == pytest.approx(float(vectors[row] @ query), abs=1e-5) for row, score in found)


def test_cosines_after_a_search_reuse_its_scores_and_match_a_fresh_product() -> None:
    vectors = _unit(500, seed=3)
    index = ExactIndex(vectors)
    query = _unit(1, seed=4)[0]
    rows = np.array([3, 141, 499])
    fresh = index.cosines(rows, query)
    index.search(query, 5, None)
    assert np.allclose(index.cosines(rows, query), fresh, atol=1e-6)
    assert np.allclose(fresh, vectors[rows] @ query, atol=1e-6)


def test_span_cosines_are_the_cosines_of_the_spans_rows_with_or_without_a_search_before() -> None:
    vectors = _unit(300, seed=5)
    query = _unit(1, seed=6)[0]
    starts, ends = np.array([0, 40, 250]), np.array([10, 41, 300])
    rows = np.concatenate([np.arange(a, b) for a, b in zip(starts, ends, strict=True)])
    index = ExactIndex(vectors)
    assert np.allclose(index.span_cosines(starts, ends, query), vectors[rows] @ query, atol=1e-6)
    index.search(query, 5, None)
    assert np.allclose(index.span_cosines(starts, ends, query), vectors[rows] @ query, atol=1e-6)


def test_span_cosines_kept_for_a_query_are_bit_for_bit_new_ones_and_never_another_querys() -> None:
    vectors = _unit(400, seed=7)
    first, second = _unit(2, seed=8)
    index = ExactIndex(vectors)
    starts, ends = np.array([0, 37, 200]), np.array([37, 100, 203])
    fresh = [vectors[a:b] @ first for a, b in zip(starts, ends, strict=True)]
    index.span_cosines(starts[1:], ends[1:], first)  # two spans kept, the first one not
    np.testing.assert_array_equal(index.span_cosines(starts, ends, first), np.concatenate(fresh))
    np.testing.assert_array_equal(
        index.span_cosines(starts, ends, second), np.concatenate([vectors[a:b] @ second for a, b in zip(starts, ends, strict=True)])
    )
    assert index.span_cosines(starts[:0], ends[:0], second).size == 0
