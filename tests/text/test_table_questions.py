"""What a question asks of a table, by rule: each aggregate in ja/zh/en, its conditions, and lookups that ask none."""

from __future__ import annotations

import pytest

from bunko.text.table_questions import table_intent


@pytest.mark.parametrize(("question", "operation"), [
    ("How many ferry routes take longer than 90 minutes?", "count"),
    ("乗客数が2万人以上の航路はいくつ？", "count"),
    ("重量超过500克的西瓜有几个？", "count"),
    ("What is the total rainfall for July?", "sum"),
    ("北陸支店の4月の受注額の合計は？", "sum"),
    ("华南仓库的库存总和是多少？", "sum"),
    ("What is the average ticket price?", "avg"),
    ("東北地方の平均降水量は？", "avg"),
    ("所有果园的平均产量是多少？", "avg"),
    ("Which orchard has the highest yield?", "max"),
    ("最も標高が高い山小屋は？", "max"),
    ("哪个车站客流量最高？", "max"),
    ("Which route has the lowest fare?", "min"),
    ("一番乗客が少ない航路は？", "min"),
    ("哪个仓库的员工最少？", "min"),
    ("What are the top 4 libraries by loans?", "top"),
    ("降水量の上位5地点は？", "top"),
    ("销量前五名的书是哪些？", "top"),
    ("Which are the bottom 3 stations by ridership?", "bottom"),
    ("Which branch grew the most from January to June?", "growth"),
    ("4月から9月にかけて受注額が最も伸びた支店は？", "growth"),
    ("哪个门店增长最多", "growth"),
    ("What is the difference in rainfall between Sendai and Kochi?", "difference"),
    ("仙台と高知の降水量の差は？", "difference"),
    ("苹果和梨的价格相差多少？", "difference"),
    ("Which ferry routes have a fare below 3,000 yen?", "list"),
    ("重量小于300克的水果有哪些？", "list"),
])
def test_each_aggregate_is_recognised_in_each_language(question: str, operation: str) -> None:
    intent = table_intent(question)
    assert intent is not None and intent.operation == operation, intent


@pytest.mark.parametrize(("question", "op", "value"), [
    ("How many ferry routes have a fare of at least 4,500 yen?", ">=", 4500),
    ("標高が1,500 m未満の山小屋は何件？", "<", 1500),
    ("乗客数が200万人以上の航路はいくつ？", ">=", 2_000_000),
    ("客流量超过6000万的车站有几个？", ">", 60_000_000),
    ("価格が1,000円以下の商品はどれ？", "<=", 1000),
])
def test_conditions_carry_their_operator_and_value(question: str, op: str, value: float) -> None:
    intent = table_intent(question)
    assert intent is not None
    [condition] = intent.conditions
    assert (condition.op, condition.quantity.value) == (op, value)


@pytest.mark.parametrize(("question", "n"), [
    ("top 5 products", 5), ("上位3", 3), ("销量排名前5的门店", 5), ("前三名", 3), ("上位３の地域", 3), ("TOP ٣ products", 3), ("后十名", 10),
])
def test_top_n_reads_its_n(question: str, n: int) -> None:
    intent = table_intent(question)
    assert intent is not None and intent.n == n


@pytest.mark.parametrize(("question", "group"), [
    ("What is the average fare by operator?", "operator"), ("支店別の受注額の合計は？", "支店"), ("按门店统计销量的总和", "门店"),
])
def test_grouped_questions_name_what_they_group_by(question: str, group: str) -> None:
    intent = table_intent(question)
    assert intent is not None and intent.group == group


@pytest.mark.parametrize("question", [
    "What is the fare for the Kobe route?", "北陸支店の受注額は？", "苹果的价格是多少？", "How do I configure the backup job?",
    "如果月度可用性低于95.0%，服务抵扣比例是多少？", "婚假有几天？",
])
def test_lookups_and_plain_questions_ask_no_aggregate(question: str) -> None:
    assert table_intent(question) is None


@pytest.mark.parametrize(("question", "operation"), [
    ("The build log printed lines starting with W:. What do they mean?", None),
    ("What does the status letter q mean?", None),
    ("What is the mean of the ferry fares?", "avg"),
    ("フェリー運賃の平均は？", "avg"),
    ("这些以 W: 开头的行是什么意思？", None),
])
def test_mean_as_a_verb_asks_for_a_meaning_not_an_average(question: str, operation: str | None) -> None:
    intent = table_intent(question)
    assert (intent.operation if intent else None) == operation
