"""The graph route: hybrid's passages, a personalised PageRank walk from them, and a second hop through their entities.

A multi-hop question names one end of its answer ("the tool the backup chapter
recommends") and not the other (the tool's configuration page, which never says
"backup"). Hybrid search finds the first passage; the walk goes from it through the
entities it mentions to the passages that mention them too. Seeds are HippoRAG 2's:
the question's own entities (weighted by how specific they are in this collection)
and the best hybrid passages (weighted by their fused score). The second hop is the
reader's: from each of the best passages, the entities the walk favours that the
question does not name and that the passage writes beside what the question does name
(the bridges), searched with the question words that passage does not hold. A question
that asks about two things at once ("the CUPS interface and remote syslog") also has
each part searched by keyword on its own. The lists are fused by
rank, so a passage hybrid ranks high stays on top and the graph adds the passages hybrid
could not reach (on the multi-hop sets the second hop is most of the gain, the parts one
question more of 72: bench/results/multihop.md).
"""

from __future__ import annotations

import math
import time
from collections.abc import Collection, Mapping, Sequence

import numpy as np

from bunko.config import RetrieveConfig
from bunko.index.graph import EntityGraph, Walk
from bunko.retrieve.base import Query
from bunko.retrieve.fusion import Fused, fuse_onto
from bunko.retrieve.hybrid import HybridRetriever
from bunko.schema import GraphPath, Signals
from bunko.store.search_backend import SearchBackend
from bunko.text.analyzers import get_analyzer, query_text
from bunko.text.entities import Mention

MIN_PART_TOKENS = 3
SECOND_HOP = "second_hop"
"""The list of the keyword searches for the bridge entities, in a hit's signals."""
PATH_ENTITIES = 3
"""Entities shown per hit in its path: the ones that carried it the most mass."""
BRIDGE_REACH = 10
"""Characters between a bridge and the nearest thing the question names at which its weight halves: a passage writes
the thing a question only describes right beside the description ("the X.org graphical server", "software RAID
protects the data", "set up with apticron, so that upgrades happen under an administrator's supervision").
On the handbook multi-hop set (bench/results/multihop.md) 10 found all passages for 61 of 72 questions, 20 to 200
for 60, walk mass alone 59."""


