"""Rows ↔ schema objects, the same for every SQL store (SQLite and PostgreSQL keep one column layout)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict
from typing import Any

from bunko.schema import Chunk, DocumentInfo, Element, IngestJob, JobProgress
from bunko.text.entities import Mention

CHUNK_COLUMNS = "chunk_id, doc_id, source, ordinal, text, embed_text, element_ids, pages, section_path, kinds, parent_id, meta"
ELEMENT_COLUMNS = "e.element_id, e.kind, e.text, e.page, e.section_path, e.bbox, e.parent_id, e.meta"
DOCUMENT_COLUMNS = "doc_id, source, title, mime, parser, content_hash, chunk_count, ingested_at, meta"
JOB_COLUMNS = "job_id, source, status, error_code, error_detail, created_at, updated_at, timings, fields, progress"


_decode = json.JSONDecoder().decode


def _json_field(text: str) -> Any:
    """A JSON column; the empty list and object (most chunks' pages and meta) without the parser. Every search
    decodes five of these for each hit it returns: reading ten hits' rows went from 0.167 to 0.124 ms."""
    if text == "[]":
        return []
    if text == "{}":
        return {}
    return _decode(text)


def chunk_from_row(row: Sequence[Any]) -> Chunk:
    """A row selected with CHUNK_COLUMNS, whose order is Chunk's: passed by position, 0.7 µs a row less than by
    keyword (a search decodes one row per hit)."""
    return Chunk(
        row[0], row[1], row[2], row[3], row[4], row[5],
        _json_field(row[6]), _json_field(row[7]), _json_field(row[8]), _json_field(row[9]), row[10], _json_field(row[11]),
    )


PACKED_CHUNK_COLUMNS = (
    "chunk_id, doc_id, source, ordinal, text, embed_text, parent_id, "
    "'[' || element_ids || ',' || pages || ',' || section_path || ',' || kinds || ',' || meta || ']'"
)
"""CHUNK_COLUMNS with the five JSON columns joined into one JSON array by SQLite (`||`; the columns are NOT NULL),
for the rows a search returns: one column and one JSON scan a row instead of five, ~2 µs a row less (ten rows
read and decoded in 0.10 ms instead of 0.12). The columns hold what `json.dumps` wrote, so the array's five
values are each column's, bit for bit."""

_scan: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]  # set in __init__, not in the stubs
"""What `json.loads` scans a value with."""


def chunk_from_packed_row(row: Sequence[Any]) -> Chunk:
    """A row selected with PACKED_CHUNK_COLUMNS (columns after them are the caller's): the same Chunk as
    `chunk_from_row` gives for the row's CHUNK_COLUMNS."""
    element_ids, pages, section_path, kinds, meta = _json_values(row[7], 5)
    return Chunk(row[0], row[1], row[2], row[3], row[4], row[5], element_ids, pages, section_path, kinds, row[6], meta)


def _json_values(text: str, count: int) -> list[Any]:
    """The `count` values of a JSON array, scanned as `json.loads` scans it but without its two whitespace regex
    matches: the text starts with "[", SQLite having written it. Anything else is parsed (or refused) by the full
    decoder, so a damaged column still raises a ValueError (a json.JSONDecodeError but for a column holding two
    values separated by a comma)."""
    try:
        values, end = _scan(text, 0)
    except (StopIteration, ValueError):
        values, end = None, -1
    if end != len(text) or not isinstance(values, list):
        values = _decode(text)
    if not isinstance(values, list) or len(values) != count:
        raise ValueError(f"expected a JSON array of {count} values, got {text[:80]!r}")
    return values


def element_from_row(row: Sequence[Any]) -> Element:
    """A row selected with ELEMENT_COLUMNS."""
    bbox = json.loads(row[5]) if row[5] else None
    return Element(row[0], row[1], row[2], row[3], json.loads(row[4]), tuple(bbox) if bbox else None, row[6], json.loads(row[7]))


def document_from_row(row: Sequence[Any]) -> DocumentInfo:
    """A row selected with DOCUMENT_COLUMNS."""
    return DocumentInfo(
        doc_id=row[0], source=row[1], title=row[2], mime=row[3], parser=row[4], content_hash=row[5],
        chunk_count=row[6], ingested_at=row[7], meta=json.loads(row[8]),
    )


def job_from_row(row: Sequence[Any]) -> IngestJob:
    """A row selected with JOB_COLUMNS (columns after them are the caller's)."""
    return IngestJob(
        job_id=row[0], source=row[1], status=row[2], error_code=row[3], error_detail=row[4],
        created_at=row[5], updated_at=row[6], timings=json.loads(row[7]), fields=json.loads(row[8]) if row[8] else None,
        progress=JobProgress(**json.loads(row[9])) if row[9] else None,
    )


def progress_column(job: IngestJob) -> str | None:
    """A job's progress as stored (JSON), None when it has none."""
    return None if job.progress is None else json.dumps(asdict(job.progress), ensure_ascii=False)


def mention_columns(mentions: Sequence[Mention]) -> tuple[list[str], str]:
    """A chunk's mentions as stored: its distinct entity keys (the graph reads only these) and their spans as JSON."""
    keys = list(dict.fromkeys(m.key for m in mentions))
    index = {key: i for i, key in enumerate(keys)}
    return keys, json.dumps([[index[m.key], m.start, m.end] for m in mentions], separators=(",", ":"))


def mentions_from_columns(keys: Sequence[str], spans: str, text: str) -> list[Mention]:
    """The mentions back, their surface read from the chunk text the spans point into."""
    return [Mention(keys[i], text[start:end], start, end) for i, start, end in json.loads(spans)]
