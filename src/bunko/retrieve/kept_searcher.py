"""One searcher kept across searches while it is built from the same parts.

Building a `Searcher` per search, its retrievers included, was a hundredth of a keyword search. The collection's owner
(the engine) keeps one and asks for it with the parts in force: the store's search backend, embedder, analyzer,
retrieve config, section trees, tables, sentence reader, copy groups and kept hit chunks. The kept one is returned
while it still searches with exactly those objects and the router's default rules (a caller may have set its own on
it, as tests and benchmarks do with ``kb.searcher.config = …``); otherwise a new one is built.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from bunko.config import RetrieveConfig
from bunko.embed.base import Embedder
from bunko.retrieve.base import Retriever
from bunko.retrieve.copies import CopyGroups
from bunko.retrieve.document_sentences import DocumentSentences
from bunko.retrieve.hit_chunks import HitChunks
from bunko.retrieve.router import DEFAULT_RULES
from bunko.retrieve.searcher import Searcher
from bunko.retrieve.tables import CollectionTables
from bunko.retrieve.trees import DocumentTrees
from bunko.store.search_backend import SearchBackend
from bunko.text.analyzers import Analyzer


class SearcherParts(NamedTuple):
    """What a searcher is built from; two are the same when each part is the same object. A named tuple: built at
    every search, a frozen dataclass cost a hundredth of a keyword search."""

    store: SearchBackend
    embedder: Embedder
    analyzer: Analyzer
    config: RetrieveConfig
    trees: DocumentTrees
    tables: CollectionTables
    sentences: DocumentSentences | None
    copies: CopyGroups
    hit_chunks: HitChunks

    def built(self, searcher: Searcher) -> bool:
        """Whether `searcher` searches with exactly these parts and the default rules."""
        return (searcher.store is self.store and searcher.embedder is self.embedder and searcher.analyzer is self.analyzer
                and searcher.config is self.config and searcher.trees is self.trees and searcher.tables is self.tables
                and searcher.sentences is self.sentences and searcher.copies is self.copies
                and searcher.hit_chunks is self.hit_chunks and searcher.rules is DEFAULT_RULES)


class KeptSearcher:
    def __init__(self) -> None:
        self._searcher: Searcher | None = None

    def current(self, parts: SearcherParts, retrievers: Callable[[RetrieveConfig], Sequence[Retriever]]) -> Searcher:
        """The kept searcher while `parts` built it, else a new one over `parts` (`retrievers`: the extra search modes
        for a config)."""
        if self._searcher is None or not parts.built(self._searcher):
            self._searcher = Searcher(parts.store, parts.embedder, parts.analyzer, parts.config,
                                      retrievers=retrievers(parts.config), trees=parts.trees, tables=parts.tables,
                                      sentences=parts.sentences, copies=parts.copies, hit_chunks=parts.hit_chunks)
        return self._searcher
