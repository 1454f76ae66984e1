"""`SearchBackend`'s derived reads built from its basic ones, so a backend overrides only its fast paths.

A backend subclasses `SearchFallbacks` and implements the basic reads (`store/search_backend.py`);
whatever it does not override is computed here the one way every backend computes it, so the
evidence fused into a ranking is the same whichever backend holds the collection. The local
store overrides all of these from its in-memory index (one numpy pass per query); PostgreSQL
overrides what one SQL statement answers (chunk documents, opening similarities) and inherits
the rest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from bunko.index.graph import EntityGraph
from bunko.index.memory import OPENING_CHUNKS
from bunko.index.translations import document_centroids as centroids_of
from bunko.index.translations import translation_pairs
from bunko.schema import Chunk, DocumentInfo, DocumentMatch, Element
from bunko.store.copies import CopyRecord
from bunko.store.search_backend import KeywordCandidates, SearchBackend
from bunko.text.entities import Mention
from bunko.text.languages import LANGUAGES
from bunko.text.languages import document_languages as judge_documents


class SearchFallbacks:
    """The shared fallbacks; the basic reads are left to the backend (each raises here until it is overridden)."""

    # -- basic reads -----------------------------------------------------------------------------------------
    def generation(self) -> int:
        raise NotImplementedError
    def documents(self) -> list[DocumentInfo]:
        raise NotImplementedError
    def chunks(self, source: str) -> list[Chunk]:
        raise NotImplementedError
    def elements(self, source: str) -> list[Element]:
        raise NotImplementedError
    def copy_records(self, grouped: bool = False) -> list[CopyRecord]:
        raise NotImplementedError
    def get_chunks(self, chunk_ids: Sequence[str]) -> list[Chunk]:
        raise NotImplementedError
    def document_chunk_ids(self, doc_ids: Sequence[str]) -> dict[str, list[str]]:
        raise NotImplementedError
    def filter_fields(self) -> set[str]:
        raise NotImplementedError
    def dense_search(self, vector: np.ndarray, k: int, where: Mapping[str, Any] | None = None) -> list[tuple[str, float]]:
        raise NotImplementedError
    def keyword_search(self, tokens: Sequence[str], k: int, where: Mapping[str, Any] | None = None) -> list[tuple[str, float]]:
        raise NotImplementedError
    def document_keyword_search(
        self, tokens: Sequence[str], k: int, where: Mapping[str, Any] | None = None, vector: np.ndarray | None = None
    ) -> list[DocumentMatch]:
        raise NotImplementedError
    def document_keyword_scores(self, chunk_ids: Sequence[str], tokens: Sequence[str]) -> dict[str, float]:
        raise NotImplementedError
    def document_opening_keyword_scores(self, chunk_ids: Sequence[str], tokens: Sequence[str]) -> dict[str, float]:
        raise NotImplementedError
    def document_similarities(self, chunk_ids: Sequence[str], vector: np.ndarray) -> dict[str, float]:
        raise NotImplementedError
    def chunk_languages(self, chunk_ids: Sequence[str]) -> dict[str, str]:
        raise NotImplementedError
    def term_weights(self, tokens: Sequence[str]) -> dict[str, float]:
        raise NotImplementedError
    def matching_terms(self, chunk_ids: Sequence[str], tokens: Sequence[str]) -> dict[str, set[str]]:
        raise NotImplementedError
    def vectors_for(self, chunk_ids: Sequence[str]) -> np.ndarray:
        raise NotImplementedError
    def index_stats(self) -> dict[str, Any]:
        raise NotImplementedError
    def entity_graph(self) -> EntityGraph:
        raise NotImplementedError
    def mentions(self, chunk_ids: Sequence[str]) -> dict[str, list[Mention]]:
        raise NotImplementedError
    def allowed_chunks(self, chunk_ids: Sequence[str], where: Mapping[str, Any]) -> set[str]:
        raise NotImplementedError

    # -- fallbacks -------------------------------------------------------------------------------------------
    def document_versions(self, doc_ids: Sequence[str]) -> dict[str, float]:
        """From the document list (every document read: a backend with a keyed read overrides this)."""
        wanted = set(doc_ids)
        return {info.doc_id: info.ingested_at for info in self.documents() if info.doc_id in wanted}

    def hybrid_search(
        self, vector: np.ndarray, tokens: Sequence[str], k: int, where: Mapping[str, Any] | None = None
    ) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
        """One after the other."""
        return self.dense_search(vector, k, where), self.keyword_search(tokens, k, where)

    def keyword_candidates(self, tokens: Sequence[str], k: int, where: Mapping[str, Any] | None = None) -> KeywordCandidates:
        """`keyword_search`, then `document_keyword_scores` of what it found."""
        ranked = self.keyword_search(tokens, k, where)
        ids = [cid for cid, _ in ranked]
        documents = self.document_keyword_scores(ids, tokens) if ids else {}
        return KeywordCandidates(ids, np.array([score for _, score in ranked], dtype=np.float64),
                                 np.array([documents.get(cid, 0.0) for cid in ids], dtype=np.float64))

    def term_matrix(self, chunk_ids: Sequence[str], tokens: Sequence[str]) -> tuple[list[str], list[str], np.ndarray]:
        """From `matching_terms`: the chunks it answers for and the distinct query terms any of them holds."""
        held_by = self.matching_terms(chunk_ids, tokens)
        known = [cid for cid in dict.fromkeys(chunk_ids) if cid in held_by]
        held_any = set().union(*held_by.values()) if held_by else set()
        terms = [term for term in dict.fromkeys(tokens) if term in held_any]
        held = np.array([[term in held_by[cid] for term in terms] for cid in known], dtype=bool).reshape(len(known), len(terms))
        return known, terms, held

    def chunk_documents(self, chunk_ids: Sequence[str]) -> dict[str, str]:
        """From the chunks' records (every candidate decoded: about 1 ms a query at 200 candidates)."""
        return {chunk.chunk_id: chunk.doc_id for chunk in self.get_chunks(chunk_ids)}

    def document_languages(self, chunk_ids: Sequence[str]) -> dict[str, str]:
        """Each chunk's document's language from the languages of all the document's searchable chunks."""
        doc_of = self.chunk_documents(chunk_ids)
        language_of = self.document_language_indexes(sorted(set(doc_of.values())))
        return {cid: LANGUAGES[language_of[doc]] for cid, doc in doc_of.items() if doc in language_of}

    def document_opening_similarities(self, chunk_ids: Sequence[str], vector: np.ndarray) -> dict[str, float]:
        """The mean cosine of each chunk's document's first OPENING_CHUNKS searchable chunks with `vector`."""
        doc_of = self.chunk_documents(chunk_ids)
        members = self.document_chunk_ids(sorted(set(doc_of.values())))
        openings = {doc: ids[:OPENING_CHUNKS] for doc, ids in members.items() if ids}
        ids = [cid for opening in openings.values() for cid in opening]
        if not ids:
            return {}
        cosines = self.vectors_for(ids) @ np.asarray(vector, dtype=np.float32).ravel()
        of_chunk = dict(zip(ids, cosines.astype(np.float64).tolist(), strict=True))
        means = {doc: float(np.mean([of_chunk[cid] for cid in opening])) for doc, opening in openings.items()}
        return {cid: means[doc] for cid, doc in doc_of.items() if doc in means}

    def translated_chunks(self, chunk_ids: Sequence[str], language: str, tokens: Sequence[str]) -> set[str]:
        """Translation pairs among the candidates' documents by their centroids (`index/translations.py`); a
        translation is demoted unless it holds a query token its counterpart lacks (read for the paired documents only)."""
        if language not in LANGUAGES:
            return set()
        doc_of = self.chunk_documents(chunk_ids)
        docs, centroids = self.document_centroids(sorted(set(doc_of.values())))
        if not docs:
            return set()
        language_of = self.document_language_indexes(docs)
        languages = np.asarray([language_of.get(doc, 0) for doc in docs], dtype=np.int8)
        pairs = translation_pairs(centroids, np.arange(len(docs)), languages, LANGUAGES.index(language))
        if not pairs:
            return set()
        members = self.document_chunk_ids(sorted({docs[number] for pair in pairs for number in pair}))
        held = self.matching_terms([cid for ids in members.values() for cid in ids], tokens)
        terms_of = {doc: set().union(*(held.get(cid, set()) for cid in ids)) for doc, ids in members.items()}
        demoted = {docs[translation] for translation, counterpart in pairs
                   if not terms_of.get(docs[translation], set()) - terms_of.get(docs[counterpart], set())}
        return {cid for cid, doc in doc_of.items() if doc in demoted}

    # -- what the document-level fallbacks read of a document; a backend may read it in fewer steps ----------
    def document_centroids(self, docs: Sequence[str]) -> tuple[list[str], np.ndarray]:
        """The documents of `docs` that have searchable chunks, and each one's normalised mean chunk vector."""
        members = self.document_chunk_ids(docs)
        present = [doc for doc in docs if members.get(doc)]
        if not present:
            return [], np.zeros((0, 0), dtype=np.float32)
        vectors = self.vectors_for([cid for doc in present for cid in members[doc]])
        starts = np.cumsum([0, *(len(members[doc]) for doc in present)]).astype(np.int64)
        return present, centroids_of(vectors, starts)

    def document_language_indexes(self, docs: Sequence[str]) -> dict[str, int]:
        """Each document's language index (into LANGUAGES), `text.languages.document_languages` over its chunks'."""
        members = self.document_chunk_ids(docs)
        present = [doc for doc in docs if members.get(doc)]
        of_chunk = self.chunk_languages([cid for doc in present for cid in members[doc]])
        rows = [(number, LANGUAGES.index(of_chunk[cid])) for number, doc in enumerate(present) for cid in members[doc] if cid in of_chunk]
        if not rows:
            return {}
        doc_of_row, row_language = (np.asarray(side, dtype=np.int64) for side in zip(*rows, strict=True))
        judged = judge_documents(row_language, doc_of_row, len(present))
        return {doc: int(judged[number]) for number, doc in enumerate(present)}


