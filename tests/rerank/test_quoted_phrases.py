"""A phrase the question quotes is a label the asker saw: the unit that writes it is where the answer stands."""

from __future__ import annotations

import pytest

from bunko.rerank.evidence import best_unit
from bunko.text.languages import query_language
from bunko.text.questions import quoted_phrases

QUOTED_GAP = (
    "the learned reader weighs `quoted` near zero (bench/results/reader.md): few questions of the six fitted corpora quote "
    "a label, so it does not outweigh the restating sentence's similarity in ja/zh; a fit with such questions should"
)
CASES = [
    ("When register_gauge.sh asks for the \"Station code\", what do I answer?",
     "register_gauge.sh asks a few questions about the tide gauge to register the readings with.",
     "Question: Station code / Answer: hb-north-07", "Gauge registration"),
    pytest.param(
        "register_gauge.sh で「観測所コード」を聞かれたら何と答えますか？",
        "register_gauge.sh から潮位計に登録する観測値の種類に関する数個の質問を尋ねられます。",
        "質問: 観測所コード / 回答: hb-north-07", "潮位計の登録", marks=pytest.mark.xfail(strict=True, reason=QUOTED_GAP),
    ),
    pytest.param(
        "用 register_gauge.sh 注册时，脚本问到“观测站代码”应该填什么？",
        "register_gauge.sh 询问一些关于把观测值注册到潮位计的问题。",
        "问题: 观测站代码 / 回答: hb-north-07", "注册潮位计", marks=pytest.mark.xfail(strict=True, reason=QUOTED_GAP),
    ),
]


@pytest.mark.parametrize(("question", "restating", "row", "section"), CASES)
def test_the_unit_writing_the_quoted_label_is_quoted_over_one_restating_the_question(
    units_of, question: str, restating: str, row: str, section: str
) -> None:
    assert quoted_phrases(question)
    scored = units_of(question, section, f"{restating}\n\n{row}")
    assert {s.unit.text for s in scored} == {restating, row}
    assert best_unit(scored, query_language(question)).unit.text == row


def test_quoted_phrases_are_read_in_every_quoting_style() -> None:
    assert quoted_phrases('the "Station code" question') == ["Station code"]
    assert quoted_phrases("「kiln の設定」の節と『概要』") == ["kiln の設定", "概要"]
    assert quoted_phrases("脚本问到“观测站 ID”时") == ["观测站 ID"]
    assert quoted_phrases("no quotes at all") == []
