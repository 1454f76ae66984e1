"""Keyword retrieval: BM25 over chunks with the collection's analyzer (CJK bigrams or morphemes, words), each chunk
lifted by its document's BM25 over the document's whole text (`[retrieve] keyword_document_weight`).

A chunk is a few sentences; a question names what a page is about, and a page's chunks share
its words among them. Ranked by its own BM25 alone, the chunk that repeats the question's
common words wins over the page that is about them. The document's BM25 is read for the
candidates only (one sparse column sum over documents), so ranking them costs ~O(candidates).
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from bunko.config import RetrieveConfig
from bunko.retrieve.base import Query, signal_lines
from bunko.retrieve.dense import single_list
from bunko.retrieve.fusion import Fused, one_list_columns
from bunko.schema import Signals
from bunko.store.search_backend import KeywordCandidates, SearchBackend


def with_documents(found: KeywordCandidates, weight: float) -> tuple[list[str], list[float]]:
    """Each chunk's BM25 plus `weight` times its document's, best first (ties keep the chunks' own order): the chunk
    ids and their scores."""
    scores = found.scores + weight * found.document_scores
    order = np.argsort(-scores, kind="stable")
    ids = found.chunk_ids
    return [ids[i] for i in order.tolist()], scores[order].tolist()


class KeywordRetriever:
    name = "keyword"
    needs_vector = False

    def __init__(self, store: SearchBackend, config: RetrieveConfig) -> None:
        self.store = store
        self.config = config

    def ranked(self, query: Query, k: int) -> list[tuple[str, float]]:
        """The chunks' own BM25, best first: the keyword list hybrid search fuses (with document evidence of its own)."""
        started = time.perf_counter()
        ranked = self.store.keyword_search(query.tokens, k, query.where)
        query.timings[self.name] = time.perf_counter() - started
        return ranked

    def retrieve(self, query: Query, k: int) -> Sequence[Fused]:
        weight = self.config.keyword_document_weight
        if weight <= 0:
            return single_list(self.name, self.ranked(query, k), query, self.config)
        started = time.perf_counter()
        found = self.store.keyword_candidates(query.tokens, k, query.where)  # the chunks and their documents in one read
        query.timings[self.name] = time.perf_counter() - started
        ids, scores = with_documents(found, weight)
        config = self.config
        return one_list_columns(self.name, ids, scores, query.route.weights, config.fusion, config.normalization, config.rrf_k)

    def explain(self, signals: Signals) -> list[str]:
        return signal_lines(signals)
