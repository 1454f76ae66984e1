"""The local store's search: the in-memory index (`index/memory.py`) rebuilt from SQLite when the generation moves,
and `LocalSearch`, the store's `SearchBackend` over it and over the entity graph."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import numpy as np

from bunko.index.graph import EntityGraph
from bunko.index.memory import MemoryIndex
from bunko.schema import LANG_KEY, DocumentMatch
from bunko.store.graph_sync import DOCUMENT_VERSIONS, sync_graph
from bunko.store.local.schema import SEARCHABLE, LocalBase, _keys
from bunko.store.rows import mentions_from_columns
from bunko.store.search_backend import KeywordCandidates
from bunko.store.search_fallbacks import SearchFallbacks
from bunko.store.store_reads import StoreReads
from bunko.text.entities import Mention

if TYPE_CHECKING:
    from bunko.store.local.store import LocalStore

CONCURRENT_ROWS = 250_000
"""Searchable chunks from which hybrid search runs its dense and keyword halves on two threads: between the
100k measured (one after the other faster) and the 1M measured (at once faster); keyword search's cost grows
with the collection, a thread handoff's does not."""


class LocalIndexRows(LocalBase):
    """The in-memory index of the store's current generation, rebuilt from SQLite's searchable rows when it moves."""

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


class LocalSearch(StoreReads["LocalStore"], SearchFallbacks):
    """`SearchBackend` over the store's in-memory index: every fallback overridden by one index pass, hybrid search's
    two halves on two threads past `concurrent_rows` chunks, the entity graph kept in step with SQLite."""

    def __init__(self, store: LocalStore) -> None:
        super().__init__(store)
        self._helper: ThreadPoolExecutor | None = None
        self._graph = EntityGraph()
        self._graph_generation = -1

    @property
    def _lock(self) -> threading.RLock:
        return self._store._lock

    @property
    def _db(self) -> sqlite3.Connection:
        return self._store._db

    @property
    def _index(self) -> MemoryIndex:
        return self._store._index

    @property
    def concurrent_rows(self) -> int:
        return self._store.concurrent_rows

    def _current_index(self) -> MemoryIndex:
        return self._store._current_index()

    def close(self) -> None:
        if self._helper is not None:
            self._helper.shutdown(wait=True)
            self._helper = None

    def document_chunk_ids(self, doc_ids: Sequence[str]) -> dict[str, list[str]]:
        """From the index's document spans (its rows are the searchable chunks, grouped by document in order)."""
        with self._lock:
            index = self._current_index()
            documents = index.documents
            number_of = {doc: number for number, doc in enumerate(documents.doc_ids)}
            spans = {doc: (int(documents.starts[number_of[doc]]), int(documents.starts[number_of[doc] + 1]))
                     for doc in doc_ids if doc in number_of}
            return {doc: index.ids[start:end] for doc, (start, end) in spans.items()}

    def filter_fields(self) -> set[str]:
        with self._lock:
            return self._current_index().known_fields

    def dense_search(self, vector: np.ndarray, k: int, where: Mapping[str, Any] | None = None) -> list[tuple[str, float]]:
        with self._lock:
            return self._current_index().dense(vector, k, where)

    def keyword_search(self, tokens: Sequence[str], k: int, where: Mapping[str, Any] | None = None) -> list[tuple[str, float]]:
        with self._lock:
            return self._current_index().keyword(tokens, k, where)

    def keyword_candidates(self, tokens: Sequence[str], k: int, where: Mapping[str, Any] | None = None) -> KeywordCandidates:
        with self._lock:
            return KeywordCandidates(*self._current_index().keyword_candidates(tokens, k, where))

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

