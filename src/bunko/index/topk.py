"""Top-k selection over a score vector, restricted to the rows a filter allows.

The filter mask is applied *before* selection, so a filtered search returns
k hits whenever k matching rows exist.
"""

from __future__ import annotations

import numpy as np


def top_k(scores: np.ndarray, k: int, allowed: np.ndarray | None = None, min_score: float | None = None) -> list[tuple[int, float]]:
    if scores.size == 0 or k <= 0:
        return []
    candidates = np.arange(scores.size) if allowed is None else np.flatnonzero(allowed)
    return top_k_of(candidates, scores[candidates], k, min_score=min_score)


def top_k_of(
    rows: np.ndarray, values: np.ndarray, k: int, allowed: np.ndarray | None = None, min_score: float | None = None
) -> list[tuple[int, float]]:
    """Top k of the given (row, value) pairs — e.g. only the rows a sparse retriever matched.

    Rows outside `allowed` (a mask over all rows) and values not above `min_score` are dropped
    before selection; ties go to the lower row, as in `top_k`.
    """
    if k <= 0 or rows.size == 0:
        return []
    if allowed is not None:
        keep = allowed[rows]
        rows, values = rows[keep], values[keep]
    if min_score is not None:
        keep = values > min_score
        rows, values = rows[keep], values[keep]
    if rows.size == 0:
        return []
    if rows.size > k:
        part = np.argpartition(-values, k - 1)[:k]
        rows, values = rows[part], values[part]
    order = np.lexsort((rows, -values))
    return [(int(rows[i]), float(values[i])) for i in order]
