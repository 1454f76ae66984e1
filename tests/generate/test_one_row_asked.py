"""A question that names one row of a table is answered with that row alone: the rows beside it, close in wording and
score, answer other questions (ja/zh/en). A Japanese or Chinese name the question writes as it stands ("東京23区")
looks its row up as an English key term ("Osaka") does."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from bunko import Bunko

POLICIES = {
    "hotel-ja.md": """# 出張規程

## 宿泊費の上限

| 地域 | 一般社員 | 管理職 |
|---|---|---|
| 東京23区 | 12,000円 | 15,000円 |
| 大阪市・名古屋市 | 10,000円 | 13,000円 |
| 上海・北京 | 16,000円 | 19,000円 |
""",
    "hotel-zh.md": """# 差旅制度

## 住宿费上限

| 地区 | 普通员工 | 管理人员 |
|---|---|---|
| 北京市区 | 600元 | 800元 |
| 其他省会城市 | 450元 | 600元 |
| 东京与大阪 | 1200元 | 1500元 |
""",
    "hotel-en.md": """# Travel policy

## Hotel limits per night

| Region | Staff | Manager |
|---|---|---|
| London | 180 GBP | 220 GBP |
| Osaka | 95 GBP | 120 GBP |
| Singapore | 150 GBP | 190 GBP |
""",
}


@pytest.fixture(scope="module")
def policies(folder_of: Callable[[str, Mapping[str, str]], Path]) -> Path:
    return folder_of("hotel-policies", POLICIES)


@pytest.mark.parametrize(
    ("question", "asked", "others"),
    [
        ("東京23区に出張する一般社員の宿泊費の上限はいくらですか？", "12,000円", ["10,000円", "16,000円"]),
        ("去北京市区出差的普通员工住宿费上限是多少？", "600元", ["450元", "1200元"]),
        ("What is the hotel limit per night for staff travelling to Osaka?", "95 GBP", ["180 GBP", "150 GBP"]),
    ],
)
def test_the_row_the_question_names_is_the_whole_answer(
    policies: Path, make_kb: Callable[..., Bunko], question: str, asked: str, others: list[str],
) -> None:
    kb = make_kb(name="hotel-policies")
    kb.ingest([policies])
    answer = kb.ask(question)
    assert not answer.abstained and asked in answer.text, answer.text
    assert not any(other in answer.text for other in others), answer.text
