"""Dense retrieval: the chunks whose vectors are closest to the question's, within `max_distance`."""

from __future__ import annotations

import time
from collections.abc import Sequence

from bunko.config import RetrieveConfig
from bunko.retrieve.base import Query, signal_lines
from bunko.retrieve.fusion import Fused, Ranked, one_list_fusion
from bunko.schema import Signals
from bunko.store.search_backend import SearchBackend


def within_distance(ranked: Ranked, max_distance: float | None) -> list[tuple[str, float]]:
    """Cosine similarities kept when 1 − cosine ≤ max_distance: the dense side's relevance threshold."""
    return list(ranked) if max_distance is None else [(cid, sim) for cid, sim in ranked if 1.0 - sim <= max_distance]


def single_list(name: str, ranked: Ranked, query: Query, config: RetrieveConfig) -> Sequence[Fused]:
    """One retriever's list in its own order, scored and signalled as the configured fusion scores one list."""
    return one_list_fusion(name, ranked, query.route.weights, config.fusion, config.normalization, config.rrf_k)


class DenseRetriever:
    name = "dense"
    needs_vector = True

    def __init__(self, store: SearchBackend, config: RetrieveConfig) -> None:
        self.store = store
        self.config = config

    def ranked(self, query: Query, k: int) -> list[tuple[str, float]]:
        if query.vector is None:
            raise ValueError("dense retrieval needs the query's vector")
        started = time.perf_counter()
        ranked = self.within_limit(self.store.dense_search(query.vector, k, query.where))
        query.timings[self.name] = time.perf_counter() - started
        return ranked

    def within_limit(self, ranked: Ranked) -> list[tuple[str, float]]:
        return within_distance(ranked, self.config.max_distance)

    def retrieve(self, query: Query, k: int) -> Sequence[Fused]:
        return single_list(self.name, self.ranked(query, k), query, self.config)

    def explain(self, signals: Signals) -> list[str]:
        return signal_lines(signals)
