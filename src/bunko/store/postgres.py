"""The PostgreSQL + pgvector store: the local store's behaviour, shared by many processes and machines.

* One document's ingest is one transaction (its row, elements, chunks with
  vectors, keyword postings and the corpus totals), taken under a
  transaction-level advisory lock on the document, so two writers of the same
  document serialise and never leave two copies.
* Dense search is cosine distance over a pgvector column with an HNSW index;
  small collections (and filtered queries the index cannot fill) are searched
  exactly, so a filtered search returns k hits whenever k rows match. The
  index is built when a collection outgrows exact search (building it once is
  ~10x cheaper than inserting into it row by row), and after a `bulk_load`.
* Keyword search is BM25 computed in SQL over a postings table with the
  formula of `bunko.index.bm25_formula` (its `sql_term_score`: Lucene idf, k1, b,
  each distinct query term once), over the same analyzer tokens the local store indexes.
* Filters are translated to SQL by `sql_filters` and applied in those queries.
* Jobs carry their writer's id; a live writer holds a session advisory lock on
  it, so `fail_unfinished_jobs` fails only jobs whose writer is gone, not
  those of another process ingesting right now.

PostgreSQL text cannot hold NUL characters; they are stored as U+FFFD.
"""

from __future__ import annotations

import json
import math
import random
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
import psycopg
from pgvector.psycopg import register_vector
from psycopg import sql
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from bunko.errors import CollectionError
from bunko.index.bm25_formula import idf, sql_term_score
from bunko.index.filters import validate_filter
from bunko.index.graph import EntityGraph
from bunko.index.memory import OPENING_CHUNKS, SIMILAR_CHUNKS
from bunko.schema import (
    DUPLICATE_OF_KEY,
    TERMINAL_STATUSES,
    Chunk,
    DocumentInfo,
    DocumentMatch,
    Element,
    ErrorCode,
    IngestJob,
    JobStatus,
    ParsedDocument,
    meta_searchable,
)
from bunko.store.base import STAGING_META, StagedVector, StageMissing, StoredChunk
from bunko.store.copies import CopyRecord, regroup, set_duplicate_of
from bunko.store.graph_sync import DOCUMENT_VERSIONS, sync_graph
from bunko.store.languages import label_languages
from bunko.store.postgres_schema import LOCK_NAMESPACE, migrate, searchable_sql, set_search_path
from bunko.store.rows import (
    CHUNK_COLUMNS,
    DOCUMENT_COLUMNS,
    ELEMENT_COLUMNS,
    JOB_COLUMNS,
    chunk_from_row,
    document_from_row,
    element_from_row,
    job_from_row,
    mention_columns,
    mentions_from_columns,
    progress_column,
)
from bunko.store.sql_filters import FilterCompiler, field_names, known_fields_from
from bunko.text.entities import Mention
from bunko.text.languages import tokens_language

OWNER_NAMESPACE = LOCK_NAMESPACE + 1
"""Advisory lock space of live writers (key 2 = writer id); documents use LOCK_NAMESPACE + 2."""
DOCUMENT_NAMESPACE = LOCK_NAMESPACE + 2
HNSW_INDEX = "chunks_embedding_hnsw"



_SEARCHABLE = searchable_sql()
_UNSTAGED = (
    "NOT EXISTS (SELECT 1 FROM staged_vectors s WHERE s.chunk_id = chunks.chunk_id AND s.live_hash = chunks.embed_hash)"
)
"""A chunk whose current text has no staged vector: never staged, or rewritten since it was."""
_TERMINAL = [s.value for s in TERMINAL_STATUSES]

_KEYWORD_SQL = (
    """
WITH q AS (SELECT DISTINCT t AS term FROM unnest(%(terms)s::text[]) AS t),
p AS MATERIALIZED (SELECT p.term, p.chunk, p.tf, p.dl FROM postings p JOIN q ON p.term = q.term),
df AS (SELECT term, count(*)::float8 AS df FROM p GROUP BY term),
s AS (SELECT chunks::float8 AS n, CASE WHEN tokens > 0 THEN tokens::float8 / chunks ELSE 1.0 END AS avgdl FROM corpus),
scored AS (
    SELECT p.chunk,
           sum("""
    + sql_term_score(tf="p.tf", df="df.df", n="s.n", doc_len="p.dl", avg_len="s.avgdl")
    + """) AS score
    FROM p JOIN df ON df.term = p.term CROSS JOIN s
    GROUP BY p.chunk
)
SELECT c.chunk_id, scored.score FROM scored JOIN chunks c ON c.id = scored.chunk
WHERE {where}
ORDER BY scored.score DESC, c.doc_id, c.ordinal
LIMIT %(k)s
"""
)

_DOCUMENT_KEYWORD_SQL = (
    """
WITH q AS (SELECT DISTINCT t AS term FROM unnest(%(terms)s::text[]) AS t),
p AS MATERIALIZED (
    SELECT p.term, c.doc_id, sum(p.tf)::float8 AS tf
    FROM postings p JOIN q ON p.term = q.term JOIN chunks c ON c.id = p.chunk
    GROUP BY p.term, c.doc_id
),
df AS (SELECT term, count(*)::float8 AS df FROM p GROUP BY term),
dl AS (SELECT c.doc_id, sum(c.dl)::float8 AS dl FROM chunks c WHERE c.doc_id IN (SELECT DISTINCT doc_id FROM p) GROUP BY c.doc_id),
s AS (
    SELECT d.n, CASE WHEN corpus.tokens > 0 AND d.n > 0 THEN corpus.tokens::float8 / d.n ELSE 1.0 END AS avgdl
    FROM corpus CROSS JOIN (SELECT count(*)::float8 AS n FROM documents WHERE chunk_count > 0) d
),
scored AS (
    SELECT p.doc_id,
           sum("""
    + sql_term_score(tf="p.tf", df="df.df", n="s.n", doc_len="dl.dl", avg_len="s.avgdl")
    + """) AS score
    FROM p JOIN df ON df.term = p.term JOIN dl ON dl.doc_id = p.doc_id CROSS JOIN s
    GROUP BY p.doc_id
)
SELECT scored.doc_id, scored.score FROM scored
WHERE {documents} AND EXISTS (SELECT 1 FROM chunks c WHERE c.doc_id = scored.doc_id AND {where} AND """
    + _SEARCHABLE
    + """)
ORDER BY scored.score DESC, scored.doc_id
LIMIT %(k)s
"""
)
"""Document-level BM25: a document's term frequencies and length are its chunks' sums, as the local store's document index."""

_OPENING_TOTALS_SQL = "SELECT count(DISTINCT doc_id), coalesce(sum(dl), 0) FROM chunks WHERE opening"
"""The openings' count and summed length (an index-only scan of `chunks_openings`), kept per generation."""

