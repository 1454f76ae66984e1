"""The graph route's global mode: questions about the collection as a whole, answered from its topics.

"What are the main subjects of these manuals?" matches no passage well; GraphRAG answers it from
communities of its entity graph. Here the communities are `EntityGraph.communities()` (Leiden,
no LLM) and a community's summary is extractive: its representative passages. The communities
closest to the question (the cosine of the question with the mean of their representatives,
plus the share of the question's entities they hold, plus how much of the collection they cover)
give their representatives, interleaved, so an answer cites a passage from each topic.
"""

from __future__ import annotations

import time
from itertools import pairwise

import numpy as np

from bunko.config import RetrieveConfig
from bunko.index.communities import Community
from bunko.retrieve.base import Query
from bunko.retrieve.fusion import Fused
from bunko.retrieve.graph import path_lines
from bunko.retrieve.hybrid import HybridRetriever
from bunko.schema import GraphPath, Signals
from bunko.store.search_backend import SearchBackend
from bunko.text.entities import entity_keys

TOPICS = 3
"""Communities a global question draws passages from."""
LABEL_ENTITIES = 5
REACH_WEIGHT = 0.5
"""A question about everything ("the main topics") names no topic: then the topics covering most of the collection
should answer, so a topic's reach (log of the passages it covers, relative to the largest) adds up to 0.5."""


class GlobalGraphRetriever:
    name = "graph-global"
    needs_vector = True

    def __init__(self, store: SearchBackend, config: RetrieveConfig, hybrid: HybridRetriever | None = None) -> None:
        self.store = store
        self.hybrid = hybrid or HybridRetriever(store, config)

    def retrieve(self, query: Query, k: int) -> list[Fused]:
        started = time.perf_counter()
        graph = self.store.entity_graph()
        communities = [c for c in graph.communities() if c.passages]
        if not communities or query.vector is None:
            return self.hybrid.retrieve(query, k)
        question = graph.specificity(entity_keys(query.text))
        scores = self._scores(communities, question, query.vector)
        chosen = [communities[i] for i in np.argsort(-scores, kind="stable")[:TOPICS]]
        ranked = self._interleaved(chosen, query)
        seeds = sorted(question, key=lambda key: -question[key])
        fused: list[Fused] = []
        for rank, (chunk_id, community) in enumerate(ranked[:k], start=1):
            signals = Signals()
            score = float(scores[community.id])
            signals.found_in(self.name, float(rank), score)
            signals.path = GraphPath(seeds[:6], [(key, 0.0) for key in community.entities[:LABEL_ENTITIES]], [], [], community.id)
            fused.append((chunk_id, score, signals))
        query.timings["graph_global"] = time.perf_counter() - started
        return fused

    def _scores(self, communities: list[Community], question: dict[str, float], vector: np.ndarray) -> np.ndarray:
        vectors = self.store.vectors_for([cid for c in communities for cid in c.passages])  # one read for every topic
        bounds = np.cumsum([0, *(len(c.passages) for c in communities)])
        centroids = np.stack([vectors[start:end].mean(axis=0) for start, end in pairwise(bounds)])
        centroids /= np.maximum(np.linalg.norm(centroids, axis=1, keepdims=True), 1e-12)
        similarity = centroids @ np.asarray(vector, dtype=np.float32).ravel()
        total = sum(question.values()) or 1.0
        overlap = np.array([sum(question.get(key, 0.0) for key in c.entities) / total for c in communities])
        reach = np.log1p([c.reach for c in communities])
        return similarity + overlap + REACH_WEIGHT * reach / max(float(reach.max()), 1e-12)

    def _interleaved(self, chosen: list[Community], query: Query) -> list[tuple[str, Community]]:
        """Each topic's representatives, the first of each topic first, inside the query's filter."""
        allowed = None
        if query.where is not None:
            allowed = self.store.allowed_chunks([cid for c in chosen for cid in c.passages], query.where)
        out: dict[str, Community] = {}
        for rank in range(max(len(c.passages) for c in chosen)):
            for community in chosen:
                if rank < len(community.passages):
                    chunk_id = community.passages[rank]
                    if (allowed is None or chunk_id in allowed) and chunk_id not in out:
                        out[chunk_id] = community
        return list(out.items())

    def explain(self, signals: Signals) -> list[str]:
        path = signals.path
        if path is None or path.community is None:
            return self.hybrid.explain(signals)
        return [
            f"topic {path.community} of the collection ({', '.join(key for key, _ in path.via)}): one of its representative "
            "passages, the ones mentioning the most of its entities",
            *path_lines(signals)[1:],
        ]
