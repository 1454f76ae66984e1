"""The rerank stage: question + fused candidates → the same hits, better ordered.

Fusion ranks chunks by how each retriever saw the whole chunk; a reranker
looks again, more expensively, at a few dozen candidates. Every reranker
records its score and new rank in ``hit.signals.rerank`` so the trace
shows what moved and why.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Protocol

import numpy as np

from bunko.retrieve.question import QuestionFacts, read_question
from bunko.schema import Hit, RankSignal


@dataclass
class RerankQuery:
    """What a reranker may know about the question: its text, vector, tokens and their idf weights, and its reading
    (`QuestionFacts`) when the caller has it."""

    question: str
    vector: np.ndarray | None = None
    tokens: list[str] = field(default_factory=list)
    weights: Mapping[str, float] | None = None
    facts: QuestionFacts | None = None

    def read(self) -> QuestionFacts:
        """The question's reading: the caller's, else read here from the text and tokens."""
        return self.facts if self.facts is not None else read_question(self.question, self.tokens)


class Reranker(Protocol):
    @property
    def name(self) -> str: ...

    def rerank(self, query: RerankQuery, hits: list[Hit]) -> list[Hit]:
        """All the hits, best first, each with ``signals.rerank`` (score and rank)."""
        ...


def ordered(hits: list[Hit], scores: list[float]) -> list[Hit]:
    """Hits sorted by score (ties keep fusion order), with the rerank signal recorded on copies."""
    order = sorted(range(len(hits)), key=lambda i: (-scores[i], i))
    result = []
    for rank, i in enumerate(order, start=1):
        hit = hits[i]
        result.append(replace(hit, signals=replace(hit.signals, rerank=RankSignal(float(rank), float(scores[i])))))
    return result


class NoReranker:
    """Fusion order as it is (``[rerank] method = "none"``)."""

    name = "none"

    def rerank(self, query: RerankQuery, hits: list[Hit]) -> list[Hit]:
        return list(hits)
