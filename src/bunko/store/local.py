"""The embedded store: SQLite (WAL) is the truth; vectors and BM25 live in memory.

Every document is written in one SQLite transaction — its row, elements,
chunks, vectors and keyword tokens together — so a process killed at any
instant leaves either the old document or the new one, never half of one.
Each write bumps ``generation``; the in-memory search index (and its cache
files under ``index/``) is rebuilt from SQLite when the generation it was
built at is no longer current, which also makes other processes' writes
visible to a long-running reader.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from bunko.errors import CollectionError
from bunko.index.graph import EntityGraph
from bunko.index.memory import MemoryIndex
from bunko.schema import (
    DUPLICATE_OF_KEY,
    LANG_KEY,
    SEARCHABLE_KEY,
    TERMINAL_STATUSES,
    Chunk,
    DocumentInfo,
    DocumentMatch,
    Element,
    ErrorCode,
    IngestJob,
    JobStatus,
    ParsedDocument,
)
from bunko.store.base import STAGING_META, DocumentRecord, StagedVector, StageMissing, StoredChunk, TraceRecord
from bunko.store.chunk_cache import ChunkCache
from bunko.store.copies import CopyRecord, regroup, set_duplicate_of
from bunko.store.graph_sync import DOCUMENT_VERSIONS, sync_graph
from bunko.store.languages import label_languages, set_document_languages, stored_languages
from bunko.store.rows import (
    CHUNK_COLUMNS,
    DOCUMENT_COLUMNS,
    ELEMENT_COLUMNS,
    JOB_COLUMNS,
    PACKED_CHUNK_COLUMNS,
    chunk_from_packed_row,
    chunk_from_row,
    document_from_row,
    element_from_row,
    job_from_row,
    mention_columns,
    mentions_from_columns,
    progress_column,
)
from bunko.text.entities import Mention

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

CONCURRENT_ROWS = 250_000
"""Searchable chunks from which hybrid search runs its dense and keyword halves on two threads: between the
100k measured (one after the other faster) and the 1M measured (at once faster); keyword search's cost grows
with the collection, a thread handoff's does not."""


