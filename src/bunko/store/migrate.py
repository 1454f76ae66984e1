"""`bunko migrate`: copy a collection between the local store and PostgreSQL, both ways.

Parsing and embedding are the expensive, sometimes irreproducible steps, so a
migration copies their results as they are: documents with their elements,
chunks with their vectors, keyword tokens and embed hashes, jobs with their
run ids, traces, and the collection's meta (embedder, dimension). Each
document is one transaction at the destination, as in an ingest.

This is the one module that knows both stores' insides: it reads the local
store's SQLite tables directly (the store protocol has no bulk export), and
restores the original ``ingested_at`` and trace times after writing through
the stores' own write paths.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from bunko.config import CONFIG_FILE, Config
from bunko.errors import CollectionError
from bunko.schema import Chunk, Element, IngestJob, ParsedDocument
from bunko.store.base import StoredChunk
from bunko.store.local import SCHEMA_VERSION, LocalStore
from bunko.store.registry import LOCAL, is_postgres, open_store_at

DocumentRecord = tuple[ParsedDocument, str, float, list[StoredChunk]]
"""A document, its content hash, when it was ingested, and its chunks with vectors and tokens."""
TraceRecord = tuple[str, float, str, dict[str, Any]]
Progress = Callable[[int, int], None]

STORE_INTERNAL_META = frozenset({"generation", "schema_version"})
"""Meta keys each store keeps for itself; they are not copied."""


class Endpoint(Protocol):
    """One side of a migration: everything in a collection, out and in."""

    def export_documents(self) -> Iterator[DocumentRecord]: ...
    def export_jobs(self) -> Iterator[tuple[IngestJob, str]]: ...
    def export_traces(self) -> Iterator[TraceRecord]: ...
    def all_meta(self) -> dict[str, str]: ...
    def document_count(self) -> int: ...
    def is_empty(self) -> bool: ...
    def clear(self) -> None: ...
    def import_documents(self, records: Iterator[DocumentRecord], progress: Callable[[], None]) -> None: ...
    def import_jobs(self, jobs: Iterator[tuple[IngestJob, str]]) -> int: ...
    def import_traces(self, traces: Iterator[TraceRecord]) -> int: ...
    def import_meta(self, meta: dict[str, str]) -> None: ...
    def close(self) -> None: ...


class LocalEndpoint:
    """The local store of a collection folder, read and patched through its SQLite file."""

    def __init__(self, folder: Path) -> None:
        self.store = LocalStore(folder)
        if self.store.get_meta("schema_version") != SCHEMA_VERSION:
            raise CollectionError(f"{folder}: local store schema {self.store.get_meta('schema_version')} is not {SCHEMA_VERSION}")
        self._db = sqlite3.connect(folder / "bunko.db", isolation_level=None, timeout=60)

    def close(self) -> None:
        self._db.close()
        self.store.close()

    def document_count(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM documents").fetchone()[0])

    def is_empty(self) -> bool:
        return all(self._db.execute(f"SELECT NOT EXISTS (SELECT 1 FROM {t})").fetchone()[0] for t in ("documents", "jobs", "traces"))

    def all_meta(self) -> dict[str, str]:
        return dict(self._db.execute("SELECT key, value FROM meta ORDER BY key").fetchall())

    def export_documents(self) -> Iterator[DocumentRecord]:
        heads = self._db.execute(
            "SELECT doc_id, source, title, mime, parser, content_hash, ingested_at, meta FROM documents ORDER BY source"
        ).fetchall()
        for doc_id, source, title, mime, parser, content_hash, ingested_at, meta in heads:
            elements = [
                Element(r[0], r[1], r[2], r[3], json.loads(r[4]), tuple(json.loads(r[5])) if r[5] else None, r[6], json.loads(r[7]))
                for r in self._db.execute(
                    "SELECT element_id, kind, text, page, section_path, bbox, parent_id, meta FROM elements WHERE doc_id = ? ORDER BY ordinal",
                    (doc_id,),
                )
            ]
            chunks = [
                StoredChunk(
                    Chunk(r[0], r[1], r[2], r[3], r[4], r[5], json.loads(r[6]), json.loads(r[7]), json.loads(r[8]),
                          json.loads(r[9]), r[10], json.loads(r[11])),
                    np.frombuffer(r[14], dtype=np.float32).copy(), r[13].split(), r[12],
                )
                for r in self._db.execute(
                    "SELECT chunk_id, doc_id, source, ordinal, text, embed_text, element_ids, pages, section_path, kinds, "
                    "parent_id, meta, embed_hash, tokens, vector FROM chunks WHERE doc_id = ? ORDER BY ordinal",
                    (doc_id,),
                )
            ]
            yield ParsedDocument(doc_id, source, title, mime, parser, elements, json.loads(meta)), content_hash, ingested_at, chunks

    def export_jobs(self) -> Iterator[tuple[IngestJob, str]]:
        rows = self._db.execute(
            "SELECT job_id, source, status, error_code, error_detail, created_at, updated_at, timings, run_id FROM jobs ORDER BY rowid"
        ).fetchall()
        for r in rows:
            yield IngestJob(*r[:7], timings=json.loads(r[7])), r[8]

    def export_traces(self) -> Iterator[TraceRecord]:
        for trace_id, created_at, question, payload in self._db.execute(
            "SELECT trace_id, created_at, question, payload FROM traces ORDER BY created_at, trace_id"
        ).fetchall():
            yield trace_id, created_at, question, json.loads(payload)

    def clear(self) -> None:
        for doc in self.store.documents():
            self.store.delete_document(doc.source)
        self._db.execute("BEGIN IMMEDIATE")
        for table in ("jobs", "traces"):
            self._db.execute(f"DELETE FROM {table}")
        self._db.execute(f"DELETE FROM meta WHERE key NOT IN ({','.join('?' * len(STORE_INTERNAL_META))})", tuple(STORE_INTERNAL_META))
        self._db.execute("COMMIT")

    def import_documents(self, records: Iterator[DocumentRecord], progress: Callable[[], None]) -> None:
        times: list[tuple[float, str]] = []
        for doc, content_hash, ingested_at, chunks in records:
            self.store.replace_document(doc, content_hash, chunks)
            times.append((ingested_at, doc.doc_id))
            progress()
        self._patch("UPDATE documents SET ingested_at = ? WHERE doc_id = ?", times)

    def import_jobs(self, jobs: Iterator[tuple[IngestJob, str]]) -> int:
        count = 0
        for job, run_id in jobs:
            self.store.save_job(job, run_id)
            count += 1
        return count

    def import_traces(self, traces: Iterator[TraceRecord]) -> int:
        times: list[tuple[float, str]] = []
        for trace_id, created_at, question, payload in traces:
            self.store.save_trace(trace_id, question, payload)
            times.append((created_at, trace_id))
        self._patch("UPDATE traces SET created_at = ? WHERE trace_id = ?", times)
        return len(times)

    def import_meta(self, meta: dict[str, str]) -> None:
        for key, value in meta.items():
            self.store.set_meta(key, value)

    def _patch(self, statement: str, rows: list[tuple[float, str]]) -> None:
        """Restore original times in one transaction, and bump the generation so readers reload."""
        if not rows:
            return
        self._db.execute("BEGIN IMMEDIATE")
        self._db.executemany(statement, rows)
        self._db.execute(
            "INSERT INTO meta (key, value) VALUES ('generation', '1') "
            "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1"
        )
        self._db.execute("COMMIT")


class PostgresEndpoint:
    """A postgres store; its own export methods and keyword arguments keep the original times."""

    def __init__(self, location: str, folder: Path) -> None:
        from bunko.store.postgres import PostgresStore

        store = open_store_at(location, folder)
        assert isinstance(store, PostgresStore)
        self.store = store

    def close(self) -> None:
        self.store.close()

    def export_documents(self) -> Iterator[DocumentRecord]:
        return self.store.export_documents()

    def export_jobs(self) -> Iterator[tuple[IngestJob, str]]:
        return self.store.export_jobs()

    def export_traces(self) -> Iterator[TraceRecord]:
        return self.store.export_traces()

    def all_meta(self) -> dict[str, str]:
        return self.store.all_meta()

    def document_count(self) -> int:
        return len(self.store.documents())

    def is_empty(self) -> bool:
        return not self.store.documents() and not self.store.jobs(limit=1) and self.store.last_run_id() is None

    def clear(self) -> None:
        self.store.clear()

    def import_documents(self, records: Iterator[DocumentRecord], progress: Callable[[], None]) -> None:
        with self.store.bulk_load():  # one HNSW build at the end, not one insert per vector
            for doc, content_hash, ingested_at, chunks in records:
                self.store.replace_document(doc, content_hash, chunks, ingested_at=ingested_at)
                progress()

    def import_jobs(self, jobs: Iterator[tuple[IngestJob, str]]) -> int:
        count = 0
        for job, run_id in jobs:
            self.store.save_job(job, run_id)
            count += 1
        return count

    def import_traces(self, traces: Iterator[TraceRecord]) -> int:
        count = 0
        for trace_id, created_at, question, payload in traces:
            self.store.save_trace(trace_id, question, payload, created_at=created_at)
            count += 1
        return count

    def import_meta(self, meta: dict[str, str]) -> None:
        for key, value in meta.items():
            self.store.set_meta(key, value)


def open_endpoint(location: str, folder: Path) -> Endpoint:
    if location == LOCAL:
        return LocalEndpoint(folder / "store")
    if is_postgres(location):
        return PostgresEndpoint(location, folder)
    raise CollectionError(f"--to {location!r}: use 'local' or a postgresql:// DSN")


@dataclass
class MigrationReport:
    source: str
    destination: str
    documents: int
    chunks: int
    jobs: int
    traces: int
    seconds: float
    switched: bool


def copy_collection(source: Endpoint, destination: Endpoint, progress: Progress | None = None) -> tuple[int, int, int, int]:
    """Copy everything from `source` to `destination`; returns (documents, chunks, jobs, traces)."""
    total = source.document_count()
    counts = {"documents": 0, "chunks": 0}

    def counted() -> Iterator[DocumentRecord]:
        for record in source.export_documents():
            counts["chunks"] += len(record[3])
            yield record

    def step() -> None:
        counts["documents"] += 1
        if progress:
            progress(counts["documents"], total)

    destination.import_meta({k: v for k, v in source.all_meta().items() if k not in STORE_INTERNAL_META})
    destination.import_documents(counted(), step)
    jobs = destination.import_jobs(source.export_jobs())
    traces = destination.import_traces(source.export_traces())
    return counts["documents"], counts["chunks"], jobs, traces


def migrate_collection(path: Path, to: str, *, replace: bool = False, switch: bool = True, progress: Progress | None = None) -> MigrationReport:
    """Copy the collection at `path` into store `to`; with `switch`, its bunko.toml then points there.

    The destination must be empty unless `replace`, which empties it first: a
    migration never merges two collections by accident.
    """
    config_file = path / CONFIG_FILE
    if not config_file.exists():
        raise CollectionError(f"{path}: no bunko collection here")
    config = Config.load(config_file)
    if to == config.store:
        raise CollectionError(f"{path}: the collection already uses {_display(to)}")
    started = time.perf_counter()
    source = open_endpoint(config.store, path)
    try:
        destination = open_endpoint(to, path)
        try:
            if not destination.is_empty():
                if not replace:
                    raise CollectionError(f"{_display(to)} already holds a collection; pass --replace to empty it first")
                destination.clear()
            documents, chunks, jobs, traces = copy_collection(source, destination, progress)
        finally:
            destination.close()
    finally:
        source.close()
    origin = config.store
    if switch:
        config.store = to
        config.save(config_file)
    return MigrationReport(_display(origin), _display(to), documents, chunks, jobs, traces, round(time.perf_counter() - started, 2), switch)


def _display(location: str) -> str:
    """A store location without a password, for messages."""
    if not is_postgres(location):
        return location
    scheme, _, rest = location.partition("://")
    credentials, at, host = rest.rpartition("@")
    if at and ":" in credentials:
        credentials = credentials.split(":", 1)[0] + ":***"
    return f"{scheme}://{credentials}{at}{host}"
