"""What a question asks of a table, by rule: each aggregate in ja/zh/en, its conditions, and lookups that ask none."""

from __future__ import annotations

import pytest

from bunko.text.table_questions import table_intent


@pytest.mark.parametrize(("question", "operation"), [
    ("How many cities have a hotel limit above 20,000 yen?", "count"),
    ("人口が500万人以上の都道府県はいくつ？", "count"),
    ("价格超过1,000元的产品有几个？", "count"),
    ("What is the total Q3 sales?", "sum"),
    ("関西シートのQ3売上の合計は？", "sum"),
    ("华东地区的人口总和是多少？", "sum"),
    ("What is the average hotel limit?", "avg"),
    ("中部地方の平均面積は？", "avg"),
    ("所有产品的平均价格是多少？", "avg"),
    ("Which city has the highest hotel limit?", "max"),
    ("最も面積が大きい都道府県は？", "max"),
    ("哪个产品价格最高？", "max"),
    ("Which city has the lowest meal allowance?", "min"),
    ("一番人口が少ない都道府県は？", "min"),
    ("哪个产品的库存最少？", "min"),
    ("What are the top 3 cities by hotel limit?", "top"),
    ("人口の上位3都道府県は？", "top"),
    ("价格前三名的产品是哪些？", "top"),
    ("Which are the bottom 2 cities by hotel limit?", "bottom"),
    ("Which product grew the most from Q1 to Q4?", "growth"),
    ("Q1からQ4にかけて売上が最も伸びた製品は？", "growth"),
    ("哪个产品增长最多", "growth"),
    ("What is the difference in population between Tokyo and Osaka?", "difference"),
    ("東京都と大阪府の人口の差は？", "difference"),
    ("笔记本电脑和平板电脑的价格相差多少？", "difference"),
    ("Which cities have a hotel limit below 12,000 yen?", "list"),
    ("面积小于12万平方公里的省份有哪些？", "list"),
])
def test_each_aggregate_is_recognised_in_each_language(question: str, operation: str) -> None:
    intent = table_intent(question)
    assert intent is not None and intent.operation == operation, intent


@pytest.mark.parametrize(("question", "op", "value"), [
    ("How many cities have a meal allowance of at least 6,000 yen?", ">=", 6000),
    ("面積が5,000 km²未満の都道府県は何件？", "<", 5000),
    ("人口が500万人以上の都道府県はいくつ？", ">=", 5_000_000),
    ("人口超过8000万的省份有几个？", ">", 80_000_000),
    ("価格が1,000円以下の商品はどれ？", "<=", 1000),
])
def test_conditions_carry_their_operator_and_value(question: str, op: str, value: float) -> None:
    intent = table_intent(question)
    assert intent is not None
    [condition] = intent.conditions
    assert (condition.op, condition.quantity.value) == (op, value)


@pytest.mark.parametrize(("question", "n"), [
    ("top 5 products", 5), ("上位3", 3), ("人口排名前5的省份", 5), ("前三名", 3), ("上位３の地域", 3), ("TOP ٣ products", 3), ("后十名", 10),
])
def test_top_n_reads_its_n(question: str, n: int) -> None:
    intent = table_intent(question)
    assert intent is not None and intent.n == n


@pytest.mark.parametrize(("question", "group"), [
    ("What is the average hotel limit by country?", "country"), ("地方別の人口の合計は？", "地方"), ("按类别统计库存的总和", "类别"),
])
def test_grouped_questions_name_what_they_group_by(question: str, group: str) -> None:
    intent = table_intent(question)
    assert intent is not None and intent.group == group


@pytest.mark.parametrize("question", [
    "What is the hotel limit for London?", "大阪府の人口は？", "笔记本电脑的价格是多少？", "How do I configure sudo?",
    "如果月度可用性低于95.0%，服务抵扣比例是多少？", "婚假有几天？",
])
def test_lookups_and_plain_questions_ask_no_aggregate(question: str) -> None:
    assert table_intent(question) is None


@pytest.mark.parametrize(("question", "operation"), [
    ("debuild printed lines starting with O:. What do they mean?", None),
    ("What does the trust code m mean?", None),
    ("What is the mean of the hotel limits?", "avg"),
    ("ホテル上限額の平均は？", "avg"),
    ("这些行以 O: 开头是什么意思？", None),
])
def test_mean_as_a_verb_asks_for_a_meaning_not_an_average(question: str, operation: str | None) -> None:
    intent = table_intent(question)
    assert (intent.operation if intent else None) == operation
