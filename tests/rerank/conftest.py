from __future__ import annotations

from collections.abc import Callable

import pytest

from bunko.embed.base import embed_queries
from bunko.embed.use_m3 import UseM3Embedder
from bunko.rerank.evidence import ScoredUnit, hit_units, score_units
from bunko.retrieve.question import read_question
from bunko.schema import Chunk, Hit
from bunko.text.analyzers import multilingual


@pytest.fixture
def units_of(embedder: UseM3Embedder) -> Callable[[str, str, str], list[ScoredUnit]]:
    """(question, section, passage) → the units of that one passage scored against the question, as an answer's are."""

    def score(question: str, section: str, text: str) -> list[ScoredUnit]:
        hits = [Hit(Chunk("doc.md#0", "d0", "doc.md", 0, text, f"{section}\n{text}", section_path=[section]), 1.0)]
        vector = embed_queries(embedder, [question])[0]
        return score_units(read_question(question, multilingual(question)), hits, hit_units(hits, 50), vector, embedder, multilingual)

    return score
