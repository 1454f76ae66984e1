"""Combining ranked lists from several retrievers without hiding where a hit came from.

Three fusions, each keeping every retriever's rank and raw score in `signals`,
so `--explain` can show why a hit ranked where it did:

- coverage (the default): w_dense · cosine similarity + w_keyword · keyword evidence,
  where the evidence is the query's term coverage (the idf-weighted share of its
  distinct terms the chunk holds) plus a third of the chunk's BM25 score relative to
  a chunk of average length holding every query term once. Unlike rank or min-max
  fusion, both parts mean the same in every query: a chunk holding every rare word
  of the question gets the full keyword weight, one holding only common words
  almost none; so a confident retriever is not dragged down by a lost one. Measured
  in bench/bench_fusion.py: the only fusion tried that scores at least as well as
  the better of dense and keyword on every labelled set (lexical, natural-question
  and topic-heading sets in en/ja/zh).
- reciprocal rank fusion (Cormack et al. 2009): Σ_r w_r / (k + rank_r(d)).
- weighted normalised scores: Σ_r w_r · norm_r(score), max or min-max per list.

A chunk found by several retrievers is counted once with every contribution summed.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
from typing import overload

from bunko.index.bm25_formula import K1
from bunko.schema import CoverageSignal, Signals

Ranked = Sequence[tuple[str, float]]
Fused = tuple[str, float, Signals]
"""A candidate: chunk id, fused score, and the signals that made it."""


BM25_SHARE = 1 / 3
"""Weight of relative BM25 beside coverage in the keyword evidence: coverage ignores how often and in
how short a chunk the terms occur, which decides natural questions whose words are spread thin
(Python FAQ set +0.02 nDCG); more than about half lets BM25's unbounded scores crowd out dense."""


