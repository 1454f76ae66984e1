"""Passages and the entities they mention, as one graph: personalised PageRank walks it from a question's seeds.

The graph is bipartite, as HippoRAG 2's passage and phrase nodes are: a passage
links to every entity it mentions, an entity to every passage mentioning it, so
two entities are related exactly when a passage holds both, and "the tool the
backup chapter recommends" is reached in two steps (backup passage → the tool's
entity → the passages about the tool). Each step out of a passage prefers its
specific entities (weighted by idf), and entities in more than `HUB_SHARE` of
the passages ("system", "file") carry no walk at all: through them everything
would be one hop from everything. Nor do entities of one passage: they link
nothing, and a walker stepping into one only steps back.

Documents are blocks: replacing or removing one touches its block only, and
the sparse matrices are reassembled from the blocks (array concatenation, no
string work) at the next walk, so keeping the graph in step with a store after
a one-document change costs milliseconds even at 100k passages. Entity ids are
never reused: a key keeps its column when its last passage goes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from bunko.index.communities import Community, find_communities

DAMPING = 0.5
"""The share of mass that walks on at each step; the rest returns to the seeds (HippoRAG 2's 0.5)."""
ITERATIONS = 16
"""Power iterations: with damping 0.5 the mass still moving after 16 steps is 0.5^16 of the total."""
HUB_SHARE = 0.05
HUB_MIN_PASSAGES = 20
"""An entity in more than 5% of the passages (and more than 20) is a hub: it links nothing specific."""


@dataclass(frozen=True)
class DocumentBlock:
    version: str
    chunk_ids: list[str]
    indptr: np.ndarray
    """Row boundaries into `entity_ids`: passage i mentions entity_ids[indptr[i]:indptr[i+1]]."""
    entity_ids: np.ndarray


@dataclass(frozen=True)
class Walk:
    """One personalised PageRank: the passages' and entities' final mass, by row and by entity id."""

    passage_mass: np.ndarray
    entity_mass: np.ndarray


class EntityGraph:
    def __init__(self) -> None:
        self.vocabulary: dict[str, int] = {}
        self.keys: list[str] = []
        self._documents: dict[str, DocumentBlock] = {}
        self._built: _Matrices | None = None
        self._communities: tuple[_Matrices, list[Community]] | None = None

    # -- keeping in step with a store ----------------------------------------------------------
    def versions(self) -> dict[str, str]:
        return {doc_id: block.version for doc_id, block in self._documents.items()}

    def replace_document(self, doc_id: str, version: str, passages: Iterable[tuple[str, Sequence[str]]]) -> None:
        """A document's passages (chunk id, entity keys) replace whatever the graph held for it."""
        chunk_ids: list[str] = []
        indptr = [0]
        entity_ids: list[int] = []
        for chunk_id, keys in passages:
            chunk_ids.append(chunk_id)
            entity_ids.extend(self._entity_id(key) for key in dict.fromkeys(keys))
            indptr.append(len(entity_ids))
        self._documents[doc_id] = DocumentBlock(
            version, chunk_ids, np.asarray(indptr, dtype=np.int64), np.asarray(entity_ids, dtype=np.int32)
        )
        self._built = None

    def remove_document(self, doc_id: str) -> None:
        if self._documents.pop(doc_id, None) is not None:
            self._built = None

    def _entity_id(self, key: str) -> int:
        entity_id = self.vocabulary.get(key)
        if entity_id is None:
            entity_id = self.vocabulary[key] = len(self.keys)
            self.keys.append(key)
        return entity_id

    # -- reading -------------------------------------------------------------------------------
    @property
    def matrices(self) -> _Matrices:
        if self._built is None:
            self._built = _Matrices.of(list(self._documents.items()), len(self.keys))
        return self._built

    @property
    def passage_count(self) -> int:
        return len(self.matrices.chunk_ids)

    def passage_frequency(self, key: str) -> int:
        entity_id = self.vocabulary.get(key)
        return 0 if entity_id is None else int(self.matrices.frequency[entity_id])

    def entities_of(self, chunk_id: str) -> list[str]:
        m = self.matrices
        row = m.row_of.get(chunk_id)
        if row is None:
            return []
        return [self.keys[e] for e in m.incidence.indices[m.incidence.indptr[row] : m.incidence.indptr[row + 1]]]

    def passages_of(self, key: str) -> list[str]:
        entity_id = self.vocabulary.get(key)
        if entity_id is None:
            return []
        m = self.matrices
        column = m.by_entity
        return [m.chunk_ids[r] for r in column.indices[column.indptr[entity_id] : column.indptr[entity_id + 1]]]

    def is_hub(self, key: str) -> bool:
        entity_id = self.vocabulary.get(key)
        return entity_id is not None and not bool(self.matrices.walkable[entity_id])

    def specificity(self, keys: Iterable[str]) -> dict[str, float]:
        """idf of each key present and not a hub: how much a mention of it says about a passage."""
        m = self.matrices
        out: dict[str, float] = {}
        for key in keys:
            entity_id = self.vocabulary.get(key)
            if entity_id is not None and m.walkable[entity_id]:
                out[key] = float(m.idf[entity_id])
        return out

    def walk(self, entity_seeds: Mapping[str, float], passage_seeds: Mapping[str, float], damping: float = DAMPING) -> Walk:
        """Personalised PageRank from the seeds (weights need not sum to 1): mass restarts at them with 1 - damping."""
        m = self.matrices
        seed_entities = np.zeros(len(self.keys), dtype=np.float32)
        for key, weight in entity_seeds.items():
            entity_id = self.vocabulary.get(key)
            if entity_id is not None and m.walkable[entity_id]:
                seed_entities[entity_id] += weight
        seed_passages = np.zeros(len(m.chunk_ids), dtype=np.float32)
        for chunk_id, weight in passage_seeds.items():
            row = m.row_of.get(chunk_id)
            if row is not None:
                seed_passages[row] += weight
        total = seed_entities.sum() + seed_passages.sum()
        if total <= 0:
            return Walk(np.zeros(len(m.chunk_ids)), np.zeros(len(self.keys)))
        seed_entities /= total
        seed_passages /= total
        entities, passages = seed_entities.copy(), seed_passages.copy()
        for _ in range(ITERATIONS):
            entities, passages = (
                (1 - damping) * seed_entities + damping * (m.into_entities @ passages),
                (1 - damping) * seed_passages + damping * (m.into_passages @ entities),
            )
        return Walk(passages, entities)

    def neighbours(self, key: str, limit: int = 20) -> list[tuple[str, int]]:
        """The entities sharing most passages with `key` (hubs left out), with how many passages they share."""
        entity_id = self.vocabulary.get(key)
        if entity_id is None:
            return []
        m = self.matrices
        rows = m.by_entity.indices[m.by_entity.indptr[entity_id] : m.by_entity.indptr[entity_id + 1]]
        shared = np.asarray(m.incidence[rows].sum(axis=0)).ravel()
        shared[entity_id] = 0
        shared[~m.walkable] = 0
        order = np.argsort(-shared, kind="stable")[:limit]
        return [(self.keys[e], int(shared[e])) for e in order if shared[e] > 0]

    def communities(self) -> list[Community]:
        """The collection's topics (index/communities.py), found once per state of the graph."""
        m = self.matrices
        if self._communities is None or self._communities[0] is not m:
            self._communities = (m, find_communities(m.incidence, m.chunk_ids, self.keys, m.walkable))
        return self._communities[1]

    def top_entities(self, limit: int = 20) -> list[tuple[str, int]]:
        """The most mentioned entities that are not hubs: what the collection is about."""
        m = self.matrices
        frequency = np.where(m.walkable, m.frequency, 0)
        order = np.argsort(-frequency, kind="stable")[:limit]
        return [(self.keys[e], int(frequency[e])) for e in order if frequency[e] > 0]

    def edges(self, min_shared: int = 1) -> Iterable[tuple[str, str, int]]:
        """Entity–entity co-occurrence edges (weight = passages holding both), hubs left out: the graph to export."""
        m = self.matrices
        walkable = sp.diags(m.walkable.astype(np.float64))
        incidence = m.incidence @ walkable
        co = sp.triu(incidence.T @ incidence, k=1).tocoo()
        for a, b, weight in zip(co.row.tolist(), co.col.tolist(), co.data.tolist(), strict=True):
            if weight >= min_shared:
                yield self.keys[a], self.keys[b], int(weight)


@dataclass(frozen=True)
class _Matrices:
    chunk_ids: list[str]
    row_of: dict[str, int]
    incidence: sp.csr_matrix
    """passages × entities, 1 where a passage mentions an entity."""
    by_entity: sp.csc_matrix
    frequency: np.ndarray
    idf: np.ndarray
    walkable: np.ndarray
    into_entities: sp.csr_matrix
    """entities × passages, float32: the mass each entity receives from each passage. A walker leaves a passage
    through its walkable entities in proportion to their idf (each column sums to 1)."""
    into_passages: sp.csr_matrix
    """passages × entities, float32: a walker leaves an entity to any of its passages alike. Stored as the
    transposes the walk multiplies by, in CSR, so each step is two row-wise products."""

    @classmethod
    def of(cls, blocks: list[tuple[str, DocumentBlock]], entity_count: int) -> _Matrices:
        chunk_ids = [cid for _, block in blocks for cid in block.chunk_ids]
        counts = [np.diff(block.indptr) for _, block in blocks]
        indptr = np.concatenate([[0], np.cumsum(np.concatenate(counts))]) if counts else np.zeros(1, dtype=np.int64)
        indices = np.concatenate([block.entity_ids for _, block in blocks]) if blocks else np.zeros(0, dtype=np.int32)
        data = np.ones(len(indices), dtype=np.float64)
        incidence = sp.csr_matrix((data, indices, indptr), shape=(len(chunk_ids), entity_count))
        frequency = np.bincount(indices, minlength=entity_count).astype(np.int64)
        passages = max(len(chunk_ids), 1)
        idf = np.log((passages + 1) / (frequency + 0.5))
        hub_limit = max(HUB_MIN_PASSAGES, HUB_SHARE * passages)
        walkable = (frequency > 1) & (frequency <= hub_limit)
        weighted = incidence @ sp.diags(np.where(walkable, idf, 0.0))
        passage_to_entity = _row_stochastic(weighted)
        entity_to_passage = _row_stochastic((incidence @ sp.diags(walkable.astype(np.float64))).T.tocsr())
        return cls(
            chunk_ids, {cid: row for row, cid in enumerate(chunk_ids)}, incidence, incidence.tocsc(), frequency, idf, walkable,
            passage_to_entity.T.tocsr().astype(np.float32), entity_to_passage.T.tocsr().astype(np.float32),
        )


def _row_stochastic(matrix: sp.csr_matrix) -> sp.csr_matrix:
    sums = np.asarray(matrix.sum(axis=1)).ravel()
    scale = np.divide(1.0, sums, out=np.zeros_like(sums), where=sums > 0)
    return sp.csr_matrix(sp.diags(scale) @ matrix)
