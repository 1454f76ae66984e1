"""Turning character spans of a flattened document into chunks, with their declared overlap."""

from __future__ import annotations

from collections.abc import Iterable

from bunko.chunk.base import make_chunk
from bunko.chunk.flat import Flat, strip_span
from bunko.schema import Chunk, ParsedDocument


def chunks_from_spans(doc: ParsedDocument, flat: Flat, spans: Iterable[tuple[int, int]]) -> list[Chunk]:
    """One chunk per non-blank span; ``overlap`` counts the characters the previous chunk already had."""
    chunks: list[Chunk] = []
    previous_end = 0
    for raw_start, raw_end in spans:
        start, end = strip_span(flat.text, raw_start, raw_end)
        if start >= end:
            continue
        overlap = max(0, min(previous_end, end) - start)
        chunks.append(make_chunk(
            doc, len(chunks), flat.text[start:end], flat.elements_in(start, end),
            overlap=overlap or None, span=[start, end],
        ))
        previous_end = max(previous_end, end)
    return chunks