def coverage_fusion(
    ranked: Mapping[str, Ranked], coverage: Mapping[str, float], idf_total: float, weights: Mapping[str, float] | None = None,
    cosines: Mapping[str, float] | None = None, document_scores: Mapping[str, float] | None = None,
    languages: Mapping[str, str] | None = None, language: str | None = None, document_similarities: Mapping[str, float] | None = None,
    translated: Collection[str] = (), document_openings: Mapping[str, float] | None = None,
    opening_keyword_scores: Mapping[str, float] | None = None,
) -> list[Fused]:
    """w_dense · similarity + w_keyword · (coverage + BM25_SHARE · relative BM25) + w_document · document evidence.

    Over every chunk any list returned ("dense", "keyword", and "document": the chunks standing
    for the best documents). `idf_total` is the summed idf of the query's distinct terms;
    `coverage` must hold every candidate. `cosines` gives candidates' real similarities; a chunk
    without one is scored with the dense list's lowest, an upper bound on its own. A chunk
    missing from the keyword list likewise gets that list's lowest BM25 score, or exactly 0 when
    it holds no query term. The document evidence is the BM25 of the chunk's document over its
    whole text (`document_scores`) divided by `idf_total`, the chunk-level idf of the query: a
    document can at most approach its own idf mass, which is small where documents are few or
    each holds most words (twelve policies, three long chapters) and close to the chunk-level
    one where they are many and short (a site split into pages). So the evidence weighs most
    where it discriminates, without a per-collection setting.
    The dense document evidence (`document_similarities`, weighed by w_document_similarity) is the
    mean cosine of the document's chunks closest to the query: a page several parts of which are
    near the question. The opening evidence (`document_openings`, weighed by w_document_opening) is
    the mean cosine of the document's first chunks: a page that opens by saying what the query
    names. Its keyword twin (`opening_keyword_scores`, weighed by w_document_opening_keyword) is
    the BM25 of the document's first chunks among all documents' openings, divided by `idf_total`
    as the document's is: a page that opens with the query's words. A chunk whose language
    (`languages`) is the question's (`language`) gets w_language more; a chunk whose document is a
    translation of a candidate in the question's language (`translated`) gets w_translation less.
    """
    weights = weights or {}
    dense = _first_scores(ranked.get("dense", ()))
    keyword = _first_scores(ranked.get("keyword", ()))
    cosines = {**dense, **(cosines or {})}
    document_scores = document_scores or {}
    dense_floor = min(dense.values()) if dense else 0.0
    keyword_floor = min(keyword.values()) if keyword else 0.0
    full_match = idf_total / (1.0 + K1) or 1.0  # each term found once in a chunk of average length
    fused: dict[str, float] = {}
    signals: dict[str, Signals] = {}
    for retriever, hits in ranked.items():
        for rank, (chunk_id, score) in enumerate(_first_scores(hits).items(), start=1):
            signals.setdefault(chunk_id, Signals()).found_in(retriever, float(rank), score)
    for chunk_id, chunk_signals in signals.items():
        share = coverage.get(chunk_id, 0.0)
        relative_bm25 = keyword.get(chunk_id, keyword_floor if share > 0 else 0.0) / full_match
        evidence = share + BM25_SHARE * relative_bm25
        document = document_scores.get(chunk_id, 0.0) / idf_total if idf_total > 0 else 0.0
        similarity = cosines.get(chunk_id, dense_floor)
        document_similarity = (document_similarities or {}).get(chunk_id, 0.0)
        opening = (document_openings or {}).get(chunk_id, 0.0)
        opening_keyword = (opening_keyword_scores or {}).get(chunk_id, 0.0) / idf_total if idf_total > 0 else 0.0
        chunk_signals.coverage = CoverageSignal(
            share, relative_bm25, evidence, document if chunk_id in document_scores else None,
            document_similarity if document_similarities else None, opening if document_openings else None,
            opening_keyword if opening_keyword_scores else None,
        )
        if chunk_signals.dense is None and chunk_id in cosines:
            chunk_signals.similarity = similarity
        same_language = float(language is not None and languages is not None and languages.get(chunk_id) == language)
        if language is not None and languages is not None:
            chunk_signals.language = same_language
        if chunk_id in translated:
            chunk_signals.translation = 1.0
        fused[chunk_id] = (
            weights.get("dense", 1.0) * similarity + weights.get("keyword", 1.0) * evidence + weights.get("document", 0.0) * document
            + weights.get("document_similarity", 0.0) * document_similarity + weights.get("document_opening", 0.0) * opening
            + weights.get("document_opening_keyword", 0.0) * opening_keyword
            + weights.get("language", 0.0) * same_language
            - weights.get("translation", 0.0) * (chunk_id in translated)
        )
    order = sorted(fused, key=lambda cid: (-fused[cid], cid))
    return [(cid, fused[cid], signals[cid]) for cid in order]


def _first_scores(hits: Ranked) -> dict[str, float]:
    """Chunk → score, in rank order, each chunk once (its best rank)."""
    scores: dict[str, float] = {}
    for chunk_id, score in hits:
        scores.setdefault(chunk_id, float(score))
    return scores


def reciprocal_rank_fusion(ranked: Mapping[str, Ranked], weights: Mapping[str, float] | None = None, k: int = 60) -> list[Fused]:
    if len(ranked) == 1:
        [(retriever, hits)] = ranked.items()
        return _one_list_by_rank(retriever, hits, 1.0 if weights is None else weights.get(retriever, 1.0), k)
    fused: dict[str, float] = {}
    signals: dict[str, Signals] = {}
    for retriever, hits in ranked.items():
        weight = 1.0 if weights is None else weights.get(retriever, 1.0)
        seen: set[str] = set()
        for rank, (chunk_id, score) in enumerate(hits, start=1):
            if chunk_id in seen:
                continue
            seen.add(chunk_id)
            fused[chunk_id] = fused.get(chunk_id, 0.0) + weight / (k + rank)
            signals.setdefault(chunk_id, Signals()).found_in(retriever, float(rank), float(score))
    order = sorted(fused, key=lambda cid: (-fused[cid], cid))
    return [(cid, fused[cid], signals[cid]) for cid in order]


