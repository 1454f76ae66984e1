"""The default generator: answers with the evidence's own sentences, each cited. No LLM.

Every sentence of an extractive answer is a verbatim unit of the chunk it
cites, so its citation is correct by construction; the work is choosing which
units answer the question (embedding similarity plus keyword coverage, as the
light reranker would) and putting them in reading order.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from bunko.embed.base import Embedder
from bunko.generate.grade import keyword_coverage
from bunko.generate.units import Unit, split_units
from bunko.retrieve.analyzers import Analyzer, identifiers
from bunko.schema import AnswerSentence, Citation, Hit

_QUANTITY_QUESTION = re.compile(
    r"いくら|何[日回人件年時分文字円%％度台名ヶか]|どのくらい|どれくらい|何時|いつ|"
    r"多少|几|多长|多久|多大|何时|什么时候|"
    r"\bhow (?:many|much|long|often|soon|old|large|big)\b|\bwhen\b"
    r"|\b(?:limit|maximum|minimum|rate|number|amount|price|period|deadline|duration|fee|cost|size)s?\b",
    re.IGNORECASE,
)
_LEAD_IN = re.compile(r"[:：]\s*$|次のとおり|以下のとおり|下記|如下|以下(?:几|各)|as follows|the following", re.IGNORECASE)
_DIGIT = re.compile(r"\d")

MAX_EVIDENCE_HITS = 5
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

    def score_units(
        self, question: str, hits: list[Hit], query_vector: np.ndarray, query_tokens: list[str], weights: Mapping[str, float] | None = None
    ) -> list[ScoredUnit]:
        """Similarity + idf-weighted keyword coverage, nudged by what kind of answer the question wants.

        A unit is embedded with its section heading, because a table row such as
        "東京23区 / 12,000円" only means "hotel limit" under its heading. Lead-in
        sentences ("…は次のとおりです。") point at the answer without being it.
        """
        units = [
            Unit(text, hit_index, position)
            for hit_index, hit in enumerate(hits[:MAX_EVIDENCE_HITS])
            for position, text in enumerate(split_units(hit.chunk.text))
        ][:MAX_UNITS]
        if not units:
            return []
        contexts = [" > ".join(hits[u.hit_index].chunk.section_path[-1:]) for u in units]
        vectors = self.embedder.embed([f"{c}\n{u.text}" if c else u.text for c, u in zip(contexts, units, strict=True)])
        similarities = vectors @ np.asarray(query_vector, dtype=np.float32)
        wants_quantity = bool(_QUANTITY_QUESTION.search(question))
        codes = identifiers(query_tokens)
        scored = []
        for unit, context, similarity in zip(units, contexts, similarities, strict=True):
            unit_tokens = set(self.analyzer(f"{context} {unit.text}"))
            coverage = keyword_coverage(query_tokens, unit_tokens, weights)
            score = float(similarity) + 0.5 * coverage + 0.03 * (MAX_EVIDENCE_HITS - unit.hit_index)
            if codes:
                score += 0.3 * len(codes & unit_tokens) / len(codes)
            if wants_quantity and _DIGIT.search(unit.text):
                score += 0.12
            if _LEAD_IN.search(unit.text):
                score -= 0.2
            scored.append(ScoredUnit(unit, float(similarity), coverage, score))
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
    prose = all(s.text.rstrip().endswith(tuple("。！？.!?」）)\"'")) and "\n" not in s.text for s in sentences)
    return (" " if language == "en" else "").join(parts) if prose else "\n".join(parts)