_OPENING_KEYWORD_SQL = (
    """
WITH q AS (SELECT DISTINCT t AS term FROM unnest(%(terms)s::text[]) AS t),
p AS MATERIALIZED (
    SELECT p.term, c.doc_id, sum(p.tf)::float8 AS tf
    FROM postings p JOIN q ON p.term = q.term JOIN chunks c ON c.id = p.chunk
    WHERE c.opening
    GROUP BY p.term, c.doc_id
),
df AS (SELECT term, count(*)::float8 AS df FROM p GROUP BY term),
dl AS (SELECT doc_id, sum(dl)::float8 AS dl FROM chunks WHERE opening AND doc_id = ANY(%(docs)s::text[]) GROUP BY doc_id)
SELECT p.doc_id, sum("""
    + sql_term_score(tf="p.tf", df="df.df", n="%(n)s", doc_len="dl.dl", avg_len="%(avgdl)s")
    + """) AS score
FROM p JOIN df ON df.term = p.term JOIN dl ON dl.doc_id = p.doc_id
WHERE p.doc_id = ANY(%(docs)s::text[])
GROUP BY p.doc_id
"""
)
"""BM25 over every document's opening (its first OPENING_CHUNKS searchable chunks, flagged `opening` when written) as
one text, with the openings' own document count and average length (`n`, `avgdl`: `_OPENING_TOTALS_SQL`), as the local
store's opening index."""


def _query_vector(vector: np.ndarray) -> np.ndarray:
    """A query vector as pgvector binds it: one contiguous float32 row."""
    return np.ascontiguousarray(np.asarray(vector, dtype=np.float32).ravel())


def _text(value: str | None) -> str | None:
    return None if value is None else value.replace("\x00", "\ufffd")


def _dumps(value: Any) -> str:
    """JSON as the local store writes it (non-JSON values as str), NUL-free for PostgreSQL."""
    return json.dumps(value, ensure_ascii=False, default=str).replace("\\u0000", "\\ufffd")


