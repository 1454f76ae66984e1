"""Per-segment selections over concatenated values (a document's rows are one segment): the maximum's
position and the mean of the largest few, without a Python loop over segments."""

from __future__ import annotations

import numpy as np
import pytest

from bunko.index.topk import segment_argmax, segment_top_means


def _sorted_within_segments(values: np.ndarray, lengths: np.ndarray, count: int) -> np.ndarray:
    """The computation segment_top_means replaced: a lexsort within segments, the first `count` of each picked,
    summed by np.bincount."""
    segment = np.repeat(np.arange(len(lengths)), lengths)
    order = np.lexsort((-values, segment))
    first = np.r_[0, np.cumsum(lengths)[:-1]]
    taken = np.minimum(lengths, count)
    picks = np.repeat(first, taken) + (np.arange(int(taken.sum())) - np.repeat(np.cumsum(np.r_[0, taken[:-1]]), taken))
    sums = np.bincount(np.repeat(np.arange(len(lengths)), taken), weights=values[order][picks], minlength=len(lengths))
    return sums / taken


def _segments(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Float32 cosines in segments of 1 to 9 values, a third of them repeats (ties), some negative."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, 10, size=200)
    values = rng.uniform(-0.3, 1.0, int(lengths.sum())).astype(np.float32)
    repeats = rng.random(len(values)) < 0.3
    values[repeats] = rng.choice(values[:20], int(repeats.sum()))
    return values, lengths


@pytest.mark.parametrize("count", [1, 2, 3, 5])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_segment_top_means_add_exactly_what_a_sort_within_segments_adds(count: int, seed: int) -> None:
    values, lengths = _segments(seed)
    found = segment_top_means(values, lengths, count)
    np.testing.assert_array_equal(found, _sorted_within_segments(values, lengths, count))  # bit for bit, ties and short segments too
    np.testing.assert_array_equal(found.astype(np.float32), _sorted_within_segments(values, lengths, count).astype(np.float32))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_segment_argmax_is_each_segments_first_maximum(seed: int) -> None:
    values, lengths = _segments(seed)
    values[:3] = -np.inf  # a segment whose rows a filter hid entirely still names its first row
    starts = np.r_[0, np.cumsum(lengths)[:-1]]
    expected = [start + int(np.argmax(values[start : start + length])) for start, length in zip(starts, lengths, strict=True)]
    assert segment_argmax(values, lengths).tolist() == expected


def test_segments_must_be_non_empty_and_cover_the_values() -> None:
    values = np.array([0.1, 0.2, 0.3], dtype=np.float32)
    with pytest.raises(ValueError, match="positive"):
        segment_top_means(values, np.array([2, 0, 1]), 3)
    with pytest.raises(ValueError, match="cover"):
        segment_argmax(values, np.array([1, 1]))
    with pytest.raises(ValueError, match="NaN"):
        segment_top_means(np.array([0.1, np.nan], dtype=np.float32), np.array([2]), 3)
    assert segment_top_means(values[:0], np.zeros(0, dtype=np.int64), 3).size == 0