class GraphRetriever:
    name = "graph"
    needs_vector = True

    def __init__(self, store: SearchBackend, config: RetrieveConfig, hybrid: HybridRetriever | None = None) -> None:
        self.store = store
        self.config = config
        self.hybrid = hybrid or HybridRetriever(store, config)
        self.analyzer = get_analyzer(config.analyzer)

    def retrieve(self, query: Query, k: int) -> list[Fused]:
        hybrid = self.hybrid.retrieve(query, k)
        started = time.perf_counter()
        graph = self.store.entity_graph()
        query.timings["graph_sync"] = time.perf_counter() - started
        started = time.perf_counter()
        entity_seeds = graph.specificity(query.facts.entities)
        passage_seeds = _passage_seeds(hybrid, self.config.graph_seed_passages)
        if not graph.passage_count or not (entity_seeds or passage_seeds):
            return hybrid
        walk = graph.walk(
            _share(entity_seeds, self.config.graph_entity_share), _share(passage_seeds, 1 - self.config.graph_entity_share)
        )
        walked = self._walked(graph, walk, query, k)
        second, bridges = self._second_hops(graph, walk, query, hybrid, entity_seeds, k)
        parts = self._parts(query, k)
        query.timings["graph_walk"] = time.perf_counter() - started
        second = _interleave([second, parts]) if parts else second
        fused = fuse_onto(hybrid, {self.name: walked, SECOND_HOP: second}, self.config.graph_weight, self.config.rrf_k)
        seeds = sorted(entity_seeds, key=lambda key: -entity_seeds[key])
        for chunk_id, _, signals in fused[:k]:
            if signals.list_signal(self.name) is not None or signals.list_signal(SECOND_HOP) is not None:
                signals.path = entity_path(graph, walk, chunk_id, seeds, passage_seeds, bridges)
        return fused

    def _second_hops(
        self, graph: EntityGraph, walk: Walk, query: Query, hybrid: list[Fused], question: Mapping[str, float], k: int
    ) -> tuple[list[tuple[str, float]], list[str]]:
        """The hop a reader makes after the first passage: from each of the best hybrid passages, its entities the
        walk favours and the question does not name (the bridges), searched by keyword together with the question
        words that passage does *not* hold — the half of the question it leaves unanswered."""
        firsts = [cid for cid, _, _ in hybrid[: self.config.graph_hops]]
        if not firsts or self.config.graph_bridges <= 0:
            return [], []
        held = self.store.matching_terms(firsts, query.tokens)
        mentions = self.store.mentions(firsts)
        lists: list[list[tuple[str, float]]] = []
        all_bridges: list[str] = []
        for chunk_id in firsts:
            bridges = _bridges(graph, walk, chunk_id, question, self.config.graph_bridges, mentions.get(chunk_id, []))
            if not bridges:
                continue
            unanswered = [t for t in query.tokens if t not in held.get(chunk_id, set())]
            tokens = [*unanswered, *(t for key in bridges for t in self.analyzer(key))]
            lists.append([(cid, score) for cid, score in self.store.keyword_search(tokens, k, query.where) if cid != chunk_id])
            all_bridges.extend(b for b in bridges if b not in all_bridges)
        return _interleave(lists), all_bridges

    def _parts(self, query: Query, k: int) -> list[tuple[str, float]]:
        """Each part of a question that asks about two things ("…the CUPS interface and remote syslog… which port
        is lower?"), searched by keyword on its own: one search for both finds the passage of the louder one only."""
        pieces = query.facts.parts
        if len(pieces) < 2:
            return []
        lists = []
        for piece in pieces:
            tokens = self.analyzer(query_text(piece))
            if len(tokens) >= MIN_PART_TOKENS:
                lists.append(self.store.keyword_search(tokens, k, query.where))
        return _interleave(lists) if len(lists) > 1 else []

    def _walked(self, graph: EntityGraph, walk: Walk, query: Query, k: int) -> list[tuple[str, float]]:
        """The passages the walk left most mass on, best first, inside the query's filter."""
        mass = walk.passage_mass
        order = np.argsort(-mass, kind="stable")[: 2 * k]
        ranked = [(graph.matrices.chunk_ids[row], float(mass[row])) for row in order if mass[row] > 0]
        if query.where is not None and ranked:
            allowed = self.store.allowed_chunks([cid for cid, _ in ranked], query.where)
            ranked = [(cid, score) for cid, score in ranked if cid in allowed]
        return ranked[:k]

    def explain(self, signals: Signals) -> list[str]:
        return [*self.hybrid.explain(signals), *path_lines(signals)]


def path_lines(signals: Signals) -> list[str]:
    """A graph hit's path in words: the seeds, the entities the walk came in through, the bridges searched."""
    path = signals.path
    if path is None:
        return []
    via = ", ".join(f"{key} ({mass:.3g})" for key, mass in path.via) or "no shared entity"
    lines = [
        f"graph walk: question entities [{', '.join(path.seeds[:6])}]"
        + (" and the top hybrid passages" if path.from_passages else "")
        + f" → entities {via} → this passage"
        + (f" (shares them with seed passages {', '.join(path.from_passages)})" if path.from_passages else "")
    ]
    if path.bridges:
        lines.append(f"second hop: keyword search for the bridge entities [{', '.join(path.bridges)}] with the question words "
                     "the first passages did not hold")
    return lines


def _passage_seeds(hybrid: list[Fused], count: int) -> dict[str, float]:
    top = [(cid, max(score, 0.0)) for cid, score, _ in hybrid[:count]]
    return {cid: score for cid, score in top if score > 0}


