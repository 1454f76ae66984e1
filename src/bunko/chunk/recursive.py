"""`recursive`: split on the coarsest separator that makes pieces fit, as LangChain's
RecursiveCharacterTextSplitter does, then merge pieces back up to the budget with overlap.

The separator hierarchy knows CJK text, which has no spaces between words and
ends sentences with 。！？: paragraphs, lines, sentence ends (CJK and Latin),
clause punctuation (；，、： and their ASCII forms), spaces, and finally single
characters. A separator stays at the end of the piece it closes, so "。" is
never moved to the start of the next chunk.
"""

from __future__ import annotations

import re
from collections import deque

from bunko.chunk.flat import flatten
from bunko.chunk.sizing import Sizer, sizer_for
from bunko.chunk.spans import chunks_from_spans
from bunko.config import ChunkConfig
from bunko.embed.base import Embedder
from bunko.schema import Chunk, ParsedDocument
from bunko.text.lazy_regex import lazy_compile

SEPARATORS: tuple[re.Pattern[str], ...] = (
    lazy_compile(r"\n\s*\n\s*"),
    lazy_compile(r"\n"),
    lazy_compile(r"[。！？｡][」』）)\"'”’]*|[.!?][\"')\]”’]*(?=\s)\s*"),
    lazy_compile(r"[；;，、：:,，](?=\S)|[；;，、：:,，]\s*"),
    lazy_compile(r"\s+"),
)
"""Coarsest first; each match ends the piece before it (the separator is kept with that piece)."""

Span = tuple[int, int]


def _cut(text: str, start: int, end: int, pattern: re.Pattern[str]) -> list[Span]:
    spans: list[Span] = []
    position = start
    for match in pattern.finditer(text, start, end):
        if match.end() > position and match.end() < end:
            spans.append((position, match.end()))
            position = match.end()
    spans.append((position, end))
    return spans


def split(text: str, start: int, end: int, sizer: Sizer, level: int = 0) -> list[Span]:
    """Contiguous spans covering [start, end), each fitting ``sizer`` (cut hard only when no separator helps)."""
    if sizer.fits(text[start:end]):
        return [(start, end)]
    out: list[Span] = []
    if level >= len(SEPARATORS):
        while start < end:
            stop = min(sizer.prefix_end(text, start), end)
            out.append((start, stop))
            start = stop
        return out
    pieces = _cut(text, start, end, SEPARATORS[level])
    if len(pieces) == 1:
        return split(text, start, end, sizer, level + 1)
    for piece_start, piece_end in pieces:
        out.extend(split(text, piece_start, piece_end, sizer, level + 1))
    return out


def merge(text: str, pieces: list[Span], sizer: Sizer, overlap: int) -> list[Span]:
    """Pieces packed into windows that fit; each window restarts with up to ``overlap`` characters of whole pieces."""
    windows: list[Span] = []
    current: deque[Span] = deque()
    for piece in pieces:
        if current and not sizer.fits(text[current[0][0] : piece[1]]):
            windows.append((current[0][0], current[-1][1]))
            while current and (
                current[-1][1] - current[0][0] > overlap or not sizer.fits(text[current[0][0] : piece[1]])
            ):
                current.popleft()
        current.append(piece)
    if current:
        windows.append((current[0][0], current[-1][1]))
    return windows


class RecursiveChunker:
    name = "recursive"

    def chunk(self, doc: ParsedDocument, config: ChunkConfig, embedder: Embedder | None = None) -> list[Chunk]:
        flat = flatten(doc.elements)
        sizer = sizer_for(config, embedder)
        pieces = split(flat.text, 0, len(flat.text), sizer)
        return chunks_from_spans(doc, flat, merge(flat.text, pieces, sizer, config.overlap_chars))
