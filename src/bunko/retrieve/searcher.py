"""Query → ranked `Hit`s: dense and keyword retrieval in parallel, fused, thresholded."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from bunko.config import RetrieveConfig
from bunko.embed.base import Embedder, embed_queries
from bunko.retrieve.analyzers import Analyzer, query_text
from bunko.retrieve.coverage import term_coverage
from bunko.retrieve.fusion import Fused, coverage_fusion, reciprocal_rank_fusion, weighted_score_fusion
from bunko.retrieve.mmr import mmr_order
from bunko.retrieve.parents import WINDOW as PARENT_WINDOW
from bunko.retrieve.parents import expand_parents
from bunko.retrieve.router import DEFAULT_RULES, Route, RouteRule, route
from bunko.schema import Chunk, Hit
from bunko.store.base import Store
from bunko.text.languages import LANGUAGES, query_language

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


class Searcher:
    def __init__(
        self, store: Store, embedder: Embedder, analyzer: Analyzer, config: RetrieveConfig, rules: Sequence[RouteRule] = DEFAULT_RULES
    ) -> None:
        """`rules` extend or replace the router's (see retrieve/router.py); the first that claims a query wins."""
        self.rules = rules
        self.store = store
        self.embedder = embedder
        self.analyzer = analyzer
        self.config = config

    def search(
        self, query: str, k: int | None = None, where: Mapping[str, Any] | None = None, mode: str | None = None,
        query_vector: np.ndarray | None = None, group_by: str | None = None, language: str | None = None,
    ) -> SearchResult:
        """`query_vector` skips embedding the query (benchmarks, callers with their own vectors);
        `group_by` "document" or "section" returns one hit (the best chunk) per document or section;
        `language` ("en", "ja", "zh") is the language to prefer instead of the question's own, "any" none."""
        config = self.config
        k = k or config.k
        mode = mode or config.mode
        group_by = group_by or config.group_by
        if mode not in ("hybrid", "dense", "keyword"):
            raise ValueError(f"unknown search mode {mode!r}; use hybrid, dense or keyword")
        if group_by not in GROUPINGS:
            raise ValueError(f"unknown grouping {group_by!r}; use {', '.join(GROUPINGS)}")
        if language not in (None, "any", *LANGUAGES):
            raise ValueError(f"unknown language {language!r}; use {', '.join(LANGUAGES)} or any")
        preferred = None if language == "any" else language or query_language(query)
        candidates = max(config.candidates, k)
        timings: dict[str, float] = {}
        ranked: dict[str, list[tuple[str, float]]] = {}
        vector = query_vector
        tokens = self.analyzer(query_text(query))

        if mode in ("hybrid", "dense") and vector is None:
            started = time.perf_counter()
            vector = embed_queries(self.embedder, [query])[0]
            timings["embed_query"] = time.perf_counter() - started
        both = getattr(self.store, "hybrid_search", None) if mode == "hybrid" else None
        if both is not None:  # the store runs the two retrievers concurrently; "retrieve" is their joint wall time
            started = time.perf_counter()
            dense, ranked_keyword = both(vector, tokens, candidates, where)
            ranked["dense"] = self._within_distance(dense)
            ranked["keyword"] = ranked_keyword
            timings["retrieve"] = time.perf_counter() - started
        else:
            if mode in ("hybrid", "dense"):
                started = time.perf_counter()
                ranked["dense"] = self._within_distance(self.store.dense_search(vector, candidates, where))
                timings["dense"] = time.perf_counter() - started
            if mode in ("hybrid", "keyword"):
                started = time.perf_counter()
                ranked["keyword"] = self.store.keyword_search(tokens, candidates, where)
                timings["keyword"] = time.perf_counter() - started

        started = time.perf_counter()
        chosen = route(query, tokens, config, self.rules)
        if language not in (None, "any"):
            if config.fusion != "coverage":
                raise ValueError(f"a language preference needs coverage fusion; this collection fuses by {config.fusion}")
            chosen.weights["language"] = config.language_weight or ASKED_LANGUAGE_WEIGHT
        fused = self._fuse(ranked, tokens, chosen, vector if mode != "keyword" else None, where, preferred)
        if config.min_score is not None:
            fused = [entry for entry in fused if entry[1] >= config.min_score]
        if config.mmr_lambda is not None and len(fused) > 1:
            fused = self._diversify(fused, candidates, config.mmr_lambda)
        hits = self._hits(fused, k, group_by)
        for rank, hit in enumerate(hits, start=1):
            hit.signals["fusion"] = {"score": hit.score, "rank": float(rank)}
        timings["fuse"] = time.perf_counter() - started
        return SearchResult(hits=hits, query_vector=vector, query_tokens=tokens, mode=mode, route=chosen, timings=timings)

    def _within_distance(self, dense: list[tuple[str, float]]) -> list[tuple[str, float]]:
        limit = self.config.max_distance
        return dense if limit is None else [(cid, sim) for cid, sim in dense if 1.0 - sim <= limit]

    def _fuse(
        self, ranked: dict[str, list[tuple[str, float]]], tokens: list[str], chosen: Route, vector: np.ndarray | None,
        where: Mapping[str, Any] | None, language: str | None,
    ) -> list[Fused]:
        """One retriever's list keeps its own order (keyword mode is BM25 over chunks, the part hybrid is measured
        against); two are fused as configured."""
        config = self.config
        if config.fusion == "coverage" and len(ranked) == 2:
            return self._coverage_fuse(ranked, tokens, chosen, vector, where, language)
        if config.fusion == "weighted":
            return weighted_score_fusion(ranked, chosen.weights, config.normalization)
        return reciprocal_rank_fusion(ranked, chosen.weights, config.rrf_k)

    def _coverage_fuse(
        self, ranked: dict[str, list[tuple[str, float]]], tokens: list[str], chosen: Route, vector: np.ndarray | None,
        where: Mapping[str, Any] | None, language: str | None,
    ) -> list[Fused]:
        """Chunk evidence (cosine, keyword coverage and BM25) plus the evidence of the chunk's document as a whole.

        The best documents by document-level BM25 join the candidates through their closest
        chunk, so a page whose words are spread over many chunks is found although no single
        chunk holds enough of them. Every candidate is judged on its own cosine, computed when
        dense search did not return it.
        """
        config, store = self.config, self.store
        document_weight = chosen.weights.get("document", 0.0)
        ranked = dict(ranked)
        if document_weight > 0 and config.document_candidates > 0 and tokens:
            documents = store.document_keyword_search(tokens, config.document_candidates, where, vector)
            ranked["document"] = [(match.best_chunk_id, match.score) for match in documents]
        candidates = list(dict.fromkeys(cid for hits in ranked.values() for cid, _ in hits))
        idf = store.term_weights(tokens)
        coverage = term_coverage(store.matching_terms(candidates, tokens), idf)
        cosines = self._cosines(ranked.get("dense", []), candidates, vector)
        document_scores = store.document_keyword_scores(candidates, tokens) if document_weight > 0 else {}
        prefer = language if chosen.weights.get("language", 0.0) > 0 else None
        languages = store.chunk_languages(candidates) if prefer is not None else None
        similar = chosen.weights.get("document_similarity", 0.0) > 0 and vector is not None
        document_similarities = store.document_similarities(candidates, vector) if similar else None
        return coverage_fusion(
            ranked, coverage, sum(idf.values()), chosen.weights, cosines, document_scores, languages, prefer, document_similarities
        )

    def _cosines(self, dense: list[tuple[str, float]], candidates: list[str], vector: np.ndarray | None) -> dict[str, float]:
        """Every candidate's cosine with the query: dense search's own, computed from the stored vectors for the rest."""
        cosines = dict(dense)
        missing = [cid for cid in candidates if cid not in cosines]
        if vector is not None and missing:
            stored = self.store.vectors_for(missing)
            if len(stored):
                similarity = stored @ np.asarray(vector, dtype=np.float32).ravel()
                cosines.update(zip(missing, similarity.tolist(), strict=True))
        return cosines

    def _hits(self, fused: list[Fused], k: int, group_by: str = "chunk") -> list[Hit]:
        """The top k hits after parent expansion and grouping, fetching as few chunk rows as that needs.

        Children of one parent collapse into one hit, and chunks of one document or section when
        grouping, so k hits may need more than k candidates; the window doubles only when fewer
        than k are left (fetching 40 rows instead of 10 cost 4.6 ms at 1M chunks).
        """
        chunks: dict[str, Chunk] = {}
        limit = min(k, len(fused))
        widest = len(fused) if group_by != "chunk" else min(len(fused), k * PARENT_WINDOW)
        while True:
            window = fused[:limit]
            missing = [cid for cid, _, _ in window if cid not in chunks]
            chunks.update((c.chunk_id, c) for c in self.store.get_chunks(missing))
            hits = [
                Hit(chunk=chunks[cid], score=score, signals=signals, distance=_distance(signals))
                for cid, score, signals in window
                if cid in chunks  # a chunk deleted between search and fetch by another writer is skipped
            ]
            expanded = group_hits(expand_parents(hits, self.store, len(hits)), group_by)[:k]
            if len(expanded) >= k or limit >= widest:
                return expanded
            limit = min(limit * 2, widest)

    def _diversify(self, fused: list[Fused], pool: int, lambda_: float) -> list[Fused]:
        """MMR over the best `pool` fused candidates; each keeps its fused score, the order changes."""
        head = fused[:pool]
        vectors = self.store.vectors_for([cid for cid, _, _ in head])
        order = mmr_order(np.array([score for _, score, _ in head]), vectors, len(head), lambda_)
        for position, index in enumerate(order, start=1):
            head[index][2]["mmr"] = {"rank": float(position), "lambda": lambda_}
        return [head[i] for i in order] + fused[pool:]


def _distance(signals: Mapping[str, Mapping[str, float]]) -> float | None:
    """Cosine distance from dense search's score, or from the similarity fusion computed for a chunk dense search missed."""
    for name in ("dense", "similarity"):
        if name in signals:
            return 1.0 - signals[name]["score"]
    return None


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
            best[key] = replace(hit, chunk=replace(hit.chunk, meta={**hit.chunk.meta, "group_hits": [hit.chunk.chunk_id]}))
    return list(best.values())
