"""The collection's writer lock, which readies the search of the generation a write made before letting go.

Every write bumps the store's generation, and the first search of a new generation loads its index: rows read from
SQLite, BM25 matrices built, and, for the next process, cache files written (`index/memory.py`, tens of megabytes at
a few thousand pages, fsynced). A search should neither build nor write them, so the writer does, at the end of
each write that moved the generation (an ingest run, a delete, a reindex, a re-embed, a sync), still holding the
lock: the next search, in this process or another, finds the index loaded or its files on disk. A write that failed
leaves it to the next search (which builds the index and hands the files to a writer thread, `MemoryIndex.flush`).
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from types import TracebackType

from bunko.store.base import Store


class ReadyingLock:
    def __init__(self, lock: AbstractContextManager[object], store: Store) -> None:
        """`lock`: the collection's writer lock (`store/registry.writer_lock`), not reentrant; `store`: its store."""
        self.lock = lock
        self.store = store
        self._before: int | None = None

    def __enter__(self) -> ReadyingLock:
        self.lock.__enter__()
        try:
            self._before = self.store.generation()
        except BaseException:
            self.lock.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        try:
            if exc_type is None and self.store.generation() != self._before:
                self.store.prepare_search()
        finally:
            self.lock.__exit__(exc_type, exc, tb)
