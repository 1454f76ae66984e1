"""The section trees of a collection's documents, built on first use and rebuilt only when a document changes.

A tree is derived from the stored chunks (index/tree.py), so this cache is all the
state there is: the store's generation says whether anything was written since the
last look, and each document's content hash and write time say which trees are stale.
"""

from __future__ import annotations

import threading
import time

from bunko.index.tree import DocumentTree, build_tree
from bunko.schema import DocumentInfo
from bunko.store.search_backend import SearchBackend
from bunko.text.analyzers import Analyzer


class DocumentTrees:
    def __init__(self, store: SearchBackend, analyzer: Analyzer) -> None:
        """`store`: the document list, a document's chunks and the write counter trees are built from."""
        self.store = store
        self.analyzer = analyzer
        self._lock = threading.Lock()
        self._generation: int | None = None
        self._documents: dict[str, DocumentInfo] = {}
        self._by_source: dict[str, str] = {}
        self._trees: dict[str, tuple[tuple[str, float], DocumentTree]] = {}
        self.build_seconds = 0.0
        """Time spent building trees so far (the benchmark reports it as the tree's cost)."""

    def tree(self, doc_id: str) -> DocumentTree | None:
        """The document's tree, or None when no such document is stored."""
        with self._lock:
            self._refresh()
            info = self._documents.get(doc_id)
            if info is None:
                return None
            version = (info.content_hash, info.ingested_at)
            cached = self._trees.get(doc_id)
            if cached is not None and cached[0] == version:
                return cached[1]
            started = time.perf_counter()
            tree = build_tree(info.doc_id, info.source, info.title, self.store.chunks(info.source), self.analyzer)
            self.build_seconds += time.perf_counter() - started
            self._trees[doc_id] = (version, tree)
            return tree

    def tree_of_source(self, source: str) -> DocumentTree | None:
        with self._lock:
            self._refresh()
            doc_id = self._by_source.get(source)
        return self.tree(doc_id) if doc_id is not None else None

    def doc_ids(self) -> list[str]:
        """Every stored document's id."""
        with self._lock:
            self._refresh()
            return sorted(self._documents)

    def sources(self) -> list[str]:
        with self._lock:
            self._refresh()
            return sorted(self._by_source)

    def _refresh(self) -> None:
        generation = self.store.generation()
        if generation == self._generation:
            return
        documents = self.store.documents()
        self._documents = {d.doc_id: d for d in documents}
        self._by_source = {d.source: d.doc_id for d in documents}
        self._trees = {doc_id: cached for doc_id, cached in self._trees.items() if doc_id in self._documents}
        self._generation = generation
