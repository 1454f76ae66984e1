"""The default reranker: a chunk is as good as its best sentence. No model beyond the embedder.

Fusion scores whole chunks, so a long chunk that mentions the topic in
passing can outrank the short one whose single sentence *is* the answer.
This reranker splits each candidate into sentences and table rows, scores
them like the extractive generator does (`bunko.rerank.evidence`: similarity
to the question plus idf-weighted keyword overlap, in ja/zh/en alike) and
ranks chunks by their best unit, with the fused score as a small prior so a
tie does not throw away what retrieval knew. Unit vectors are cached per ask,
so the generator that scores the same units again pays nothing twice.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence

import numpy as np

from bunko.embed.base import Embedder
from bunko.rerank.base import RerankQuery, ordered
from bunko.rerank.evidence import hit_units, most_covering, score_units
from bunko.rerank.memo import TypedUnit, quotable_units
from bunko.rerank.reader import RERANK_WEIGHTS, LinearScorer
from bunko.rerank.unit_vectors import UnitVectorFile
from bunko.schema import Hit
from bunko.text.analyzers import Analyzer

FUSION_PRIOR = 0.1
"""Weight of the normalised fusion score (best candidate = 1) added to the best-unit score."""
MAX_UNITS_PER_HIT = 6
"""Units of a candidate that are embedded and scored: those sharing the most of the question's terms.

Embedding is the reranker's whole cost (each unit once per process); picking the units by keyword
coverage instead of taking the first ones also judges a long chunk by its relevant part, not its start."""


class CachingEmbedder:
    """Wraps an embedder with a text → vector memo, least recently used first out.

    The reranker and the extractive generator score the same units within an ask, and popular
    passages recur across asks; the bound keeps a long-running server's memory flat
    (MAX_CACHED vectors of 512 floats is about 40 MB).
    """

    MAX_CACHED = 20_000

    def __init__(self, embedder: Embedder, max_cached: int = MAX_CACHED, stored: UnitVectorFile | None = None) -> None:
        """`stored`: the collection's unit vectors on disk (`UnitVectorFile`), read before embedding and added to after."""
        self._embedder = embedder
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._max_cached = max_cached
        self._stored = stored
        self.name = embedder.name
        self.dimension = embedder.dimension

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
        fresh = self._stored.get(self.name, missing, self.dimension) if self._stored is not None and missing else {}
        computed = [t for t in missing if t not in fresh]
        if computed:  # one embed call for all of them
            new = dict(zip(computed, self._embedder.embed(computed), strict=True))
            if self._stored is not None:
                self._stored.put(self.name, new)
            fresh.update(new)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        out = np.stack([fresh[t] if t in fresh else self._cache[t] for t in texts])
        for text in texts:
            if text in self._cache:
                self._cache.move_to_end(text)
        self._cache.update(fresh)
        while len(self._cache) > self._max_cached:
            self._cache.popitem(last=False)
        return out


RERANKER = LinearScorer(RERANK_WEIGHTS)
"""Fixed weights without the retrieval-rank prior: the reranker exists to overrule retrieval order."""


class LightReranker:
    name = "light"

    def __init__(self, embedder: Embedder, analyzer: Analyzer, split: Callable[[str], list[TypedUnit]] = quotable_units) -> None:
        """`split`: how a chunk becomes units, `quotable_units` or the answerer's memo of it."""
        self.embedder = embedder
        self.analyzer = analyzer
        self.split = split

    def rerank(self, query: RerankQuery, hits: list[Hit]) -> list[Hit]:
        if len(hits) < 2 or query.vector is None:
            return list(hits)
        question = query.read()
        units = most_covering(question, hits, hit_units(hits, 10_000, self.split), query.weights, self.analyzer, MAX_UNITS_PER_HIT)
        scored = score_units(question, hits, units, query.vector, self.embedder, self.analyzer, query.weights, RERANKER)
        best = [float("-inf")] * len(hits)
        for s in scored:
            best[s.unit.hit_index] = max(best[s.unit.hit_index], s.score)
        top_fusion = max(h.score for h in hits) or 1.0
        scores = [
            (b if b != float("-inf") else 0.0) + FUSION_PRIOR * hit.score / top_fusion for b, hit in zip(best, hits, strict=True)
        ]
        return ordered(hits, scores)
