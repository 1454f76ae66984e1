"""The local store's SQLite schema, its upgrade from older versions, and the collection's meta rows.

`LocalBase` holds the state every part of `LocalStore` shares (the connection, its lock, the in-memory index)
and the meta reads they all use.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

from bunko.index.memory import MemoryIndex
from bunko.schema import LANG_KEY, SEARCHABLE_KEY
from bunko.store.base import StoredChunk
from bunko.store.chunk_cache import ChunkCache
from bunko.store.languages import set_document_languages, stored_languages
from bunko.store.rows import mention_columns

SCHEMA_VERSION = "4"
"""2 added the entity graph's columns to chunks, 3 each chunk's and document's language (in their meta) and each
job's fields (what `Bunko.retry` ingests a file with again); an older store is upgraded in place when opened."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents (
    doc_id TEXT PRIMARY KEY, source TEXT NOT NULL UNIQUE, title TEXT, mime TEXT, parser TEXT,
    content_hash TEXT NOT NULL, ingested_at REAL NOT NULL, chunk_count INTEGER NOT NULL, meta TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS elements (
    doc_id TEXT NOT NULL, ordinal INTEGER NOT NULL, element_id TEXT NOT NULL, kind TEXT NOT NULL, text TEXT NOT NULL,
    page INTEGER, section_path TEXT NOT NULL, bbox TEXT, parent_id TEXT, meta TEXT NOT NULL,
    PRIMARY KEY (doc_id, ordinal)
);
CREATE TABLE IF NOT EXISTS chunks (
    chunk_id TEXT PRIMARY KEY, doc_id TEXT NOT NULL, source TEXT NOT NULL, ordinal INTEGER NOT NULL,
    text TEXT NOT NULL, embed_text TEXT NOT NULL, embed_hash TEXT NOT NULL,
    element_ids TEXT NOT NULL, pages TEXT NOT NULL, section_path TEXT NOT NULL, kinds TEXT NOT NULL,
    parent_id TEXT, meta TEXT NOT NULL, tokens TEXT NOT NULL, vector BLOB NOT NULL,
    entities TEXT NOT NULL DEFAULT '', entity_spans TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX IF NOT EXISTS chunks_by_doc ON chunks (doc_id, ordinal);
CREATE INDEX IF NOT EXISTS chunks_by_embed_hash ON chunks (embed_hash);
CREATE INDEX IF NOT EXISTS documents_by_original ON documents (json_extract(meta, '$.duplicate_of'));
CREATE TABLE IF NOT EXISTS jobs (
    job_id TEXT PRIMARY KEY, run_id TEXT NOT NULL, source TEXT NOT NULL, status TEXT NOT NULL,
    error_code TEXT, error_detail TEXT, created_at REAL NOT NULL, updated_at REAL NOT NULL, timings TEXT NOT NULL,
    fields TEXT, progress TEXT
);
CREATE INDEX IF NOT EXISTS jobs_by_run ON jobs (run_id, created_at);
CREATE TABLE IF NOT EXISTS traces (trace_id TEXT PRIMARY KEY, created_at REAL NOT NULL, question TEXT, payload TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS staged_vectors (
    chunk_id TEXT PRIMARY KEY, live_hash TEXT NOT NULL, embed_hash TEXT NOT NULL, vector BLOB NOT NULL
);
"""

_UNSTAGED = (
    "NOT EXISTS (SELECT 1 FROM staged_vectors s WHERE s.chunk_id = chunks.chunk_id AND s.live_hash = chunks.embed_hash)"
)
"""A chunk whose current text has no staged vector: never staged, or rewritten since it was."""

SEARCHABLE = f"COALESCE(json_extract(meta, '$.{SEARCHABLE_KEY}'), 1) != 0"
"""`Chunk.searchable` in SQL: parent_child's parents are kept for context and never indexed."""


def _entity_columns(stored: StoredChunk) -> tuple[str, str]:
    keys, spans = mention_columns(stored.entities)
    return "\n".join(keys), spans


def _keys(column: str) -> list[str]:
    return column.split("\n") if column else []


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


_IN_BATCH = 500
"""Ids bound in one `IN (...)` (SQLite allows 999 variables in old builds)."""


class LocalBase:
    """The SQLite connection and the meta table: what documents, search and jobs (`local/`) all read."""

    folder: Path
    concurrent_rows: int
    _lock: threading.RLock
    _db: sqlite3.Connection
    _chunk_cache: ChunkCache
    _index: MemoryIndex
    _writer_embedder: str | None

    def _upgrade_schema(self) -> None:
        """Bring a store written by an older bunko up to SCHEMA_VERSION in one transaction: version 1 had no entity
        columns (added empty: `bunko reindex` fills them), versions 1 and 2 no languages (judged here from the stored
        text, `store/languages.py`) nor job fields (none recorded); versions 1 to 3 no job progress (a column, empty for
        finished jobs); newer versions stay as they are."""
        version = self.get_meta("schema_version")
        if version is None:
            self.set_meta("schema_version", SCHEMA_VERSION)
            return
        if version not in ("1", "2", "3"):
            return
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                version = self.get_meta("schema_version")  # another process may have upgraded it while this one waited
                if version == "1":
                    self._db.execute("ALTER TABLE chunks ADD COLUMN entities TEXT NOT NULL DEFAULT ''")
                    self._db.execute("ALTER TABLE chunks ADD COLUMN entity_spans TEXT NOT NULL DEFAULT '[]'")
                if version in ("1", "2"):
                    if "fields" not in {row[1] for row in self._db.execute("PRAGMA table_info(jobs)")}:
                        self._db.execute("ALTER TABLE jobs ADD COLUMN fields TEXT")
                    self._record_languages()
                    self._bump_generation()
                if "progress" not in {row[1] for row in self._db.execute("PRAGMA table_info(jobs)")}:
                    self._db.execute("ALTER TABLE jobs ADD COLUMN progress TEXT")
                self._db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (SCHEMA_VERSION,))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def _record_languages(self) -> None:
        """Each stored chunk's and document's language, for a store written before they were recorded."""
        for doc_id, doc_meta in self._db.execute("SELECT doc_id, meta FROM documents").fetchall():
            rows = [
                (chunk_id, json.loads(meta), text)
                for chunk_id, meta, text in self._db.execute("SELECT chunk_id, meta, text FROM chunks WHERE doc_id = ? ORDER BY ordinal", (doc_id,))
            ]
            languages, shares = stored_languages(rows)
            self._db.executemany(
                "UPDATE chunks SET meta = ? WHERE chunk_id = ?",
                [(_dumps({**meta, LANG_KEY: languages[chunk_id]}), chunk_id) for chunk_id, meta, _ in rows],
            )
            meta = json.loads(doc_meta)
            set_document_languages(meta, shares)
            self._db.execute("UPDATE documents SET meta = ? WHERE doc_id = ?", (_dumps(meta), doc_id))


    # -- meta ---------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    def all_meta(self) -> dict[str, str]:
        with self._lock:
            return dict(self._db.execute("SELECT key, value FROM meta ORDER BY key").fetchall())

    _generation_read: tuple[tuple[int, int], int] | None = None

    def generation(self) -> int:
        """The write counter, read again only when a commit may have moved it: `PRAGMA data_version` moves when another
        connection commits, `total_changes` when this one writes (a write's own transaction reads it afresh). The
        pragma is about half the cost of the row read, which every search made twice."""
        with self._lock:
            if self._db.in_transaction:
                return int(self.get_meta("generation") or 0)
            seen = (self._db.execute("PRAGMA data_version").fetchone()[0], self._db.total_changes)
            read = self._generation_read
            if read is not None and read[0] == seen:
                return read[1]
            generation = int(self.get_meta("generation") or 0)
            self._generation_read = seen, generation
            return generation

    def _bump_generation(self) -> None:
        self._db.execute(
            "INSERT INTO meta (key, value) VALUES ('generation', '1') "
            "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1"
        )

