"""The in-memory search structures of the local store, rebuilt per generation.

Dense search is exact cosine over a normalised float32 matrix (one matrix-vector
product); keyword search is a BM25 sparse matrix. The BM25 matrix, the costly
part to rebuild, is cached on disk under the generation that produced it, with the rows (`row_cache.py`).

A search never writes those files itself: a load that had to build them hands the writing (tens of megabytes,
fsynced) to the index's one writer thread and searches at once; `flush` waits for it. The writer of a collection
loads each generation it makes and flushes before it lets go of the collection (`ingest/after_writes.py`), so a
search, in that process or another, finds the files there.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bunko.index import row_cache
from bunko.index.base import DenseIndex
from bunko.index.bm25 import VOCABULARY_SUFFIX, BM25Builder, BM25Index, GroupedBM25
from bunko.index.exact import ExactIndex
from bunko.index.filters import BUILTIN_FIELDS, filter_key, mask_for
from bunko.index.hnsw import EXACT_SUBSET_ROWS, HnswIndex
from bunko.index.row_cache import RowRecords
from bunko.index.topk import segment_argmax, segment_top_means, top_k_arrays, top_k_of
from bunko.index.translations import document_centroids, translation_pairs
from bunko.schema import DocumentMatch
from bunko.text.languages import LANGUAGES, document_languages, row_languages, token_classes

RowReader = Callable[[Callable[[str], None] | None], tuple[list[str], np.ndarray | None, list[dict[str, Any]]]]
"""read_rows(token_sink) -> (ids, vectors, filter records); with a sink, each row's space-separated tokens go to it."""

_MASK_CACHE_SIZE = 64
SIMILAR_CHUNKS = 3
"""A document's dense evidence is the mean cosine of its 3 chunks closest to the query: one close chunk is the
chunk's own evidence; several mean the document as a whole is about the question (on the page corpora the top 3
beat the mean of all a document's chunks; other counts were not tried)."""
OPENING_CHUNKS = 2
"""A document's opening is its first 2 chunks (about 600 characters with the default children): where a page says what it
is about, as a manual page's description or a module page's first paragraph does. On the page corpora the mean of the
first 2 chunks' cosines beat the first chunk alone, the first 3, and the best of the first 2 (bench/results/
pages-opening.notes.md)."""
DOCUMENT_ROWS = 20_000
"""Rows measured per query for document similarity when exact search did not score them all (HNSW): a gather
and product of 20k x 512 floats, about 5 ms on one core."""


def _load_cached_bm25(prefix: str) -> GroupedBM25 | None:
    """The chunk, document and opening BM25 of a generation, or None when absent or unreadable.

    Any failure counts as absent: a cut vocabulary is a JSONDecodeError and a cut .npz a
    BadZipFile, and a damaged cache must cost a rebuild, never a search. A cache written before
    openings were indexed, or with the vocabulary of older versions (`.vocab.npy`, an object array
    that only a pickle-enabled loader reads, which is never run on collection files), lacks a file
    and is rebuilt once.
    """
    if not all(Path(prefix + suffix).exists() for suffix in (".npz", VOCABULARY_SUFFIX, ".documents.npz", ".openings.npz")):
        return None
    try:
        chunks = BM25Index.load(prefix)
        return GroupedBM25(
            chunks, BM25Index.load(prefix + ".documents", vocab_of=chunks), BM25Index.load(prefix + ".openings", vocab_of=chunks)
        )
    except Exception:
        return None


def _agree(cached: GroupedBM25, ids: Sequence[str], documents: DocumentRows) -> bool:
    """Whether the BM25 matrices have as many rows and documents as the rows read: two generations never mix."""
    return cached.rows.size == len(ids) and cached.documents.size == len(documents.doc_ids) == cached.openings.size


@dataclass(frozen=True)
class DocumentRows:
    """Which rows belong to which document: rows arrive ordered by document, so each document is one span."""

    doc_ids: list[str]
    doc_of_row: np.ndarray
    starts: np.ndarray

    @classmethod
    def of(cls, doc_id_of_row: Sequence[str]) -> DocumentRows:
        """From each row's document id, in row order."""
        doc_ids: list[str] = []
        doc_of_row = np.empty(len(doc_id_of_row), dtype=np.int64)
        starts: list[int] = []
        for row, doc_id in enumerate(doc_id_of_row):
            if not doc_ids or doc_id != doc_ids[-1]:
                doc_ids.append(doc_id)
                starts.append(row)
            doc_of_row[row] = len(doc_ids) - 1
        if len(set(doc_ids)) != len(doc_ids):
            raise ValueError("index rows are not grouped by document")
        return cls(doc_ids, doc_of_row, np.asarray([*starts, len(doc_id_of_row)], dtype=np.int64))

    def any_row(self, allowed_rows: np.ndarray) -> np.ndarray:
        """Document mask: a document is allowed when any of its rows is."""
        allowed = np.zeros(len(self.doc_ids), dtype=bool)
        allowed[np.unique(self.doc_of_row[allowed_rows])] = True
        return allowed


