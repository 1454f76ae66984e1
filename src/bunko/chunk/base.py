"""The chunker interface and the one place a `Chunk` is assembled from elements.

Every strategy builds its chunks through `make_chunk`, so lineage (element ids,
pages, section path, kinds) is kept the same way whatever the strategy.

Two meta entries are shared by all strategies because tests, the store and the
integrity report rely on them:

- ``overlap``: how many leading characters of ``text`` repeat text already in
  the previous chunk (a declared overlap, or a table header repeated in a later
  part). Everything after it is new text; nothing else is ever duplicated.
- the role (`ChunkRole`, set with `role_meta`): a parent is kept for context
  only; stores leave it out of every search index (`Chunk.searchable`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Protocol

from bunko.config import ChunkConfig
from bunko.embed.base import Embedder
from bunko.schema import Chunk, Element, ElementKind, ParsedDocument

SECTION_SEPARATOR = " > "
JOIN = "\n\n"
"""Between elements in a chunk's text: a blank line, as Markdown separates blocks."""


class Chunker(Protocol):
    name: str

    def chunk(self, doc: ParsedDocument, config: ChunkConfig, embedder: Embedder | None = None) -> list[Chunk]:
        """``embedder`` is what will embed the chunks: semantic chunking measures with it, and sizes
        may be counted in its tokens. Strategies that need neither ignore it."""
        ...


def embed_text_for(section_path: Sequence[str], text: str) -> str:
    """Headings travel with the text into the embedder: "Travel > Hotels\\n<text>"."""
    if not section_path:
        return text
    return SECTION_SEPARATOR.join(section_path) + "\n" + text


def contextualize(chunks: list[Chunk], title: str, context: str) -> list[Chunk]:
    """`[chunk] context`: what the embedder and the keyword index read before each chunk's text.

    "section" (what every chunker already prefixed): the section path. "title": the document's title before it
    too, so a chunk of a long manual says which manual it is from (Anthropic's contextual retrieval, without the
    LLM); not repeated when the path already starts with it. "none": the chunk's text alone.
    """
    if context == "none":
        for chunk in chunks:
            chunk.embed_text = chunk.text
    elif context == "title" and title.strip():
        for chunk in chunks:
            if not chunk.section_path or chunk.section_path[0].strip() != title.strip():
                chunk.embed_text = f"{title.strip()}\n{chunk.embed_text}"
    return chunks


def make_chunk(
    doc: ParsedDocument, ordinal: int, text: str, elements: Sequence[Element], *, context: str = "", **meta: object
) -> Chunk:
    """A chunk of ``doc`` made of ``elements``; ``context`` is embedded with it but not shown (a table's caption).

    When the text starts with its own heading (strategies that keep headings in
    the text), the heading is not repeated in the embedded prefix.
    """
    section_path = list(elements[0].section_path) if elements else []
    prefix = section_path
    first = elements[0] if elements else None
    if first is not None and first.kind == ElementKind.HEADING and section_path and text.startswith(first.text.strip()):
        prefix = section_path[:-1]
    kinds = list(dict.fromkeys(e.kind.value for e in elements))
    pages = sorted({e.page for e in elements if e.page is not None})
    body = f"{context}\n{text}" if context else text
    return Chunk(
        chunk_id=f"{doc.source}#{ordinal}",
        doc_id=doc.doc_id,
        source=doc.source,
        ordinal=ordinal,
        text=text,
        embed_text=embed_text_for(prefix, body),
        element_ids=list(dict.fromkeys(e.element_id for e in elements)),
        pages=pages,
        section_path=section_path,
        kinds=kinds,
        meta={k: v for k, v in meta.items() if v is not None},
    )


def sections(elements: Sequence[Element]) -> Iterator[list[Element]]:
    """Runs of body elements between headings (headings themselves live in section_path)."""
    current: list[Element] = []
    for element in elements:
        if element.kind == ElementKind.HEADING:
            if current:
                yield current
            current = []
        else:
            current.append(element)
    if current:
        yield current
