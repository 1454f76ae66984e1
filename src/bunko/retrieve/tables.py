"""The collection's table store kept in step with its documents: built on first use, updated when documents change.

Like the section trees (`retrieve/trees.py`), the tables are derived from what the store holds — each document's
table elements and the chunks that carry them — so they need no store protocol of their own. The store's
generation says whether anything was written since the last look; each document's content hash and write time say
which documents' tables to replace, and documents gone from the store have theirs dropped, in one transaction
(`index/table_db.py`). Re-ingesting an unchanged document changes nothing; a changed one replaces its tables.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bunko.index.table_data import LogicalTable, document_tables
from bunko.index.table_db import TABLES_FILE, StoredTable, TableDB
from bunko.schema import DocumentInfo
from bunko.store.search_backend import SearchBackend

TABLES_FORMAT = 3
"""Raised when the way tables are read from elements changes, so stored tables are rebuilt on the next look (3: two
tables of a page without page numbers are never joined as one continued table)."""


def _version(info: DocumentInfo) -> str:
    return f"{TABLES_FORMAT}:{info.content_hash}:{info.ingested_at!r}"


def tables_of(info: DocumentInfo, store: SearchBackend) -> list[LogicalTable]:
    """One document's logical tables, each row knowing the chunk that carries it."""
    holders: dict[str, list[tuple[str, str]]] = {}
    chunks = sorted(store.chunks(info.source), key=lambda c: (not c.searchable, c.ordinal))
    for chunk in chunks:
        for element_id in chunk.element_ids:
            holders.setdefault(element_id, []).append((chunk.chunk_id, chunk.text))
    return document_tables(info.doc_id, info.source, store.elements(info.source), holders)


class CollectionTables:
    def __init__(self, store: SearchBackend, folder: Path) -> None:
        """`store`: the documents, their elements and chunks and the write counter the tables are built from, and
        which of a table's chunks a caller's filter lets through."""
        self.store = store
        self.folder = folder
        self._db: TableDB | None = None
        self._lock = threading.Lock()
        self._generation: int | None = None
        self._catalog: list[StoredTable] = []
        self.build_seconds = 0.0
        """Time spent bringing the table store up to date so far."""

    @property
    def db(self) -> TableDB:
        """The table store file, created on first use: opening a collection for anything else writes nothing."""
        if self._db is None:
            self._db = TableDB(self.folder / TABLES_FILE)
        return self._db

    def catalog(self, where: Mapping[str, Any] | None = None) -> list[StoredTable]:
        """The tables of every stored document, up to date; with a filter, only tables whose rows it lets through."""
        with self._lock:
            self._refresh()
            tables = list(self._catalog)
        if not where:
            return tables
        chunk_ids = sorted({cid for t in tables for cid in self._chunks_of(t)})
        allowed = self.store.allowed_chunks(chunk_ids, where) if chunk_ids else set()
        return [t for t in tables if self._chunks_of(t) and self._chunks_of(t) <= allowed]

    def _chunks_of(self, table: StoredTable) -> set[str]:
        return {cid for (cid,) in self.db.select(f"SELECT DISTINCT _chunk FROM {table.sql_name}") if cid}

    def _refresh(self) -> None:
        generation = self.store.generation()
        if generation == self._generation:
            return
        started = time.perf_counter()
        documents = {d.doc_id: d for d in self.store.documents()}
        stored = self.db.versions()
        removed = [doc_id for doc_id in stored if doc_id not in documents]
        changed = {
            info.doc_id: (info.source, _version(info), tables_of(info, self.store))
            for info in documents.values() if stored.get(info.doc_id) != _version(info)
        }
        self.db.update(changed, removed)
        if changed or removed or self._generation is None:
            self._catalog = self.db.catalog()
        self._generation = generation
        self.build_seconds += time.perf_counter() - started
