"""The embedded store: SQLite (WAL) is the truth; vectors and BM25 live in memory.

Every document is written in one SQLite transaction — its row, elements,
chunks, vectors and keyword tokens together — so a process killed at any
instant leaves either the old document or the new one, never half of one.
Each write bumps ``generation``; the in-memory search index (and its cache
files under ``index/``) is rebuilt from SQLite when the generation it was
built at is no longer current, which also makes other processes' writes
visible to a long-running reader.
"""

from bunko.store.local.schema import SCHEMA_VERSION, SEARCHABLE
from bunko.store.local.search import CONCURRENT_ROWS
from bunko.store.local.store import LocalStore

__all__ = ["CONCURRENT_ROWS", "SCHEMA_VERSION", "SEARCHABLE", "LocalStore"]
