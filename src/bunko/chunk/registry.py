"""Chunking strategies by name, as `[chunk] strategy = "…"` selects them."""

from __future__ import annotations

from bunko.chunk.base import Chunker
from bunko.chunk.heading import HeadingChunker

CHUNKERS: dict[str, type[Chunker]] = {"heading": HeadingChunker}


def get_chunker(name: str) -> Chunker:
    try:
        return CHUNKERS[name]()
    except KeyError:
        raise ValueError(f"unknown chunking strategy {name!r}; available: {', '.join(sorted(CHUNKERS))}") from None
