"""Rewriting what is stored without re-parsing: new vectors for a new embedder, new tokens for a new
analyzer (and the entity graph's mentions for a store written before it).

Both read the chunks back from the store and write them through the store's own
write paths, so the rules of an ingest hold: one transaction per document (re-index),
one for all vectors (re-embed), and a crash midway leaves whole documents.
"""

from __future__ import annotations

from bunko.embed.base import Embedder
from bunko.errors import CollectionError
from bunko.ingest.pipeline import Progress, embed_hash, stored_chunk
from bunko.schema import IngestJob, JobStatus, ParsedDocument
from bunko.store.base import DocumentStore
from bunko.text.analyzers import Analyzer
from bunko.text.entities import EntityExtractor, extract_entities

REEMBED_BATCH = 256


def reembed(store: DocumentStore, embedder: Embedder) -> int:
    """Every stored chunk embedded with `embedder`, the vectors swapped in one transaction; the chunk count."""
    chunks = store.chunks()
    vectors = {}
    for start in range(0, len(chunks), REEMBED_BATCH):
        part = chunks[start : start + REEMBED_BATCH]
        for chunk, vector in zip(part, embedder.embed([c.embed_text for c in part]), strict=True):
            vectors[chunk.chunk_id] = vector
    store.replace_vectors(vectors, {c.chunk_id: embed_hash(embedder.name, c.embed_text) for c in chunks})
    return len(chunks)


def reindex(
    store: DocumentStore, analyzer: Analyzer, embedder_name: str, progress: Progress | None = None,
    extractor: EntityExtractor | None = extract_entities,
) -> int:
    """Every document's chunks re-tokenized with `analyzer` and their entities found again, one transaction per
    document; the document count.

    Elements, chunks and vectors are written back as stored (the vectors found by their
    embed hash under `embedder_name`), so nothing is re-parsed or re-embedded.
    """
    documents = store.documents()
    for done, info in enumerate(documents, start=1):
        chunks = store.chunks(info.source)
        hashes = [embed_hash(embedder_name, c.embed_text) for c in chunks]
        vectors = store.cached_vectors(hashes)
        missing = [c.chunk_id for c, h in zip(chunks, hashes, strict=True) if h not in vectors]
        if missing:
            raise CollectionError(f"{info.source}: stored vectors not found for {missing[:3]}; run `bunko reembed` first")
        doc = ParsedDocument(info.doc_id, info.source, info.title, info.mime, info.parser, store.elements(info.source), info.meta)
        stored = [stored_chunk(c, vectors[h], h, analyzer, extractor) for c, h in zip(chunks, hashes, strict=True)]
        store.replace_document(doc, info.content_hash, stored)
        if progress:
            progress(done, len(documents), IngestJob(job_id="reindex", source=info.source, status=JobStatus.READY))
    return len(documents)
