"""`page`: one chunk per page — for slides and scanned documents, where the page is the unit.

A slide's title, bullets, table and speaker notes answer a question together,
and OCR text has no reliable headings or sentences to cut at. Headings stay in
the text (a slide title is content). A page longer than the embedder reads
whole is the one exception: it is cut at block and sentence boundaries, since
a silently truncated embedding would lose its end. A document without page
numbers is chunked by `structure` instead.
"""

from __future__ import annotations

from bunko.chunk.blocks import Block, blocks_of, pack, split_blocks, to_chunks
from bunko.chunk.sizing import Sizer, input_limit
from bunko.chunk.structure import StructureChunker
from bunko.config import ChunkConfig
from bunko.embed.base import Embedder
from bunko.schema import Chunk, Element, ParsedDocument

PATH_ROOM = 200


def pages(elements: list[Element]) -> list[tuple[int, list[Element]]]:
    """Elements by page, pages in the order they first appear; an element without a page belongs to the page before
    it. A page's element placed among a later page's (a PDF footnote moved to the end of its section) joins its own
    page rather than splitting the later one."""
    current = next((e.page for e in elements if e.page is not None), 1)
    by_page: dict[int, list[Element]] = {}
    for element in elements:
        if element.page is not None:
            current = element.page
        by_page.setdefault(current, []).append(element)
    return list(by_page.items())


class PageChunker:
    name = "page"

    def chunk(self, doc: ParsedDocument, config: ChunkConfig, embedder: Embedder | None = None) -> list[Chunk]:
        if all(e.page is None for e in doc.elements):
            return StructureChunker().chunk(doc, config, embedder)
        readable = input_limit(embedder)
        # room for the section path that is embedded in front of the text
        limit = readable.with_chars(max(readable.max_chars - PATH_ROOM, 100)) if readable else Sizer(1 << 62)
        groups: list[list[Block]] = []
        for page, elements in pages(doc.elements):
            blocks = blocks_of(elements)
            if not blocks:
                continue
            text = "\n\n".join(b.text for b in blocks)
            if limit.fits(text):
                groups.append(blocks)
            else:
                parts = pack(split_blocks(blocks, limit), limit)
                for part in parts:
                    for block in part:
                        block.meta.setdefault("page_split", page)
                groups.extend(parts)
        return to_chunks(doc, groups)
