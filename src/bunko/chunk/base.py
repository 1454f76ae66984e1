"""The chunker interface and the one place a `Chunk` is assembled from elements."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from bunko.config import ChunkConfig
from bunko.schema import Chunk, Element, ParsedDocument

SECTION_SEPARATOR = " > "


class Chunker(Protocol):
    name: str

    def chunk(self, doc: ParsedDocument, config: ChunkConfig) -> list[Chunk]: ...


def embed_text_for(section_path: Sequence[str], text: str) -> str:
    """Headings travel with the text into the embedder: "Travel > Hotels\\n<text>"."""
    if not section_path:
        return text
    return SECTION_SEPARATOR.join(section_path) + "\n" + text


def make_chunk(doc: ParsedDocument, ordinal: int, text: str, elements: Sequence[Element], **meta: object) -> Chunk:
    section_path = list(elements[0].section_path) if elements else []
    kinds = list(dict.fromkeys(str(e.kind) for e in elements))
    pages = sorted({e.page for e in elements if e.page is not None})
    return Chunk(
        chunk_id=f"{doc.source}#{ordinal}",
        doc_id=doc.doc_id,
        source=doc.source,
        ordinal=ordinal,
        text=text,
        embed_text=embed_text_for(section_path, text),
        element_ids=list(dict.fromkeys(e.element_id for e in elements)),
        pages=pages,
        section_path=section_path,
        kinds=kinds,
        meta={k: v for k, v in meta.items() if v is not None},
    )
