"""What retrieval reads from a collection: one `SearchBackend`, which a store returns from `store.search()`.

Storage (documents, jobs, traces, staging: `store/base.py`) and search are two protocols. Every
read a retriever makes is required here — the search primitives and the read-only view of the
collection that section trees, tables, copy groups and best sentences are derived from — so
`retrieve/` is handed this and never a storage protocol, so no retriever tests at query time whether a backend
can do something and skips it when not: a backend without a fast path for a read inherits the
one `SearchFallbacks` (`store/search_fallbacks.py`) builds from the basic reads, and ranks as
any other backend does (tests/store/test_search_contract.py runs every backend over one corpus).

Each search primitive applies its filter (`where`) inside the backend's own query (SQL WHERE,
or a row mask) before top-k; the structures searched are `bunko.index`'s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from bunko.index.graph import EntityGraph
from bunko.schema import Chunk, DocumentInfo, DocumentMatch, Element
from bunko.store.copies import CopyRecord
from bunko.text.entities import Mention


@dataclass(frozen=True)
class KeywordCandidates:
    """`keyword_search`'s top chunks, best first, with their BM25 (`scores`) and their documents' BM25 over each whole
    document (`document_scores`, as `document_keyword_scores` gives it; 0 for a chunk no longer indexed): what keyword
    search ranks by, read at one generation of the collection."""

    chunk_ids: list[str]
    scores: np.ndarray
    """float64, one per chunk id."""
    document_scores: np.ndarray
    """float64, one per chunk id."""


class SearchBackend(Protocol):
    """The search primitives, each applying filters before top-k, the evidence fusion reads, and the entity graph."""

    # -- the collection as written: what section trees, tables, copy groups and best sentences are derived from --
    def generation(self) -> int:
        """The write counter: it moves whenever a document is written or deleted, so a derived structure rebuilt
        at one value is current until it moves."""
        ...
    def documents(self) -> list[DocumentInfo]: ...
    def chunks(self, source: str) -> list[Chunk]:
        """Every chunk of one document, searchable or not, in document order."""
        ...
    def elements(self, source: str) -> list[Element]: ...
    def copy_records(self, grouped: bool = False) -> list[CopyRecord]:
        """Every document's copy record (`store/copies.py`); `grouped`: only those of documents in a copy group."""
        ...

    # -- basic reads: every backend implements these ---------------------------
    def get_chunks(self, chunk_ids: Sequence[str]) -> list[Chunk]:
        """The chunks of `chunk_ids` that exist, in that order."""
        ...
    def document_chunk_ids(self, doc_ids: Sequence[str]) -> dict[str, list[str]]:
        """Each document's searchable chunks, in document order (documents not stored are left out)."""
        ...
    def filter_fields(self) -> set[str]:
        """The fields a filter may name here: the built-in ones and every metadata key stored."""
        ...
    def dense_search(self, vector: np.ndarray, k: int, where: Mapping[str, Any] | None = None) -> list[tuple[str, float]]: ...
    def keyword_search(self, tokens: Sequence[str], k: int, where: Mapping[str, Any] | None = None) -> list[tuple[str, float]]: ...
    def document_keyword_search(
        self, tokens: Sequence[str], k: int, where: Mapping[str, Any] | None = None, vector: np.ndarray | None = None
    ) -> list[DocumentMatch]:
        """Top documents by BM25 over each document's text as a whole; the best chunk is the closest to `vector`."""
        ...
    def document_keyword_scores(self, chunk_ids: Sequence[str], tokens: Sequence[str]) -> dict[str, float]:
        """The BM25 of each chunk's document over its whole text: the document evidence fused into chunk scores."""
        ...
    def document_opening_keyword_scores(self, chunk_ids: Sequence[str], tokens: Sequence[str]) -> dict[str, float]:
        """The BM25 of each chunk's document's opening (its first OPENING_CHUNKS searchable chunks) among all openings.
        Needs corpus totals over every opening, so it has no fallback from the other reads."""
        ...
    def document_similarities(self, chunk_ids: Sequence[str], vector: np.ndarray) -> dict[str, float]:
        """For each chunk, the mean cosine with `vector` of its document's 3 closest chunks: dense document evidence."""
        ...
    def chunk_languages(self, chunk_ids: Sequence[str]) -> dict[str, str]:
        """Each chunk's language ("en", "ja", "zh") as `text.languages` judges its tokens."""
        ...
    def term_weights(self, tokens: Sequence[str]) -> dict[str, float]: ...
    def matching_terms(self, chunk_ids: Sequence[str], tokens: Sequence[str]) -> dict[str, set[str]]:
        """Which of the query's tokens each chunk holds: the keyword side of coverage fusion."""
        ...
    def vectors_for(self, chunk_ids: Sequence[str]) -> np.ndarray:
        """One row per id, in the order asked; a zero row for a chunk no longer stored (a search racing a delete)."""
        ...
    def index_stats(self) -> dict[str, Any]:
        """What the dense index is (exact, HNSW and its calibration): for `bunko status`."""
        ...
    def entity_graph(self) -> EntityGraph:
        """The graph of the documents stored now, updated document by document since the last call."""
        ...
    def mentions(self, chunk_ids: Sequence[str]) -> dict[str, list[Mention]]:
        """Each chunk's entity mentions with their spans in its text: how a graph hit is tied back to its passage."""
        ...
    def allowed_chunks(self, chunk_ids: Sequence[str], where: Mapping[str, Any]) -> set[str]:
        """Which of `chunk_ids` the filter lets through: a walk or a copy reaches chunks no filtered search returned."""
        ...

    # -- reads with a shared fallback (`SearchFallbacks`), overridden where a backend has a faster way ----------
    def document_versions(self, doc_ids: Sequence[str]) -> dict[str, float]:
        """When each stored document of `doc_ids` was last written: the version its derived rows are keyed by."""
        ...
    def hybrid_search(
        self, vector: np.ndarray, tokens: Sequence[str], k: int, where: Mapping[str, Any] | None = None
    ) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
        """`dense_search` and `keyword_search` of one query; a backend may run them at once."""
        ...
    def keyword_candidates(self, tokens: Sequence[str], k: int, where: Mapping[str, Any] | None = None) -> KeywordCandidates:
        """`keyword_search` and `document_keyword_scores` of its chunks in one read (one generation, one lock hold)."""
        ...
    def term_matrix(self, chunk_ids: Sequence[str], tokens: Sequence[str]) -> tuple[list[str], list[str], np.ndarray]:
        """`matching_terms` as one boolean matrix: (the chunks asked that are searchable, the query terms any holds,
        held[chunk, term])."""
        ...
    def chunk_documents(self, chunk_ids: Sequence[str]) -> dict[str, str]:
        """Each searchable chunk's document id."""
        ...
    def document_languages(self, chunk_ids: Sequence[str]) -> dict[str, str]:
        """Each chunk's document's language, judged from all its searchable chunks (`text.languages.document_languages`)."""
        ...
    def document_opening_similarities(self, chunk_ids: Sequence[str], vector: np.ndarray) -> dict[str, float]:
        """For each chunk, the mean cosine with `vector` of its document's first OPENING_CHUNKS searchable chunks."""
        ...
    def translated_chunks(self, chunk_ids: Sequence[str], language: str, tokens: Sequence[str]) -> set[str]:
        """The chunks whose document translates another candidate's in `language` and holds none of `tokens` that its
        counterpart lacks (`index/translations.py`)."""
        ...
