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
    if min_score is not None:
        candidates = candidates[scores[candidates] > min_score]
    if candidates.size == 0:
        return []
    values = scores[candidates]
    if candidates.size > k:
        part = np.argpartition(-values, k - 1)[:k]
        candidates, values = candidates[part], values[part]
    order = np.lexsort((candidates, -values))
    return [(int(candidates[i]), float(values[i])) for i in order]
