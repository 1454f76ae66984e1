"""`LocalStore`: the parts (`local/documents.py`, `search.py`, `jobs.py`) over one SQLite file, with export and import."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from bunko.errors import CollectionError
from bunko.index.memory import MemoryIndex
from bunko.schema import IngestJob, ParsedDocument
from bunko.store.base import DocumentRecord, StoredChunk, TraceRecord
from bunko.store.chunk_cache import ChunkCache
from bunko.store.local.documents import LocalDocuments
from bunko.store.local.jobs import LocalJobs
from bunko.store.local.schema import _SCHEMA, _keys
from bunko.store.local.search import CONCURRENT_ROWS, LocalIndexRows, LocalSearch
from bunko.store.rows import (
    CHUNK_COLUMNS,
    JOB_COLUMNS,
    chunk_from_packed_row,
    chunk_from_row,
    job_from_row,
    mentions_from_columns,
)


class LocalStore(LocalDocuments, LocalIndexRows, LocalJobs):
    def __init__(
        self, folder: Path, ann_threshold: int | None = None, vector_precision: str = "float32", ann_target_recall: float | None = 0.98,
        ann_ef_search: int | None = None, concurrent_rows: int = CONCURRENT_ROWS,
    ) -> None:
        """`concurrent_rows`: from this many searchable chunks on, hybrid search runs dense and keyword search at once."""
        self.folder = folder
        self.concurrent_rows = concurrent_rows
        folder.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._db = sqlite3.connect(folder / "bunko.db", check_same_thread=False, isolation_level=None, timeout=60)
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
            self._upgrade_schema()
        except sqlite3.DatabaseError as exc:  # a damaged or foreign file: the collection is not opened, and says why
            self._db.close()
            if isinstance(exc, sqlite3.OperationalError):  # locked, read-only, full: the file itself is not the cause
                raise
            raise CollectionError(f"{folder / 'bunko.db'}: not a readable bunko collection database ({exc})") from None
        self._chunk_cache = ChunkCache(chunk_from_packed_row)
        self._index = MemoryIndex(
            folder / "index", ann_threshold=ann_threshold, vector_precision=vector_precision, ann_target_recall=ann_target_recall,
            ann_ef_search=ann_ef_search,
        )
        self._writer_embedder: str | None = None
        self._search = LocalSearch(self)


    def close(self) -> None:
        with self._lock:
            self._db.close()
            self._search.close()
        self._index.flush()

    def prepare_search(self) -> None:
        """Load the current generation's index and write its cache files, waiting for them (outside the store lock:
        searches go on meanwhile)."""
        with self._lock:
            self._current_index()
        self._index.flush()

    def search(self) -> LocalSearch:
        """What retrieval reads: the in-memory index of the current generation and the entity graph."""
        return self._search


    # -- export and import (bunko migrate) ----------------------------------
    def export_documents(self) -> Iterator[DocumentRecord]:
        """Every document with its elements and chunks (vectors, tokens, embed hashes), one at a time."""
        with self._lock:
            heads = self._db.execute(
                "SELECT doc_id, source, title, mime, parser, content_hash, ingested_at, meta FROM documents ORDER BY source"
            ).fetchall()
        for doc_id, source, title, mime, parser, content_hash, ingested_at, meta in heads:
            with self._lock:
                rows = self._db.execute(
                    f"SELECT {CHUNK_COLUMNS}, vector, tokens, embed_hash, entities, entity_spans FROM chunks WHERE doc_id = ? "
                    "ORDER BY ordinal", (doc_id,)
                ).fetchall()
            chunks = [
                StoredChunk(chunk_from_row(r[:12]), np.frombuffer(r[12], dtype=np.float32).copy(), r[13].split(), r[14],
                            mentions_from_columns(_keys(r[15]), r[16], r[4]))
                for r in rows
            ]
            doc = ParsedDocument(doc_id, source, title, mime, parser, self.elements(source), json.loads(meta))
            yield doc, content_hash, ingested_at, chunks

    def export_jobs(self) -> Iterator[tuple[IngestJob, str]]:
        with self._lock:
            rows = self._db.execute(
                f"SELECT {JOB_COLUMNS}, run_id FROM jobs ORDER BY rowid"
            ).fetchall()
        for r in rows:
            yield job_from_row(r), r[10]

    def export_traces(self) -> Iterator[TraceRecord]:
        with self._lock:
            rows = self._db.execute("SELECT trace_id, created_at, question, payload FROM traces ORDER BY created_at, trace_id").fetchall()
        for trace_id, created_at, question, payload in rows:
            yield trace_id, created_at, question, json.loads(payload)

    def clear(self) -> None:
        """Empty the collection (documents, jobs, traces, meta) in one transaction; the store's own meta stays."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                for table in ("chunks", "elements", "documents", "jobs", "traces", "staged_vectors"):
                    self._db.execute(f"DELETE FROM {table}")
                self._db.execute("DELETE FROM meta WHERE key NOT IN ('generation', 'schema_version')")
                self._bump_generation()
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    @contextmanager
    def bulk_load(self) -> Iterator[LocalStore]:
        """Many documents at once: nothing to defer here, as the search index is rebuilt once, at the next search."""
        yield self