def _share(weights: Mapping[str, float], share: float) -> dict[str, float]:
    """Weights scaled to sum to `share`: the entity and passage seeds split the walk's restart mass."""
    total = sum(weights.values())
    return {key: share * weight / total for key, weight in weights.items()} if total > 0 else {}


def _by_mass(graph: EntityGraph, walk: Walk, chunk_id: str) -> np.ndarray:
    """A passage's walkable entity ids, the ones the walk left most mass on first (none for a passage the graph
    has not seen: a chunk another writer added after this query's sync)."""
    m = graph.matrices
    row = m.row_of.get(chunk_id)
    if row is None:
        return np.zeros(0, dtype=np.int32)
    entity_ids = m.incidence.indices[m.incidence.indptr[row] : m.incidence.indptr[row + 1]]
    entity_ids = entity_ids[m.walkable[entity_ids]]
    return entity_ids[np.argsort(-walk.entity_mass[entity_ids], kind="stable")]


def _bridges(
    graph: EntityGraph, walk: Walk, chunk_id: str, question: Collection[str], limit: int, mentions: Sequence[Mention],
) -> list[str]:
    """A passage's entities the question does not name, by the walk's mass on them times their closeness to where
    the passage writes what the question names (`BRIDGE_REACH`).

    The walk alone favours the passage's most connected words ("problem", "version"); the bridge is the name written
    beside the question's description of it. `question` holds the question's entities that link passages (measuring
    to the ones too rare to link any as well found one question fewer on the handbook set). A passage that writes
    none of them ranks by mass alone."""
    distance = _distance_to_question(mentions, question)
    weights = []
    for e in _by_mass(graph, walk, chunk_id):
        key = graph.keys[e]
        if key in question:
            continue
        closeness = 1.0 if distance is None else 1.0 / (1.0 + distance.get(key, math.inf) / BRIDGE_REACH)
        weights.append((float(walk.entity_mass[e]) * closeness, key))
    ranked = sorted(weights, key=lambda pair: -pair[0])
    return [key for weight, key in ranked if weight > 0 or distance is None][:limit]


def _distance_to_question(mentions: Sequence[Mention], question: Collection[str]) -> dict[str, float] | None:
    """Each entity's distance in characters to the nearest mention of a question entity; None when the passage
    mentions none of them."""
    spans = [(m.start, m.end) for m in mentions if m.key in question]
    if not spans:
        return None
    distance: dict[str, float] = {}
    for m in mentions:
        if m.key not in question:
            gap = min(max(0, start - m.end, m.start - end) for start, end in spans)
            distance[m.key] = min(distance.get(m.key, math.inf), gap)
    return distance


def _interleave(lists: list[list[tuple[str, float]]]) -> list[tuple[str, float]]:
    """One list from several, rank by rank (each first, then each second…), every chunk once."""
    out: dict[str, float] = {}
    for rank in range(max((len(items) for items in lists), default=0)):
        for items in lists:
            if rank < len(items) and items[rank][0] not in out:
                out[items[rank][0]] = items[rank][1]
    return list(out.items())


def entity_path(
    graph: EntityGraph, walk: Walk, chunk_id: str, seeds: list[str], passage_seeds: Mapping[str, float], bridges: list[str]
) -> GraphPath:
    """The hit's entities that held the most walk mass, and which seed passages mention them too."""
    strongest = _by_mass(graph, walk, chunk_id)[:PATH_ENTITIES]
    via = [(graph.keys[e], float(walk.entity_mass[e])) for e in strongest if walk.entity_mass[e] > 0]
    via_keys = {key for key, _ in via}
    sources = [cid for cid in passage_seeds if cid != chunk_id and via_keys & set(graph.entities_of(cid))]
    return GraphPath(seeds[:6], via, sources[:3], bridges)
