"""The postgres store's schema as numbered migrations, applied once each under a lock.

A version table records what a database has; opening a store applies the
missing steps in one transaction while holding an advisory lock, so two
processes that open a new database at the same time do not both create it,
and a database written by a newer bunko is refused rather than misread.

The HNSW index is not a migration: its column type needs the embedding
dimension, which is known only when the first vectors arrive (see
`PostgresStore._ensure_dimension`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

import numpy as np
import psycopg
from psycopg import sql

from bunko.errors import CollectionError
from bunko.index.memory import OPENING_CHUNKS
from bunko.schema import LANG_KEY, SEARCHABLE_KEY
from bunko.store.languages import set_document_languages, stored_languages
from bunko.text.languages import LANGUAGES, document_languages, tokens_language

LOCK_NAMESPACE = 0x62756E6B  # "bunk": the first key of every advisory lock this store takes
MIGRATION_LOCK = 1

def _record_languages(conn: psycopg.Connection) -> None:
    """Each stored chunk's and document's language, judged from the stored text as every write now judges it
    (`store/languages.py`), in the chunk's meta and its filter record."""
    for doc_id, doc_meta in conn.execute("SELECT doc_id, meta FROM documents").fetchall():
        rows = [
            (chunk_id, json.loads(meta), text)
            for chunk_id, meta, text in conn.execute(
                "SELECT chunk_id, meta, text FROM chunks WHERE doc_id = %s ORDER BY ordinal", (doc_id,)
            ).fetchall()
        ]
        languages, shares = stored_languages(rows)
        with conn.cursor() as cursor:
            cursor.executemany(
                "UPDATE chunks SET meta = %s, attrs = attrs || jsonb_build_object('lang', %s::text) WHERE chunk_id = %s",
                [(_json({**meta, LANG_KEY: languages[chunk_id]}), languages[chunk_id], chunk_id) for chunk_id, meta, _ in rows],
            )
        meta = json.loads(doc_meta)
        set_document_languages(meta, shares)
        conn.execute("UPDATE documents SET meta = %s WHERE doc_id = %s", (_json(meta), doc_id))
    conn.execute("UPDATE corpus SET generation = generation + 1")


def searchable_sql(table: str = "c") -> str:
    """`Chunk.searchable` in SQL over `table`'s meta: parent_child's parents are stored for context, never ranked."""
    prefix = f"{table}." if table else ""
    return f"COALESCE(({prefix}meta::jsonb ->> '{SEARCHABLE_KEY}')::boolean, true)"


def _mark_openings(conn: psycopg.Connection) -> None:
    """Flag each document's first OPENING_CHUNKS searchable chunks, as every write now does (`_write_chunks`), and
    index them by document with their lengths: the openings' BM25 reads only them. A change of OPENING_CHUNKS needs a
    migration that flags them anew. Idempotent, as the DDL steps are: run again, it flags the same chunks."""
    conn.execute("ALTER TABLE chunks ADD COLUMN IF NOT EXISTS opening boolean NOT NULL DEFAULT false")
    conn.execute(
        "UPDATE chunks c SET opening = ranked.place <= %s FROM ("
        " SELECT id, row_number() OVER (PARTITION BY doc_id ORDER BY ordinal) AS place FROM chunks"
        f" WHERE {searchable_sql('')}"
        ") ranked WHERE ranked.id = c.id",
        (OPENING_CHUNKS,),
    )
    conn.execute("CREATE INDEX IF NOT EXISTS chunks_openings ON chunks (doc_id) INCLUDE (dl) WHERE opening")
    conn.execute("UPDATE corpus SET generation = generation + 1")


def write_document_facts(conn: psycopg.Connection, doc_id: str, searchable_tokens: Sequence[Sequence[str]]) -> None:
    """Store a document's centroid (pgvector's `avg` of its searchable chunks' vectors, normalised when read) and its
    language index, judged from those chunks' tokens as the search fallbacks judge it (`tokens_language` per chunk,
    `text.languages.document_languages` over them), in the transaction that writes its chunks. A document with no
    searchable chunk has neither, as the fallbacks give it neither."""
    if not searchable_tokens:
        return
    rows = np.asarray([LANGUAGES.index(tokens_language(tokens)) for tokens in searchable_tokens], dtype=np.int64)
    language = int(document_languages(rows, np.zeros(len(rows), dtype=np.int64), 1)[0])
    conn.execute(
        "INSERT INTO document_facts (doc_id, centroid, language) SELECT doc_id, avg(embedding), %s FROM chunks c "
        f"WHERE doc_id = %s AND {searchable_sql()} GROUP BY doc_id",
        (language, doc_id),
    )


