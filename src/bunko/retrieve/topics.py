"""The collection's topics as a question about all of it reads them: which passages each topic covers, in which
language, and how much of the collection a set of topics accounts for.

A topic is a community of the entity graph (`index/communities.py`). A passage belongs to a topic when it mentions
one of the topic's entities. A question in English about a collection held in three languages is answered from the
English passages, so a topic's reach, its passages and the share of the collection it covers are counted among the
passages in the question's language whenever the collection holds any (all passages otherwise). The share the
answered topics cover is what a summary of "the main topics" can claim to speak for: its confidence.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from bunko.index.communities import Community
from bunko.index.graph import EntityGraph
from bunko.store.search_backend import SearchBackend


@dataclass(frozen=True)
class Topics:
    communities: list[Community]
    """All of the graph's communities: a community's id is its column."""
    chunk_ids: list[str]
    held: sp.csc_matrix
    """passages × topics: how many of the topic's entities each passage mentions."""
    languages: np.ndarray
    """Each passage's language ("" when unknown): its document's as a whole where the store can tell (a Japanese
    page's command listing is still the Japanese page's), else its own text's."""

    @classmethod
    def of(cls, graph: EntityGraph, languages: dict[str, str]) -> Topics:
        communities = graph.communities()
        m = graph.matrices
        rows: list[int] = []
        cols: list[int] = []
        for column, community in enumerate(communities):
            ids = [graph.vocabulary[key] for key in community.entities if key in graph.vocabulary]
            rows.extend(ids)
            cols.extend([column] * len(ids))
        membership = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(graph.keys), len(communities)))
        held = (m.incidence @ membership).tocsc()
        return cls(communities, m.chunk_ids, held, np.array([languages.get(cid, "") for cid in m.chunk_ids], dtype=object))

    def passages_in(self, language: str | None) -> np.ndarray:
        """Which passages count for a question in `language`: those in it, or all when the collection holds none."""
        if language is None:
            return np.ones(len(self.chunk_ids), dtype=bool)
        mask = self.languages == language
        return mask if mask.any() else np.ones(len(self.chunk_ids), dtype=bool)

    def reach(self, language: str | None) -> np.ndarray:
        """Per topic, the passages (in the language) that mention any of its entities."""
        covered = (self.held > 0).astype(np.float64)
        return np.asarray(covered.T @ self.passages_in(language).astype(np.float64)).ravel()

    def passages(self, topic: int, language: str | None, limit: int) -> list[str]:
        """The topic's passages holding the most of its entities, only those in the question's language when it
        has any."""
        column = self.held.getcol(topic)
        rows, counts = column.indices, column.data
        preferred = self.passages_in(language)[rows]
        if preferred.any():
            rows, counts = rows[preferred], counts[preferred]
        order = np.argsort(-counts, kind="stable")[:limit]
        return [self.chunk_ids[rows[i]] for i in order]

    def coverage(self, topics: list[int], language: str | None) -> float:
        """The share of the passages (in the language) that mention an entity of any of `topics`."""
        counted = self.passages_in(language)
        if not topics or not counted.any():
            return 0.0
        covered = np.asarray(self.held[:, topics].sum(axis=1)).ravel() > 0
        return float((covered & counted).sum() / counted.sum())


_cache: tuple[object, Topics] | None = None
_lock = threading.Lock()


def collection_topics(store: SearchBackend, graph: EntityGraph) -> Topics:
    """The topics of the graph's current state (read once per state: the passages' languages are one store read)."""
    global _cache
    matrices = graph.matrices
    with _lock:
        if _cache is not None and _cache[0] is matrices:
            return _cache[1]
    ids = matrices.chunk_ids
    languages = store.document_languages(ids)
    topics = Topics.of(graph, languages)
    with _lock:
        _cache = (matrices, topics)
    return topics
