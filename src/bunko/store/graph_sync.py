"""Keeping a store's in-memory entity graph in step with its documents, one changed document at a time.

Both stores keep the graph's edges in their chunk rows (written in the document's own
transaction), so the truth is always the store; this walks the difference between the
documents the graph holds and the documents stored now, and reads the rows of the changed
ones only. After a one-document change in a 100k-chunk collection that is one small query.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import groupby

from bunko.index.graph import EntityGraph

SYNC_BATCH = 500
"""Documents whose rows are read per query when many changed (a first load)."""

EntityRows = Callable[[list[str]], Iterable[tuple[str, str, list[str]]]]
"""read(doc_ids) -> (doc_id, chunk_id, entity keys) of their searchable chunks, grouped by document, in chunk order."""


DOCUMENT_VERSIONS = "SELECT doc_id, content_hash, ingested_at FROM documents"
"""A document's version is its content and when it was written: a re-index rewrites the same content anew."""


def sync_graph(graph: EntityGraph, documents: Iterable[tuple[str, str, float]], read: EntityRows) -> int:
    """Bring `graph` to the stored documents (rows of DOCUMENT_VERSIONS); the number of documents added, changed or removed."""
    versions = {doc_id: f"{content_hash}@{ingested_at!r}" for doc_id, content_hash, ingested_at in documents}
    held = graph.versions()
    removed = held.keys() - versions.keys()
    for doc_id in removed:
        graph.remove_document(doc_id)
    changed = [doc_id for doc_id, version in versions.items() if held.get(doc_id) != version]
    for start in range(0, len(changed), SYNC_BATCH):
        batch = changed[start : start + SYNC_BATCH]
        seen = set()
        for doc_id, rows in groupby(read(batch), key=lambda row: row[0]):
            seen.add(doc_id)
            graph.replace_document(doc_id, versions[doc_id], [(chunk_id, keys) for _, chunk_id, keys in rows])
        for doc_id in set(batch) - seen:  # a document without searchable chunks is still a version the graph holds
            graph.replace_document(doc_id, versions[doc_id], [])
    return len(removed) + len(changed)
