"""The graph route's local mode: the neighbourhood of the entities a question names.

"What do the documents say about mdadm?" is a question about one entity and what touches it:
its own passages first, then the passages of the entities it co-occurs with. That is the walk
started from the question's entities alone (no hybrid passages as seeds), ranked by the mass it
leaves on passages; a question naming no entity of the collection falls back to hybrid.
"""

from __future__ import annotations

import time

import numpy as np

from bunko.config import RetrieveConfig
from bunko.retrieve.base import Query
from bunko.retrieve.fusion import Fused
from bunko.retrieve.graph import entity_path, path_lines
from bunko.retrieve.hybrid import HybridRetriever
from bunko.schema import Signals
from bunko.store.search_backend import SearchBackend
from bunko.text.entities import entity_keys


class LocalGraphRetriever:
    name = "graph-local"
    needs_vector = True
    """Only for the fallback: a question naming no known entity is answered by hybrid search."""

    def __init__(self, store: SearchBackend, config: RetrieveConfig, hybrid: HybridRetriever | None = None) -> None:
        self.store = store
        self.hybrid = hybrid or HybridRetriever(store, config)

    def retrieve(self, query: Query, k: int) -> list[Fused]:
        started = time.perf_counter()
        graph = self.store.entity_graph()
        seeds = graph.specificity(entity_keys(query.text))
        if not seeds:
            return self.hybrid.retrieve(query, k)
        walk = graph.walk(seeds, {})
        mass = walk.passage_mass
        order = [row for row in np.argsort(-mass, kind="stable")[: 2 * k] if mass[row] > 0]
        ranked = [(graph.matrices.chunk_ids[row], float(mass[row])) for row in order]
        if query.where is not None and ranked:
            allowed = self.store.allowed_chunks([cid for cid, _ in ranked], query.where)
            ranked = [(cid, score) for cid, score in ranked if cid in allowed]
        named = sorted(seeds, key=lambda key: -seeds[key])
        fused: list[Fused] = []
        for rank, (chunk_id, score) in enumerate(ranked[:k], start=1):
            signals = Signals()
            signals.found_in(self.name, float(rank), score)
            signals.path = entity_path(graph, walk, chunk_id, named, {}, [])
            fused.append((chunk_id, score, signals))
        query.timings["graph_walk"] = time.perf_counter() - started
        return fused

    def explain(self, signals: Signals) -> list[str]:
        return self.hybrid.explain(signals) if signals.path is None else path_lines(signals)
