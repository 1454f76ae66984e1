"""A cheap, deterministic embedder for tests and benchmarks that need many chunks: hashed character n-grams.

Two seeds are two genuinely different models (a text's vectors under them share nothing), a dimension of
choice makes a switch change the vector width, and `delay` slows each call as a real model's cost would
(bench/bench_reembed.py; a test that needs a search or a kill to land mid-way waits for that instead, see
tests/store/test_reembed.py). It counts its calls, so a test can tell how much a run embedded.
"""

from __future__ import annotations

import threading
import time
import zlib
from collections.abc import Sequence

import numpy as np


class HashEmbedder:
    def __init__(self, name: str = "hash-a", dimension: int = 64, *, seed: int = 1, delay: float = 0.0,
                 fail_after: int | None = None, error: type[BaseException] = RuntimeError) -> None:
        """`fail_after`: calls that succeed before every later one raises `error` (an embedder dying mid-way, or
        KeyboardInterrupt: Ctrl-C)."""
        self.name = name
        self.dimension = dimension
        self.seed = seed
        self.delay = delay
        self.fail_after = fail_after
        self.error = error
        self.calls = 0
        self.texts = 0
        self._count = threading.Lock()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        with self._count:
            if self.fail_after is not None and self.calls >= self.fail_after:
                raise self.error(f"{self.name}: the model server went away")
            self.calls += 1
            self.texts += len(texts)
        if self.delay:
            time.sleep(self.delay)
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            lowered = text.lower()
            grams = [lowered[i : i + n] for n in (1, 2, 3) for i in range(len(lowered) - n + 1) if not lowered[i : i + n].isspace()]
            for gram in grams:
                code = zlib.crc32(gram.encode(), self.seed)
                out[row, code % self.dimension] += 1.0 if (code >> 20) & 1 else -1.0
            norm = float(np.linalg.norm(out[row]))
            if norm:
                out[row] /= norm
            else:
                out[row, 0] = 1.0
        return out
