"""The citation check: markers parsed per sentence, unsupported sentences flagged, policies applied."""

from __future__ import annotations

import pytest

from bunko.generate.citations import SUPPORTED, UNSUPPORTED, CitationChecker, numbers, parse_sentences
from bunko.schema import Chunk, Hit
from bunko.text.analyzers import multilingual

HOTEL = "## 宿泊費\n\n| 地域 | 一般社員 | 管理職 |\n|---|---|---|\n| 東京23区 | 12,000円 | 15,000円 |\n| ロンドン | 25,000円 | 32,000円 |"
API = "Each API key may make up to 600 requests per minute. Access tokens are valid for 24 hours."
LEAVE = "员工每年享有5天带薪病假。婚假为3天。"


def hit(text: str, n: int) -> Hit:
    return Hit(Chunk(f"doc{n}.md#0", f"d{n}", f"doc{n}.md", 0, text, text), score=1.0 / n)


@pytest.fixture(scope="module")
def checker(embedder) -> CitationChecker:
    return CitationChecker(embedder, multilingual)


HITS = [hit(HOTEL, 1), hit(API, 2), hit(LEAVE, 3)]


def test_markers_are_parsed_per_sentence_in_three_languages() -> None:
    assert parse_sentences("上限は12,000円です。[1]管理職は15,000円です。[1][2]") == [
        ("上限は12,000円です。", [1]), ("管理職は15,000円です。", [1, 2]),
    ]
    assert parse_sentences("婚假为3天【3】。病假5天[3, 1]。") == [("婚假为3天。", [3]), ("病假5天。", [3, 1])]
    assert parse_sentences("The limit is 600 requests per minute [2]. Tokens last 24 hours. [2] No more.") == [
        ("The limit is 600 requests per minute.", [2]), ("Tokens last 24 hours.", [2]), ("No more.", []),
    ]


def test_numbers_ignore_thousands_separators_and_full_width_digits() -> None:
    assert numbers("１２,０００円 and 12000 yen, v2.3") == {"12000", "2.3"}


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("東京23区の一般社員の宿泊費の上限は1泊12,000円です。[1]", [SUPPORTED]),
        ("An API key may send 600 requests per minute. [2]", [SUPPORTED]),
        ("婚假有3天。[3]", [SUPPORTED]),
        ("東京23区の一般社員の宿泊費の上限は1泊18,000円です。[1]", [UNSUPPORTED]),  # wrong number
        ("The CEO of Aozora Systems is Hanako Sato. [2]", [UNSUPPORTED]),  # nothing of it in the source
        ("An API key may send 600 requests per minute. [3]", [UNSUPPORTED]),  # right fact, wrong source
    ],
)
def test_each_sentence_is_checked_against_the_chunks_it_cites(checker: CitationChecker, answer: str, expected: list[str]) -> None:
    checked = checker.check(answer, HITS)
    assert [c.verdict for c in checked] == expected


def test_paraphrase_across_languages_is_supported_by_similarity(checker: CitationChecker) -> None:
    [item] = checker.check("APIキーごとに1分あたり600リクエストまで送信できます。[2]", HITS)
    assert item.lexical < checker.lexical_min
    assert item.verdict == SUPPORTED, (item.lexical, item.semantic)


def test_uncited_and_out_of_range_markers(checker: CitationChecker) -> None:
    uncited, invalid = checker.check("Tokens are valid for 24 hours. They expire. [9]", HITS)
    assert uncited.source_ids == [] and uncited.verdict == "uncited"
    assert invalid.invalid_ids == [9] and invalid.verdict == "uncited"


def test_the_quote_is_the_best_matching_unit_of_the_cited_chunk(checker: CitationChecker) -> None:
    [item] = checker.check("Access tokens last 24 hours. [2]", HITS)
    assert item.quotes[2] == "Access tokens are valid for 24 hours."
