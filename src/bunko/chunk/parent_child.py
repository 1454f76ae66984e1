"""`parent_child`: small chunks are searched, their larger parent is what the reader gets.

Small chunks embed one idea each and so match questions sharply; large chunks
carry the surrounding context an answer needs. This strategy keeps both:
parents are `structure` chunks of ``parent_max_chars``, stored with
the role `ChunkRole.PARENT` (``{"role": "parent", "searchable": False}``) so no index holds them; each is cut
into children of ``max_chars`` (same rules: tables by rows with their header,
captions with figures), which carry ``parent_id`` and are indexed. At search
time `bunko.retrieve.parents` swaps a child hit's text for its parent's,
keeping the child's id and citation.

A parent that would have a single child is that child: it is stored once, as
an ordinary chunk, since expanding it would return the same text.
Ordinals run parent, its children, next parent, … so ids stay stable.
"""

from __future__ import annotations

from bunko.chunk.blocks import pack, split_blocks, to_chunks
from bunko.chunk.sizing import Sizer, sizer_for
from bunko.chunk.structure import structure_groups
from bunko.config import ChunkConfig
from bunko.embed.base import Embedder
from bunko.schema import Chunk, ChunkRole, ParsedDocument, role_meta


class ParentChildChunker:
    name = "parent_child"

    def chunk(self, doc: ParsedDocument, config: ChunkConfig, embedder: Embedder | None = None) -> list[Chunk]:
        child_sizer = sizer_for(config, embedder)
        parent_sizer = Sizer(max(config.parent_max_chars, config.max_chars))  # never embedded: characters only
        chunks: list[Chunk] = []
        for group in structure_groups(doc.elements, parent_sizer):
            children = pack(split_blocks(group, child_sizer), child_sizer)
            if len(children) == 1:
                chunks.extend(to_chunks(doc, children, len(chunks)))
                continue
            (parent,) = to_chunks(doc, [group], len(chunks), **role_meta(ChunkRole.PARENT))
            chunks.append(parent)
            for child in to_chunks(doc, children, len(chunks), **role_meta(ChunkRole.CHILD)):
                child.parent_id = parent.chunk_id
                chunks.append(child)
        return chunks
