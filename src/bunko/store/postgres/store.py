"""`PostgresStore`: the parts (`postgres/documents.py`, `search.py`, `jobs.py`) over one schema, with export and import."""


from __future__ import annotations

import json
import random
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from bunko.errors import CollectionError
from bunko.schema import IngestJob, ParsedDocument
from bunko.store.base import StoredChunk
from bunko.store.postgres.base import (
    HNSW_INDEX,
    OWNER_NAMESPACE,
    _redact,
    _vector,
)
from bunko.store.postgres.documents import PostgresDocuments
from bunko.store.postgres.jobs import PostgresJobs
from bunko.store.postgres.schema import migrate
from bunko.store.postgres.search import PostgresSearch
from bunko.store.rows import (
    CHUNK_COLUMNS,
    JOB_COLUMNS,
    chunk_from_row,
    job_from_row,
    mentions_from_columns,
)


class PostgresStore(PostgresDocuments, PostgresJobs):
    """A collection in one PostgreSQL schema (default ``bunko``), reached through a connection pool.

    `exact_below`: collections with at most this many chunks are searched exactly (a scan of a
    few thousand vectors costs less than an index walk and is never approximate).
    `ef_search`: the HNSW candidate list, raised to at least 2·k per query.
    `index_memory`: maintenance_work_mem for building the HNSW index (a graph that fits builds fast).
    """

    def __init__(
        self, dsn: str, schema: str = "bunko", *, pool_size: int = 4, exact_below: int = 10_000, ef_search: int = 100,
        index_memory: str = "1GB",
    ) -> None:
        self.dsn = dsn
        self.schema = schema
        self.exact_below = exact_below
        self.ef_search = ef_search
        self.index_memory = index_memory
        self._bulk = False
        self._writer_id = random.randint(1, 2**31 - 1)
        self._owner_conn: psycopg.Connection | None = None
        self._owner_lock = threading.Lock()
        self._dimension: int | None = None
        self._writer_embedder: str | None = None
        try:
            with psycopg.connect(dsn, autocommit=True) as conn:
                migrate(conn, schema)
        except psycopg.OperationalError as exc:
            raise CollectionError(f"cannot connect to PostgreSQL ({_redact(dsn)}): {str(exc).strip()}") from None
        self._pool = ConnectionPool(
            dsn, min_size=1, max_size=pool_size, configure=self._configure, open=False, name=f"bunko-{schema}",
        )
        self._pool.open(wait=True, timeout=30)
        self._search = PostgresSearch(self)


    def search(self) -> PostgresSearch:
        """What retrieval reads: SQL over this store's pool."""
        return self._search

    def prepare_search(self) -> None:
        """Nothing to ready: the database keeps the indexes, and a search caches nothing on disk."""

    def close(self) -> None:
        self._pool.close()
        with self._owner_lock:
            if self._owner_conn is not None:
                try:  # unlock first: a closed connection's locks are released only when its backend exits
                    self._owner_conn.execute("SELECT pg_advisory_unlock(%s, %s)", (OWNER_NAMESPACE, self._writer_id))
                finally:
                    self._owner_conn.close()
                    self._owner_conn = None


    @contextmanager
    def bulk_load(self) -> Iterator[PostgresStore]:
        """Many documents at once (a migration): drop the HNSW index, write, build it once at the end."""
        with self._pool.connection() as conn:
            conn.execute(f"DROP INDEX IF EXISTS {HNSW_INDEX}")
        self._bulk = True
        try:
            yield self
        finally:
            self._bulk = False
            self._maybe_build_index()


    # -- export / import (bunko migrate) -----------------------------------
    def export_documents(self) -> Iterator[tuple[ParsedDocument, str, float, list[StoredChunk]]]:
        """Every document with its elements and chunks (vectors, tokens, embed hashes), one at a time."""
        with self._pool.connection() as conn:
            heads = conn.execute(
                "SELECT doc_id, source, title, mime, parser, content_hash, ingested_at, meta FROM documents ORDER BY source"
            ).fetchall()
        for doc_id, source, title, mime, parser, content_hash, ingested_at, meta in heads:
            with self._pool.connection() as conn, conn.cursor(binary=True) as cur:
                cur.execute(
                    f"SELECT {CHUNK_COLUMNS}, embedding, tokens, embed_hash, entities, entity_spans FROM chunks WHERE doc_id = %s "
                    "ORDER BY ordinal",
                    (doc_id,),
                )
                chunks = [
                    StoredChunk(chunk_from_row(r[:12]), _vector(r[12]), list(r[13]), r[14], mentions_from_columns(r[15], r[16], r[4]))
                    for r in cur.fetchall()
                ]
            doc = ParsedDocument(doc_id, source, title, mime, parser, self.elements(source), json.loads(meta))
            yield doc, content_hash, ingested_at, chunks

    def export_jobs(self) -> Iterator[tuple[IngestJob, str]]:
        with self._pool.connection() as conn:
            rows = conn.execute(
                f"SELECT {JOB_COLUMNS}, run_id FROM jobs ORDER BY seq"
            ).fetchall()
        for r in rows:
            yield job_from_row(r), r[10]

    def export_traces(self) -> Iterator[tuple[str, float, str, dict[str, Any]]]:
        with self._pool.connection() as conn:
            rows = conn.execute("SELECT trace_id, created_at, question, payload FROM traces ORDER BY created_at, trace_id").fetchall()
        for trace_id, created_at, question, payload in rows:
            yield trace_id, created_at, question, json.loads(payload)

    def clear(self) -> None:
        """Empty the collection (documents, jobs, traces, meta) in one transaction; the schema stays."""
        with self._pool.connection() as conn, conn.transaction():
            conn.execute("TRUNCATE postings, chunks, elements, document_facts, documents, jobs, traces, meta, staged_vectors")
            conn.execute("UPDATE corpus SET chunks = 0, tokens = 0, generation = generation + 1")

