from __future__ import annotations

from bunko.retrieve.analyzers import identifiers, multilingual


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
