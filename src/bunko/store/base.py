"""The store protocols: what each layer needs from a backend (local SQLite + memory index, or PostgreSQL).

One protocol per concern, so a component states the little it needs: retrievers read a
`SearchIndex`, ingestion writes a `DocumentStore`, the job runner a `JobLog`, the answerer a
`TraceLog`, `bunko migrate` a `Portable` store. `Store` is all of them, what a backend implements
(tests/store/test_store_contract.py runs every backend through the same contract).

Search lives in the store, not beside it, so each backend can apply filters inside its own
query (SQL WHERE, or a row mask) before top-k; the structures it searches with are `bunko.index`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from bunko.index.graph import EntityGraph
from bunko.schema import Chunk, DocumentInfo, DocumentMatch, Element, IngestJob, ParsedDocument
from bunko.store.copies import CopyRecord
from bunko.text.entities import Mention


@dataclass
class StoredChunk:
    """A chunk as written: its vector, keyword tokens and entity mentions travel with it in one transaction."""

    chunk: Chunk
    vector: np.ndarray
    tokens: list[str]
    embed_hash: str
    entities: list[Mention] = field(default_factory=list)
    """The entities the chunk's text mentions, with their spans in it: the chunk's edges in the entity graph."""



@dataclass
class StagedVector:
    """A chunk's vector under the embedder a re-embed switches to, kept beside the live one until the switch.

    `live_hash` is the chunk's embed hash when it was embedded: a chunk rewritten since (an ingest during the
    re-embed) no longer matches it, so it is embedded again rather than swapped in stale.
    """

    chunk_id: str
    live_hash: str
    embed_hash: str
    vector: np.ndarray


STAGING_META = "reembed"
"""Meta key of the re-embed in progress (its plan, JSON): present from its start until it is switched in or aborted."""

StageMissing = Callable[[list[tuple[Chunk, str]]], list[StagedVector]]
"""Embeds the chunks (with their live embed hash) a switch finds unstaged: those written since the last batch."""


DocumentRecord = tuple[ParsedDocument, str, float, list[StoredChunk]]
"""A document as exported: the document, its content hash, when it was ingested, its chunks with vectors and tokens."""
TraceRecord = tuple[str, float, str, dict[str, Any]]
"""A trace as exported: id, creation time, question, payload."""


class CollectionMeta(Protocol):
    """Collection-level facts (embedder, dimension, analyzer, schema version)."""

    def close(self) -> None: ...
    def get_meta(self, key: str) -> str | None: ...
    def set_meta(self, key: str, value: str) -> None: ...
    def all_meta(self) -> dict[str, str]: ...
    def generation(self) -> int:
        """A number that changes with every committed write: readers compare it to know their view is stale."""
        ...


class DocumentStore(Protocol):
    """Documents, their elements and chunks, written one document per transaction."""

    def document_hash(self, source: str) -> str | None: ...
    def document_versions(self, doc_ids: Sequence[str]) -> dict[str, float]:
        """When each document's rows were last written (its `ingested_at`), for those stored: a value that moves whenever
        its chunks change, so a cache of what is derived from them can tell a stale entry by one lookup."""
        ...
    def replace_document(
        self, doc: ParsedDocument, content_hash: str, chunks: Sequence[StoredChunk], *, ingested_at: float | None = None
    ) -> None: ...
    def delete_document(self, source: str) -> bool: ...
    def documents(self) -> list[DocumentInfo]: ...
    def elements(self, source: str) -> list[Element]: ...
    def chunks(self, source: str | None = None) -> list[Chunk]: ...
    def get_chunks(self, chunk_ids: Sequence[str]) -> list[Chunk]: ...
    def chunk_count(self) -> int: ...
    def cached_vectors(self, embed_hashes: Sequence[str]) -> dict[str, np.ndarray]: ...
    def expect_embedder(self, name: str | None) -> None:
        """From now on `replace_document` refuses (and writes nothing) when the collection's recorded embedder is
        not `name`: a writer that started before a re-embed switched cannot add the old model's vectors after it."""
        ...
    def replace_vectors(self, vectors: Mapping[str, np.ndarray], embed_hashes: Mapping[str, str]) -> None: ...


