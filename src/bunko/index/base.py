"""The two narrow interfaces every in-memory search structure implements, over rows numbered 0..n-1.

Rows, not chunk ids: an index knows nothing of documents, filters or stores. A store maps its
chunks to rows, turns a filter into a boolean row mask, and asks the index for the best rows
within it; fusion sits above, in `retrieve/`. PostgreSQL runs the same searches in SQL
(pgvector and `index/bm25_formula.sql_term_score`), where the filter is a WHERE clause.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np


class DenseIndex(Protocol):
    """Rows by inner product with a query vector (cosine: rows and queries are normalised)."""

    def search(self, query: np.ndarray, k: int, allowed_rows: np.ndarray | None) -> list[tuple[int, float]]:
        """The top k rows, best first; `allowed_rows` is a boolean mask over rows (None = every row)."""
        ...


class KeywordIndex(Protocol):
    """Rows by BM25 against query tokens."""

    @property
    def size(self) -> int: ...

    def matches(self, query_tokens: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """The rows holding any query token, and their scores (rows without one score 0 and are left out)."""
        ...

    def scores(self, query_tokens: Sequence[str]) -> np.ndarray:
        """Every row's score."""
        ...

    def terms_in_rows(self, rows: Sequence[int], query_tokens: Sequence[str]) -> list[set[str]]:
        """Which query tokens each of `rows` holds."""
        ...

    def term_matrix(self, rows: Sequence[int], query_tokens: Sequence[str]) -> tuple[list[str], np.ndarray]:
        """The distinct query tokens the index knows, and whether each of `rows` holds each (rows × terms)."""
        ...

    def idf(self, tokens: Sequence[str]) -> dict[str, float]: ...