def _finite(value: Any) -> Any:
    """jsonb has no NaN or infinity; such values become null (no value) in the filter record."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, list):
        return [_finite(v) for v in value]
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    return value


def filter_record(doc: ParsedDocument, ingested_at: float, chunk: Chunk) -> dict[str, Any]:
    """The record the local store filters one chunk by (see LocalStore._read_rows), as jsonb.

    Precedence is the local store's: chunk fields over document fields over title/mime/ingested_at;
    ``section`` also holds its joined path so ``$glob`` matches ``"A > B"``.
    """
    fields = json.loads(_dumps(doc.meta)).get("fields", {})
    record: dict[str, Any] = {"title": doc.title, "mime": doc.mime, "ingested_at": ingested_at, **fields}
    for hidden in ("pages", "section_path", "kinds"):
        record.pop(hidden, None)
    section = json.loads(_dumps(chunk.section_path))
    record.update(
        chunk_id=chunk.chunk_id, doc_id=chunk.doc_id, source=chunk.source,
        page=json.loads(_dumps(chunk.pages)), kind=json.loads(_dumps(chunk.kinds)),
        section=[*section, " > ".join(str(s) for s in section)] if section else [], lang=chunk.lang,
    )
    return _finite(json.loads(_dumps(record)))


def _vector(value: Any) -> np.ndarray:
    if hasattr(value, "to_numpy"):
        value = value.to_numpy()
    return np.asarray(value, dtype=np.float32)


class PostgresStore:
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
        self._compiler = FilterCompiler("c")
        self._graph = EntityGraph()
        self._graph_generation = -1
        self._opening_totals_of: tuple[int, float, float] | None = None
        """(generation, openings' count, their average length): `_opening_totals`."""
        self._graph_lock = threading.Lock()

    def _configure(self, conn: psycopg.Connection) -> None:
        # No server-side prepared statements: the re-embed switch changes the vector column's type, and a search
        # prepared before it then fails with "cached plan must not change result type" instead of answering.
        conn.prepare_threshold = None
        set_search_path(conn, self.schema)
        register_vector(conn)
        conn.commit()

    def close(self) -> None:
        self._pool.close()
        with self._owner_lock:
            if self._owner_conn is not None:
                try:  # unlock first: a closed connection's locks are released only when its backend exits
                    self._owner_conn.execute("SELECT pg_advisory_unlock(%s, %s)", (OWNER_NAMESPACE, self._writer_id))
                finally:
                    self._owner_conn.close()
                    self._owner_conn = None

    # -- meta ---------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        with self._pool.connection() as conn:
            row = conn.execute("SELECT value FROM meta WHERE key = %s", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        with self._pool.connection() as conn:
            conn.execute(
                "INSERT INTO meta (key, value) VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                (key, value),
            )

    def all_meta(self) -> dict[str, str]:
        with self._pool.connection() as conn:
            return dict(conn.execute("SELECT key, value FROM meta ORDER BY key").fetchall())

    def generation(self) -> int:
        with self._pool.connection() as conn:
            row = conn.execute("SELECT generation FROM corpus").fetchone()
        return int(row[0]) if row else 0

    # -- documents ----------------------------------------------------------
    def document_hash(self, source: str) -> str | None:
        with self._pool.connection() as conn:
            row = conn.execute("SELECT content_hash FROM documents WHERE source = %s", (source,)).fetchone()
        return row[0] if row else None

    def document_versions(self, doc_ids: Sequence[str]) -> dict[str, float]:
        ids = list(dict.fromkeys(doc_ids))
        if not ids:
            return {}
        with self._pool.connection() as conn:
            rows = conn.execute("SELECT doc_id, ingested_at FROM documents WHERE doc_id = ANY(%s::text[])", (ids,)).fetchall()
        return {doc_id: float(ingested_at) for doc_id, ingested_at in rows}

    def replace_document(
        self, doc: ParsedDocument, content_hash: str, chunks: Sequence[StoredChunk], *, ingested_at: float | None = None,
    ) -> None:
        """Swap a document's rows in one transaction; `ingested_at` is given only when copying a collection."""
        if chunks:
            self._ensure_dimension(int(np.asarray(chunks[0].vector).size))
        ingested_at = time.time() if ingested_at is None else ingested_at
        label_languages(doc.meta, chunks)
        with self._pool.connection() as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (DOCUMENT_NAMESPACE, doc.doc_id))
            self._check_writer_embedder(conn)
            members = self._copies_of(conn, doc.doc_id)
            removed, removed_tokens = self._delete_rows(conn, doc.doc_id)
            if members:
                self._write_links(conn, regroup(CopyRecord.from_meta(doc.doc_id, doc.source, ingested_at, doc.meta), members))
            conn.execute(
                "INSERT INTO documents VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                (doc.doc_id, _text(doc.source), _text(doc.title), doc.mime, doc.parser, content_hash, ingested_at, len(chunks),
                 _dumps(doc.meta)),
            )
            with conn.cursor().copy(
                "COPY elements (doc_id, ordinal, element_id, kind, text, page, section_path, bbox, parent_id, meta) "
                "FROM STDIN (FORMAT BINARY)"
            ) as copy:
                copy.set_types(["text", "int4", "text", "text", "text", "int4", "text", "text", "text", "text"])
                for i, e in enumerate(doc.elements):
                    copy.write_row((
                        doc.doc_id, i, _text(e.element_id), str(e.kind), _text(e.text), e.page, _dumps(e.section_path),
                        _dumps(e.bbox) if e.bbox else None, _text(e.parent_id), _dumps(e.meta),
                    ))
            tokens = self._write_chunks(conn, doc, ingested_at, chunks)
            searchable = sum(1 for stored in chunks if stored.chunk.searchable)
            conn.execute(
                "UPDATE corpus SET chunks = chunks + %s, tokens = tokens + %s, generation = generation + 1",
                (searchable - removed, tokens - removed_tokens),
            )
        self._maybe_build_index()

    def _write_chunks(self, conn: psycopg.Connection, doc: ParsedDocument, ingested_at: float, chunks: Sequence[StoredChunk]) -> int:
        if not chunks:
            return 0
        ids = [r[0] for r in conn.execute("SELECT nextval('chunks_id_seq') FROM generate_series(1, %s)", (len(chunks),))]
        opening = {c.chunk_id for c in sorted((s.chunk for s in chunks if s.chunk.searchable), key=lambda c: c.ordinal)[:OPENING_CHUNKS]}
        total = 0
        with conn.cursor().copy(
            "COPY chunks (id, chunk_id, doc_id, source, ordinal, text, embed_text, embed_hash, element_ids, pages, "
            "section_path, kinds, parent_id, meta, tokens, dl, attrs, embedding, entities, entity_spans, opening) "
            "FROM STDIN (FORMAT BINARY)"
        ) as copy:
            copy.set_types(
                ["int8", *["text"] * 3, "int4", *["text"] * 9, "text[]", "int4", "jsonb", "vector", "text[]", "text", "bool"]
            )
            for key, stored in zip(ids, chunks, strict=True):
                c = stored.chunk
                indexed = len(stored.tokens) if c.searchable else 0
                total += indexed
                copy.write_row((
                    key, _text(c.chunk_id), c.doc_id, _text(c.source), c.ordinal, _text(c.text), _text(c.embed_text),
                    stored.embed_hash, _dumps(c.element_ids), _dumps(c.pages), _dumps(c.section_path), _dumps(c.kinds),
                    _text(c.parent_id), _dumps(c.meta), list(stored.tokens), indexed,
                    Jsonb(filter_record(doc, ingested_at, c), dumps=_dumps),
                    np.ascontiguousarray(stored.vector, dtype=np.float32), *mention_columns(stored.entities), c.chunk_id in opening,
                ))
        with conn.cursor().copy("COPY postings (term, chunk, tf, dl) FROM STDIN (FORMAT BINARY)") as copy:
            copy.set_types(["text", "int8", "int4", "int4"])
            for key, stored in zip(ids, chunks, strict=True):
                if not stored.chunk.searchable:  # kept for context, never indexed: no postings, no length in the corpus
                    continue
                dl = len(stored.tokens)
                for term, tf in Counter(stored.tokens).items():
                    copy.write_row((term, key, tf, dl))
        return total

    def expect_embedder(self, name: str | None) -> None:
        self._writer_embedder = name

    def _check_writer_embedder(self, conn: psycopg.Connection) -> None:
        """The table lock every chunk write takes anyway, taken first: a re-embed's switch (SHARE ROW EXCLUSIVE)
        either committed before it, and its embedder is read here, or waits for this write to commit."""
        if self._writer_embedder is None:
            return
        conn.execute("LOCK TABLE chunks IN ROW EXCLUSIVE MODE")
        row = conn.execute("SELECT value FROM meta WHERE key = 'embedder'").fetchone()
        if row is not None and row[0] != self._writer_embedder:
            raise CollectionError(
                f"the collection was switched to the embedder {row[0]} while this process embedded with "
                f"{self._writer_embedder}; nothing was written, ingest the file again"
            )

    def _delete_rows(self, conn: psycopg.Connection, doc_id: str) -> tuple[int, int]:
        """Remove a document's rows; return how many chunks and tokens left the corpus."""
        gone = conn.execute("DELETE FROM chunks WHERE doc_id = %s RETURNING id, dl, meta", (doc_id,)).fetchall()
        if gone:
            conn.execute("DELETE FROM postings WHERE chunk = ANY(%s)", ([r[0] for r in gone],))
        conn.execute("DELETE FROM elements WHERE doc_id = %s", (doc_id,))
        conn.execute("DELETE FROM documents WHERE doc_id = %s", (doc_id,))
        searchable = sum(1 for r in gone if meta_searchable(json.loads(r[2])))
        return searchable, sum(r[1] for r in gone)

    def delete_document(self, source: str) -> bool:
        with self._pool.connection() as conn, conn.transaction():
            row = conn.execute("SELECT doc_id FROM documents WHERE source = %s", (source,)).fetchone()
            if row is None:
                return False
            conn.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (DOCUMENT_NAMESPACE, row[0]))
            removed, tokens = self._delete_rows(conn, row[0])
            self._write_links(conn, regroup(None, self._copies_of(conn, row[0])))
            conn.execute(
                "UPDATE corpus SET chunks = chunks - %s, tokens = tokens - %s, generation = generation + 1", (removed, tokens)
            )
            return True

    def _copies_of(self, conn: psycopg.Connection, doc_id: str) -> list[CopyRecord]:
        """The documents recorded as copies of `doc_id` (inside the caller's transaction)."""
        rows = conn.execute(
            "SELECT doc_id, source, ingested_at, meta FROM documents WHERE meta::jsonb ->> 'duplicate_of' = %s ORDER BY source",
            (doc_id,),
        ).fetchall()
        return [CopyRecord.from_meta(d, s, t, json.loads(m)) for d, s, t, m in rows]

    def _write_links(self, conn: psycopg.Connection, links: Mapping[str, str | None]) -> None:
        """Set each document's original (None: it is one), inside the caller's transaction; the changed ones only."""
        for doc_id, original in links.items():
            row = conn.execute("SELECT meta FROM documents WHERE doc_id = %s FOR UPDATE", (doc_id,)).fetchone()
            if row is None:
                continue
            meta = json.loads(row[0])
            if meta.get(DUPLICATE_OF_KEY) != original:
                set_duplicate_of(meta, original)
                conn.execute("UPDATE documents SET meta = %s WHERE doc_id = %s", (_dumps(meta), doc_id))

    def copy_records(self, grouped: bool = False) -> list[CopyRecord]:
        """Every document's `CopyRecord`, or with `grouped` only those of groups: copies and the originals they point at."""
        where = (
            " WHERE meta::jsonb ? 'duplicate_of' OR doc_id IN "
            "(SELECT meta::jsonb ->> 'duplicate_of' FROM documents WHERE meta::jsonb ? 'duplicate_of')"
        ) if grouped else ""
        with self._pool.connection() as conn:
            rows = conn.execute(f"SELECT doc_id, source, ingested_at, meta FROM documents{where} ORDER BY source").fetchall()
        return [CopyRecord.from_meta(d, s, t, json.loads(m)) for d, s, t, m in rows]

    def link_copies(self, links: Mapping[str, str | None]) -> None:
        if not links:
            return
        with self._pool.connection() as conn, conn.transaction():
            self._write_links(conn, links)
            conn.execute("UPDATE corpus SET generation = generation + 1")

    def documents(self) -> list[DocumentInfo]:
        with self._pool.connection() as conn:
            rows = conn.execute(
                f"SELECT {DOCUMENT_COLUMNS} FROM documents ORDER BY source"
            ).fetchall()
        return [document_from_row(r) for r in rows]

    def elements(self, source: str) -> list[Element]:
        with self._pool.connection() as conn:
            rows = conn.execute(
                f"SELECT {ELEMENT_COLUMNS} "
                "FROM elements e JOIN documents d ON d.doc_id = e.doc_id WHERE d.source = %s ORDER BY e.ordinal",
                (source,),
            ).fetchall()
        return [element_from_row(r) for r in rows]

    def chunks(self, source: str | None = None) -> list[Chunk]:
        query = f"SELECT {CHUNK_COLUMNS} FROM chunks"
        params: tuple[Any, ...] = ()
        if source is not None:
            query += " WHERE source = %s"
            params = (source,)
        with self._pool.connection() as conn:
            rows = conn.execute(query + " ORDER BY source, ordinal", params).fetchall()
        return [chunk_from_row(r) for r in rows]

    def get_chunks(self, chunk_ids: Sequence[str]) -> list[Chunk]:
        ids = list(chunk_ids)
        if not ids:
            return []
        with self._pool.connection() as conn:
            rows = conn.execute(f"SELECT {CHUNK_COLUMNS} FROM chunks WHERE chunk_id = ANY(%s)", (ids,)).fetchall()
        found = {r[0]: chunk_from_row(r) for r in rows}
        return [found[i] for i in ids if i in found]

    def chunk_documents(self, chunk_ids: Sequence[str]) -> dict[str, str]:
        ids = list(chunk_ids)
        if not ids:
            return {}
        with self._pool.connection() as conn:
            rows = conn.execute("SELECT chunk_id, doc_id FROM chunks WHERE chunk_id = ANY(%s)", (ids,)).fetchall()
        return dict(rows)

    def chunk_count(self) -> int:
        """Every stored chunk, parents included (the corpus row counts only searchable ones, for BM25)."""
        with self._pool.connection() as conn:
            row = conn.execute("SELECT count(*) FROM chunks").fetchone()
        return int(row[0]) if row else 0

    def cached_vectors(self, embed_hashes: Sequence[str]) -> dict[str, np.ndarray]:
        hashes = sorted(set(embed_hashes))
        if not hashes:
            return {}
        with self._pool.connection() as conn, conn.cursor(binary=True) as cur:
            cur.execute(
                # a searchable chunk's real vector wins over a parent's blank one with the same text
                "SELECT DISTINCT ON (embed_hash) embed_hash, embedding FROM chunks WHERE embed_hash = ANY(%s) "
                "ORDER BY embed_hash, " + searchable_sql("") + " DESC", (hashes,)
            )
            return {h: _vector(v) for h, v in cur.fetchall()}

    def replace_vectors(self, vectors: Mapping[str, np.ndarray], embed_hashes: Mapping[str, str]) -> None:
        """Swap chunks' vectors in one transaction (re-embedding): the index never mixes two models.

        A new dimension retypes the column in the same transaction; it fails (and changes
        nothing) unless every chunk gets a vector of the new dimension. Many new vectors drop
        the HNSW index, which is rebuilt in one pass afterwards (searches are exact meanwhile).
        """
        if not vectors:
            return
        dimension = int(np.asarray(next(iter(vectors.values()))).size)
        with self._pool.connection() as conn, conn.transaction():
            conn.execute("LOCK TABLE chunks IN SHARE ROW EXCLUSIVE MODE")
            current = self._column_dimension(conn)
            retype = current is not None and current != dimension
            if retype or len(vectors) > 1000:
                conn.execute(f"DROP INDEX IF EXISTS {HNSW_INDEX}")
            if retype:
                conn.execute("ALTER TABLE chunks ALTER COLUMN embedding TYPE vector")
            conn.execute("CREATE TEMPORARY TABLE new_vectors (chunk_id text COLLATE \"C\", embed_hash text, embedding vector) ON COMMIT DROP")
            with conn.cursor().copy("COPY new_vectors (chunk_id, embed_hash, embedding) FROM STDIN (FORMAT BINARY)") as copy:
                copy.set_types(["text", "text", "vector"])
                for chunk_id, vector in vectors.items():
                    copy.write_row((chunk_id, embed_hashes[chunk_id], np.ascontiguousarray(vector, dtype=np.float32)))
            conn.execute(
                "UPDATE chunks c SET embedding = n.embedding, embed_hash = n.embed_hash FROM new_vectors n WHERE c.chunk_id = n.chunk_id"
            )
            conn.execute("UPDATE corpus SET generation = generation + 1")
            if retype or current is None:
                stale = conn.execute("SELECT count(*) FROM chunks WHERE vector_dims(embedding) <> %s", (dimension,)).fetchone()
                if stale and stale[0]:
                    raise ValueError(
                        f"{stale[0]} chunks would keep vectors of another dimension than {dimension}; re-embed all chunks at once"
                    )
                self._type_column(conn, dimension)
        self._dimension = dimension
        self._maybe_build_index()

    # -- re-embedding beside the live vectors --------------------------------
    def staging_counts(self) -> tuple[int, int]:
        with self._pool.connection() as conn:
            row = conn.execute(f"SELECT count(*), count(*) FILTER (WHERE {_UNSTAGED}) FROM chunks").fetchone()
        total, missing = (int(row[0]), int(row[1])) if row else (0, 0)
        return total - missing, total

    def chunks_to_stage(self, limit: int | None = None) -> list[tuple[Chunk, str]]:
        with self._pool.connection() as conn:
            return self._chunks_to_stage(conn, limit)

    @staticmethod
    def _chunks_to_stage(conn: psycopg.Connection, limit: int | None) -> list[tuple[Chunk, str]]:
        rows = conn.execute(
            f"SELECT {CHUNK_COLUMNS}, embed_hash FROM chunks WHERE {_UNSTAGED} ORDER BY source, ordinal LIMIT %s", (limit,)
        ).fetchall()
        return [(chunk_from_row(r[:12]), r[12]) for r in rows]

    @staticmethod
    def _insert_staged(conn: psycopg.Connection, staged: Sequence[StagedVector]) -> None:
        with conn.cursor() as cursor:
            cursor.executemany(
                "INSERT INTO staged_vectors VALUES (%s, %s, %s, %s) ON CONFLICT (chunk_id) DO UPDATE "
                "SET live_hash = EXCLUDED.live_hash, embed_hash = EXCLUDED.embed_hash, embedding = EXCLUDED.embedding",
                [(s.chunk_id, s.live_hash, s.embed_hash, np.ascontiguousarray(s.vector, dtype=np.float32)) for s in staged],
            )

    def stage_vectors(self, staged: Sequence[StagedVector]) -> None:
        with self._pool.connection() as conn, conn.transaction():
            self._insert_staged(conn, staged)

    def discard_staged(self) -> None:
        with self._pool.connection() as conn, conn.transaction():
            conn.execute("TRUNCATE staged_vectors")
            conn.execute("DELETE FROM meta WHERE key = %s", (STAGING_META,))

    def swap_staged(self, plan: str, meta: Mapping[str, str], stage_missing: StageMissing) -> int:
        """The table lock keeps document writers (of any process) out until the commit; searches read the old
        vectors until the swap's last statements, which wait for running searches and hold new ones for the
        moments the column takes to change. The HNSW index is rebuilt afterwards (searches are exact meanwhile)."""
        with self._pool.connection() as conn, conn.transaction():
            conn.execute("LOCK TABLE chunks IN SHARE ROW EXCLUSIVE MODE")
            stored = conn.execute("SELECT value FROM meta WHERE key = %s FOR UPDATE", (STAGING_META,)).fetchone()
            if stored is None or stored[0] != plan:
                raise CollectionError(f"schema {self.schema}: the re-embed was finished or aborted by another process")
            missing = self._chunks_to_stage(conn, None)
            if missing:
                self._insert_staged(conn, stage_missing(missing))
            row = conn.execute(
                f"SELECT count(*), count(*) FILTER (WHERE {_UNSTAGED}) FROM chunks"
            ).fetchone()
            count, left = (int(row[0]), int(row[1])) if row else (0, 0)
            if left:
                raise CollectionError(f"schema {self.schema}: {left} chunks have no vector from the new embedder; nothing was switched")
            dims = conn.execute("SELECT DISTINCT vector_dims(embedding) FROM staged_vectors").fetchall()
            if len(dims) > 1:
                raise CollectionError(f"schema {self.schema}: staged vectors of {len(dims)} dimensions; abort the re-embed and start again")
            dimension = int(dims[0][0]) if dims else self._column_dimension(conn)
            conn.execute(f"DROP INDEX IF EXISTS {HNSW_INDEX}")
            if dimension is not None and self._column_dimension(conn) != dimension:
                conn.execute("ALTER TABLE chunks ALTER COLUMN embedding TYPE vector")
            conn.execute(
                "UPDATE chunks c SET embedding = s.embedding, embed_hash = s.embed_hash FROM staged_vectors s WHERE s.chunk_id = c.chunk_id"
            )
            if dimension is not None and self._column_dimension(conn) != dimension:
                self._type_column(conn, dimension)
            with conn.cursor() as cursor:
                cursor.executemany(
                    "INSERT INTO meta (key, value) VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                    list(meta.items()),
                )
            conn.execute("TRUNCATE staged_vectors")
            conn.execute("DELETE FROM meta WHERE key = %s", (STAGING_META,))
            conn.execute("UPDATE corpus SET generation = generation + 1")
        self._dimension = dimension
        with self._pool.connection() as conn:  # every chunk row was rewritten: reclaim the old versions, refresh statistics
            conn.commit()
            conn.autocommit = True
            try:
                conn.execute("VACUUM (ANALYZE) chunks")
            finally:
                conn.autocommit = False
        self._maybe_build_index()
        return count

    # -- vector column ------------------------------------------------------
    def _column_dimension(self, conn: psycopg.Connection) -> int | None:
        row = conn.execute(
            "SELECT atttypmod FROM pg_attribute WHERE attrelid = 'chunks'::regclass AND attname = 'embedding'"
        ).fetchone()
        return int(row[0]) if row and row[0] > 0 else None

    def _type_column(self, conn: psycopg.Connection, dimension: int) -> None:
        conn.execute(f"DROP INDEX IF EXISTS {HNSW_INDEX}")
        conn.execute(sql.SQL("ALTER TABLE chunks ALTER COLUMN embedding TYPE vector({})").format(sql.Literal(dimension)))

    def index_stats(self) -> dict[str, Any]:
        """What the dense index is: pgvector's HNSW once the collection outgrows exact search, exact before."""
        return {"dense_index": "pgvector-hnsw" if self.has_index() else "exact", "exact_below": self.exact_below}

    def has_index(self) -> bool:
        with self._pool.connection() as conn:
            row = conn.execute("SELECT to_regclass(%s) IS NOT NULL", (HNSW_INDEX,)).fetchone()
        return bool(row and row[0])

    def _maybe_build_index(self) -> None:
        if not self._bulk and self.chunk_count() > self.exact_below and not self.has_index():
            self.build_index()

    def build_index(self) -> None:
        """Build the HNSW index (cosine) in one pass; writers wait, readers go on searching exactly."""
        with self._pool.connection() as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s, 0)", (DOCUMENT_NAMESPACE,))
            if conn.execute("SELECT to_regclass(%s) IS NOT NULL", (HNSW_INDEX,)).fetchone()[0]:  # type: ignore[index]
                return
            if self._column_dimension(conn) is None:
                return  # no vectors yet
            conn.execute("SELECT set_config('maintenance_work_mem', %s, true)", (self.index_memory,))
            conn.execute(f"CREATE INDEX {HNSW_INDEX} ON chunks USING hnsw (embedding vector_cosine_ops)")

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

    def _ensure_dimension(self, dimension: int) -> None:
        """Type the vector column and build its HNSW index when the first vectors arrive.

        An empty collection may change dimension (a new embedder); a filled one refuses,
        as its vectors could not be compared with the new ones.
        """
        if self._dimension == dimension:
            return
        with self._pool.connection() as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s, 0)", (DOCUMENT_NAMESPACE,))
            current = self._column_dimension(conn)
            if current != dimension:
                if conn.execute("SELECT EXISTS (SELECT 1 FROM chunks)").fetchone()[0]:  # type: ignore[index]
                    raise ValueError(f"the collection holds {current}-dimensional vectors; these have {dimension}")
                self._type_column(conn, dimension)
        self._dimension = dimension

    # -- search -------------------------------------------------------------
    def _where(self, conn: psycopg.Connection, where: Mapping[str, Any] | None) -> sql.Composable | None:
        """Validate a filter against this collection's fields (as the local store does) and translate it."""
        validate_filter(where)  # its form first: a malformed filter costs no query
        extra = field_names(where) - set(known_fields_from(set()))
        present = set()
        for name in sorted(extra):
            row = conn.execute("SELECT EXISTS (SELECT 1 FROM chunks WHERE attrs ? %s)", (name,)).fetchone()
            if row and row[0]:
                present.add(name)
        return self._compiler.where(where, known_fields_from(present))

    def filter_fields(self) -> set[str]:
        with self._pool.connection() as conn:
            rows = conn.execute("SELECT DISTINCT jsonb_object_keys(attrs) FROM chunks").fetchall()
        return known_fields_from({r[0] for r in rows})

    def dense_search(self, vector: np.ndarray, k: int, where: Mapping[str, Any] | None = None) -> list[tuple[str, float]]:
        query = _query_vector(vector)
        with self._pool.connection() as conn, conn.transaction():
            condition = self._where(conn, where)
            if k <= 0:
                return []
            total = self.chunk_count_in(conn)
            if total == 0:
                return []
            dimension = self._column_dimension(conn)
            if dimension is not None and query.shape[0] != dimension:
                raise ValueError(f"query vector has dimension {query.shape[0]}, the collection {dimension}")
            rows: list[tuple[Any, ...]] = []
            if total > self.exact_below:
                conn.execute("SELECT set_config('hnsw.ef_search', %s, true)", (str(min(1000, max(self.ef_search, 2 * k))),))
                rows = self._dense_rows(conn, query, k, condition, exact=False)
            if len(rows) < k:
                rows = self._dense_rows(conn, query, k, condition, exact=True)
        rows.sort(key=lambda r: (-r[1], r[2], r[3]))
        return [(r[0], r[1]) for r in rows]

    def _dense_rows(
        self, conn: psycopg.Connection, query: np.ndarray, k: int, condition: sql.Composable | None, exact: bool,
    ) -> list[tuple[Any, ...]]:
        """One query; `exact` orders by an expression the index cannot serve, so every matching row is ranked."""
        order = sql.SQL("(c.embedding <=> %(q)s) + 0" if exact else "c.embedding <=> %(q)s")
        statement = sql.SQL(
            "SELECT c.chunk_id, 1 - (c.embedding <=> %(q)s), c.doc_id, c.ordinal FROM chunks c "
            "WHERE {} AND " + _SEARCHABLE + " ORDER BY {} LIMIT %(k)s"
        ).format(condition or sql.SQL("TRUE"), order)
        return conn.execute(statement, {"q": query, "k": k}).fetchall()

    @staticmethod
    def chunk_count_in(conn: psycopg.Connection) -> int:
        row = conn.execute("SELECT chunks FROM corpus").fetchone()
        return int(row[0]) if row else 0

    def keyword_search(self, tokens: Sequence[str], k: int, where: Mapping[str, Any] | None = None) -> list[tuple[str, float]]:
        with self._pool.connection() as conn:
            condition = self._where(conn, where)
            terms = sorted(set(tokens))
            if not terms or k <= 0:
                return []
            statement = sql.SQL(_KEYWORD_SQL).format(where=condition or sql.SQL("TRUE"))
            rows = conn.execute(statement, {"terms": terms, "k": k}).fetchall()
        return [(r[0], float(r[1])) for r in rows]

    def document_keyword_search(
        self, tokens: Sequence[str], k: int, where: Mapping[str, Any] | None = None, vector: np.ndarray | None = None
    ) -> list[DocumentMatch]:
        terms = sorted(set(tokens))
        if not terms or k <= 0:
            return []
        with self._pool.connection() as conn, conn.transaction():
            condition = self._where(conn, where) or sql.SQL("TRUE")
            documents = self._document_rows(conn, terms, condition, sql.SQL("TRUE"), {"k": k})
            best = self._best_chunks(conn, [doc_id for doc_id, _ in documents], terms, condition, vector)
        return [DocumentMatch(doc_id, score, best[doc_id]) for doc_id, score in documents if doc_id in best]

    def document_similarities(self, chunk_ids: Sequence[str], vector: np.ndarray) -> dict[str, float]:
        """The mean cosine of each chunk's document's SIMILAR_CHUNKS searchable chunks closest to `vector`."""
        def closest_chunks(conn: psycopg.Connection, docs: list[str]) -> dict[str, float]:
            return dict(conn.execute(
                "SELECT doc_id, avg(similarity) FROM ("
                " SELECT c.doc_id, 1 - (c.embedding <=> %(q)s) AS similarity,"
                " row_number() OVER (PARTITION BY c.doc_id ORDER BY c.embedding <=> %(q)s, c.ordinal) AS place"
                " FROM chunks c WHERE c.doc_id = ANY(%(docs)s::text[]) AND " + _SEARCHABLE + ") ranked "
                "WHERE place <= %(top)s GROUP BY doc_id",
                {"q": _query_vector(vector), "docs": docs, "top": SIMILAR_CHUNKS},
            ).fetchall())

        return self._by_chunk_document(chunk_ids, closest_chunks)

    def document_opening_similarities(self, chunk_ids: Sequence[str], vector: np.ndarray) -> dict[str, float]:
        """The mean cosine of each chunk's document's opening chunks (flagged `opening` when written) with `vector`."""
        def opening_chunks(conn: psycopg.Connection, docs: list[str]) -> dict[str, float]:
            return dict(conn.execute(
                "SELECT doc_id, avg(1 - (embedding <=> %(q)s)) FROM chunks WHERE opening AND doc_id = ANY(%(docs)s::text[]) "
                "GROUP BY doc_id",
                {"q": _query_vector(vector), "docs": docs},
            ).fetchall())

        return self._by_chunk_document(chunk_ids, opening_chunks)

    def chunk_languages(self, chunk_ids: Sequence[str]) -> dict[str, str]:
        ids = list(dict.fromkeys(chunk_ids))
        if not ids:
            return {}
        with self._pool.connection() as conn:
            rows = conn.execute(
                "SELECT chunk_id, tokens FROM chunks c WHERE chunk_id = ANY(%s::text[]) AND " + _SEARCHABLE, (ids,)
            ).fetchall()
        return {chunk_id: tokens_language(tokens) for chunk_id, tokens in rows}

    def document_keyword_scores(self, chunk_ids: Sequence[str], tokens: Sequence[str]) -> dict[str, float]:
        terms = sorted(set(tokens))

        def whole_documents(conn: psycopg.Connection, docs: list[str]) -> dict[str, float]:
            scores = dict(self._document_rows(
                conn, terms, sql.SQL("TRUE"), sql.SQL("scored.doc_id = ANY(%(docs)s::text[])"), {"k": len(docs), "docs": docs},
            ))
            return {doc_id: scores.get(doc_id, 0.0) for doc_id in docs}

        return self._by_chunk_document(chunk_ids, whole_documents) if terms else {}

    def document_opening_keyword_scores(self, chunk_ids: Sequence[str], tokens: Sequence[str]) -> dict[str, float]:
        terms = sorted(set(tokens))

        def openings(conn: psycopg.Connection, docs: list[str]) -> dict[str, float]:
            count, avgdl = self._opening_totals(conn)
            rows = conn.execute(_OPENING_KEYWORD_SQL, {"terms": terms, "docs": docs, "n": count, "avgdl": avgdl}).fetchall()
            scores = {doc_id: float(score) for doc_id, score in rows}
            return {doc_id: scores.get(doc_id, 0.0) for doc_id in docs}

        return self._by_chunk_document(chunk_ids, openings) if terms else {}

    def _opening_totals(self, conn: psycopg.Connection) -> tuple[float, float]:
        """The number of documents' openings and their average length, read once per generation (a scan of two index
        entries per document) instead of by every topic query. The generation is read first, so totals read after a
        newer write are filed under the older generation and read again."""
        row = conn.execute("SELECT generation FROM corpus").fetchone()
        generation = int(row[0]) if row else 0
        known = self._opening_totals_of
        if known is not None and known[0] == generation:
            return known[1], known[2]
        count, length = conn.execute(_OPENING_TOTALS_SQL).fetchone() or (0, 0)
        totals = float(count), float(length) / count if count and length else 1.0
        self._opening_totals_of = (generation, *totals)
        return totals

    def _by_chunk_document(
        self, chunk_ids: Sequence[str], score_documents: Callable[[psycopg.Connection, list[str]], dict[str, float]],
    ) -> dict[str, float]:
        """Each searchable chunk's document's score, the chunks' documents scored in one transaction by
        `score_documents(conn, doc_ids)`; a chunk whose document it leaves out is left out."""
        ids = list(dict.fromkeys(chunk_ids))
        if not ids:
            return {}
        with self._pool.connection() as conn, conn.transaction():
            doc_of: dict[str, str] = dict(conn.execute(
                "SELECT chunk_id, doc_id FROM chunks c WHERE chunk_id = ANY(%s::text[]) AND " + _SEARCHABLE, (ids,)
            ).fetchall())
            scores = score_documents(conn, sorted(set(doc_of.values())))
        return {chunk_id: float(scores[doc_id]) for chunk_id, doc_id in doc_of.items() if doc_id in scores}

    @staticmethod
    def _document_rows(
        conn: psycopg.Connection, terms: list[str], condition: sql.Composable, documents: sql.Composable, params: dict[str, Any]
    ) -> list[tuple[str, float]]:
        statement = sql.SQL(_DOCUMENT_KEYWORD_SQL).format(where=condition, documents=documents)
        return [(r[0], float(r[1])) for r in conn.execute(statement, {"terms": terms, **params}).fetchall()]

    def _best_chunks(
        self, conn: psycopg.Connection, doc_ids: list[str], terms: list[str], condition: sql.Composable, vector: np.ndarray | None
    ) -> dict[str, str]:
        """Each document's allowed chunk closest to `vector`, or best by BM25 without one; ties and no-match go to the first."""
        if not doc_ids:
            return {}
        best: dict[str, str] = {}
        in_documents = sql.SQL("c.doc_id = ANY(%(docs)s::text[]) AND {}").format(condition)
        if vector is not None:
            statement = sql.SQL(
                "SELECT DISTINCT ON (c.doc_id) c.doc_id, c.chunk_id FROM chunks c WHERE {} AND " + _SEARCHABLE
                + " ORDER BY c.doc_id, c.embedding <=> %(q)s, c.ordinal"
            ).format(in_documents)
            query = _query_vector(vector)
            return dict(conn.execute(statement, {"docs": doc_ids, "q": query}).fetchall())
        statement = sql.SQL(_KEYWORD_SQL.replace("LIMIT %(k)s", "")).format(where=in_documents)
        ranked = conn.execute(statement, {"terms": terms, "docs": doc_ids}).fetchall()
        doc_of: dict[str, str] = dict(conn.execute("SELECT chunk_id, doc_id FROM chunks WHERE chunk_id = ANY(%s::text[])", ([r[0] for r in ranked],)).fetchall())
        for chunk_id, _ in ranked:
            best.setdefault(doc_of[chunk_id], chunk_id)
        first = sql.SQL(
            "SELECT DISTINCT ON (c.doc_id) c.doc_id, c.chunk_id FROM chunks c WHERE {} AND " + _SEARCHABLE + " ORDER BY c.doc_id, c.ordinal"
        ).format(in_documents)
        for doc_id, chunk_id in conn.execute(first, {"docs": [d for d in doc_ids if d not in best]}).fetchall():
            best[doc_id] = chunk_id
        return best

    def term_weights(self, tokens: Sequence[str]) -> dict[str, float]:
        """BM25 idf per distinct token; a token the corpus lacks gets the idf of df = 0."""
        terms = sorted(set(tokens))
        with self._pool.connection() as conn:
            n = float(self.chunk_count_in(conn))
            df: dict[str, int] = dict(conn.execute(
                "SELECT term, count(*) FROM postings WHERE term = ANY(%s::text[]) GROUP BY term", (terms,)
            ).fetchall()) if terms else {}
        return {t: float(idf(float(df.get(t, 0)), n)) for t in terms}

    def matching_terms(self, chunk_ids: Sequence[str], tokens: Sequence[str]) -> dict[str, set[str]]:
        ids, terms = list(dict.fromkeys(chunk_ids)), sorted(set(tokens))
        if not ids:
            return {}
        with self._pool.connection() as conn:
            rows = conn.execute(
                "SELECT chunk_id, ARRAY(SELECT DISTINCT t FROM unnest(tokens) AS t WHERE t = ANY(%s::text[])) "
                "FROM chunks WHERE chunk_id = ANY(%s::text[])", (terms, ids),
            ).fetchall()
        return {chunk_id: set(found) for chunk_id, found in rows}

    def vectors_for(self, chunk_ids: Sequence[str]) -> np.ndarray:
        """Stored vectors of the given chunks, in the order asked (for MMR); a zero row for a chunk no longer stored."""
        ids = list(chunk_ids)
        if not ids:
            return np.zeros((0, 0), dtype=np.float32)
        with self._pool.connection() as conn, conn.cursor(binary=True) as cur:
            cur.execute("SELECT chunk_id, embedding FROM chunks WHERE chunk_id = ANY(%s)", (ids,))
            found = {cid: _vector(v) for cid, v in cur.fetchall()}
            width = len(next(iter(found.values()))) if found else (self._column_dimension(conn) or 0)
        zero = np.zeros(width, dtype=np.float32)  # a chunk deleted since a search picked it: cosine 0
        return np.vstack([found.get(cid, zero) for cid in ids]).astype(np.float32)

    # -- jobs ---------------------------------------------------------------
    def _hold_writer_lock(self) -> None:
        """Hold this writer's liveness lock for as long as the store is open (first job saved)."""
        with self._owner_lock:
            if self._owner_conn is None:
                conn = psycopg.connect(self.dsn, autocommit=True)
                conn.execute("SELECT pg_advisory_lock(%s, %s)", (OWNER_NAMESPACE, self._writer_id))
                self._owner_conn = conn

    def save_job(self, job: IngestJob, run_id: str) -> None:
        self._hold_writer_lock()
        with self._pool.connection() as conn:
            conn.execute(
                "INSERT INTO jobs (job_id, run_id, source, status, error_code, error_detail, created_at, updated_at, timings, owner, "
                "fields, progress) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (job_id) DO UPDATE SET "
                "run_id = EXCLUDED.run_id, source = EXCLUDED.source, status = EXCLUDED.status, error_code = EXCLUDED.error_code, "
                "error_detail = EXCLUDED.error_detail, created_at = EXCLUDED.created_at, updated_at = EXCLUDED.updated_at, "
                "timings = EXCLUDED.timings, owner = EXCLUDED.owner, fields = EXCLUDED.fields, progress = EXCLUDED.progress, "
                "seq = nextval('jobs_seq')",
                (job.job_id, run_id, _text(job.source), str(job.status), job.error_code, _text(job.error_detail), job.created_at,
                 job.updated_at, _dumps(job.timings), self._writer_id, None if job.fields is None else _dumps(job.fields),
                 progress_column(job)),
            )

    def jobs(self, run_id: str | None = None, limit: int = 1000) -> list[IngestJob]:
        query = f"SELECT {JOB_COLUMNS} FROM jobs"
        params: tuple[Any, ...] = ()
        if run_id is not None:
            query += " WHERE run_id = %s"
            params = (run_id,)
        with self._pool.connection() as conn:
            rows = conn.execute(query + " ORDER BY created_at DESC, seq DESC LIMIT %s", (*params, limit)).fetchall()
        return [job_from_row(r) for r in rows]

    def last_run_id(self) -> str | None:
        with self._pool.connection() as conn:
            row = conn.execute("SELECT run_id FROM jobs ORDER BY created_at DESC, seq DESC LIMIT 1").fetchone()
        return row[0] if row else None

    def get_job(self, job_id: str) -> IngestJob | None:
        with self._pool.connection() as conn:
            row = conn.execute(f"SELECT {JOB_COLUMNS} FROM jobs WHERE job_id = %s", (job_id,)).fetchone()
        return job_from_row(row) if row else None

    def failed_jobs(self) -> list[IngestJob]:
        with self._pool.connection() as conn:
            rows = conn.execute(
                f"SELECT {JOB_COLUMNS} FROM (SELECT *, row_number() OVER (PARTITION BY source ORDER BY created_at DESC, seq DESC) "
                "AS place FROM jobs) latest WHERE place = 1 AND status = %s ORDER BY created_at DESC, seq DESC",
                (JobStatus.FAILED.value,),
            ).fetchall()
        return [job_from_row(r) for r in rows]

    def fail_unfinished_jobs(self, detail: str) -> int:
        """Mark jobs left mid-flight by a writer that is gone (or by this one); their documents were never committed.

        A writer that is alive holds its liveness lock, so the try-lock below fails for it
        and its in-flight jobs are left alone.
        """
        with self._pool.connection() as conn, conn.transaction():
            owners = [r[0] for r in conn.execute(
                "SELECT DISTINCT owner FROM jobs WHERE status <> ALL(%s)", (_TERMINAL,)
            ).fetchall()]
            gone = []
            for owner in owners:
                if owner is None or owner == self._writer_id:
                    gone.append(owner)
                    continue
                row = conn.execute("SELECT pg_try_advisory_xact_lock(%s, %s)", (OWNER_NAMESPACE, owner)).fetchone()
                if row and row[0]:
                    gone.append(owner)
            if not gone:
                return 0
            cursor = conn.execute(
                "UPDATE jobs SET status = %s, error_code = %s, error_detail = %s, updated_at = %s "
                "WHERE status <> ALL(%s) AND (owner IS NULL AND %s OR owner = ANY(%s))",
                (JobStatus.FAILED.value, ErrorCode.INTERRUPTED.value, _text(detail), time.time(), _TERMINAL,
                 None in gone, [o for o in gone if o is not None]),
            )
            return cursor.rowcount

    # -- traces -------------------------------------------------------------
    def save_trace(self, trace_id: str, question: str, payload: dict[str, Any], *, created_at: float | None = None) -> None:
        with self._pool.connection() as conn:
            conn.execute(
                "INSERT INTO traces VALUES (%s, %s, %s, %s) ON CONFLICT (trace_id) DO UPDATE SET "
                "created_at = EXCLUDED.created_at, question = EXCLUDED.question, payload = EXCLUDED.payload",
                (trace_id, time.time() if created_at is None else created_at, _text(question), _dumps(payload)),
            )

    def get_trace(self, trace_id: str) -> dict[str, Any] | None:
        with self._pool.connection() as conn:
            row = conn.execute("SELECT payload FROM traces WHERE trace_id = %s", (trace_id,)).fetchone()
        return json.loads(row[0]) if row else None

    # -- entity graph -------------------------------------------------------
    def entity_graph(self) -> EntityGraph:
        """Synced in one repeatable-read transaction, so the versions and the rows read are one snapshot."""
        with self._graph_lock:
            generation = self.generation()
            if self._graph_generation != generation:
                with self._pool.connection() as conn, conn.transaction():
                    conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                    sync_graph(self._graph, conn.execute(DOCUMENT_VERSIONS), lambda doc_ids: self._entity_rows(conn, doc_ids))
                self._graph_generation = generation
            return self._graph

    @staticmethod
    def _entity_rows(conn: psycopg.Connection, doc_ids: list[str]) -> Iterator[tuple[str, str, list[str]]]:
        rows = conn.execute(
            "SELECT doc_id, chunk_id, entities FROM chunks c WHERE doc_id = ANY(%s::text[]) AND " + _SEARCHABLE
            + " ORDER BY doc_id, ordinal",
            (doc_ids,),
        )
        for doc_id, chunk_id, keys in rows:
            yield doc_id, chunk_id, list(keys)

    def mentions(self, chunk_ids: Sequence[str]) -> dict[str, list[Mention]]:
        ids = list(dict.fromkeys(chunk_ids))
        with self._pool.connection() as conn:
            rows = conn.execute("SELECT chunk_id, entities, entity_spans, text FROM chunks WHERE chunk_id = ANY(%s::text[])", (ids,)).fetchall()
        return {chunk_id: mentions_from_columns(list(keys), spans, text) for chunk_id, keys, spans, text in rows}

    def allowed_chunks(self, chunk_ids: Sequence[str], where: Mapping[str, Any]) -> set[str]:
        ids = list(dict.fromkeys(chunk_ids))
        with self._pool.connection() as conn, conn.transaction():
            condition = self._where(conn, where)
            statement = sql.SQL("SELECT c.chunk_id FROM chunks c WHERE c.chunk_id = ANY(%s::text[]) AND {} AND " + _SEARCHABLE).format(
                condition or sql.SQL("TRUE")
            )
            return {row[0] for row in conn.execute(statement, (ids,))}

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
            conn.execute("TRUNCATE postings, chunks, elements, documents, jobs, traces, meta, staged_vectors")
            conn.execute("UPDATE corpus SET chunks = 0, tokens = 0, generation = generation + 1")


def _redact(dsn: str) -> str:
    """The DSN without its password, for messages."""
    try:
        params = psycopg.conninfo.conninfo_to_dict(dsn)
    except psycopg.ProgrammingError:
        return "<invalid dsn>"
    params.pop("password", None)
    return " ".join(f"{k}={v}" for k, v in params.items())
