"""What every part of `PostgresStore` shares: its lock spaces, how values are bound (NUL-free text, finite jsonb,
float32 vectors), the filter record, the pool's connection setup and the meta rows.
"""


from __future__ import annotations

import json
import math
import threading
from typing import Any

import numpy as np
import psycopg
from pgvector.psycopg import register_vector
from psycopg_pool import ConnectionPool

from bunko.schema import TERMINAL_STATUSES, Chunk, ParsedDocument
from bunko.store.postgres.schema import LOCK_NAMESPACE, searchable_sql, set_search_path

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


def _redact(dsn: str) -> str:
    """The DSN without its password, for messages."""
    try:
        params = psycopg.conninfo.conninfo_to_dict(dsn)
    except psycopg.ProgrammingError:
        return "<invalid dsn>"
    params.pop("password", None)
    return " ".join(f"{k}={v}" for k, v in params.items())


class PostgresBase:
    """The connection pool and the meta rows: what documents, search and jobs (`postgres/`) all read."""

    dsn: str
    schema: str
    exact_below: int
    ef_search: int
    index_memory: str
    _bulk: bool
    _writer_id: int
    _owner_conn: psycopg.Connection | None
    _owner_lock: threading.Lock
    _dimension: int | None
    _writer_embedder: str | None
    _pool: ConnectionPool

    def _configure(self, conn: psycopg.Connection) -> None:
        # No server-side prepared statements: the re-embed switch changes the vector column's type, and a search
        # prepared before it then fails with "cached plan must not change result type" instead of answering.
        conn.prepare_threshold = None
        set_search_path(conn, self.schema)
        register_vector(conn)
        conn.commit()


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


    def _column_dimension(self, conn: psycopg.Connection) -> int | None:
        row = conn.execute(
            "SELECT atttypmod FROM pg_attribute WHERE attrelid = 'chunks'::regclass AND attname = 'embedding'"
        ).fetchone()
        return int(row[0]) if row and row[0] > 0 else None

    def has_index(self) -> bool:
        with self._pool.connection() as conn:
            row = conn.execute("SELECT to_regclass(%s) IS NOT NULL", (HNSW_INDEX,)).fetchone()
        return bool(row and row[0])
