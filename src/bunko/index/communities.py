"""Communities of the entity graph: the topics of a collection, for questions about all of it.

GraphRAG's "global" search answers "what are the main themes?" from communities of its entity
graph. Here the communities are found by Leiden (igraph's C implementation, maximising
modularity) over entity co-occurrence, weighted by the passages two entities share, without an
LLM; a community's summary is extractive: its representative passages, the ones mentioning the
most of its entities, which an answer cites like any other passage.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

MIN_PASSAGES = 3
"""Entities in fewer passages join no community: they would make thousands of singleton topics."""
MIN_SIZE = 3
REPRESENTATIVES = 5
MAX_TOPIC = 200
MAX_DEPTH = 3
"""A community of more than 200 entities is split again, at most 3 levels deep."""


@dataclass(frozen=True)
class Community:
    id: int
    entities: list[str]
    """Most telling first: mentions × idf (c-TF-IDF, as BERTopic labels topics), so "system" does not name every topic."""
    passages: list[str]
    """Representative chunk ids: the passages holding the most of the community's entities, best first."""
    reach: int = 0
    """How many passages mention any of its entities: how much of the collection the topic covers."""


def find_communities(
    incidence: sp.csr_matrix, chunk_ids: list[str], keys: list[str], usable: np.ndarray, seed: int = 0
) -> list[Community]:
    """Leiden communities over the co-occurrence of the `usable` entities (a passages × entities incidence)."""
    frequency = np.asarray(incidence.sum(axis=0)).ravel()
    columns = np.flatnonzero(usable & (frequency >= MIN_PASSAGES))
    if len(columns) < MIN_SIZE:
        return []
    sub = incidence[:, columns]
    co = sp.csr_matrix(sub.T @ sub)
    co.setdiag(0)
    co.eliminate_zeros()
    label_weight = frequency * np.log((incidence.shape[0] + 1) / (frequency + 0.5))
    communities: list[Community] = []
    for members in _split(co, np.arange(len(columns)), random.Random(seed), depth=0):
        if len(members) < MIN_SIZE:
            continue
        member_columns = columns[members]
        order = member_columns[np.argsort(-label_weight[member_columns], kind="stable")]
        held = np.asarray(incidence[:, member_columns].sum(axis=1)).ravel()
        passages = np.argsort(-held, kind="stable")[:REPRESENTATIVES]
        communities.append(Community(
            len(communities), [keys[e] for e in order], [chunk_ids[p] for p in passages if held[p] > 0], int((held > 0).sum()),
        ))
    return communities


def _split(co: sp.csr_matrix, members: np.ndarray, rng: random.Random, depth: int) -> list[np.ndarray]:
    """Leiden at resolution 1 over `members`; a community still larger than MAX_TOPIC is split again within itself
    (hierarchical Leiden, as GraphRAG runs it), so a big collection gets topics a reader would name, and a small one
    is not shattered by a high resolution."""
    import igraph

    part = sp.triu(co[members][:, members], k=1).tocoo()
    graph = igraph.Graph(n=len(members), edges=list(zip(part.row.tolist(), part.col.tolist(), strict=True)))
    graph.es["weight"] = part.data.tolist()
    igraph.set_random_number_generator(rng)  # Leiden's moves are random: the same graph gives the same topics
    labels = np.asarray(graph.community_leiden(objective_function="modularity", weights="weight").membership)
    out: list[np.ndarray] = []
    for label in np.unique(labels):
        group = members[labels == label]
        if len(group) > MAX_TOPIC and depth < MAX_DEPTH and len(np.unique(labels)) > 1:
            out.extend(_split(co, group, rng, depth + 1))
        else:
            out.append(group)
    return out
