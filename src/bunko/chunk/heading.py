"""Heading-aware chunking: a chunk never crosses a heading; tables and code are never split.

Elements of one section are packed in order up to ``max_chars``. A paragraph
longer than that is cut at sentence boundaries (。！？ . ! ?). An atomic element
(table, code, equation, figure) always stays whole; one larger than
``max_chars`` becomes its own chunk flagged ``oversized`` rather than being cut,
because half a table answers nothing.
"""

from __future__ import annotations

from collections.abc import Iterator

from bunko.chunk.base import make_chunk
from bunko.chunk.sentences import split_sentences
from bunko.config import ChunkConfig
from bunko.schema import ATOMIC_KINDS, Chunk, Element, ParsedDocument

_JOIN = "\n\n"


def sections(elements: list[Element]) -> Iterator[list[Element]]:
    """Runs of body elements between headings (headings themselves live in section_path)."""
    current: list[Element] = []
    for element in elements:
        if element.kind == "heading":
            if current:
                yield current
            current = []
        else:
            current.append(element)
    if current:
        yield current


def pieces(text: str, max_chars: int) -> list[str]:
    """Cut an over-long text at sentence ends; a single over-long sentence is cut hard."""
    out: list[str] = []
    buffer = ""
    for sentence in split_sentences(text):
        while len(sentence) > max_chars:
            if buffer:
                out.append(buffer)
                buffer = ""
            out.append(sentence[:max_chars])
            sentence = sentence[max_chars:]
        joiner = "" if not buffer or buffer[-1] in "。！？" else " "
        if buffer and len(buffer) + len(joiner) + len(sentence) > max_chars:
            out.append(buffer)
            buffer = sentence
        else:
            buffer = buffer + joiner + sentence if buffer else sentence
    if buffer:
        out.append(buffer)
    return out


class HeadingChunker:
    name = "heading"

    def chunk(self, doc: ParsedDocument, config: ChunkConfig) -> list[Chunk]:
        chunks: list[Chunk] = []
        max_chars = config.max_chars

        def emit(texts: list[str], elements: list[Element], **meta: object) -> None:
            chunks.append(make_chunk(doc, len(chunks), _JOIN.join(texts), elements, **meta))

        for section in sections(doc.elements):
            texts: list[str] = []
            members: list[Element] = []
            size = 0
            for element in section:
                text = element.text.strip()
                if not text:
                    continue
                added = len(text) + (len(_JOIN) if texts else 0)
                if size + added <= max_chars:
                    texts.append(text)
                    members.append(element)
                    size += added
                    continue
                if texts:
                    emit(texts, members)
                    texts, members, size = [], [], 0
                if element.kind in ATOMIC_KINDS and len(text) > max_chars:
                    emit([text], [element], oversized=True)
                elif len(text) > max_chars:
                    parts = pieces(text, max_chars)
                    for part in parts[:-1]:
                        emit([part], [element], split_element=True)
                    texts, members, size = [parts[-1]], [element], len(parts[-1])
                else:
                    texts, members, size = [text], [element], len(text)
            if texts:
                emit(texts, members)
        return chunks
