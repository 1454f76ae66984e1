"""A document's best sentence: the closest of its units (sentences, table rows) to the query.

USE is a sentence encoder, and a 300-character chunk holds two or three sentences, so a chunk's
cosine averages them: a page whose one sentence says what the question asks scores no higher than
its neighbours. The units are already embedded at ingest, each with its section heading, for the
reranker and the extractive answer, and ingest keeps each document's as one matrix
(`bunko.rerank.unit_vectors`, `[rerank] unit_vectors = "ingest"`); this reads them back, so judging
a document by its best sentence costs no embedding at search time.

A document with no stored matrix (ingested before unit vectors were built, or their build failed)
has no best sentence, and is judged by its chunks alone as before; `bunko reindex --unit-vectors`
writes them. Units are never embedded here: a ranking must not depend on which questions were
asked before.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from bunko.schema import Chunk

KEPT_ROWS = 50_000
"""Unit vectors kept in memory between queries, as float32 (100 MB at 512 dimensions: converting float16 rows at each
query cost more than the product): a document's matrix is read from the file once, not at every query that ranks it."""


class DocumentChunks(Protocol):
    """What the best sentence needs of a store: a document's chunks, and a count that moves whenever documents change."""

    def chunks(self, source: str | None = None) -> list[Chunk]: ...
    def generation(self) -> int: ...


class StoredDocumentUnits(Protocol):
    """The unit-vector file (`bunko.rerank.unit_vectors.UnitVectorFile`)."""

    def document_key(self, model: str, chunks: Sequence[Chunk]) -> bytes: ...
    def document_units(self, key: bytes, dimension: int) -> np.ndarray | None: ...


class DocumentSentences:
    """Best unit cosine per document, from the collection's unit-vector file."""

    def __init__(self, store: DocumentChunks, vectors: StoredDocumentUnits, model: str, dimension: int) -> None:
        self.store = store
        self.vectors = vectors
        self.model = model
        self.dimension = dimension
        self._lock = threading.Lock()
        self._kept: OrderedDict[str, np.ndarray] = OrderedDict()
        self._kept_rows = 0
        self._keys: dict[str, bytes] = {}
        """Each document's matrix key (a hash of its chunks), so a matrix dropped from memory is read again without
        reading the document's chunks."""
        self._generation: int | None = None

    def best(self, chunks: Sequence[Chunk], vector: np.ndarray) -> dict[str, float]:
        """Document id → its best unit's cosine with `vector`, for the documents of `chunks` that have stored units."""
        query = np.asarray(vector, dtype=np.float32).ravel()
        sources = {chunk.doc_id: chunk.source for chunk in chunks}
        with self._lock:
            self._forget_if_changed()
            found = {doc_id: self._units(doc_id, source) for doc_id, source in sources.items()}
        return {doc_id: float((units @ query).max()) for doc_id, units in found.items() if units is not None and len(units)}

    def _forget_if_changed(self) -> None:
        generation = self.store.generation()
        if generation != self._generation:
            self._kept.clear()
            self._keys.clear()
            self._kept_rows = 0
            self._generation = generation

    def _units(self, doc_id: str, source: str) -> np.ndarray | None:
        """The document's matrix; a missing one is looked for again at the next query (the file may be built since)."""
        if (kept := self._kept.get(doc_id)) is not None:
            self._kept.move_to_end(doc_id)
            return kept
        if (key := self._keys.get(doc_id)) is None:
            key = self._keys[doc_id] = self.vectors.document_key(self.model, self.store.chunks(source))
        stored = self.vectors.document_units(key, self.dimension)
        if stored is None:
            return None
        units = stored.astype(np.float32)
        self._kept[doc_id] = units
        self._kept_rows += len(units)
        while self._kept_rows > KEPT_ROWS and len(self._kept) > 1:
            _, dropped = self._kept.popitem(last=False)
            self._kept_rows -= len(dropped)
        return units
