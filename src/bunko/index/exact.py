"""Exact dense search: one matrix-vector product over a normalised float32 matrix, then top-k.

Exact up to `ann_threshold` rows (and for small filtered subsets at any size): at 10k rows
one product takes under a millisecond on one core, and it never misses a neighbour.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bunko.index.topk import top_k

SUBSET_SHARE = 0.25
"""Below this share of rows allowed by a filter, only those rows are multiplied: cheaper than the full product."""


class ExactIndex:
    def __init__(self, vectors: np.ndarray) -> None:
        self.vectors = vectors
        self._blas: Any = None
        self._last_scores: tuple[bytes, np.ndarray] | None = None

    def search(self, query: np.ndarray, k: int, allowed_rows: np.ndarray | None) -> list[tuple[int, float]]:
        if allowed_rows is not None and int(allowed_rows.sum()) < len(self.vectors) * SUBSET_SHARE:
            rows = np.flatnonzero(allowed_rows)
            with self._single_blas_thread():
                subset = self.vectors[rows] @ query
            return [(int(rows[i]), s) for i, s in top_k(subset, k)]
        with self._single_blas_thread():
            scores = self.vectors @ query
        self._last_scores = (query.tobytes(), scores)
        return top_k(scores, k, allowed_rows)

    def cosines(self, rows: np.ndarray, query: np.ndarray) -> np.ndarray:
        """Cosines of some rows with the query: from the full search this query just ran when there was one
        (one product over 11k x 512 floats costs about 4 ms here, as much as the search), else computed."""
        if (scores := self._scores_of(query)) is not None:
            return scores[rows]
        with self._single_blas_thread():
            return self.vectors[rows] @ query

    def span_cosines(self, starts: np.ndarray, ends: np.ndarray, query: np.ndarray) -> np.ndarray:
        """Cosines of the rows of spans [start, end), concatenated: the rows of whole documents.

        Without the last search's scores, one product per span over a view of the matrix: gathering
        20k scattered rows first copied 40 MB and took most of a hybrid search at 100k chunks.
        """
        if (scores := self._scores_of(query)) is not None:
            return np.concatenate([scores[start:end] for start, end in zip(starts.tolist(), ends.tolist(), strict=True)])
        with self._single_blas_thread():
            return np.concatenate([self.vectors[start:end] @ query for start, end in zip(starts.tolist(), ends.tolist(), strict=True)])

    def _scores_of(self, query: np.ndarray) -> np.ndarray | None:
        """Every row's score for `query` when the last full search was for it: the product need not run again."""
        if self._last_scores is not None and self._last_scores[0] == query.tobytes():
            return self._last_scores[1]
        return None

    def _single_blas_thread(self) -> Any:
        """One matrix-vector product is too small to share: OpenBLAS waking a second thread made
        a 10k-row search 3-12 ms instead of 0.8 ms on 2 cores (bench/results/retrieval.md, blas1 rows)."""
        if self._blas is None:
            from threadpoolctl import ThreadpoolController

            self._blas = ThreadpoolController()
        return self._blas.limit(limits=1, user_api="blas")
