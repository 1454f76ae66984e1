"""Hybrid retrieval: dense and keyword lists fused, by default with term coverage and document-level evidence."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

import numpy as np

from bunko.config import RetrieveConfig
from bunko.retrieve.base import Query, read_term_weights, signal_lines
from bunko.retrieve.coverage import matrix_coverage
from bunko.retrieve.dense import DenseRetriever
from bunko.retrieve.document_sentences import DocumentSentences
from bunko.retrieve.fusion import BM25_SHARE, Fused, coverage_fusion, rank_fusion
from bunko.retrieve.keyword import KeywordRetriever
from bunko.retrieve.router import document_rank_weights
from bunko.schema import Signals
from bunko.store.search_backend import SearchBackend


def scaled_similarity(weights: Mapping[str, float], scale: float) -> dict[str, float]:
    """The route's weights with every cosine evidence (chunk, document, opening) multiplied by `similarity_scale`.

    Coverage fusion adds cosines to keyword evidence on one scale, and its weights were chosen on
    USE's cosines; a model whose cosines crowd into a narrow band (e5: every chunk 0.7-0.9) would
    otherwise be outvoted by keyword evidence however right it is. Rank fusions ignore score scales,
    so only coverage fusion reads this.
    """
    if scale == 1.0:
        return dict(weights)
    scaled = {**weights, "dense": weights.get("dense", 1.0) * scale}
    scaled.update((key, weights[key] * scale) for key in ("document_similarity", "document_opening") if key in weights)
    return scaled


def ranks_documents(config: RetrieveConfig, group_by: str) -> bool:
    """Whether coverage fusion ranks documents by their own evidence: hits grouped by document, `document_ranking` document."""
    return group_by == "document" and config.document_ranking == "document"


def document_ranked(weights: Mapping[str, float], config: RetrieveConfig, group_by: str, names_topic: bool = False) -> dict[str, float]:
    """The route's weights for ranking documents, when the hits asked for are documents (`group_by` "document").

    A document then stands for itself, so its keyword evidence is mostly its own: BM25 over its
    whole text (`document_rank_weight`) and only a share of its best chunk's keyword evidence
    (`document_rank_keyword_share`). That one chunk's coverage saturates on a short question
    (every chunk holding its 2-5 words gets the full share) and put the page with one paragraph
    dense in the question's words above the page about it; the share kept still lets a chunk
    holding a rare term (an error code) speak for a long document. Its dense evidence weighs
    `document_rank_similarity_weight`. The chunk that stands for the document is its best by
    these weights, mostly its closest by cosine. Page-shaped corpora (one file per page, heading
    queries in en/ja/zh): +0.008 to +0.028 nDCG@10 over ranking by the best chunk
    (bench/results/pages-docrank.md). Chunk and section hits keep the route's weights: what an
    answer cites is still ranked by its own evidence. A topic phrase's weights (`names_topic`:
    the topic route's, or another route's made so by `router.as_topic`) are these already, for every grouping.
    """
    if not ranks_documents(config, group_by):
        return dict(weights)
    ranked = dict(weights) if names_topic else document_rank_weights(dict(weights), config)
    return {**ranked, "language": max(weights.get("language", 0.0), config.document_language_weight)}


def judged_by_sentences(
    store: SearchBackend, sentences: DocumentSentences, fused: list[Fused], share: float, cosines: Mapping[str, float],
    vector: np.ndarray, documents: int,
) -> list[Fused]:
    """The fused chunks with `share` of their cosine taken by their document's best sentence, re-sorted.

    Only the first `documents` documents are judged (`document_sentence_candidates`): their
    units are read from disk, and a document further down does not reach the first ten by its
    best sentence (page corpora: judging 10 keeps most of the gain, 50 adds none).
    """
    document_of = store.chunk_documents([cid for cid, _, _ in fused])
    judged: dict[str, None] = {}
    for cid, _, _ in fused:
        if cid in document_of and len(judged) < documents:
            judged.setdefault(document_of[cid])
    best = sentences.best(list(judged), vector)
    rescored: list[Fused] = []
    for cid, score, signals in fused:
        sentence = best.get(document_of[cid]) if cid in document_of else None
        if sentence is not None and cid in cosines:
            score += share * (sentence - cosines[cid])
            if signals.coverage is not None:
                signals.coverage.document_sentence = sentence
        rescored.append((cid, score, signals))
    return sorted(rescored, key=lambda entry: (-entry[1], entry[0]))


class HybridRetriever:
    name = "hybrid"
    needs_vector = True

    def __init__(self, store: SearchBackend, config: RetrieveConfig, sentences: DocumentSentences | None = None) -> None:
        """`sentences`: the documents' best sentences, when the collection's units are embedded at ingest."""
        self.store = store
        self.config = config
        self.sentences = sentences
        self.dense = DenseRetriever(store, config)
        self.keyword = KeywordRetriever(store, config)

    def retrieve(self, query: Query, k: int) -> list[Fused]:
        ranked = self._ranked(query, k)
        if self.config.fusion == "coverage":
            return self._coverage_fuse(ranked, query)
        return rank_fusion(ranked, query.route.weights, self.config.fusion, self.config.normalization, self.config.rrf_k)

    def _ranked(self, query: Query, k: int) -> dict[str, list[tuple[str, float]]]:
        """Both lists; "retrieve" is their joint wall time (a backend may run them at once)."""
        if query.vector is not None:
            started = time.perf_counter()
            dense, keyword = self.store.hybrid_search(query.vector, query.tokens, k, query.where)
            query.timings["retrieve"] = time.perf_counter() - started
            return {"dense": self.dense.within_limit(dense), "keyword": keyword}
        return {side.name: side.ranked(query, k) for side in (self.dense, self.keyword)}

    def _coverage_fuse(self, ranked: dict[str, list[tuple[str, float]]], query: Query) -> list[Fused]:
        """Chunk evidence (cosine, keyword coverage and BM25) plus the evidence of the chunk's document as a whole.

        The best documents by document-level BM25 join the candidates through their closest
        chunk, so a page whose words are spread over many chunks is found although no single
        chunk holds enough of them. Every candidate is judged on its own cosine, computed when
        dense search did not return it.
        """
        config, store, tokens, vector = self.config, self.store, query.tokens, query.vector
        weights = scaled_similarity(
            document_ranked(query.route.weights, config, query.group_by, query.route.names_topic), config.similarity_scale,
        )
        document_weight = weights.get("document", 0.0)
        ranked = dict(ranked)
        started = time.perf_counter()
        if document_weight > 0 and config.document_candidates > 0 and tokens:
            documents = store.document_keyword_search(tokens, config.document_candidates, query.where, vector)
            ranked["document"] = [(match.best_chunk_id, match.score) for match in documents]
            query.timings["document_search"] = time.perf_counter() - started
            started = time.perf_counter()
        candidates = list(dict.fromkeys(cid for hits in ranked.values() for cid, _ in hits))
        idf, query.unseen_idf = read_term_weights(store, tokens)
        query.term_weights = idf
        coverage = matrix_coverage(*store.term_matrix(candidates, tokens), idf)
        cosines = self._cosines(ranked.get("dense", []), candidates, vector)
        document_scores = store.document_keyword_scores(candidates, tokens) if document_weight > 0 else {}
        prefer = query.language if weights.get("language", 0.0) > 0 else None
        languages = self._languages(candidates, ranks_documents(config, query.group_by)) if prefer is not None else None
        translated = self._translated(candidates, query) if weights.get("translation", 0.0) > 0 else set()
        similar = weights.get("document_similarity", 0.0) > 0 and vector is not None
        document_similarities = store.document_similarities(candidates, vector) if similar and vector is not None else None
        openings = self._openings(candidates, vector) if weights.get("document_opening", 0.0) > 0 else None
        opening_keyword_scores = self._opening_keywords(candidates, tokens) if weights.get("document_opening_keyword", 0.0) > 0 else None
        query.timings["evidence"] = time.perf_counter() - started  # every candidate's coverage, cosine and document evidence
        started = time.perf_counter()
        fused = coverage_fusion(
            ranked, coverage, sum(idf.values()), weights, cosines, document_scores, languages, prefer, document_similarities,
            translated, openings, opening_keyword_scores,
        )
        query.timings["fusion"] = time.perf_counter() - started
        share = weights.get("document_sentence", 0.0) * weights.get("dense", 1.0)
        if share > 0 and vector is not None and self.sentences is not None and config.document_sentence_candidates > 0:
            started = time.perf_counter()
            fused = judged_by_sentences(self.store, self.sentences, fused, share, cosines, vector, config.document_sentence_candidates)
            query.timings["sentences"] = time.perf_counter() - started
        return fused


    def _languages(self, candidates: list[str], of_documents: bool) -> dict[str, str]:
        """Each candidate's language, or its document's when documents are ranked."""
        if of_documents:
            return self.store.document_languages(candidates)
        return self.store.chunk_languages(candidates)

    def _openings(self, candidates: list[str], vector: np.ndarray | None) -> dict[str, float] | None:
        """Each candidate's document's opening similarity (none without a query vector)."""
        if vector is None:
            return None
        return self.store.document_opening_similarities(candidates, vector)

    def _opening_keywords(self, candidates: list[str], tokens: Sequence[str]) -> dict[str, float] | None:
        """Each candidate's document's opening BM25 (none without query terms)."""
        if not tokens:
            return None
        return self.store.document_opening_keyword_scores(candidates, tokens)

    def _translated(self, candidates: list[str], query: Query) -> set[str]:
        """The candidates whose document translates another candidate's in the question's language and adds none of
        its words (none when the question's language is unknown)."""
        if query.language is None:
            return set()
        return self.store.translated_chunks(candidates, query.language, query.tokens)

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

    def explain(self, signals: Signals) -> list[str]:
        lines = signal_lines(signals)
        if (coverage := signals.coverage) is not None:
            document_terms = [term for term, value in (
                ("document weight × document BM25", coverage.document),
                ("document similarity weight × document similarity", coverage.document_similarity),
                ("document opening weight × document opening", coverage.document_opening),
                ("opening keyword weight × opening BM25", coverage.document_opening_keyword),
                ("dense weight × sentence share × (best sentence − cosine)", coverage.document_sentence),
            ) if value is not None]
            lines.append(
                f"holds {coverage.score:.0%} of the query's idf-weighted terms; keyword evidence {coverage.evidence:.3f} = "
                f"that share + {BM25_SHARE:.2f} × relative BM25 {coverage.relative_bm25:.3f}; "
                f"fused score = {' + '.join(['dense weight × cosine', 'keyword weight × evidence', *document_terms])} "
                "(weights: the route above)"
            )
        return lines