def refresh_centroids(conn: psycopg.Connection, chunks_table: str | None = None) -> None:
    """Average the stored documents' centroids again after their chunks' vectors changed (a re-embed): those of the
    documents holding a chunk of `chunks_table` (a table with a chunk_id column), or every document's."""
    only = "" if chunks_table is None else (
        f" AND doc_id IN (SELECT r.doc_id FROM chunks r JOIN {chunks_table} n ON n.chunk_id = r.chunk_id)"
    )
    conn.execute(
        "UPDATE document_facts f SET centroid = a.centroid FROM ("
        f" SELECT doc_id, avg(embedding) AS centroid FROM chunks c WHERE {searchable_sql()}{only} GROUP BY doc_id"
        ") a WHERE a.doc_id = f.doc_id"
    )


def _store_document_facts(conn: psycopg.Connection) -> None:
    """Every stored document's centroid and language, as every write now stores them (`write_document_facts`)."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS document_facts ("
        " doc_id text COLLATE \"C\" PRIMARY KEY REFERENCES documents (doc_id) ON DELETE CASCADE,"
        " centroid vector NOT NULL, language smallint NOT NULL)"
    )
    for (doc_id,) in conn.execute("SELECT doc_id FROM documents WHERE doc_id NOT IN (SELECT doc_id FROM document_facts)").fetchall():
        tokens = [row[0] for row in conn.execute(
            f"SELECT tokens FROM chunks c WHERE doc_id = %s AND {searchable_sql()} ORDER BY ordinal", (doc_id,)
        ).fetchall()]
        write_document_facts(conn, doc_id, tokens)


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


Migration = str | Callable[[psycopg.Connection], None]
"""Constant DDL, or a step that rewrites stored rows (run in the migration's transaction)."""

MIGRATIONS: list[tuple[int, str, Migration]] = [
    (1, "documents, elements, chunks with vector and BM25 postings, jobs, traces, meta", """
CREATE TABLE meta (key text PRIMARY KEY, value text NOT NULL);

CREATE TABLE documents (
    doc_id text COLLATE "C" PRIMARY KEY,
    source text COLLATE "C" NOT NULL UNIQUE,
    title text, mime text, parser text,
    content_hash text NOT NULL,
    ingested_at double precision NOT NULL,
    chunk_count integer NOT NULL,
    meta text NOT NULL
);

CREATE TABLE elements (
    doc_id text COLLATE "C" NOT NULL REFERENCES documents (doc_id) ON DELETE CASCADE,
    ordinal integer NOT NULL,
    element_id text NOT NULL, kind text NOT NULL, text text NOT NULL, page integer,
    section_path text NOT NULL, bbox text, parent_id text, meta text NOT NULL,
    PRIMARY KEY (doc_id, ordinal)
);

-- attrs: the filter record (see sql_filters); tokens: the analyzer's output, kept for export;
-- dl: the token count BM25 normalises by; embedding: typed vector(d) once d is known.
CREATE TABLE chunks (
    id bigint PRIMARY KEY,
    chunk_id text COLLATE "C" NOT NULL UNIQUE,
    doc_id text COLLATE "C" NOT NULL REFERENCES documents (doc_id) ON DELETE CASCADE,
    source text COLLATE "C" NOT NULL,
    ordinal integer NOT NULL,
    text text NOT NULL, embed_text text NOT NULL, embed_hash text NOT NULL,
    element_ids text NOT NULL, pages text NOT NULL, section_path text NOT NULL, kinds text NOT NULL,
    parent_id text, meta text NOT NULL,
    tokens text[] NOT NULL,
    dl integer NOT NULL,
    attrs jsonb NOT NULL,
    embedding vector NOT NULL
);
CREATE SEQUENCE chunks_id_seq OWNED BY chunks.id;
CREATE INDEX chunks_by_doc ON chunks (doc_id, ordinal);
CREATE INDEX chunks_by_source ON chunks (source, ordinal);
CREATE INDEX chunks_by_embed_hash ON chunks (embed_hash);
CREATE INDEX chunks_attrs ON chunks USING gin (attrs);

-- One row per (term, chunk): a keyword query reads only its terms' postings.
CREATE TABLE postings (term text COLLATE "C" NOT NULL, chunk bigint NOT NULL, tf integer NOT NULL, dl integer NOT NULL);
CREATE INDEX postings_by_term ON postings (term) INCLUDE (chunk, tf, dl);
CREATE INDEX postings_by_chunk ON postings (chunk);

-- N and total length for BM25, kept in step with chunks inside each write transaction.
CREATE TABLE corpus (
    id integer PRIMARY KEY CHECK (id = 1),
    chunks bigint NOT NULL, tokens bigint NOT NULL, generation bigint NOT NULL
);
INSERT INTO corpus VALUES (1, 0, 0, 0);

CREATE SEQUENCE jobs_seq;
CREATE TABLE jobs (
    job_id text PRIMARY KEY, run_id text NOT NULL, source text COLLATE "C" NOT NULL, status text NOT NULL,
    error_code text, error_detail text, created_at double precision NOT NULL, updated_at double precision NOT NULL,
    timings text NOT NULL,
    owner integer,
    seq bigint NOT NULL DEFAULT nextval('jobs_seq')
);
CREATE INDEX jobs_by_run ON jobs (run_id, created_at);
CREATE INDEX jobs_by_time ON jobs (created_at DESC, seq DESC);
CREATE INDEX jobs_unfinished ON jobs (owner) WHERE status NOT IN ('READY', 'SKIPPED', 'FAILED');

CREATE TABLE traces (trace_id text PRIMARY KEY, created_at double precision NOT NULL, question text, payload text NOT NULL);

-- A field's values as a set: a list gives its elements, a missing or null field none.
CREATE FUNCTION bunko_values(x jsonb) RETURNS SETOF jsonb LANGUAGE sql IMMUTABLE AS $$
    SELECT jsonb_array_elements(CASE
        WHEN x IS NULL OR jsonb_typeof(x) = 'null' THEN '[]'::jsonb
        WHEN jsonb_typeof(x) = 'array' THEN x
        ELSE jsonb_build_array(x) END)
$$;

-- Python's str() of a JSON scalar, which $glob matches against.
CREATE FUNCTION bunko_pystr(v jsonb) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE jsonb_typeof(v)
        WHEN 'string' THEN v #>> '{}'
        WHEN 'boolean' THEN CASE WHEN v = 'true'::jsonb THEN 'True' ELSE 'False' END
        WHEN 'null' THEN 'None'
        ELSE v::text END
$$;
"""),
    (2, "entity graph: each chunk's entity keys and mention spans", """
ALTER TABLE chunks ADD COLUMN entities text[] NOT NULL DEFAULT '{}';
ALTER TABLE chunks ADD COLUMN entity_spans text NOT NULL DEFAULT '[]';
"""),
    (3, "languages: each chunk's and document's detected language (meta, and the chunk's filter record)", _record_languages),
    (4, "jobs: the caller-given fields a file was ingested with, for retries", """
ALTER TABLE jobs ADD COLUMN IF NOT EXISTS fields text;
"""),
    (5, "staged_vectors: a re-embed's new vectors beside the live ones until the switch", """
CREATE TABLE IF NOT EXISTS staged_vectors (
    chunk_id text COLLATE "C" PRIMARY KEY, live_hash text NOT NULL, embed_hash text NOT NULL, embedding vector NOT NULL
);
"""),
    (6, "jobs: the stage in progress (pages parsed, chunks embedded of their total)", """
ALTER TABLE jobs ADD COLUMN IF NOT EXISTS progress text;
"""),
    (7, "chunks: whether a chunk is one of its document's opening chunks, for the openings' BM25", _mark_openings),
    (8, "document_facts: each document's centroid and language, kept by every write for the translation evidence",
     _store_document_facts),
]

LATEST_VERSION = MIGRATIONS[-1][0]


def migrate(conn: psycopg.Connection, schema: str) -> int:
    """Bring `schema` up to LATEST_VERSION; return the version it had before (0 for a new one).

    `conn` must be in autocommit mode and its search_path not yet pointed at `schema`:
    the pgvector extension is created (if missing) in the database's default schema,
    so every bunko schema in the database shares one `vector` type.
    """
    conn.execute("SELECT pg_advisory_lock(%s, %s)", (LOCK_NAMESPACE, MIGRATION_LOCK))
    try:
        if conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone() is None:
            try:
                conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            except psycopg.Error as exc:
                raise CollectionError(
                    f"the pgvector extension is not installed in this database and could not be created ({exc}); "
                    "ask an administrator to run CREATE EXTENSION vector"
                ) from None
        conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema)))
        set_search_path(conn, schema)
        with conn.transaction():
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_version ("
                "version integer PRIMARY KEY, description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"
            )
            row = conn.execute("SELECT coalesce(max(version), 0) FROM schema_version").fetchone()
            before = int(row[0]) if row else 0
            if before > LATEST_VERSION:
                raise CollectionError(
                    f"the postgres schema {schema!r} is at version {before}, newer than this bunko understands "
                    f"({LATEST_VERSION}); upgrade bunko"
                )
            for version, description, step in MIGRATIONS:
                if version > before:
                    if callable(step):
                        step(conn)
                    else:
                        conn.execute(step)  # trusted, constant DDL
                    conn.execute("INSERT INTO schema_version (version, description) VALUES (%s, %s)", (version, description))
        return before
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s, %s)", (LOCK_NAMESPACE, MIGRATION_LOCK))


def set_search_path(conn: psycopg.Connection, schema: str) -> None:
    """Put `schema` first and keep the rest, so the `vector` type is found wherever it lives."""
    current = conn.execute("SELECT current_setting('search_path')").fetchone()
    rest = current[0] if current else "public"
    conn.execute("SELECT set_config('search_path', %s, false)", (f"{sql.Identifier(schema).as_string(conn)}, {rest}",))