def _one_list_by_rank(retriever: str, hits: Ranked, weight: float, k: int) -> list[Fused]:
    """`reciprocal_rank_fusion` of one list: its own order (a rank's score is always above the next one's), without
    the merge and the sort — a keyword or dense search spent a sixth of its time there at 10k chunks."""
    return list(OneList(retriever, hits, weight, k))


class OneList(Sequence[Fused]):
    """One ranked list fused by rank (weight / (k + rank), each chunk at its first rank), each entry made when it is
    first read. A search reads the signals of the ten hits it returns, not of the fifty candidates it asked for:
    one `Signals` per candidate was 0.05 ms of a 0.6 ms keyword search at 10k chunks. An entry read again is the
    same tuple, so signals written to it (MMR's rank) stay; every entry is what `_one_list_by_rank` lists."""

    def __init__(self, retriever: str, hits: Ranked, weight: float, k: int) -> None:
        self._listing(retriever, [chunk_id for chunk_id, _ in hits], [score for _, score in hits], weight, k)

    @classmethod
    def of_columns(cls, retriever: str, ids: list[str], scores: list[float], weight: float, k: int) -> OneList:
        """The list of `ids` (best first) and their `scores`, without pairing them into a `Ranked` first."""
        listed = cls.__new__(cls)
        listed._listing(retriever, ids, scores, weight, k)
        return listed

    def _listing(self, retriever: str, ids: list[str], scores: list[float], weight: float, k: int) -> None:
        self.retriever, self.weight, self.k = retriever, weight, k
        self.ids, self.scores = ids, scores
        self.ranks: Sequence[int] = range(1, len(self.ids) + 1)
        if len(set(self.ids)) < len(self.ids):  # a chunk listed twice keeps its first rank; the ranks skip its others
            first: dict[str, int] = {}
            for position, chunk_id in enumerate(self.ids):
                first.setdefault(chunk_id, position)
            kept = list(first.values())
            self.ids, self.scores = [self.ids[i] for i in kept], [self.scores[i] for i in kept]
            self.ranks = [i + 1 for i in kept]
        self._entries: list[Fused | None] = [None] * len(self.ids)

    def __len__(self) -> int:
        return len(self.ids)

    @overload
    def __getitem__(self, index: int) -> Fused: ...

    @overload
    def __getitem__(self, index: slice) -> list[Fused]: ...

    def __getitem__(self, index: int | slice) -> Fused | list[Fused]:
        if isinstance(index, slice):
            return [self.entry(i) for i in range(*index.indices(len(self.ids)))]
        return self.entry(range(len(self.ids))[index])  # a negative index counts from the end; past it, IndexError

    def __iter__(self) -> Iterator[Fused]:
        return (self.entry(i) for i in range(len(self.ids)))

    def entry(self, i: int) -> Fused:
        """The entry at `i` (0 to len - 1): `self[i]` without the checks for slices and negative indexes."""
        entry = self._entries[i]
        if entry is None:
            signals = Signals()
            signals.found_in(self.retriever, float(self.ranks[i]), float(self.scores[i]))
            entry = self._entries[i] = (self.ids[i], self.fused_score(i), signals)
        return entry

    def fused_score(self, i: int) -> float:
        """The fused score of the entry at `i`, without making the entry."""
        return self.weight / (self.k + self.ranks[i])


