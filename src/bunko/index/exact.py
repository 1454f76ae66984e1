"""Exact dense search: one matrix-vector product over a normalised float32 matrix, then top-k.

Exact up to `ann_threshold` rows (and for small filtered subsets at any size): at 10k rows
one product takes under a millisecond on one core, and it never misses a neighbour.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bunko.index.topk import top_k

KEPT_SPAN_ROWS = 65_536
"""Span cosines kept for one query at most (256 kB); past it they are dropped and computed again."""
SUBSET_SHARE = 0.25
"""Below this share of rows allowed by a filter, only those rows are multiplied: cheaper than the full product."""


class ExactIndex:
    def __init__(self, vectors: np.ndarray) -> None:
        self.vectors = vectors
        self._blas: Any = None
        self._last_scores: tuple[bytes, np.ndarray] | None = None
        self._span_scores: tuple[bytes, dict[tuple[int, int], np.ndarray], int] | None = None
        """The query the kept span cosines are for, them by (start, end), and how many rows they hold."""

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
        20k scattered rows first copied 40 MB and took most of a hybrid search at 100k chunks. Each
        span's cosines are kept for the rest of the query: hybrid search asks for the best documents'
        spans (document keyword search) and then for every candidate's document, which holds them;
        a span is always one product over the same rows, so a kept one is bit for bit a new one.
        """
        spans = list(zip(starts.tolist(), ends.tolist(), strict=True))
        if not spans:
            return np.zeros(0, dtype=np.float32)
        if (scores := self._scores_of(query)) is not None:
            return np.concatenate([scores[start:end] for start, end in spans])
        key = query.tobytes()
        if self._span_scores is None or self._span_scores[0] != key or self._span_scores[2] > KEPT_SPAN_ROWS:
            self._span_scores = (key, {}, 0)
        kept = self._span_scores[1]
        missing = [span for span in dict.fromkeys(spans) if span not in kept]
        if missing:
            with self._single_blas_thread():
                kept.update((span, self.vectors[span[0] : span[1]] @ query) for span in missing)
            self._span_scores = (key, kept, self._span_scores[2] + sum(end - start for start, end in missing))
        return np.concatenate([kept[span] for span in spans])

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
