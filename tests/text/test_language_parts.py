"""A question asked in more than one language is cut into one part per language; one language stays whole."""

from __future__ import annotations

import pytest

from bunko.text.languages import language_parts


@pytest.mark.parametrize(("question", "parts"), [
    ("駐車場は何時まで使えますか？ Until when can the car park be used?",
     ["駐車場は何時まで使えますか？", "Until when can the car park be used?"]),
    ("停车场几点关门？When does the car park close?", ["停车场几点关门？", "When does the car park close?"]),
    ("When does the car park close? 停车场的关门时间", ["When does the car park close?", "停车场的关门时间"]),
])
def test_each_language_of_a_question_is_a_part(question: str, parts: list[str]) -> None:
    assert language_parts(question) == parts


@pytest.mark.parametrize("question", [
    "How do I reset the printer? It shows E-12.",
    "rsync の設定ファイルはどこですか？",
    "如何配置 nginx 的反向代理？",
    "プリンターを再起動するには？エラーが出ます。",
])
def test_one_language_is_one_part_even_with_latin_names_inside(question: str) -> None:
    assert language_parts(question) == [question]


def test_runs_of_one_language_join_into_one_part() -> None:
    question = "What time does it open? Is it open on Sundays? 日曜日も開いていますか？"
    assert language_parts(question) == ["What time does it open? Is it open on Sundays?", "日曜日も開いていますか？"]
