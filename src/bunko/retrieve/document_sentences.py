"""A document's best sentence: the closest of its units (sentences, table rows) to the query.

USE is a sentence encoder, and a 300-character chunk holds two or three sentences, so a chunk's
cosine averages them: a page whose one sentence says what the question asks scores no higher than
its neighbours. The units are already embedded at ingest, each with its section heading, for the
reranker and the extractive answer, and ingest keeps each document's as one matrix, keyed by the
version of its rows (`bunko.rerank.unit_vectors`, `[rerank] unit_vectors = "ingest"`); this reads
them back, so judging a document by its best sentence costs no embedding at search time and no
read of its chunks.

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

from bunko.store.search_backend import SearchBackend

KEPT_ROWS = 50_000
"""Unit vectors kept in memory between queries, as float32 (100 MB at 512 dimensions: converting float16 rows at each
query cost more than the product): a document's matrix is read from the file once, not at every query that ranks it,
and only a document written since is read again."""


class StoredDocumentUnits(Protocol):
    """The unit-vector file (`bunko.rerank.unit_vectors.UnitVectorFile`)."""

    def document_key(self, model: str, doc_id: str, version: float) -> bytes: ...
    def document_units(self, key: bytes, dimension: int) -> np.ndarray | None: ...


class DocumentSentences:
    """Best unit cosine per document, from the collection's unit-vector file."""

    def __init__(self, store: SearchBackend, vectors: StoredDocumentUnits, model: str, dimension: int) -> None:
        self.store = store
        self.vectors = vectors
        self.model = model
        self.dimension = dimension
        self._lock = threading.Lock()
        self._kept: OrderedDict[str, tuple[float, np.ndarray]] = OrderedDict()
        """Document id → (the version its matrix was read at, the matrix), least recently used first."""
        self._kept_rows = 0

    def best(self, doc_ids: Sequence[str], vector: np.ndarray) -> dict[str, float]:
        """Document id → its best unit's cosine with `vector`, for those of `doc_ids` that have stored units."""
        query = np.asarray(vector, dtype=np.float32).ravel()
        with self._lock:
            versions = self.store.document_versions(list(dict.fromkeys(doc_ids)))
            found = {doc_id: self._units(doc_id, version) for doc_id, version in versions.items()}
        return {doc_id: float((units @ query).max()) for doc_id, units in found.items() if units is not None and len(units)}

    def _units(self, doc_id: str, version: float) -> np.ndarray | None:
        """The document's matrix at `version` (a document written since it was kept is read again; one whose matrix is
        missing is looked for again at the next query, as the file may be built since)."""
        kept = self._kept.get(doc_id)
        if kept is not None and kept[0] == version:
            self._kept.move_to_end(doc_id)
            return kept[1]
        stored = self.vectors.document_units(self.vectors.document_key(self.model, doc_id, version), self.dimension)
        self._forget(doc_id)
        if stored is None:
            return None
        units = stored.astype(np.float32)
        self._kept[doc_id] = (version, units)
        self._kept_rows += len(units)
        while self._kept_rows > KEPT_ROWS and len(self._kept) > 1:
            self._forget(next(iter(self._kept)))
        return units

    def _forget(self, doc_id: str) -> None:
        if (kept := self._kept.pop(doc_id, None)) is not None:
            self._kept_rows -= len(kept[1])
