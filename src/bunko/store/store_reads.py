"""The reads a search backend passes straight to the store that wrote the collection.

A `SearchBackend` answers the searches; what a document or chunk holds as written is the store's to say, the same
for every backend. `StoreReads` holds the store and forwards those reads, so a backend (`local/search.py`,
`postgres/search.py`) names only what it computes itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Generic, Protocol, TypeVar

from bunko.schema import Chunk, DocumentInfo, Element
from bunko.store.copies import CopyRecord


class WrittenCollection(Protocol):
    """What a store says of the collection as written (a subset of `store/base.Store`)."""

    def generation(self) -> int: ...
    def documents(self) -> list[DocumentInfo]: ...
    def chunks(self, source: str | None = None) -> list[Chunk]: ...
    def elements(self, source: str) -> list[Element]: ...
    def copy_records(self, grouped: bool = False) -> list[CopyRecord]: ...
    def document_versions(self, doc_ids: Sequence[str]) -> dict[str, float]: ...
    def get_chunks(self, chunk_ids: Sequence[str]) -> list[Chunk]: ...


StoreT = TypeVar("StoreT", bound=WrittenCollection)


class StoreReads(Generic[StoreT]):
    """The store's own reads, forwarded; the backend keeps the store as ``_store`` for its searches too."""

    def __init__(self, store: StoreT) -> None:
        self._store = store

    def generation(self) -> int:
        return self._store.generation()

    def documents(self) -> list[DocumentInfo]:
        return self._store.documents()

    def chunks(self, source: str) -> list[Chunk]:
        return self._store.chunks(source)

    def elements(self, source: str) -> list[Element]:
        return self._store.elements(source)

    def copy_records(self, grouped: bool = False) -> list[CopyRecord]:
        return self._store.copy_records(grouped)

    def document_versions(self, doc_ids: Sequence[str]) -> dict[str, float]:
        """The store's keyed read of the documents asked (not the whole list the fallback reads)."""
        return self._store.document_versions(doc_ids)

    def get_chunks(self, chunk_ids: Sequence[str]) -> list[Chunk]:
        return self._store.get_chunks(chunk_ids)
