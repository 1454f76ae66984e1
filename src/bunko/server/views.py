"""JSON shapes of the engine's objects for the HTTP API, the web page and the OpenAI endpoint.

Citations are numbered once per answer, in order of first use, exactly as the
answer text's ``[n]`` markers are, so a client can map markers to sources
without parsing the text.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from bunko.generate import citation_marks
from bunko.schema import Answer, Chunk, DocumentInfo, Element, Hit, doc_id_for
from bunko.server.acl import document_groups


def hit_view(hit: Hit, explanation: list[str] | None = None) -> dict[str, Any]:
    """`explanation` (given when the caller asked to explain) also adds the hit's signals."""
    chunk = hit.chunk
    view: dict[str, Any] = {
        "chunk_id": chunk.chunk_id, "doc_id": chunk.doc_id, "source": chunk.source, "section_path": chunk.section_path,
        "pages": chunk.pages, "kinds": chunk.kinds, "lang": chunk.lang, "score": hit.score, "distance": hit.distance, "text": chunk.text,
        "figures": chunk.meta.get("figures") or [], "also_at": hit.also_at,
    }
    if explanation is not None:
        view["signals"] = hit.signals.to_dict()
        view["explanation"] = explanation
    return view


def numbered_citations(answer: Answer) -> list[dict[str, Any]]:
    """Unique cited chunks, numbered as in the answer text."""
    return [
        {
            "number": number, "chunk_id": c.chunk_id, "doc_id": doc_id_for(c.source), "source": c.source, "page": c.page,
            "section_path": c.section_path, "element_ids": c.element_ids, "quote": c.quote, "label": c.label(),
            "figures": c.figures, "also_at": c.also_at,
            **({"cells": [asdict(cell) for cell in c.cells]} if c.cells else {}),
        }
        for number, c in citation_marks.numbered_citations(answer.sentences)
    ]


def answer_view(answer: Answer) -> dict[str, Any]:
    citations = numbered_citations(answer)
    number = {c["chunk_id"]: c["number"] for c in citations}
    return {
        "question": answer.question, "text": answer.text, "language": answer.language, "abstained": answer.abstained,
        "confidence": answer.confidence, "trace_id": answer.trace_id,
        "sentences": [
            {"text": s.text, "citations": [number[c.chunk_id] for c in s.citations], "quotes": [c.quote for c in s.citations]}
            for s in answer.sentences
        ],
        "citations": citations,
    }


def with_sources(answer: Answer) -> str:
    """The answer text followed by its numbered sources: what a chat client shows as the message."""
    sources = citation_marks.sources_block(answer.sentences, answer.language)
    return answer.text + "\n\n" + sources if sources else answer.text


def document_view(doc: DocumentInfo) -> dict[str, Any]:
    return {
        "doc_id": doc.doc_id, "source": doc.source, "title": doc.title, "mime": doc.mime, "parser": doc.parser,
        "chunk_count": doc.chunk_count, "ingested_at": doc.ingested_at, "groups": document_groups(doc),
        "fields": doc.meta.get("fields") or {}, "lang": doc.lang, "languages": doc.languages,
    }


def chunk_view(chunk: Chunk) -> dict[str, Any]:
    return {
        "chunk_id": chunk.chunk_id, "ordinal": chunk.ordinal, "text": chunk.text, "section_path": chunk.section_path,
        "pages": chunk.pages, "kinds": chunk.kinds, "element_ids": chunk.element_ids, "lang": chunk.lang,
        "figures": chunk.meta.get("figures") or [],
    }


def element_view(element: Element) -> dict[str, Any]:
    view = asdict(element)
    view["meta"] = {k: v for k, v in element.meta.items() if k != "cells"}
    return view
