"""Query → ranked `Hit`s: the route's retriever ranks chunk ids; thresholds, diversity, parents and grouping follow.

The retrievers (retrieve/base.py) are picked by name: dense, keyword and hybrid are
built in; more (graph, tree) are handed to the constructor and become search modes.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bunko.config import RetrieveConfig
from bunko.embed.base import Embedder, embed_queries
from bunko.retrieve.auto_merge import merge_sections
from bunko.retrieve.base import Query, Retriever
from bunko.retrieve.copies import CopyGroups, CopySnapshot, fold_copies
from bunko.retrieve.dense import DenseRetriever
from bunko.retrieve.document_sentences import DocumentSentences
from bunko.retrieve.fusion import Fused
from bunko.retrieve.graph import GraphRetriever
from bunko.retrieve.graph_global import GlobalGraphRetriever
from bunko.retrieve.graph_local import LocalGraphRetriever
from bunko.retrieve.hit_chunks import HitChunks, rank_hits
from bunko.retrieve.hybrid import HybridRetriever
from bunko.retrieve.keyword import KeywordRetriever
from bunko.retrieve.mmr import mmr_order
from bunko.retrieve.parents import WINDOW as PARENT_WINDOW
from bunko.retrieve.question import QuestionFacts, analysed_question
from bunko.retrieve.router import DEFAULT_RULES, Route, RouteRule, route, topic_rule
from bunko.retrieve.table_route import TableRetriever
from bunko.retrieve.tables import CollectionTables
from bunko.retrieve.tree import TreeRetriever
from bunko.retrieve.trees import DocumentTrees
from bunko.schema import Hit
from bunko.store.search_backend import SearchBackend
from bunko.text.analyzers import Analyzer
from bunko.text.languages import LANGUAGES

GROUPINGS = ("chunk", "section", "document")
ASKED_LANGUAGE_WEIGHT = 0.2
"""Preference for a language named per query when the collection sets none: enough to put the translation asked
for above the others (a cosine difference of 0.2), not enough to bury a better answer in another language."""


@dataclass
class SearchResult:
    hits: list[Hit]
    query_vector: np.ndarray | None
    query_tokens: list[str]
    mode: str
    route: Route | None = None
    timings: dict[str, float] = field(default_factory=dict)
    term_weights: dict[str, float] | None = None
    """The query tokens' idf, when the route read it (hybrid does); None when no retriever needed it."""
    unseen_idf: float | None = None
    """The idf of a term no passage holds, read with `term_weights`."""


def built_in_retrievers(
    store: SearchBackend, config: RetrieveConfig, trees: DocumentTrees | None = None, tables: CollectionTables | None = None,
    sentences: DocumentSentences | None = None,
) -> dict[str, Retriever]:
    """Hybrid, dense, keyword and the graph routes over any search backend; the tree
    route when the collection's section trees are given, the table route when its tables are. They share one hybrid
    retriever, which judges the best documents by their best sentence when `sentences` (the collection's stored unit
    vectors) are given."""
    hybrid = HybridRetriever(store, config, sentences)
    routes: list[Retriever] = [
        hybrid, DenseRetriever(store, config), KeywordRetriever(store, config), GraphRetriever(store, config, hybrid),
        LocalGraphRetriever(store, config, hybrid), GlobalGraphRetriever(store, config, hybrid),
    ]
    if trees is not None:
        routes.append(TreeRetriever(store, config, trees, hybrid))
    if tables is not None:
        routes.append(TableRetriever(store, config, tables, hybrid))
    return {r.name: r for r in routes}


