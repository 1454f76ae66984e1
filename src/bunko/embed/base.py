"""The embedder interface: texts in, L2-normalised float32 rows out.

Asymmetric models (e5, bge, many served over HTTP) embed a search query
differently from a stored passage. Such an embedder also has
``embed_query(texts)``; ``embed`` is always the passage side. Callers that embed
a query go through `embed_queries`, so symmetric embedders (USE) and test fakes
need not implement anything beyond ``embed``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from bunko.errors import BunkoError


class EmbedderError(BunkoError):
    """An embedder failed: server down, bad response, missing model or package.

    The message is one line naming what failed (a URL, a folder, a package),
    because the ingest pipeline shows the first line as the document's
    EMBED_FAILED detail and the CLI prints it without a traceback.
    """


class Embedder(Protocol):
    @property
    def name(self) -> str:
        """Recorded in the collection; a different name on reopen means re-embed."""
        ...

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Passages (what is stored) → (len(texts), dimension) float32, rows L2-normalised."""
        ...


@runtime_checkable
class QueryEmbedder(Protocol):
    """An embedder whose queries are embedded differently from passages (e5's "query: " prefix)."""

    def embed_query(self, texts: Sequence[str]) -> np.ndarray: ...


def embed_queries(embedder: Embedder, texts: Sequence[str]) -> np.ndarray:
    """Embed search queries: ``embed_query`` where the embedder has one, else ``embed``.

    Every caller that embeds a question (searcher, answer fallback) uses this,
    so a query never gets the passage prefix of an asymmetric model.
    """
    if isinstance(embedder, QueryEmbedder):
        return embedder.embed_query(texts)
    return embedder.embed(texts)


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
