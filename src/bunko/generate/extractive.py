"""The default generator: answers with the evidence's own sentences, each cited. No LLM.

Every sentence of an extractive answer is a verbatim unit of the chunk it
cites, so its citation is correct by construction; the work is choosing which
units answer the question (embedding similarity plus keyword coverage, as the
light reranker would) and putting them in reading order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bunko.embed.base import Embedder
from bunko.generate.grade import keyword_coverage
from bunko.generate.units import Unit, split_units
from bunko.retrieve.analyzers import Analyzer
from bunko.schema import AnswerSentence, Citation, Hit

MAX_EVIDENCE_HITS = 3
MAX_UNITS = 80
KEEP_RATIO = 0.85
"""A unit joins the answer only when it scores within this fraction of the best one."""


@dataclass
class ScoredUnit:
    unit: Unit
    similarity: float
    coverage: float
    score: float


def citation_for(hit: Hit, quote: str) -> Citation:
    chunk = hit.chunk
    return Citation(
        chunk_id=chunk.chunk_id, source=chunk.source, page=chunk.pages[0] if chunk.pages else None,
        section_path=list(chunk.section_path), element_ids=list(chunk.element_ids), quote=quote,
    )


class ExtractiveGenerator:
    name = "extractive"

    def __init__(self, embedder: Embedder, analyzer: Analyzer, max_sentences: int = 3) -> None:
        self.embedder = embedder
        self.analyzer = analyzer
        self.max_sentences = max_sentences

    def score_units(self, hits: list[Hit], query_vector: np.ndarray, query_tokens: list[str]) -> list[ScoredUnit]:
        units = [
            Unit(text, hit_index, position)
            for hit_index, hit in enumerate(hits[:MAX_EVIDENCE_HITS])
            for position, text in enumerate(split_units(hit.chunk.text))
        ][:MAX_UNITS]
        if not units:
            return []
        vectors = self.embedder.embed([u.text for u in units])
        similarities = vectors @ np.asarray(query_vector, dtype=np.float32)
        scored = []
        for unit, similarity in zip(units, similarities, strict=True):
            coverage = keyword_coverage(query_tokens, set(self.analyzer(unit.text)))
            rank_bonus = 0.03 * (MAX_EVIDENCE_HITS - unit.hit_index)
            scored.append(ScoredUnit(unit, float(similarity), coverage, float(similarity) + 0.5 * coverage + rank_bonus))
        return scored

    def answer(self, hits: list[Hit], scored: list[ScoredUnit]) -> list[AnswerSentence]:
        if not scored:
            return []
        ranked = sorted(scored, key=lambda s: -s.score)
        best = ranked[0].score
        chosen = [s for s in ranked[: self.max_sentences] if s.score >= KEEP_RATIO * best]
        chosen.sort(key=lambda s: (s.unit.hit_index, s.unit.position))
        return [
            AnswerSentence(
                text=s.unit.text, citations=[citation_for(hits[s.unit.hit_index], s.unit.text)],
                support=round(s.score, 4), verdict="supported",
            )
            for s in chosen
        ]


def render_answer(sentences: list[AnswerSentence], language: str) -> str:
    """Sentences with numbered citation markers, one number per cited chunk."""
    numbers: dict[str, int] = {}
    parts = []
    for sentence in sentences:
        marks = "".join(f"[{numbers.setdefault(c.chunk_id, len(numbers) + 1)}]" for c in sentence.citations)
        parts.append(f"{sentence.text} {marks}" if language == "en" else f"{sentence.text}{marks}")
    return ("\n" if any("\n" in s.text for s in sentences) else (" " if language == "en" else "")).join(parts)
