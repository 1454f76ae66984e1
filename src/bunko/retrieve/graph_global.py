"""The graph route's global mode: questions about the collection as a whole, answered from its topics.

"What are the main subjects of these manuals?" matches no passage well; GraphRAG answers it from
communities of its entity graph. Here the communities are `EntityGraph.communities()` (Leiden,
no LLM) and a community's summary is extractive: its representative passages. A question that names a
topic ("the main topics about networking") takes the communities closest to it (the cosine of the question with
the mean of their representatives, plus the share of its entities they hold, plus how much of the collection they
cover); one that names none beyond the words that make it global and the collection itself ("the key themes of
these documents", 主要内容) takes the topics that cover most of the collection. Reach and representatives are counted in the question's language when
the collection holds passages in it (`retrieve/topics.py`). The chosen topics' representatives are interleaved, so
an answer cites a passage from each topic.
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
from bunko.retrieve.topics import Topics, collection_topics
from bunko.schema import GraphPath, Signals
from bunko.store.search_backend import SearchBackend
from bunko.text.entities import entity_keys

TOPICS = 3
"""Communities a global question draws passages from."""
LABEL_ENTITIES = 5
CANDIDATES = 20
"""Passages read per chosen topic before the question's language and filter are applied."""
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
        topics = collection_topics(self.store, graph)
        communities = topics.communities
        if not communities or query.vector is None:
            return self.hybrid.retrieve(query, k)
        question = graph.specificity(entity_keys(query.text))
        named = graph.specificity(query.facts.named_beyond_collection)
        reach = topics.reach(query.language)
        scores = self._scores(communities, named, query.vector, reach) if named else reach_share(reach)
        chosen = [int(i) for i in np.argsort(-scores, kind="stable")[:TOPICS] if reach[i] > 0]
        ranked = self._interleaved(topics, chosen, query)
        seeds = sorted(question, key=lambda key: -question[key])
        fused: list[Fused] = []
        for rank, (chunk_id, column) in enumerate(ranked[:k], start=1):
            community = communities[column]
            signals = Signals()
            score = float(scores[column])
            signals.found_in(self.name, float(rank), score)
            signals.path = GraphPath(seeds[:6], [(key, 0.0) for key in community.entities[:LABEL_ENTITIES]], [], [], community.id)
            fused.append((chunk_id, score, signals))
        query.timings["graph_global"] = time.perf_counter() - started
        return fused

    def _scores(self, communities: list[Community], question: dict[str, float], vector: np.ndarray, reach: np.ndarray) -> np.ndarray:
        vectors = self.store.vectors_for([cid for c in communities for cid in c.passages])  # one read for every topic
        bounds = np.cumsum([0, *(len(c.passages) for c in communities)])
        centroids = np.stack([vectors[start:end].mean(axis=0) for start, end in pairwise(bounds)])
        centroids /= np.maximum(np.linalg.norm(centroids, axis=1, keepdims=True), 1e-12)
        similarity = centroids @ np.asarray(vector, dtype=np.float32).ravel()
        total = sum(question.values()) or 1.0
        overlap = np.array([sum(question.get(key, 0.0) for key in c.entities) / total for c in communities])
        return similarity + overlap + REACH_WEIGHT * reach_share(reach)

    def _central(self, chunk_ids: list[str]) -> list[str]:
        """Passages nearest their centroid first: what the topic's passages share, not its longest list."""
        if len(chunk_ids) < 3:
            return chunk_ids
        vectors = self.store.vectors_for(chunk_ids)
        centroid = vectors.mean(axis=0)
        order = np.argsort(-(vectors @ centroid), kind="stable")
        return [chunk_ids[i] for i in order]

    def _interleaved(self, topics: Topics, chosen: list[int], query: Query) -> list[tuple[str, int]]:
        """Each topic's central passages (among those mentioning the most of its entities, in the question's
        language when it has any), the first of each topic first, inside the query's filter."""
        candidates = [self._central(topics.passages(column, query.language, CANDIDATES)) for column in chosen]
        allowed = None
        if query.where is not None:
            allowed = self.store.allowed_chunks([cid for ids in candidates for cid in ids], query.where)
        out: dict[str, int] = {}
        for rank in range(max((len(ids) for ids in candidates), default=0)):
            for column, ids in zip(chosen, candidates, strict=True):
                if rank < len(ids) and (allowed is None or ids[rank] in allowed) and ids[rank] not in out:
                    out[ids[rank]] = column
        return list(out.items())

    def explain(self, signals: Signals) -> list[str]:
        path = signals.path
        if path is None or path.community is None:
            return self.hybrid.explain(signals)
        return [
            f"topic {path.community} of the collection ({', '.join(key for key, _ in path.via)}): one of its central "
            "passages (nearest the mean of those mentioning the most of its entities)",
            *path_lines(signals)[1:],
        ]


def reach_share(reach: np.ndarray) -> np.ndarray:
    """A topic's reach (log of the passages it covers) relative to the largest topic's, in [0, 1]."""
    logged = np.log1p(reach)
    return logged / max(float(logged.max()), 1e-12)
