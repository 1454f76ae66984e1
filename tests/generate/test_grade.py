"""The sufficiency grade: evidence must come from one chunk, not be pieced together from several."""

from __future__ import annotations

import pytest

from bunko.generate.grade import grade_hits
from bunko.retrieve.analyzers import multilingual
from bunko.schema import Chunk, Hit


def _hit(text: str, similarity: float, ordinal: int) -> Hit:
    chunk = Chunk(f"doc.md#{ordinal}", "doc", "doc.md", ordinal, text, text)
    return Hit(chunk=chunk, score=1.0, signals={}, distance=1.0 - similarity)


CASES = [
    ("年次賞与は何月に支払われますか", "新入社員は初日に研修を受ける。", "賞与の支払い"),
    ("年终奖在几月发放", "新员工在入职第一个月完成培训。", "年终奖的说明"),
    ("In which month are annual bonuses paid", "New joiners complete training during their first weeks.", "annual bonuses policy"),
]


@pytest.mark.parametrize(("question", "near_in_meaning", "shares_words"), CASES)
def test_similarity_and_coverage_must_come_from_the_same_hit(question: str, near_in_meaning: str, shares_words: str) -> None:
    tokens = multilingual(question)
    hits = [_hit(near_in_meaning, 0.5, 1), _hit(shares_words, 0.1, 2)]
    verdict = grade_hits(hits, tokens, None, multilingual, min_confidence=0.5)
    assert not verdict.sufficient
    best_alone = max(grade_hits([h], tokens, None, multilingual, 0.5).confidence for h in hits)
    assert verdict.confidence == pytest.approx(best_alone)


@pytest.mark.parametrize(("question", "near_in_meaning", "shares_words"), CASES)
def test_one_hit_close_in_meaning_and_holding_the_words_is_sufficient(question: str, near_in_meaning: str, shares_words: str) -> None:
    tokens = multilingual(question)
    verdict = grade_hits([_hit(question + "。", 0.7, 1), _hit(near_in_meaning, 0.2, 2)], tokens, None, multilingual, min_confidence=0.5)
    assert verdict.sufficient and verdict.coverage == pytest.approx(1.0)