class LocalStore:
    def __init__(
        self, folder: Path, ann_threshold: int | None = None, vector_precision: str = "float32", ann_target_recall: float | None = 0.98,
        ann_ef_search: int | None = None, concurrent_rows: int = CONCURRENT_ROWS,
    ) -> None:
        """`concurrent_rows`: from this many searchable chunks on, hybrid search runs dense and keyword search at once."""
        self.folder = folder
        self.concurrent_rows = concurrent_rows
        folder.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._helper: ThreadPoolExecutor | None = None
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
        self._graph = EntityGraph()
        self._graph_generation = -1
        self._writer_embedder: str | None = None

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

    def close(self) -> None:
        with self._lock:
            self._db.close()
            if self._helper is not None:
                self._helper.shutdown(wait=True)
                self._helper = None

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

    def generation(self) -> int:
        return int(self.get_meta("generation") or 0)

    def _bump_generation(self) -> None:
        self._db.execute(
            "INSERT INTO meta (key, value) VALUES ('generation', '1') "
            "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1"
        )

    # -- documents ----------------------------------------------------------
    def document_hash(self, source: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT content_hash FROM documents WHERE source = ?", (source,)).fetchone()
        return row[0] if row else None

    def document_versions(self, doc_ids: Sequence[str]) -> dict[str, float]:
        ids = list(dict.fromkeys(doc_ids))
        if not ids:
            return {}
        with self._lock:
            rows = self._db.execute(
                f"SELECT doc_id, ingested_at FROM documents WHERE doc_id IN ({','.join('?' * len(ids))})", ids,
            ).fetchall()
        return {doc_id: float(ingested_at) for doc_id, ingested_at in rows}

    def replace_document(
        self, doc: ParsedDocument, content_hash: str, chunks: Sequence[StoredChunk], *, ingested_at: float | None = None,
    ) -> None:
        """Swap a document's rows in one transaction; `ingested_at` is given only when copying a collection."""
        ingested_at = time.time() if ingested_at is None else ingested_at
        label_languages(doc.meta, chunks)
        with self._lock:
            db = self._db
            db.execute("BEGIN IMMEDIATE")
            try:
                self._check_writer_embedder()
                members = self._copies_of(doc.doc_id)
                self._delete_rows(doc.doc_id)
                self._write_links(regroup(CopyRecord.from_meta(doc.doc_id, doc.source, ingested_at, doc.meta), members) if members else {})
                db.execute(
                    "INSERT INTO documents VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (doc.doc_id, doc.source, doc.title, doc.mime, doc.parser, content_hash, ingested_at, len(chunks), _dumps(doc.meta)),
                )
                db.executemany(
                    "INSERT INTO elements VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        (doc.doc_id, i, e.element_id, str(e.kind), e.text, e.page, _dumps(e.section_path),
                         _dumps(e.bbox) if e.bbox else None, e.parent_id, _dumps(e.meta))
                        for i, e in enumerate(doc.elements)
                    ],
                )
                db.executemany(
                    "INSERT INTO chunks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        (c.chunk.chunk_id, c.chunk.doc_id, c.chunk.source, c.chunk.ordinal, c.chunk.text, c.chunk.embed_text,
                         c.embed_hash, _dumps(c.chunk.element_ids), _dumps(c.chunk.pages), _dumps(c.chunk.section_path),
                         _dumps(c.chunk.kinds), c.chunk.parent_id, _dumps(c.chunk.meta), " ".join(c.tokens),
                         np.ascontiguousarray(c.vector, dtype=np.float32).tobytes(), *_entity_columns(c))
                        for c in chunks
                    ],
                )
                self._bump_generation()
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise

    def expect_embedder(self, name: str | None) -> None:
        self._writer_embedder = name

    def _check_writer_embedder(self) -> None:
        """Inside the write transaction, so no switch commits between the check and the write."""
        recorded = self.get_meta("embedder")
        if self._writer_embedder is not None and recorded is not None and recorded != self._writer_embedder:
            raise CollectionError(
                f"the collection was switched to the embedder {recorded} while this process embedded with "
                f"{self._writer_embedder}; nothing was written, ingest the file again"
            )

    def _delete_rows(self, doc_id: str) -> None:
        for table in ("chunks", "elements", "documents"):
            self._db.execute(f"DELETE FROM {table} WHERE doc_id = ?", (doc_id,))

    def delete_document(self, source: str) -> bool:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                row = self._db.execute("SELECT doc_id FROM documents WHERE source = ?", (source,)).fetchone()
                if row:
                    self._delete_rows(row[0])
                    self._write_links(regroup(None, self._copies_of(row[0])))
                    self._bump_generation()
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return row is not None

    def _copies_of(self, doc_id: str) -> list[CopyRecord]:
        """The documents recorded as copies of `doc_id` (inside the caller's transaction)."""
        rows = self._db.execute(
            "SELECT doc_id, source, ingested_at, meta FROM documents WHERE json_extract(meta, '$.duplicate_of') = ? ORDER BY source",
            (doc_id,),
        ).fetchall()
        return [CopyRecord.from_meta(d, s, t, json.loads(m)) for d, s, t, m in rows]

    def _write_links(self, links: Mapping[str, str | None]) -> None:
        """Set each document's original (None: it is one), inside the caller's transaction; the changed ones only."""
        for doc_id, original in links.items():
            row = self._db.execute("SELECT meta FROM documents WHERE doc_id = ?", (doc_id,)).fetchone()
            if row is None:
                continue
            meta = json.loads(row[0])
            if meta.get(DUPLICATE_OF_KEY) != original:
                set_duplicate_of(meta, original)
                self._db.execute("UPDATE documents SET meta = ? WHERE doc_id = ?", (_dumps(meta), doc_id))

    def copy_records(self, grouped: bool = False) -> list[CopyRecord]:
        """Every document's `CopyRecord`, or with `grouped` only those of groups: copies and the originals they point at."""
        where = (
            " WHERE json_extract(meta, '$.duplicate_of') IS NOT NULL OR doc_id IN "
            "(SELECT json_extract(meta, '$.duplicate_of') FROM documents WHERE json_extract(meta, '$.duplicate_of') IS NOT NULL)"
        ) if grouped else ""
        with self._lock:
            rows = self._db.execute(f"SELECT doc_id, source, ingested_at, meta FROM documents{where} ORDER BY source").fetchall()
        return [CopyRecord.from_meta(d, s, t, json.loads(m)) for d, s, t, m in rows]

    def link_copies(self, links: Mapping[str, str | None]) -> None:
        if not links:
            return
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._write_links(links)
                self._bump_generation()
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def documents(self) -> list[DocumentInfo]:
        with self._lock:
            rows = self._db.execute(
                f"SELECT {DOCUMENT_COLUMNS} FROM documents ORDER BY source"
            ).fetchall()
        return [document_from_row(r) for r in rows]

    def elements(self, source: str) -> list[Element]:
        with self._lock:
            rows = self._db.execute(
                f"SELECT {ELEMENT_COLUMNS} "
                "FROM elements e JOIN documents d ON d.doc_id = e.doc_id WHERE d.source = ? ORDER BY e.ordinal",
                (source,),
            ).fetchall()
        return [element_from_row(r) for r in rows]

    def chunks(self, source: str | None = None) -> list[Chunk]:
        sql = f"SELECT {CHUNK_COLUMNS} FROM chunks"
        params: tuple[Any, ...] = ()
        if source is not None:  # through the document's id: chunks are indexed by document, not by source
            sql += " WHERE doc_id = (SELECT doc_id FROM documents WHERE source = ?)"
            params = (source,)
        with self._lock:
            rows = self._db.execute(sql + " ORDER BY source, ordinal", params).fetchall()
        return [chunk_from_row(r) for r in rows]

    def get_chunks(self, chunk_ids: Sequence[str]) -> list[Chunk]:
        """The chunks of `chunk_ids` that exist, in that order, from the chunk cache of the current generation.

        The rows not cached are read with the generation in one statement (`_read_hits`), one snapshot: a
        search's hits cost one SQLite statement, not two (a statement is ~7 µs, and ~15 µs of a keyword search
        at 10k chunks). When that generation is not the cache's, a write came between: the cache is emptied and
        the ids it held are read again."""
        ids = list(chunk_ids)
        with self._lock:
            cache = self._chunk_cache
            missing = cache.missing(ids)
            generation, fetched = self._read_hits(missing) if missing else (None, [])
            if generation is None:  # no row was read: the generation on its own
                generation = self.generation()
            if generation != cache.generation:
                cache.at(generation)
                read = {row[0] for row in fetched}
                fetched += self._hit_rows([cid for cid in cache.missing(ids) if cid not in read])
            return cache.take(ids, fetched)

    def _read_hits(self, ids: list[str]) -> tuple[int | None, list[Any]]:
        """The rows (PACKED_CHUNK_COLUMNS) of `ids` and the generation they were read at (None when none was
        found), in one statement for up to `_IN_BATCH` ids; more are read after the generation, in batches."""
        if len(ids) > _IN_BATCH:
            generation = self.generation()
            return generation, self._hit_rows(ids)
        rows = self._db.execute(
            f"SELECT {PACKED_CHUNK_COLUMNS}, (SELECT value FROM meta WHERE key = 'generation') "
            f"FROM chunks WHERE chunk_id IN ({','.join('?' * len(ids))})", ids,
        ).fetchall()
        return (int(rows[0][8] or 0) if rows else None), rows

    def _hit_rows(self, ids: list[str]) -> list[Any]:
        rows: list[Any] = []
        for start in range(0, len(ids), _IN_BATCH):
            batch = ids[start : start + _IN_BATCH]
            rows += self._db.execute(f"SELECT {PACKED_CHUNK_COLUMNS} FROM chunks WHERE chunk_id IN ({','.join('?' * len(batch))})", batch).fetchall()
        return rows

    def chunk_count(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0])

    def cached_vectors(self, embed_hashes: Sequence[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        hashes = list(set(embed_hashes))
        with self._lock:
            for start in range(0, len(hashes), 500):
                batch = hashes[start : start + 500]
                marks = ",".join("?" * len(batch))
                for h, blob in self._db.execute(f"SELECT embed_hash, vector FROM chunks WHERE embed_hash IN ({marks})", batch):
                    if h not in out or not out[h].any():  # a real vector over a parent's blank one
                        out[h] = np.frombuffer(blob, dtype=np.float32)
        return out

    def replace_vectors(self, vectors: Mapping[str, np.ndarray], embed_hashes: Mapping[str, str]) -> None:
        """Swap chunks' vectors in one transaction (re-embedding): the index never mixes two models."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.executemany(
                    "UPDATE chunks SET vector = ?, embed_hash = ? WHERE chunk_id = ?",
                    [(np.ascontiguousarray(v, dtype=np.float32).tobytes(), embed_hashes[cid], cid) for cid, v in vectors.items()],
                )
                self._bump_generation()
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    # -- re-embedding beside the live vectors --------------------------------
    def staging_counts(self) -> tuple[int, int]:
        with self._lock:
            total = int(self._db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0])
            missing = int(self._db.execute(f"SELECT COUNT(*) FROM chunks WHERE {_UNSTAGED}").fetchone()[0])
        return total - missing, total

    def chunks_to_stage(self, limit: int | None = None) -> list[tuple[Chunk, str]]:
        sql = f"SELECT {CHUNK_COLUMNS}, embed_hash FROM chunks WHERE {_UNSTAGED} ORDER BY source, ordinal"
        with self._lock:
            rows = self._db.execute(sql + " LIMIT ?", (limit if limit is not None else -1,)).fetchall()
        return [(chunk_from_row(r[:12]), r[12]) for r in rows]

    def _insert_staged(self, staged: Sequence[StagedVector]) -> None:
        self._db.executemany(
            "INSERT OR REPLACE INTO staged_vectors VALUES (?, ?, ?, ?)",
            [(s.chunk_id, s.live_hash, s.embed_hash, np.ascontiguousarray(s.vector, dtype=np.float32).tobytes()) for s in staged],
        )

    def stage_vectors(self, staged: Sequence[StagedVector]) -> None:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._insert_staged(staged)
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def discard_staged(self) -> None:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute("DELETE FROM staged_vectors")
                self._db.execute("DELETE FROM meta WHERE key = ?", (STAGING_META,))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def swap_staged(self, plan: str, meta: Mapping[str, str], stage_missing: StageMissing) -> int:
        """BEGIN IMMEDIATE keeps every other writer out until the commit, so nothing is written between the last
        staged chunk and the swap; searches go on reading the last committed generation meanwhile (WAL)."""
        with self._lock:
            db = self._db
            db.execute("BEGIN IMMEDIATE")
            try:
                if self.get_meta(STAGING_META) != plan:
                    raise CollectionError(f"{self.folder}: the re-embed was finished or aborted by another process")
                missing = self.chunks_to_stage()
                if missing:
                    self._insert_staged(stage_missing(missing))
                left = int(db.execute(f"SELECT COUNT(*) FROM chunks WHERE {_UNSTAGED}").fetchone()[0])
                if left:
                    raise CollectionError(f"{self.folder}: {left} chunks have no vector from the new embedder; nothing was switched")
                db.execute(
                    "UPDATE chunks SET vector = s.vector, embed_hash = s.embed_hash FROM staged_vectors s "
                    "WHERE s.chunk_id = chunks.chunk_id"
                )
                count = int(db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0])
                db.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", list(meta.items()))
                db.execute("DELETE FROM staged_vectors")
                db.execute("DELETE FROM meta WHERE key = ?", (STAGING_META,))
                self._bump_generation()
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return count

    # -- search -------------------------------------------------------------
    # Every read of the in-memory index holds the store lock, as its reload does: a search
    # never sees half of one generation and half of the next (nor a faiss graph mid-update).
    # The lock is held for milliseconds; numpy and faiss release the GIL inside it anyway.
    def _current_index(self) -> MemoryIndex:
        with self._lock:
            generation = self.generation()
            if self._index.generation != generation:
                self._index.load(generation, self._read_rows)
            return self._index

    def _read_rows(self, token_sink: Callable[[str], None] | None) -> tuple[list[str], np.ndarray | None, list[dict[str, Any]]]:
        """One read transaction, so the row count that sizes the vector matrix and the rows come from one
        snapshot even while another process commits documents."""
        self._db.execute("BEGIN")
        try:
            return self._read_rows_in_snapshot(token_sink)
        finally:
            self._db.execute("COMMIT")

    def _read_rows_in_snapshot(
        self, token_sink: Callable[[str], None] | None
    ) -> tuple[list[str], np.ndarray | None, list[dict[str, Any]]]:
        """Ids, vectors and filter records of the searchable chunks; each row's token text goes to `token_sink`.

        Built for a million rows: vectors land in one preallocated matrix (no list of blobs joined
        into a second copy), tokens are handed on row by row instead of kept as lists of strings,
        and the records' repeated strings (doc id, source, pages, kinds) are shared.
        """
        doc_rows = self._db.execute("SELECT doc_id, title, mime, ingested_at, meta FROM documents").fetchall()
        docs = {r[0]: {"title": r[1], "mime": r[2], "ingested_at": r[3], **json.loads(r[4]).get("fields", {})} for r in doc_rows}
        upper_bound = int(self._db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0])
        ids: list[str] = []
        records: list[dict[str, Any]] = []
        vectors: np.ndarray | None = None
        shared: dict[str, str] = {}
        token_column = "tokens" if token_sink is not None else "''"
        cursor = self._db.execute(
            f"SELECT chunk_id, doc_id, source, pages, section_path, kinds, json_extract(meta, '$.{LANG_KEY}'), {token_column}, vector "
            f"FROM chunks WHERE {SEARCHABLE} ORDER BY doc_id, ordinal"
        )
        for row, (chunk_id, doc_id, source, pages, section, kinds, lang, toks, blob) in enumerate(cursor):
            if vectors is None:
                vectors = np.empty((upper_bound, len(blob) // 4), dtype=np.float32)
            vectors[row] = np.frombuffer(blob, dtype=np.float32)
            ids.append(chunk_id)
            if token_sink is not None:
                token_sink(toks)
            doc_id, source = shared.setdefault(doc_id, doc_id), shared.setdefault(source, source)
            records.append({
                **docs.get(doc_id, {}), "chunk_id": chunk_id, "doc_id": doc_id, "source": source,
                "pages": shared.setdefault(pages, pages), "section_path": shared.setdefault(section, section),
                "kinds": shared.setdefault(kinds, kinds), LANG_KEY: shared.setdefault(lang, lang) if lang else None,
            })
        if vectors is None:
            return ids, None, records
        if len(ids) < 0.9 * upper_bound:  # many unsearchable (parent) chunks: do not keep their slack
            return ids, vectors[: len(ids)].copy(), records
        return ids, vectors[: len(ids)], records

    def filter_fields(self) -> set[str]:
        with self._lock:
            return self._current_index().known_fields

    def dense_search(self, vector: np.ndarray, k: int, where: Mapping[str, Any] | None = None) -> list[tuple[str, float]]:
        with self._lock:
            return self._current_index().dense(vector, k, where)

    def keyword_search(self, tokens: Sequence[str], k: int, where: Mapping[str, Any] | None = None) -> list[tuple[str, float]]:
        with self._lock:
            return self._current_index().keyword(tokens, k, where)

    def hybrid_search(
        self, vector: np.ndarray, tokens: Sequence[str], k: int, where: Mapping[str, Any] | None = None
    ) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
        """Dense and keyword top-k of one query, at once past `concurrent_rows` chunks: dense on a helper thread
        while this one scores BM25.

        Both read one generation under one hold of the store lock (the helper never takes it; this
        thread waits for it before letting go). faiss and numpy release the GIL: at 1M chunks with
        HNSW, 9.0 ms one after the other became 5.9 ms. Below that the handoff costs more than it
        saves: at 100k chunks keyword search takes 0.4 ms against dense's 1.7, and waking the helper
        and waiting for it on the shared 2-core machine made the pair 3.3 ms instead of 2.3 one after
        the other (bench_search's 200 questions, three times each, with other work on the machine).
        """
        with self._lock:
            index = self._current_index()
            if len(index.ids) < self.concurrent_rows:
                return index.dense(vector, k, where), index.keyword(tokens, k, where)
            index.mask(where)  # built once here, so the two threads only read the mask cache
            if self._helper is None:
                self._helper = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bunko-dense")
            future = self._helper.submit(index.dense, vector, k, where)
            try:
                keyword = index.keyword(tokens, k, where)
            except BaseException:
                future.exception()  # the helper must be done with this index before the lock is released
                raise
            return future.result(), keyword

    def document_keyword_search(
        self, tokens: Sequence[str], k: int, where: Mapping[str, Any] | None = None, vector: np.ndarray | None = None
    ) -> list[DocumentMatch]:
        with self._lock:
            return self._current_index().document_keyword(tokens, k, where, vector)

    def document_similarities(self, chunk_ids: Sequence[str], vector: np.ndarray) -> dict[str, float]:
        with self._lock:
            return self._current_index().document_similarities(chunk_ids, vector)

    def document_opening_similarities(self, chunk_ids: Sequence[str], vector: np.ndarray) -> dict[str, float]:
        with self._lock:
            return self._current_index().document_opening_similarities(chunk_ids, vector)

    def chunk_documents(self, chunk_ids: Sequence[str]) -> dict[str, str]:
        with self._lock:
            return self._current_index().chunk_documents(chunk_ids)

    def chunk_languages(self, chunk_ids: Sequence[str]) -> dict[str, str]:
        with self._lock:
            return self._current_index().chunk_languages(chunk_ids)

    def document_languages(self, chunk_ids: Sequence[str]) -> dict[str, str]:
        with self._lock:
            return self._current_index().document_languages(chunk_ids)

    def translated_chunks(self, chunk_ids: Sequence[str], language: str, tokens: Sequence[str]) -> set[str]:
        with self._lock:
            return self._current_index().translated_chunks(chunk_ids, language, tokens)

    def document_keyword_scores(self, chunk_ids: Sequence[str], tokens: Sequence[str]) -> dict[str, float]:
        with self._lock:
            return self._current_index().document_keyword_scores(chunk_ids, tokens)

    def document_opening_keyword_scores(self, chunk_ids: Sequence[str], tokens: Sequence[str]) -> dict[str, float]:
        with self._lock:
            return self._current_index().document_opening_keyword_scores(chunk_ids, tokens)

    def term_weights(self, tokens: Sequence[str]) -> dict[str, float]:
        with self._lock:
            return self._current_index().bm25.idf(tokens)

    def matching_terms(self, chunk_ids: Sequence[str], tokens: Sequence[str]) -> dict[str, set[str]]:
        with self._lock:
            return self._current_index().matching_terms(chunk_ids, tokens)

    def term_matrix(self, chunk_ids: Sequence[str], tokens: Sequence[str]) -> tuple[list[str], list[str], np.ndarray]:
        """`matching_terms` as one boolean matrix: (the indexed chunks asked, the query terms known, held[chunk, term])."""
        with self._lock:
            return self._current_index().term_matrix(chunk_ids, tokens)

    def index_stats(self) -> dict[str, Any]:
        """What the dense index is, without loading it: exact, or HNSW with its calibrated ef_search and measured recall@10."""
        with self._lock:
            return self._index.stats()

    def vectors_for(self, chunk_ids: Sequence[str]) -> np.ndarray:
        """Stored vectors of indexed chunks, in the order asked (for MMR); a zero row for a chunk no longer indexed."""
        with self._lock:
            return self._current_index().vectors_for(chunk_ids)

    # -- entity graph -------------------------------------------------------
    def entity_graph(self) -> EntityGraph:
        with self._lock:
            generation = self.generation()
            if self._graph_generation != generation:
                self._db.execute("BEGIN")
                try:
                    sync_graph(self._graph, self._db.execute(DOCUMENT_VERSIONS), self._entity_rows)
                finally:
                    self._db.execute("COMMIT")
                self._graph_generation = generation
            return self._graph

    def _entity_rows(self, doc_ids: list[str]) -> Iterator[tuple[str, str, list[str]]]:
        marks = ",".join("?" * len(doc_ids))
        cursor = self._db.execute(
            f"SELECT doc_id, chunk_id, entities FROM chunks WHERE doc_id IN ({marks}) AND {SEARCHABLE} ORDER BY doc_id, ordinal",
            doc_ids,
        )
        for doc_id, chunk_id, keys in cursor:
            yield doc_id, chunk_id, _keys(keys)

    def mentions(self, chunk_ids: Sequence[str]) -> dict[str, list[Mention]]:
        ids = list(dict.fromkeys(chunk_ids))
        with self._lock:
            rows = self._db.execute(
                f"SELECT chunk_id, entities, entity_spans, text FROM chunks WHERE chunk_id IN ({','.join('?' * len(ids))})", ids
            ).fetchall()
        return {chunk_id: mentions_from_columns(_keys(keys), spans, text) for chunk_id, keys, spans, text in rows}

    def allowed_chunks(self, chunk_ids: Sequence[str], where: Mapping[str, Any]) -> set[str]:
        with self._lock:
            return self._current_index().allowed(chunk_ids, where)

    # -- jobs ---------------------------------------------------------------
    def save_job(self, job: IngestJob, run_id: str) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO jobs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (job.job_id, run_id, job.source, str(job.status), job.error_code, job.error_detail, job.created_at,
                 job.updated_at, _dumps(job.timings), None if job.fields is None else _dumps(job.fields), progress_column(job)),
            )

    def jobs(self, run_id: str | None = None, limit: int = 1000) -> list[IngestJob]:
        sql = f"SELECT {JOB_COLUMNS} FROM jobs"
        params: tuple[Any, ...] = ()
        if run_id is not None:
            sql += " WHERE run_id = ?"
            params = (run_id,)
        with self._lock:
            rows = self._db.execute(sql + " ORDER BY created_at DESC, rowid DESC LIMIT ?", (*params, limit)).fetchall()
        return [job_from_row(r) for r in rows]

    def last_run_id(self) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT run_id FROM jobs ORDER BY created_at DESC, rowid DESC LIMIT 1").fetchone()
        return row[0] if row else None

    def get_job(self, job_id: str) -> IngestJob | None:
        with self._lock:
            row = self._db.execute(f"SELECT {JOB_COLUMNS} FROM jobs WHERE job_id = ?", (job_id,)).fetchone()
        return job_from_row(row) if row else None

    def failed_jobs(self) -> list[IngestJob]:
        with self._lock:
            rows = self._db.execute(
                f"SELECT {JOB_COLUMNS} FROM (SELECT *, row_number() OVER (PARTITION BY source ORDER BY created_at DESC, rowid DESC) "
                "AS place, rowid AS r FROM jobs) WHERE place = 1 AND status = ? ORDER BY created_at DESC, r DESC",
                (JobStatus.FAILED.value,),
            ).fetchall()
        return [job_from_row(r) for r in rows]

    def fail_unfinished_jobs(self, detail: str) -> int:
        """Mark jobs left mid-flight by a killed process; their documents were never committed."""
        marks = ",".join("?" * len(TERMINAL_STATUSES))
        with self._lock:
            cursor = self._db.execute(
                f"UPDATE jobs SET status = ?, error_code = ?, error_detail = ?, updated_at = ? WHERE status NOT IN ({marks})",
                (JobStatus.FAILED.value, ErrorCode.INTERRUPTED.value, detail, time.time(), *[s.value for s in TERMINAL_STATUSES]),
            )
        return cursor.rowcount

    # -- traces -------------------------------------------------------------
    def save_trace(self, trace_id: str, question: str, payload: dict[str, Any], *, created_at: float | None = None) -> None:
        created_at = time.time() if created_at is None else created_at
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO traces VALUES (?, ?, ?, ?)", (trace_id, created_at, question, _dumps(payload)))

    def get_trace(self, trace_id: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._db.execute("SELECT payload FROM traces WHERE trace_id = ?", (trace_id,)).fetchone()
        return json.loads(row[0]) if row else None

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
