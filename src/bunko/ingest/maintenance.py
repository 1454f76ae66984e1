"""Rewriting what is stored without re-parsing: new vectors for a new embedder, new tokens for a new
analyzer (and the entity graph's mentions for a store written before it).

Both read the chunks back from the store and write them through the store's own
write paths, so the rules of an ingest hold: one transaction per document (re-index),
one per batch of staged vectors and one for the switch (re-embed), and a crash midway
leaves whole documents and either the old model's vectors or the new one's, never a mix.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from bunko.embed.base import Embedder
from bunko.errors import CollectionError
from bunko.ingest.copies import CopyFinder
from bunko.ingest.pipeline import Progress, UnitVectors, embed_hash, stored_chunk
from bunko.ingest.reembed_batch import REEMBED_BATCH
from bunko.schema import Chunk, IngestJob, JobStatus, ParsedDocument
from bunko.store.base import DocumentCopies, DocumentStore, StagedVector, VectorStaging
from bunko.text.analyzers import Analyzer
from bunko.text.entities import EntityExtractor, extract_entities

ReembedProgress = Callable[[int, int], None]
"""progress(chunks with a new vector, all chunks)."""


class ReembedStopped(CollectionError):
    """The re-embed was aborted between two batches; its staged vectors are discarded, the old model stays."""


@dataclass
class ReembedReport:
    """A finished re-embed: the embedder now in force, the one it replaced, chunks switched, chunks embedded by
    this run (fewer than `chunks` when it resumed an interrupted one)."""

    embedder: str
    replaced: str
    chunks: int
    embedded: int
    seconds: float


@dataclass
class ReembedPlan:
    """The re-embed in progress, stored under STAGING_META while its vectors are staged.

    `embed` is the [embed] section that builds the new embedder ({} when the embedder was handed in
    by a caller): what `bunko reembed` with no model resumes with, and what bunko.toml gets at the switch.
    """

    embedder: str
    dimension: int
    replaces: str
    embed: dict[str, Any] = field(default_factory=dict)
    started_at: float = field(default_factory=time.time)

    def dumps(self) -> str:
        import json

        return json.dumps(asdict(self), ensure_ascii=False, sort_keys=True)

    @classmethod
    def loads(cls, text: str) -> ReembedPlan:
        import json

        data = json.loads(text)
        return cls(str(data["embedder"]), int(data["dimension"]), str(data.get("replaces", "")), dict(data.get("embed") or {}),
                   float(data.get("started_at", 0.0)))


def embed_chunks(embedder: Embedder, chunks: Sequence[tuple[Chunk, str]]) -> list[StagedVector]:
    """New vectors for `chunks` (each with its live embed hash): searched chunks embedded (each distinct text
    once), context-only ones (parent_child's parents) given a blank vector as an ingest gives them."""
    texts = list(dict.fromkeys(c.embed_text for c, _ in chunks if c.searchable))
    rows = embedder.embed(texts) if texts else np.zeros((0, embedder.dimension), dtype=np.float32)
    if rows.shape != (len(texts), embedder.dimension):
        raise CollectionError(
            f"embedder {embedder.name} returned vectors of shape {rows.shape} for {len(texts)} texts; "
            f"expected {embedder.dimension} dimensions"
        )
    vector_of = dict(zip(texts, rows, strict=True))
    blank = np.zeros(embedder.dimension, dtype=np.float32)
    return [
        StagedVector(c.chunk_id, live, embed_hash(embedder.name, c.embed_text), vector_of[c.embed_text] if c.searchable else blank)
        for c, live in chunks
    ]


def stage(
    store: VectorStaging, embedder: Embedder, progress: ReembedProgress | None = None, *, batch: int = REEMBED_BATCH,
    stop: threading.Event | None = None, units: UnitVectors | None = None,
) -> int:
    """Embed every chunk without a staged vector, `batch` at a time, each batch committed before the next
    starts (a kill loses one batch at most); the number of chunks embedded by this call.

    With `units`, each batch's unit vectors for the new model are embedded and kept before the batch commits (a unit
    that is a chunk's whole text takes the chunk's vector), so the switch leaves only the documents' matrices to
    write from stored vectors, and a resumed run finds the units of every committed batch stored."""
    done, total = store.staging_counts()
    if progress:
        progress(done, total)
    embedded = 0
    while True:
        if stop is not None and stop.is_set():
            raise ReembedStopped()
        todo = store.chunks_to_stage(batch)
        if not todo:
            return embedded
        staged = embed_chunks(embedder, todo)
        if units is not None:
            known = {chunk.embed_text: row.vector for (chunk, _), row in zip(todo, staged, strict=True) if chunk.searchable}
            units.embed_units(embedder, [chunk for chunk, _ in todo], known)
        store.stage_vectors(staged)
        embedded += len(todo)
        if progress:
            progress(*store.staging_counts())


def reindex(
    store: DocumentStore, analyzer: Analyzer, embedder_name: str, progress: Progress | None = None,
    extractor: EntityExtractor | None = extract_entities,
) -> int:
    """Every document's chunks re-tokenized with `analyzer` and their entities found again, one transaction per
    document; the document count.

    Elements, chunks and vectors are written back as stored (the vectors found by their
    embed hash under `embedder_name`), so nothing is re-parsed or re-embedded. Each document is fingerprinted and
    grouped with its copies again (`ingest/copies.py`), so a collection stored before copies were recorded gets them.
    """
    documents = sorted(store.documents(), key=lambda info: (info.ingested_at, info.source))  # the first ingested first
    finder = CopyFinder(store) if isinstance(store, DocumentCopies) else None
    for done, info in enumerate(documents, start=1):
        chunks = store.chunks(info.source)
        hashes = [embed_hash(embedder_name, c.embed_text) for c in chunks]
        vectors = store.cached_vectors(hashes)
        missing = [c.chunk_id for c, h in zip(chunks, hashes, strict=True) if h not in vectors]
        if missing:
            raise CollectionError(f"{info.source}: stored vectors not found for {missing[:3]}; run `bunko reembed` first")
        doc = ParsedDocument(info.doc_id, info.source, info.title, info.mime, info.parser, store.elements(info.source), info.meta)
        stored = [stored_chunk(c, vectors[h], h, analyzer, extractor) for c, h in zip(chunks, hashes, strict=True)]
        links = finder.link(doc, info.ingested_at) if finder is not None else {}
        store.replace_document(doc, info.content_hash, stored)
        if finder is not None:
            finder.store.link_copies(links)
        if progress:
            progress(done, len(documents), IngestJob(job_id="reindex", source=info.source, status=JobStatus.READY))
    return len(documents)
