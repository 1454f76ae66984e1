"""Heading-aware chunking: a chunk never crosses a heading; tables and code are never split.

Elements of one section are packed in order up to the budget. A paragraph
longer than that is cut at sentence boundaries (。！？ . ! ?). An atomic element
(table, code, equation, figure) always stays whole; one larger than the budget
becomes its own chunk flagged ``oversized`` rather than being cut, because half
a table answers nothing. (`structure` goes further: captions stay with their
figures, and an oversized table is split by rows with its header repeated.)
"""

from __future__ import annotations

from bunko.chunk.base import sections
from bunko.chunk.blocks import Block, pack, split_blocks, to_chunks
from bunko.chunk.sizing import sizer_for
from bunko.config import ChunkConfig
from bunko.embed.base import Embedder
from bunko.schema import ATOMIC_KINDS, Chunk, ParsedDocument


class HeadingChunker:
    name = "heading"

    def chunk(self, doc: ParsedDocument, config: ChunkConfig, embedder: Embedder | None = None) -> list[Chunk]:
        sizer = sizer_for(config, embedder)
        groups: list[list[Block]] = []
        for section in sections(doc.elements):
            blocks = [Block(e.text.strip(), [e], atomic=e.kind in ATOMIC_KINDS) for e in section if e.text.strip()]
            groups.extend(pack(split_blocks(blocks, sizer), sizer))
        return to_chunks(doc, groups)
