"""Rows ↔ schema objects, the same for every SQL store (SQLite and PostgreSQL keep one column layout)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from bunko.schema import Chunk, Element

CHUNK_COLUMNS = "chunk_id, doc_id, source, ordinal, text, embed_text, element_ids, pages, section_path, kinds, parent_id, meta"
ELEMENT_COLUMNS = "e.element_id, e.kind, e.text, e.page, e.section_path, e.bbox, e.parent_id, e.meta"


def chunk_from_row(row: Sequence[Any]) -> Chunk:
    """A row selected with CHUNK_COLUMNS."""
    return Chunk(
        chunk_id=row[0], doc_id=row[1], source=row[2], ordinal=row[3], text=row[4], embed_text=row[5],
        element_ids=json.loads(row[6]), pages=json.loads(row[7]), section_path=json.loads(row[8]),
        kinds=json.loads(row[9]), parent_id=row[10], meta=json.loads(row[11]),
    )


def element_from_row(row: Sequence[Any]) -> Element:
    """A row selected with ELEMENT_COLUMNS."""
    bbox = json.loads(row[5]) if row[5] else None
    return Element(row[0], row[1], row[2], row[3], json.loads(row[4]), tuple(bbox) if bbox else None, row[6], json.loads(row[7]))