def fuse_onto(base: Sequence[Fused], lists: Mapping[str, Ranked], weight: float, k: int) -> list[Fused]:
    """A route's own lists fused by rank onto the list it started from (graph and tree start from hybrid's):
    1/(k + base rank) + weight/(k + rank in each list). A base hit keeps its signals; each list is recorded
    in the signals under its name, so `--explain` tells what the route added."""
    scores: dict[str, float] = {}
    signals: dict[str, Signals] = {}
    for rank, (chunk_id, _, hit_signals) in enumerate(base, start=1):
        scores[chunk_id] = 1.0 / (k + rank)
        signals[chunk_id] = hit_signals
    for name, hits in lists.items():
        for rank, (chunk_id, score) in enumerate(hits, start=1):
            scores[chunk_id] = scores.get(chunk_id, 0.0) + weight / (k + rank)
            signals.setdefault(chunk_id, Signals()).found_in(name, float(rank), float(score))
    order = sorted(scores, key=lambda cid: -scores[cid])
    return [(cid, scores[cid], signals[cid]) for cid in order]


def _normalise(scores: list[float], method: str) -> list[float]:
    if not scores:
        return []
    high, low = max(scores), min(scores)
    if method == "max":
        return [s / high if high > 0 else 0.0 for s in scores]
    if high == low:
        return [1.0 for _ in scores]
    return [(s - low) / (high - low) for s in scores]


def weighted_score_fusion(
    ranked: Mapping[str, Ranked], weights: Mapping[str, float] | None = None, normalization: str = "minmax"
) -> list[Fused]:
    """Σ_r w_r · norm_r(score), each retriever's scores normalised over its own list.

    BM25 scores are unbounded and cosine similarities are not, so raw scores
    cannot be added; "max" divides by the list's best score, "minmax" maps the
    list onto [0, 1] (as Neo4j's hybrid query does). A chunk missing from one
    list gets 0 from it.
    """
    if normalization not in ("max", "minmax"):
        raise ValueError(f"unknown score normalization {normalization!r}; use max or minmax")
    fused: dict[str, float] = {}
    signals: dict[str, Signals] = {}
    for retriever, hits in ranked.items():
        weight = 1.0 if weights is None else weights.get(retriever, 1.0)
        unique: dict[str, float] = {}
        for chunk_id, score in hits:
            unique.setdefault(chunk_id, score)
        for rank, ((chunk_id, score), norm) in enumerate(zip(unique.items(), _normalise(list(unique.values()), normalization), strict=True), start=1):
            fused[chunk_id] = fused.get(chunk_id, 0.0) + weight * norm
            signals.setdefault(chunk_id, Signals()).found_in(retriever, float(rank), float(score), norm)
    order = sorted(fused, key=lambda cid: (-fused[cid], cid))
    return [(cid, fused[cid], signals[cid]) for cid in order]


def one_list_fusion(retriever: str, hits: Ranked, weights: Mapping[str, float], method: str, normalization: str, rrf_k: int) -> Sequence[Fused]:
    """`rank_fusion` of one retriever's list alone, by rank as a `OneList` (entries made as they are read)."""
    if method == "weighted":
        return weighted_score_fusion({retriever: hits}, weights, normalization)
    return OneList(retriever, hits, weights.get(retriever, 1.0), rrf_k)


def one_list_columns(
    retriever: str, ids: list[str], scores: list[float], weights: Mapping[str, float], method: str, normalization: str, rrf_k: int,
) -> Sequence[Fused]:
    """`one_list_fusion` of a list given as its ids and their scores."""
    if method == "weighted":
        return weighted_score_fusion({retriever: list(zip(ids, scores, strict=True))}, weights, normalization)
    return OneList.of_columns(retriever, ids, scores, weights.get(retriever, 1.0), rrf_k)


def rank_fusion(ranked: Mapping[str, Ranked], weights: Mapping[str, float], method: str, normalization: str, rrf_k: int) -> list[Fused]:
    """The fusion of lists that carry no term evidence (one list alone, or `fusion` rrf/weighted):
    normalised scores when `method` is "weighted", reciprocal ranks otherwise."""
    if method == "weighted":
        return weighted_score_fusion(ranked, weights, normalization)
    return reciprocal_rank_fusion(ranked, weights, rrf_k)
