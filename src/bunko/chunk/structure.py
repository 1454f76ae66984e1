"""`structure`: heading-aware chunks in which tables, code, equations and figures stay whole with their captions.

Like `heading`, a chunk never crosses a heading. On top of it: a caption
travels with the figure or table it names; a table too large for one chunk is
split by rows with its header row repeated in every part (and its caption in
every part's embedding), because a row without its header is a list of
numbers nobody can interpret. See `bunko.chunk.blocks` for how pieces are made.
"""

from __future__ import annotations

from bunko.chunk.base import sections
from bunko.chunk.blocks import Block, absorb_small, blocks_of, pack, split_blocks, to_chunks
from bunko.chunk.sizing import Sizer, sizer_for
from bunko.config import ChunkConfig
from bunko.embed.base import Embedder
from bunko.schema import Chunk, Element, ParsedDocument


def structure_groups(elements: list[Element], sizer: Sizer, min_chars: int = 0) -> list[list[Block]]:
    """Packed blocks, section by section."""
    groups: list[list[Block]] = []
    for section in sections(elements):
        groups.extend(pack(split_blocks(blocks_of(section), sizer), sizer))
    return absorb_small(groups, sizer, min_chars) if min_chars else groups


class StructureChunker:
    name = "structure"

    def chunk(self, doc: ParsedDocument, config: ChunkConfig, embedder: Embedder | None = None) -> list[Chunk]:
        sizer = sizer_for(config, embedder)
        return to_chunks(doc, structure_groups(doc.elements, sizer, config.min_chars))
