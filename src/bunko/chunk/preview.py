"""Chunking one file without storing it, and chunks as rows: what `bunko chunks` shows.

Choosing a strategy is easier when you can see what each does to your own
document before ingesting it: ids, sizes, section paths, kinds and flags.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bunko.chunk.base import contextualize
from bunko.chunk.registry import get_chunker
from bunko.chunk.sizing import mark_truncated, token_counter
from bunko.chunk.templates import resolve_chunker
from bunko.config import ChunkConfig
from bunko.embed.base import Embedder
from bunko.parse.registry import ParserRegistry
from bunko.schema import Chunk, ParsedDocument, doc_id_for

FLAGS = ("oversized", "truncated", "split_element", "table_part", "qa_part", "page_split")


def chunk_file(
    path: Path, source: str, registry: ParserRegistry, config: ChunkConfig, embedder: Embedder | None = None,
    strategy: str | None = None,
) -> tuple[ParsedDocument, list[Chunk]]:
    """Parse and chunk as ingest would (rules and templates included), or with ``strategy`` forced."""
    parser, mime = registry.parser_for(path, source)
    doc = parser.parse(path, source, mime)
    doc.doc_id = doc_id_for(source)
    if strategy is None:
        chunker = resolve_chunker(doc, config, get_chunker(config.strategy))
    else:
        chunker = get_chunker(strategy)
        doc.meta.update(chunk_strategy=chunker.name, chunk_reason="requested")
    chunks = contextualize(chunker.chunk(doc, config, embedder), doc.title, config.context)
    mark_truncated(chunks, embedder, source)
    return doc, chunks


def chunk_rows(chunks: list[Chunk], embedder: Embedder | None = None) -> list[dict[str, Any]]:
    """One row per chunk: id, size (chars, and tokens when the embedder counts them), place, kinds, flags."""
    count = token_counter(embedder)
    rows = []
    for chunk in chunks:
        row: dict[str, Any] = {
            "chunk_id": chunk.chunk_id, "ordinal": chunk.ordinal, "chars": len(chunk.text),
            "section_path": chunk.section_path, "kinds": chunk.kinds, "pages": chunk.pages,
            "element_ids": chunk.element_ids, "role": chunk.role, "parent_id": chunk.parent_id, "lang": chunk.lang,
            "flags": {k: chunk.meta[k] for k in FLAGS if k in chunk.meta}, "text": chunk.text,
        }
        if count is not None:
            row["tokens"] = count(chunk.embed_text)
        rows.append(row)
    return rows