class Searcher:
    def __init__(
        self, store: SearchBackend, embedder: Embedder, analyzer: Analyzer, config: RetrieveConfig, rules: Sequence[RouteRule] = DEFAULT_RULES,
        retrievers: Sequence[Retriever] = (), trees: DocumentTrees | None = None, tables: CollectionTables | None = None,
        sentences: DocumentSentences | None = None, copies: CopyGroups | None = None, hit_chunks: HitChunks | None = None,
    ) -> None:
        """`rules` extend or replace the router's (see retrieve/router.py); the first that claims a query wins.
        `retrievers` add search modes beside dense, keyword and hybrid (or replace one of the same name).
        `trees` (the collection's section trees) enable the tree route and auto-merging; `tables` (its table
        store) the table route; `sentences` (its stored unit vectors) let hybrid search judge documents by their best
        sentence; `copies` (the collection's copy groups, kept by its owner across searchers; none: no folding) fold a
        page stored in several folders into one hit; `hit_chunks` (the chunks hits are made of, kept by its owner
        per store generation; none: kept for one search) what hits read."""
        self.rules = rules
        self.sentences = sentences
        self.trees = trees
        self.tables = tables
        self.store = store
        self.copies = copies
        """The collection's copy groups: a page stored in several folders is one hit (`retrieve/copies.py`)."""
        self._copies_seen: tuple[CopyGroups, CopySnapshot] | None = None
        self.hit_chunks = hit_chunks or HitChunks(store)
        self.embedder = embedder
        self.analyzer = analyzer
        self._added = {r.name: r for r in retrievers}
        self.config = config

    @property
    def config(self) -> RetrieveConfig:
        return self._config

    @config.setter
    def config(self, config: RetrieveConfig) -> None:
        """A new config reaches the built-in retrievers too (benchmarks and tests swap configs on one searcher)."""
        self._config = config
        self.retrievers = {**built_in_retrievers(self.store, config, self.trees, self.tables, self.sentences), **self._added}

    def retriever(self, mode: str) -> Retriever:
        if mode not in self.retrievers:
            raise ValueError(f"unknown search mode {mode!r}; use {', '.join(self.retrievers)}")
        return self.retrievers[mode]

    def search(
        self, query: str, k: int | None = None, where: Mapping[str, Any] | None = None, mode: str | None = None,
        query_vector: np.ndarray | None = None, group_by: str | None = None, language: str | None = None,
        question_part: bool = False, facts: QuestionFacts | None = None,
    ) -> SearchResult:
        """`query_vector` skips embedding the query (benchmarks, callers with their own vectors);
        `group_by` "document" or "section" returns one hit (the best chunk) per document or section;
        `language` ("en", "ja", "zh") is the language to prefer instead of the question's own, "any" none;
        `question_part`: the query is a clause the caller cut from a question ("apt upgrade のように"), which reads
        like a short phrase but names no topic of its own, so the topic rule passes it; `facts`: the query already
        read (`analysed_question` with this searcher's analyzer), which the answerer shares with its later steps."""
        config = self.config
        k = k or config.k
        group_by = group_by or config.group_by
        facts = facts if facts is not None and facts.text == query else analysed_question(query, self.analyzer)
        tokens = list(facts.tokens)
        rules = [rule for rule in self.rules if rule is not topic_rule] if question_part else self.rules
        chosen = route(facts, config, rules)
        routed = chosen.retriever if chosen.retriever in self.retrievers else None  # a route this searcher lacks
        mode = mode or routed or config.mode
        retriever = self.retriever(mode)
        if group_by not in GROUPINGS:
            raise ValueError(f"unknown grouping {group_by!r}; use {', '.join(GROUPINGS)}")
        if language not in (None, "any", *LANGUAGES):
            raise ValueError(f"unknown language {language!r}; use {', '.join(LANGUAGES)} or any")
        candidates = max(config.candidates, k)
        timings: dict[str, float] = {}
        vector = query_vector
        if retriever.needs_vector and vector is None:
            started = time.perf_counter()
            vector = embed_queries(self.embedder, [query])[0]
            timings["embed_query"] = time.perf_counter() - started
        if language not in (None, "any"):
            if config.fusion != "coverage":
                raise ValueError(f"a language preference needs coverage fusion; this collection fuses by {config.fusion}")
            chosen.weights["language"] = config.language_weight or ASKED_LANGUAGE_WEIGHT
        preferred = None if language == "any" else language or facts.language
        asked = Query(facts, tokens, vector, where, chosen, preferred, timings, group_by=group_by)

        started = time.perf_counter()
        fused = retriever.retrieve(asked, candidates)
        steps = sum(seconds for step, seconds in timings.items() if step != "embed_query")
        if config.min_score is not None:
            fused = [entry for entry in fused if entry[1] >= config.min_score]
        if config.mmr_lambda is not None and len(fused) > 1:
            fused = self._diversify(fused, candidates, config.mmr_lambda)
        hits = self._hits(fused, k, group_by, preferred, where)
        rank_hits(hits)
        timings["fuse"] = time.perf_counter() - started - steps
        return SearchResult(hits, vector, tokens, mode, chosen, timings, asked.term_weights, asked.unseen_idf)

    def _hits(
        self, fused: Sequence[Fused], k: int, group_by: str = "chunk", language: str | None = None, where: Mapping[str, Any] | None = None,
    ) -> list[Hit]:
        """The top k hits after parent expansion, grouping and folding copies, fetching as few chunk rows as that needs.

        Children of one parent collapse into one hit, chunks of one document or section when
        grouping, and one passage of a page stored in several folders (shown from the copy for
        `language`, `retrieve/copies.py`), so k hits may need more than k candidates; the window doubles
        only when fewer than k are left (fetching 40 rows instead of 10 cost 4.6 ms at 1M chunks).
        """
        limit = min(k, len(fused))
        generation = self.hit_chunks.begin()
        snapshot = self._copy_groups(generation)
        copies = snapshot if snapshot is not None and snapshot.members else None
        widest = len(fused) if group_by != "chunk" or copies is not None else min(len(fused), k * PARENT_WINDOW)
        while True:
            expanded = self.hit_chunks.hits(fused, limit, generation)
            if self.config.auto_merge is not None and self.trees is not None:
                expanded = merge_sections(expanded, self.trees, self.store, self.config.auto_merge)
            expanded = group_hits(expanded, group_by)
            if copies is not None:
                expanded = fold_copies(expanded, copies, language, whole_documents=group_by == "document", where=where)
            expanded = expanded[:k]
            if len(expanded) >= k or limit >= widest:
                return expanded
            limit = min(limit * 2, widest)

    def _copy_groups(self, generation: int | None) -> CopySnapshot | None:
        """The copy groups of this search's generation: the snapshot the last search read when the generation is
        the same (no second read of it), else the copy groups' own."""
        if self.copies is None:
            return None
        seen = self._copies_seen
        if seen is not None and seen[0] is self.copies and generation is not None and seen[1].generation == generation:
            return seen[1]
        snapshot = self.copies.current()
        self._copies_seen = self.copies, snapshot
        return snapshot

    def _diversify(self, fused: Sequence[Fused], pool: int, lambda_: float) -> list[Fused]:
        """MMR over the best `pool` fused candidates; each keeps its fused score, the order changes."""
        head = fused[:pool]
        vectors = self.store.vectors_for([cid for cid, _, _ in head])
        order = mmr_order(np.array([score for _, score, _ in head]), vectors, len(head), lambda_)
        for position, index in enumerate(order, start=1):
            head[index][2].mmr_rank, head[index][2].mmr_lambda = float(position), lambda_
        return [*(head[i] for i in order), *fused[pool:]]


def group_hits(hits: list[Hit], group_by: str) -> list[Hit]:
    """One hit per document or section: the best-ranked chunk stands for it, the others are named in its meta."""
    if group_by == "chunk":
        return hits
    best: dict[tuple[str, ...], Hit] = {}
    for hit in hits:
        key = (hit.chunk.doc_id,) if group_by == "document" else (hit.chunk.doc_id, *hit.chunk.section_path)
        if key in best:
            best[key].chunk.meta["group_hits"].append(hit.chunk.chunk_id)
        else:
            best[key] = Hit(hit.chunk.with_meta({**hit.chunk.meta, "group_hits": [hit.chunk.chunk_id]}), hit.score, hit.distance, hit.signals)
    return list(best.values())
