"""Keyword retrieval: BM25 over chunks with the collection's analyzer (CJK bigrams or morphemes, words)."""

from __future__ import annotations

import time
from collections.abc import Sequence

from bunko.config import RetrieveConfig
from bunko.retrieve.base import Query, signal_lines
from bunko.retrieve.dense import single_list
from bunko.retrieve.fusion import Fused
from bunko.schema import Signals
from bunko.store.base import SearchIndex


class KeywordRetriever:
    name = "keyword"
    needs_vector = False

    def __init__(self, store: SearchIndex, config: RetrieveConfig) -> None:
        self.store = store
        self.config = config

    def ranked(self, query: Query, k: int) -> list[tuple[str, float]]:
        started = time.perf_counter()
        ranked = self.store.keyword_search(query.tokens, k, query.where)
        query.timings[self.name] = time.perf_counter() - started
        return ranked

    def retrieve(self, query: Query, k: int) -> Sequence[Fused]:
        return single_list(self.name, self.ranked(query, k), query, self.config)

    def explain(self, signals: Signals) -> list[str]:
        return signal_lines(signals)