class BasicReadsOnly(SearchFallbacks):
    """A backend's basic reads with none of its fast paths: every fallback computed here from them.

    What the search contract compares a backend's overrides with (tests/store/test_search_contract.py):
    a fast path must rank as the fallback it replaces.
    """

    def __init__(self, backend: SearchBackend) -> None:
        self.backend = backend

    def generation(self) -> int:
        return self.backend.generation()
    def documents(self) -> list[DocumentInfo]:
        return self.backend.documents()
    def chunks(self, source: str) -> list[Chunk]:
        return self.backend.chunks(source)
    def elements(self, source: str) -> list[Element]:
        return self.backend.elements(source)
    def copy_records(self, grouped: bool = False) -> list[CopyRecord]:
        return self.backend.copy_records(grouped)
    def get_chunks(self, chunk_ids: Sequence[str]) -> list[Chunk]:
        return self.backend.get_chunks(chunk_ids)
    def document_chunk_ids(self, doc_ids: Sequence[str]) -> dict[str, list[str]]:
        return self.backend.document_chunk_ids(doc_ids)
    def filter_fields(self) -> set[str]:
        return self.backend.filter_fields()
    def dense_search(self, vector: np.ndarray, k: int, where: Mapping[str, Any] | None = None) -> list[tuple[str, float]]:
        return self.backend.dense_search(vector, k, where)
    def keyword_search(self, tokens: Sequence[str], k: int, where: Mapping[str, Any] | None = None) -> list[tuple[str, float]]:
        return self.backend.keyword_search(tokens, k, where)
    def document_keyword_search(
        self, tokens: Sequence[str], k: int, where: Mapping[str, Any] | None = None, vector: np.ndarray | None = None
    ) -> list[DocumentMatch]:
        return self.backend.document_keyword_search(tokens, k, where, vector)
    def document_keyword_scores(self, chunk_ids: Sequence[str], tokens: Sequence[str]) -> dict[str, float]:
        return self.backend.document_keyword_scores(chunk_ids, tokens)
    def document_opening_keyword_scores(self, chunk_ids: Sequence[str], tokens: Sequence[str]) -> dict[str, float]:
        return self.backend.document_opening_keyword_scores(chunk_ids, tokens)
    def document_similarities(self, chunk_ids: Sequence[str], vector: np.ndarray) -> dict[str, float]:
        return self.backend.document_similarities(chunk_ids, vector)
    def chunk_languages(self, chunk_ids: Sequence[str]) -> dict[str, str]:
        return self.backend.chunk_languages(chunk_ids)
    def term_weights(self, tokens: Sequence[str]) -> dict[str, float]:
        return self.backend.term_weights(tokens)
    def matching_terms(self, chunk_ids: Sequence[str], tokens: Sequence[str]) -> dict[str, set[str]]:
        return self.backend.matching_terms(chunk_ids, tokens)
    def vectors_for(self, chunk_ids: Sequence[str]) -> np.ndarray:
        return self.backend.vectors_for(chunk_ids)
    def index_stats(self) -> dict[str, Any]:
        return self.backend.index_stats()
    def entity_graph(self) -> EntityGraph:
        return self.backend.entity_graph()
    def mentions(self, chunk_ids: Sequence[str]) -> dict[str, list[Mention]]:
        return self.backend.mentions(chunk_ids)
    def allowed_chunks(self, chunk_ids: Sequence[str], where: Mapping[str, Any]) -> set[str]:
        return self.backend.allowed_chunks(chunk_ids, where)
