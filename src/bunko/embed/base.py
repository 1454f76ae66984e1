"""The embedder interface: texts in, L2-normalised float32 rows out."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np


class Embedder(Protocol):
    name: str
    """Recorded in the collection; a different name on reopen means re-embed."""
    dimension: int

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


def normalize_rows(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return matrix / norms


def embed_in_batches(texts: Sequence[str], batch_size: int, encode: Callable[[list[str]], np.ndarray], dimension: int) -> np.ndarray:
    """Length-sorted batches waste less padding; rows come back in the caller's order."""
    if not texts:
        return np.zeros((0, dimension), dtype=np.float32)
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    out = np.empty((len(texts), dimension), dtype=np.float32)
    for start in range(0, len(order), batch_size):
        rows = order[start : start + batch_size]
        out[rows] = encode([texts[i] for i in rows])
    return normalize_rows(out)
