from __future__ import annotations

import pytest

from bunko.text.analyzers import identifiers, multilingual


def test_japanese_and_chinese_become_character_bigrams() -> None:
    assert multilingual("宿泊費の上限") == ["宿泊", "泊費", "費の", "の上", "上限"]
    assert multilingual("年假申请") == ["年假", "假申", "申请"]


def test_english_is_lowercased_without_stopwords() -> None:
    assert multilingual("What is the Rate Limit of the API?") == ["rate", "limit", "api"]


def test_codes_and_versions_stay_whole_and_split() -> None:
    tokens = multilingual("Error E-1024, ERR_CONN_RESET in v2.3.1")
    assert {"e-1024", "1024", "err_conn_reset", "conn", "reset", "v2.3.1"} <= set(tokens)
    assert identifiers(tokens) >= {"e-1024", "err_conn_reset", "v2.3.1"}


def test_full_width_forms_are_folded() -> None:
    assert multilingual("ＡＰＩキー１２３") == ["api", "キー", "123"]


@pytest.mark.parametrize(
    ("question", "kept", "dropped"),
    [
        ("出張の宿泊費の上限について教えてください。", ["宿泊", "上限"], ["教え", "つい", "さい"]),
        ("差旅住宿费的上限是什么？", ["住宿", "上限"], ["什么"]),
        ("如何申请年假？", ["申请", "年假"], ["如何"]),
    ],
)
def test_query_text_drops_cjk_question_phrasing_like_english_question_words(question: str, kept: list[str], dropped: list[str]) -> None:
    from bunko.text.analyzers import query_text

    tokens = multilingual(query_text(question))
    assert set(kept) <= set(tokens)
    assert not set(dropped) & set(tokens)
    assert multilingual(query_text("What is the hotel limit?")) == multilingual("What is the hotel limit?")


def test_query_text_keeps_a_question_that_is_only_phrasing() -> None:
    from bunko.text.analyzers import query_text

    assert query_text("是什么？") == "是什么？"
    assert multilingual(query_text("について教えてください")) == multilingual("について教えてください")
