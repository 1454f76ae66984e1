"""The store protocols: what each layer needs from a backend (local SQLite + memory index, or PostgreSQL).

One protocol per concern, so a component states the little it needs: ingestion writes a
`DocumentStore`, the job runner a `JobLog`, the answerer a `TraceLog`, `bunko migrate` a `Portable` store. `Store` is all of them, what a backend implements
(tests/store/test_store_contract.py runs every backend through the same contract), and returns its
`SearchBackend` (`store/search_backend.py`) from `search()`: what retrievers read, kept by the backend
so it can apply filters inside its own query (SQL WHERE, or a row mask) before top-k.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from bunko.schema import Chunk, DocumentInfo, Element, IngestJob, ParsedDocument
from bunko.store.copies import CopyRecord
from bunko.store.search_backend import SearchBackend
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


class Store(CollectionMeta, DocumentStore, VectorStaging, DocumentCopies, JobLog, TraceLog, Portable, Protocol):
    """A whole backend: what `open_store` returns and the engine holds. Its storage protocols hold no search
    method: retrieval reads the `SearchBackend` it returns."""

    def search(self) -> SearchBackend:
        """The collection's search (`store/search_backend.py`): one object for the store's lifetime."""
        ...
    def prepare_search(self) -> None:
        """Ready the current generation's search structures and write whatever caches them on disk, waiting for it:
        what the writer does at the end of a write (`ingest/after_writes.py`), so that no search builds or writes them."""
        ...
