"""`fixed`: windows of ``max_chars`` characters with ``overlap_chars`` of overlap — the naive baseline.

It ignores sentences, headings and tables on purpose: every other strategy is
measured against it (bench/bench_chunking.py), and a strategy that cannot beat
it is not worth its complexity.
"""

from __future__ import annotations

from collections.abc import Iterator

from bunko.chunk.flat import flatten
from bunko.chunk.sizing import Sizer, sizer_for
from bunko.chunk.spans import chunks_from_spans
from bunko.config import ChunkConfig
from bunko.embed.base import Embedder
from bunko.schema import Chunk, ParsedDocument


def windows(text: str, sizer: Sizer, overlap: int) -> Iterator[tuple[int, int]]:
    """Consecutive spans that each fit ``sizer``, every one starting ``overlap`` characters before the last ended."""
    start = 0
    while start < len(text):
        end = sizer.prefix_end(text, start)
        yield start, end
        if end >= len(text):
            return
        start = max(end - overlap, start + 1)


class FixedChunker:
    name = "fixed"

    def chunk(self, doc: ParsedDocument, config: ChunkConfig, embedder: Embedder | None = None) -> list[Chunk]:
        flat = flatten(doc.elements)
        sizer = sizer_for(config, embedder)
        return chunks_from_spans(doc, flat, windows(flat.text, sizer, config.overlap_chars))
