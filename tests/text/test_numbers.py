"""Numbers as tables and questions write them, in ja/zh/en: separators, kanji multipliers, currencies, percents, dates."""

from __future__ import annotations

import datetime as dt

import pytest

from bunko.text.numbers import CURRENCY, DATE, NUMBER, PERCENT, find_quantities, format_number, parse_quantity


@pytest.mark.parametrize(("text", "value", "unit", "kind"), [
    ("1,200円", 1200, "JPY", CURRENCY),
    ("¥1,200", 1200, "JPY", CURRENCY),
    ("1.2万", 12000, "", NUMBER),
    ("3千", 3000, "", NUMBER),
    ("1億2千万", 120_000_000, "", NUMBER),
    ("1万5000", 15000, "", NUMBER),
    ("１２０", 120, "", NUMBER),
    ("１，２００円", 1200, "JPY", CURRENCY),
    ("12.5％", 12.5, "%", PERCENT),
    ("▲300", -300, "", NUMBER),
    ("13,960千人", 13_960_000, "人", NUMBER),
])
def test_japanese_cells_are_read_as_quantities(text: str, value: float, unit: str, kind: str) -> None:
    found = parse_quantity(text)
    assert found is not None and (found.value, found.unit, found.kind) == (value, unit, kind)


@pytest.mark.parametrize(("text", "value", "unit", "kind"), [
    ("3000元", 3000, "CNY", CURRENCY),
    ("人民币3,000", 3000, "CNY", CURRENCY),
    ("2.5亿", 250_000_000, "", NUMBER),
    ("12%", 12, "%", PERCENT),
    ("8372", 8372, "", NUMBER),
    ("48.60", 48.6, "", NUMBER),
])
def test_chinese_cells_are_read_as_quantities(text: str, value: float, unit: str, kind: str) -> None:
    found = parse_quantity(text)
    assert found is not None and (found.value, found.unit, found.kind) == (value, unit, kind)


@pytest.mark.parametrize(("text", "value", "unit", "kind"), [
    ("$3.5k", 3500, "USD", CURRENCY),
    ("US$ 12", 12, "USD", CURRENCY),
    ("12 %", 12, "%", PERCENT),
    ("(1,000)", -1000, "", NUMBER),
    ("3.5 million", 3_500_000, "", NUMBER),
    ("2,194 km²", 2194, "km2", NUMBER),
    ("-4.25", -4.25, "", NUMBER),
])
def test_english_cells_are_read_as_quantities(text: str, value: float, unit: str, kind: str) -> None:
    found = parse_quantity(text)
    assert found is not None and (found.value, found.unit, found.kind) == (value, unit, kind)


@pytest.mark.parametrize("text", ["2024年4月1日", "２０２４年４月１日", "2024-04-01", "2024/4/1", "1 April 2024", "April 1, 2024"])
def test_dates_in_each_language_are_the_same_day(text: str) -> None:
    found = parse_quantity(text)
    assert found is not None and found.kind == DATE and found.date == dt.date(2024, 4, 1)


@pytest.mark.parametrize("text", ["E-1024", "London", "東京都", "12 items in the warehouse today", ""])
def test_text_and_codes_are_not_quantities(text: str) -> None:
    assert parse_quantity(text) is None


@pytest.mark.parametrize("text", [
    "2024年13月1日", "２０２４年１３月１日", "2024年13月", "2024年2月30日", "2023年2月29日", "2024年4月31日",  # ja
    "2024年4月31号", "2024年13月1号", "2024年0月1号",  # zh
    "2024-13-01", "2024/2/30", "2024.04.32", "2024-00-10", "32 April 2024", "April 31, 2024", "29 February 2023",  # en / ISO
])
def test_a_date_that_is_no_day_is_no_quantity(text: str) -> None:
    """Not a date, and not the year with the rest of the date for its unit (2024, "年13月1日")."""
    assert parse_quantity(text) is None


@pytest.mark.parametrize(("text", "day"), [
    ("2024年2月29日", dt.date(2024, 2, 29)), ("2024年4月30日", dt.date(2024, 4, 30)), ("2024年12月", dt.date(2024, 12, 1)),  # ja
    ("2024年4月30号", dt.date(2024, 4, 30)), ("２０２４年１２月３１号", dt.date(2024, 12, 31)),  # zh
    ("2024-02-29", dt.date(2024, 2, 29)), ("2024/12/31", dt.date(2024, 12, 31)), ("2024.01.31", dt.date(2024, 1, 31)),  # en / ISO
    ("29 February 2024", dt.date(2024, 2, 29)), ("December 31, 2024", dt.date(2024, 12, 31)),
])
def test_the_last_days_of_months_are_dates(text: str, day: dt.date) -> None:
    found = parse_quantity(text)
    assert found is not None and (found.kind, found.date, found.unit) == (DATE, day, "")


def test_a_year_and_a_decimal_near_dates_stay_numbers() -> None:
    bare = parse_quantity("2024")
    assert bare is not None and (bare.value, bare.unit, bare.kind) == (2024, "", NUMBER)
    year = parse_quantity("2024年")
    assert year is not None and (year.value, year.unit, year.kind) == (2024, "年", NUMBER)
    decimal = parse_quantity("2024.13")  # a decimal, not a month: no day part makes it date-shaped
    assert decimal is not None and (decimal.value, decimal.kind) == (2024.13, NUMBER)


def test_thresholds_are_found_in_questions_in_each_language() -> None:
    [en] = [q for q in find_quantities("how many regions have a limit above 20,000 yen in Q3?")]
    assert (en.value, en.unit) == (20000, "JPY")  # "Q3" is a name, not a number
    ja = find_quantities("上限が2万円を超える地域は？2024年4月1日以降")
    assert [(q.value, q.kind) for q in ja] == [(20000, CURRENCY), (dt.date(2024, 4, 1).toordinal(), DATE)]
    [zh] = find_quantities("增长超过15%的产品有几个")
    assert (zh.value, zh.kind) == (15, PERCENT)


def test_results_are_written_with_separators_and_no_trailing_zeros() -> None:
    assert format_number(1234567.0) == "1,234,567"
    assert format_number(20994.4444) == "20,994.44"
    assert format_number(0.5) == "0.5"