class VectorStaging(Protocol):
    """A re-embed beside the live vectors: the new model's vectors are staged batch by batch (each batch
    committed, so an interrupted re-embed resumes), searches keep reading the live ones, and `swap_staged`
    switches vectors, hashes and the recorded embedder in one transaction."""

    def staging_counts(self) -> tuple[int, int]:
        """(chunks whose current text has a staged vector, all chunks)."""
        ...
    def chunks_to_stage(self, limit: int | None = None) -> list[tuple[Chunk, str]]:
        """Chunks (with their live embed hash) that have no staged vector for their current text, in store order."""
        ...
    def stage_vectors(self, staged: Sequence[StagedVector]) -> None:
        """Write one batch of staged vectors in one transaction; searches and the generation are untouched."""
        ...
    def discard_staged(self) -> None:
        """Drop every staged vector and the plan (STAGING_META), in one transaction."""
        ...
    def swap_staged(self, plan: str, meta: Mapping[str, str], stage_missing: StageMissing) -> int:
        """In one transaction that keeps writers out: stage what is still missing (`stage_missing`), put every
        staged vector and hash in place of the live ones, set `meta` (the new embedder), drop the staging; the
        chunk count. Refused (nothing changed) unless the plan stored is still `plan`."""
        ...


class SearchIndex(Protocol):
    """What retrieval reads: the search primitives, each applying filters before top-k, and the hits' chunks."""

    def get_chunks(self, chunk_ids: Sequence[str]) -> list[Chunk]: ...
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


@runtime_checkable
class GraphIndex(Protocol):
    """The entity graph: its edges are stored with the chunks they came from (so a document's write or delete
    changes them in the same transaction), and the graph walked in memory is kept in step with the store."""

    def entity_graph(self) -> EntityGraph:
        """The graph of the documents stored now, updated document by document since the last call."""
        ...
    def mentions(self, chunk_ids: Sequence[str]) -> dict[str, list[Mention]]:
        """Each chunk's entity mentions with their spans in its text: how a graph hit is tied back to its passage."""
        ...
    def allowed_chunks(self, chunk_ids: Sequence[str], where: Mapping[str, Any]) -> set[str]:
        """Which of `chunk_ids` the filter lets through: a walk reaches chunks no filtered search returned."""
        ...


@runtime_checkable
class DocumentCopies(Protocol):
    """Copy groups (`store/copies.py`): documents holding one page, each naming the original it copies. The store
    keeps a group whole when `delete_document` or `replace_document` changes a member; ingest reads the records to
    find a new document's original and links the group to it."""

    def generation(self) -> int: ...
    def copy_records(self, grouped: bool = False) -> list[CopyRecord]:
        """Every document's record, or with `grouped` only the copies and the originals they point at."""
        ...
    def link_copies(self, links: Mapping[str, str | None]) -> None:
        """Set each document's original (None: it is an original) in one transaction."""
        ...
    def chunks(self, source: str | None = None) -> list[Chunk]: ...
    def allowed_chunks(self, chunk_ids: Sequence[str], where: Mapping[str, Any]) -> set[str]:
        """Which of `chunk_ids` the filter lets through: a copy shown in place of a hit must pass the search's filter."""
        ...


class JobLog(Protocol):
    """Ingest jobs, grouped by run, surviving the process that ran them."""

    def save_job(self, job: IngestJob, run_id: str) -> None: ...
    def jobs(self, run_id: str | None = None, limit: int = 1000) -> list[IngestJob]: ...
    def last_run_id(self) -> str | None: ...
    def fail_unfinished_jobs(self, detail: str) -> int: ...
    def get_job(self, job_id: str) -> IngestJob | None: ...
    def failed_jobs(self) -> list[IngestJob]:
        """Each source's latest job where that job failed, newest first: what is failing now (`bunko jobs retry --failed`)."""
        ...


class TraceLog(Protocol):
    """Every `ask`'s trace, kept for `bunko trace` and the web page."""

    def save_trace(self, trace_id: str, question: str, payload: dict[str, Any], *, created_at: float | None = None) -> None: ...
    def get_trace(self, trace_id: str) -> dict[str, Any] | None: ...


class Portable(Protocol):
    """A collection out and in, as it is (`bunko migrate`): parsing and embedding are never redone."""

    def export_documents(self) -> Iterator[DocumentRecord]: ...
    def export_jobs(self) -> Iterator[tuple[IngestJob, str]]: ...
    def export_traces(self) -> Iterator[TraceRecord]: ...
    def clear(self) -> None:
        """Empty the collection in one transaction."""
        ...
    def bulk_load(self) -> AbstractContextManager[object]:
        """Many documents at once: a backend may defer index building to the end."""
        ...


class Store(
    CollectionMeta, DocumentStore, VectorStaging, SearchIndex, GraphIndex, DocumentCopies, JobLog, TraceLog, Portable, Protocol,
):
    """A whole backend: what `open_store` returns and the engine holds."""