class MemoryIndex:
    def __init__(
        self, cache_dir: Path, ann_threshold: int | None = None, vector_precision: str = "float32", ann_target_recall: float | None = 0.98,
        ann_ef_search: int | None = None,
    ) -> None:
        """`ann_ef_search` fixes the graph's ef_search (no calibration); None calibrates it to `ann_target_recall`."""
        self.cache_dir = cache_dir
        self.ann_threshold = ann_threshold
        self.ann = (
            HnswIndex(cache_dir, precision=vector_precision, target_recall=ann_target_recall, fixed_ef_search=ann_ef_search)
            if ann_threshold is not None else None
        )
        self.ann_active = False
        self.generation = -1
        self.ids: list[str] = []
        self.vectors = np.zeros((0, 0), dtype=np.float32)
        self.exact = ExactIndex(self.vectors)
        self.bm25 = BM25Index()
        self.document_bm25 = BM25Index()
        self.opening_bm25 = BM25Index()
        self.documents = DocumentRows.of([])
        self._row_languages: np.ndarray | None = None
        self._document_languages: np.ndarray | None = None
        self._centroids: np.ndarray | None = None
        self._raw_records: Sequence[dict[str, Any]] = []
        self._records: list[dict[str, Any]] | None = None
        self._row_of: dict[str, int] | None = None
        self._masks: OrderedDict[str, np.ndarray | None] = OrderedDict()
        self.known_fields: set[str] = set(BUILTIN_FIELDS)
        self._writer: ThreadPoolExecutor | None = None
        self._writes: list[Future[None]] = []
        self._writes_lock = threading.Lock()

    def _write_later(self, write: Callable[..., None], *args: Any) -> None:
        """Run `write(*args)` on the writer thread, after the writes handed over before it (their order is kept: the
        rows of a generation before the arrays derived from them). Its arguments are never changed once installed."""
        with self._writes_lock:
            if self._writer is None:
                self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bunko-index-cache")
            self._writes = [future for future in self._writes if not future.done()]
            self._writes.append(self._writer.submit(write, *args))

    def flush(self) -> None:
        """Wait for the cache files handed to the writer thread; a write that failed for a reason other than the disk
        (which the writers take as a cache not kept) is raised here."""
        with self._writes_lock:
            writes, self._writes = self._writes, []
        for future in writes:
            future.result()

    def load(self, generation: int, read_rows: RowReader) -> None:
        """The rows and BM25 matrices of `generation`: from the cache files when both are there and agree, else the
        rows are read once from the store (`read_rows`), the BM25 matrices built from their tokens as they stream
        by, and both cached for the next process by the writer thread (`flush` waits for it)."""
        prefix = str(self.cache_dir / f"bm25-{generation}")
        cached = _load_cached_bm25(prefix)
        from_cache = row_cache.load(self.cache_dir, generation) if cached is not None else None
        if cached is not None and from_cache is not None:
            ids, vectors, records = from_cache
            documents = DocumentRows.of(records.doc_ids)
            if _agree(cached, ids, documents):
                self._install(generation, cached, ids, vectors, records, documents)
                return
        builder = BM25Builder() if cached is None else None
        ids, read_vectors, read_records = read_rows(builder.add_text if builder is not None else None)
        records = RowRecords.of(read_records)
        documents = DocumentRows.of(records.doc_ids)
        if cached is not None and not _agree(cached, ids, documents):  # stale or torn
            del ids, read_vectors, read_records, records
            cached, builder = None, BM25Builder()
            ids, read_vectors, read_records = read_rows(builder.add_text)
            records = RowRecords.of(read_records)
            documents = DocumentRows.of(records.doc_ids)
        if builder is not None:
            cached = builder.finish_grouped(documents.doc_of_row, len(documents.doc_ids), OPENING_CHUNKS)
            self._write_later(self._save_bm25, cached, prefix)
        assert cached is not None
        if read_vectors is not None:
            self._write_later(row_cache.save, self.cache_dir, generation, ids, read_vectors, read_records)
        self._install(generation, cached, ids, read_vectors, records, documents)

    def _install(
        self, generation: int, cached: GroupedBM25, ids: list[str], vectors: np.ndarray | None, records: RowRecords,
        documents: DocumentRows,
    ) -> None:
        self.ids = ids
        self.vectors = vectors if vectors is not None else np.zeros((0, 0), dtype=np.float32)
        self.exact = ExactIndex(self.vectors)
        self.bm25, self.document_bm25, self.opening_bm25 = cached
        self.documents = documents
        self._row_languages = None
        self._document_languages = None
        self._centroids = None
        self._raw_records = records
        self._records = None
        self._row_of = None
        self._masks.clear()
        self.known_fields = set(BUILTIN_FIELDS) | records.fields - {"pages", "section_path", "kinds"}
        self._sync_ann()
        self.generation = generation

    def _sync_ann(self) -> None:
        """Past `ann_threshold` rows, dense search goes through the persisted HNSW graph."""
        self.ann_active = self.ann is not None and self.ann_threshold is not None and len(self.ids) >= self.ann_threshold
        if self.ann is None or not self.ann_active:
            return
        # chunk id + a projection of the vector: a re-embedded or rewritten chunk is a new graph entry
        direction = np.random.default_rng(20261202).standard_normal(self.vectors.shape[1]).astype(np.float32)
        fingerprints = self.vectors @ direction
        keys = [f"{cid}|{fp:.9e}" for cid, fp in zip(self.ids, fingerprints.tolist(), strict=True)]
        self.ann.sync(keys, self.vectors)

    def stats(self) -> dict[str, Any]:
        """Dense index kind; for HNSW its calibration (read from the graph's meta file if not loaded yet)."""
        out: dict[str, Any] = {"dense_index": "exact", "ann_threshold": self.ann_threshold}
        if self.ann is not None:
            calibration = self.ann.stats()
            if self.ann_active or (self.generation < 0 and calibration is not None):
                out["dense_index"] = "hnsw"
            hnsw: dict[str, Any] = {}
            if calibration is not None:
                hnsw = {key: calibration.get(key) for key in ("ef_search", "recall@10", "target_recall", "queries", "entries", "calibrated_at")}
            if self.ann.fixed_ef_search is not None:
                # the configured ef is in force; a calibration left from before is shown for what it measured, not applied
                hnsw = {"ef_search": self.ann.fixed_ef_search, "ef_search_source": "retrieve.ann_ef_search", "recall@10": None,
                        **({"calibration": hnsw} if hnsw else {})}
            elif hnsw:
                hnsw["ef_search_source"] = "calibrated"
            if hnsw:
                out["hnsw"] = hnsw
        return out

    def _save_bm25(self, indexes: GroupedBM25, prefix: str) -> None:
        """Each file is replaced atomically (temporary name, fsync, rename); files of two generations that meet fail
        the size check, and an unreadable one loads as absent: either way the cache is rebuilt, never searched."""
        chunks, documents, openings = indexes
        try:
            self.cache_dir.mkdir(parents=True, exist_ok=True)
            for old in self.cache_dir.glob("bm25-*"):
                old.unlink(missing_ok=True)
            documents.save(prefix + ".documents", vocab=False)
            openings.save(prefix + ".openings", vocab=False)
            chunks.save(prefix)
        except OSError:
            pass  # a read-only collection still searches; it just rebuilds next time

    def _records_for_filter(self) -> list[dict[str, Any]]:
        if self._records is None:
            self._records = [
                {**r, "page": json.loads(r["pages"]), "section": json.loads(r["section_path"]), "kind": json.loads(r["kinds"])}
                for r in self._raw_records
            ]
        return self._records

    def mask(self, where: Mapping[str, Any] | None) -> np.ndarray | None:
        if not where:
            return None
        key = filter_key(where)
        if key not in self._masks:
            self._masks[key] = mask_for(where, self._records_for_filter(), self.known_fields)
            if len(self._masks) > _MASK_CACHE_SIZE:
                self._masks.popitem(last=False)
        self._masks.move_to_end(key)
        return self._masks[key]

    def dense(self, vector: np.ndarray, k: int, where: Mapping[str, Any] | None) -> list[tuple[str, float]]:
        allowed = self.mask(where)
        if not self.ids:
            return []
        query = np.asarray(vector, dtype=np.float32).ravel()
        if query.shape[0] != self.vectors.shape[1]:
            raise ValueError(f"query vector has dimension {query.shape[0]}, the collection {self.vectors.shape[1]}")
        return [(self.ids[row], score) for row, score in self.dense_index(allowed).search(query, k, allowed)]

    def dense_index(self, allowed: np.ndarray | None) -> DenseIndex:
        """HNSW past `ann_threshold` rows, unless the filter leaves so few rows that exact search over them is
        cheaper and never misses; exact otherwise."""
        if self.ann is not None and self.ann_active and (allowed is None or int(allowed.sum()) > EXACT_SUBSET_ROWS):
            return self.ann
        return self.exact

    def _cosines_of_rows(self, rows: np.ndarray, query: np.ndarray) -> np.ndarray:
        return self.exact.cosines(rows, query)

    def _row_index(self) -> dict[str, int]:
        if self._row_of is None:
            self._row_of = {cid: row for row, cid in enumerate(self.ids)}
        return self._row_of

    def _rows_of(self, chunk_ids: Sequence[str]) -> list[int]:
        row_of = self._row_index()
        return [row_of[cid] for cid in chunk_ids]

    def allowed(self, chunk_ids: Sequence[str], where: Mapping[str, Any]) -> set[str]:
        """The chunks among `chunk_ids` that are searchable here and pass the filter."""
        mask = self.mask(where)
        row_of = self._row_index()
        return {cid for cid in chunk_ids if cid in row_of and (mask is None or bool(mask[row_of[cid]]))}

    def matching_terms(self, chunk_ids: Sequence[str], tokens: Sequence[str]) -> dict[str, set[str]]:
        """Which of the query's tokens each indexed chunk holds (chunks not indexed are left out)."""
        known, terms, held = self.term_matrix(chunk_ids, tokens)
        return {cid: {terms[j] for j in np.flatnonzero(row)} for cid, row in zip(known, held, strict=True)}

    def term_matrix(self, chunk_ids: Sequence[str], tokens: Sequence[str]) -> tuple[list[str], list[str], np.ndarray]:
        """The indexed chunks among `chunk_ids`, the distinct query tokens the index knows, and held[chunk, term]."""
        row_of = self._row_index()
        known = [cid for cid in chunk_ids if cid in row_of]
        terms, held = self.bm25.term_matrix([row_of[cid] for cid in known], tokens)
        return known, terms, held

    def vectors_for(self, chunk_ids: Sequence[str]) -> np.ndarray:
        """One row per id in the order asked; a zero row (cosine 0) for a chunk not indexed (deleted since a search
        picked it: a search racing a delete still answers)."""
        width = self.vectors.shape[1] if self.vectors.ndim == 2 else 0
        out = np.zeros((len(chunk_ids), width), dtype=np.float32)
        row_of = self._row_index()
        for position, cid in enumerate(chunk_ids):
            row = row_of.get(cid)
            if row is not None:
                out[position] = self.vectors[row]
        return out

    def keyword(self, tokens: Sequence[str], k: int, where: Mapping[str, Any] | None) -> list[tuple[str, float]]:
        allowed = self.mask(where)
        if not self.ids:
            return []
        rows, scores = self.bm25.matches(tokens)
        return [(self.ids[i], s) for i, s in top_k_of(rows, scores, k, allowed, min_score=0.0)]

    def keyword_candidates(self, tokens: Sequence[str], k: int, where: Mapping[str, Any] | None) -> tuple[list[str], np.ndarray, np.ndarray]:
        """`keyword`'s top k (ids, BM25 as float64) with each one's `document_keyword_scores` (float64), from the rows
        found: no id is looked up again."""
        allowed = self.mask(where)
        empty = np.zeros(0, dtype=np.float64)
        if not self.ids:
            return [], empty, empty
        rows, scores = top_k_arrays(*self.bm25.matches(tokens), k, allowed, min_score=0.0)
        if not rows.size:
            return [], empty, empty
        documents = self.document_bm25.every_score(tokens)[self.documents.doc_of_row[rows]]
        ids = self.ids
        return [ids[row] for row in rows.tolist()], scores.astype(np.float64), documents.astype(np.float64)

    def document_keyword(
        self, tokens: Sequence[str], k: int, where: Mapping[str, Any] | None, vector: np.ndarray | None = None
    ) -> list[DocumentMatch]:
        """Top k documents by BM25 over each document's searchable text as a whole, each with its best chunk.

        A document counts when any of its chunks passes the filter, and its best chunk is chosen
        among those; its score is over all of its text, so a chunk-level filter (a page, a section)
        narrows which documents and chunks, not the documents' scores. The best chunk is the one
        closest to `vector`, or the best by BM25 without one: the chunk that stands for the
        document among chunk hits.
        """
        if not self.ids:
            return []
        allowed_rows = self.mask(where)
        allowed = None if allowed_rows is None else self.documents.any_row(allowed_rows)
        rows, scores = self.document_bm25.matches(tokens)
        top = top_k_of(rows, scores, k, allowed, min_score=0.0)
        if not top:
            return []
        docs = np.fromiter((doc for doc, _ in top), dtype=np.int64, count=len(top))
        starts, lengths = self.documents.starts[docs], self.documents.starts[docs + 1] - self.documents.starts[docs]
        rows = np.arange(int(lengths.sum())) + np.repeat(starts - (np.cumsum(lengths) - lengths), lengths)  # the documents' rows
        if vector is not None:
            closeness = self.exact.span_cosines(starts, starts + lengths, np.asarray(vector, dtype=np.float32).ravel())
        else:
            closeness = self.bm25.scores(tokens)[rows]
        if allowed_rows is not None:
            closeness = np.where(allowed_rows[rows], closeness, -np.inf)
        best_rows = rows[segment_argmax(closeness, lengths)].tolist()
        return [
            DocumentMatch(self.documents.doc_ids[doc], score, self.ids[row]) for (doc, score), row in zip(top, best_rows, strict=True)
        ]

    def document_similarities(self, chunk_ids: Sequence[str], vector: np.ndarray) -> dict[str, float]:
        """For each chunk, the mean cosine of its document's SIMILAR_CHUNKS chunks closest to the query.

        Costs one product over the rows of the chunks' documents, at most DOCUMENT_ROWS of them; a chunk
        whose document is past the budget falls back to its own cosine (documents that large are
        books, where the document as a whole says little about one question anyway).
        """
        known, rows_asked, docs_asked = self._rows_and_documents(chunk_ids)
        if not known:
            return {}
        query = np.asarray(vector, dtype=np.float32).ravel()
        docs = np.unique(docs_asked)
        starts, ends = self.documents.starts[docs], self.documents.starts[docs + 1]
        measured = np.cumsum(ends - starts) <= DOCUMENT_ROWS  # smallest document ids first; the rest use their own cosine
        docs, starts, ends = docs[measured], starts[measured], ends[measured]
        similarity = np.full(len(self.documents.doc_ids), np.nan, dtype=np.float32)
        if len(docs):
            similarity[docs] = segment_top_means(self.exact.span_cosines(starts, ends, query), ends - starts, SIMILAR_CHUNKS)
        found = similarity[docs_asked]
        own = np.isnan(found)
        if own.any():
            found[own] = self._cosines_of_rows(rows_asked[own], query)
        return dict(zip(known, found.astype(float).tolist(), strict=True))

    def document_opening_similarities(self, chunk_ids: Sequence[str], vector: np.ndarray) -> dict[str, float]:
        """For each chunk, the mean cosine of its document's first OPENING_CHUNKS chunks (rows are in document order)."""
        known, _, docs_asked = self._rows_and_documents(chunk_ids)
        if not known:
            return {}
        docs, of_asked = np.unique(docs_asked, return_inverse=True)
        starts = self.documents.starts[docs]
        ends = np.minimum(self.documents.starts[docs + 1], starts + OPENING_CHUNKS)
        cosines = self.exact.span_cosines(starts, ends, np.asarray(vector, dtype=np.float32).ravel())
        means = segment_top_means(cosines, ends - starts, OPENING_CHUNKS)  # every row of a span: it holds at most that many
        return dict(zip(known, means[of_asked].tolist(), strict=True))

    def _rows_and_documents(self, chunk_ids: Sequence[str]) -> tuple[list[str], np.ndarray, np.ndarray]:
        """The indexed chunks among `chunk_ids`, with their rows and their documents' numbers."""
        row_of = self._row_index()
        known = [cid for cid in chunk_ids if cid in row_of]
        rows = np.fromiter((row_of[cid] for cid in known), dtype=np.int64, count=len(known))
        return known, rows, self.documents.doc_of_row[rows]

    def chunk_documents(self, chunk_ids: Sequence[str]) -> dict[str, str]:
        """Each indexed chunk's document id."""
        known, _, documents = self._rows_and_documents(chunk_ids)
        return {cid: self.documents.doc_ids[document] for cid, document in zip(known, documents.tolist(), strict=True)}

    def chunk_languages(self, chunk_ids: Sequence[str]) -> dict[str, str]:
        """Each indexed chunk's language, judged from its tokens (computed once per generation, on first use)."""
        languages = self._languages_of_rows()
        row_of = self._row_index()
        return {cid: LANGUAGES[languages[row_of[cid]]] for cid in chunk_ids if cid in row_of}

    def document_languages(self, chunk_ids: Sequence[str]) -> dict[str, str]:
        """Each indexed chunk's document's language (`text.languages.document_languages`; once per generation)."""
        row_of = self._row_index()
        of_document = self._languages_of_documents()[self.documents.doc_of_row]
        return {cid: LANGUAGES[of_document[row_of[cid]]] for cid in chunk_ids if cid in row_of}

    def translated_chunks(self, chunk_ids: Sequence[str], language: str, tokens: Sequence[str]) -> set[str]:
        """The chunks among `chunk_ids` whose document translates, into another language, the document of another of
        them in `language` (`index.translations`; document centroids once per generation) and says nothing more
        about the question: it holds none of the question's `tokens` that its counterpart lacks. A translation
        that does (an older or newer version: a tool the other never names) is evidence of its own."""
        row_of = self._row_index()
        known = [cid for cid in chunk_ids if cid in row_of]
        if not known or language not in LANGUAGES or self.vectors.ndim != 2:
            return set()
        if self._centroids is None:
            self._centroids = self._derived("centroids", len(self.documents.doc_ids),
                                            lambda: document_centroids(self.vectors, self.documents.starts))
        docs = self.documents.doc_of_row[[row_of[cid] for cid in known]]
        pairs = translation_pairs(self._centroids, docs, self._languages_of_documents(), LANGUAGES.index(language))
        if not pairs:
            return set()
        translations, counterparts = (np.asarray(side, dtype=np.int64) for side in zip(*pairs, strict=True))
        _, held = self.document_bm25.term_matrix(np.concatenate([translations, counterparts]).tolist(), tokens)
        says_more = (held[: len(pairs)] & ~held[len(pairs):]).any(axis=1)
        demoted = translations[~says_more]
        return {cid for cid, is_demoted in zip(known, np.isin(docs, demoted).tolist(), strict=True) if is_demoted}

    def _languages_of_documents(self) -> np.ndarray:
        if self._document_languages is None:
            self._document_languages = document_languages(
                self._languages_of_rows(), self.documents.doc_of_row, len(self.documents.doc_ids))
        return self._document_languages

    def _languages_of_rows(self) -> np.ndarray:
        if self._row_languages is None:

            def judged() -> np.ndarray:
                terms = sorted(self.bm25.vocab, key=self.bm25.vocab.__getitem__)
                return row_languages(self.bm25.matrix, token_classes(terms))

            self._row_languages = self._derived("languages", len(self.ids), judged)
        return self._row_languages

    def _derived(self, name: str, rows: int, compute: Callable[[], np.ndarray]) -> np.ndarray:
        """A per-generation array from the row cache, or computed once and kept there for the next process (a cold
        search spent 0.5 s judging every row's language and 0.45 s averaging every document's vectors)."""
        found = row_cache.load_derived(self.cache_dir, self.generation, name, rows)
        if found is not None:
            return found
        computed = compute()
        self._write_later(row_cache.save_derived, self.cache_dir, self.generation, name, computed)
        return computed

    def document_keyword_scores(self, chunk_ids: Sequence[str], tokens: Sequence[str]) -> dict[str, float]:
        """The BM25 of each chunk's document over its whole text (chunks not indexed are left out)."""
        return self._document_scores(self.document_bm25, chunk_ids, tokens)

    def document_opening_keyword_scores(self, chunk_ids: Sequence[str], tokens: Sequence[str]) -> dict[str, float]:
        """The BM25 of each chunk's document's opening (its first OPENING_CHUNKS rows) among all documents' openings."""
        return self._document_scores(self.opening_bm25, chunk_ids, tokens)

    def _document_scores(self, index: BM25Index, chunk_ids: Sequence[str], tokens: Sequence[str]) -> dict[str, float]:
        known, _, docs_asked = self._rows_and_documents(chunk_ids)
        if not known:
            return {}
        return dict(zip(known, index.scores(tokens)[docs_asked].tolist(), strict=True))
