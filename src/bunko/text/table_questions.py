"""What a question asks of a table, by rule, in ja/zh/en: the operation, how many, and the conditions on values.

"how many regions have a limit above 20,000 yen" is a count with the condition > 20000 JPY; "関西シートのQ3売上の
合計" a sum; "哪个产品增长最多" the row with the largest growth; "上位3" the top three. The question's words that
name columns, rows and sheets are matched against a table elsewhere (`retrieve/table_plan.py`); this module
reads only the shape of the question, so the router can tell an aggregate question before any table is read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bunko.text.lazy_regex import lazy_compile, lazy_union
from bunko.text.lexicon import en, ja, zh
from bunko.text.numbers import DATE, Quantity, normalize, quantity_spans

COUNT, SUM, AVG, MAX, MIN, TOP, BOTTOM = "count", "sum", "avg", "max", "min", "top", "bottom"
GROWTH, DIFFERENCE, LIST = "growth", "difference", "list"
OPERATIONS = (COUNT, SUM, AVG, MAX, MIN, TOP, BOTTOM, GROWTH, DIFFERENCE, LIST)

_NUMBER_WORDS = "|".join(en.NUMERAL_DIGITS)
_N = rf"(\d+|[{''.join(zh.DIGIT_VALUES)}]|\b(?:{_NUMBER_WORDS})\b)"

_TOP = lazy_compile("|".join(part.format(n=_N) for part in (en.TOP_RANK, ja.TOP_RANK, zh.TOP_RANK)), re.IGNORECASE)
_BOTTOM = lazy_compile("|".join(part.format(n=_N) for part in (en.BOTTOM_RANK, ja.BOTTOM_RANK, zh.BOTTOM_RANK)), re.IGNORECASE)
"""Each language's branches together: two branches that start where the other starts never both match (their first
characters differ), so the order of the languages changes no match."""
_NUMERAL = lazy_union((rf"[\d{''.join(zh.DIGIT_VALUES)}]", rf"\b(?:{_NUMBER_WORDS})\b"), re.IGNORECASE)
"""Every branch of _TOP and _BOTTOM holds a number (`_N`, whose characters have no case): a question without one
is neither, and skips their two searches (4 µs of the ~60 µs routing takes)."""
_GROWTH = lazy_union((en.GROWTH, ja.GROWTH, zh.GROWTH), re.IGNORECASE)
_DECLINE = lazy_union((en.DECLINE, ja.DECLINE, zh.DECLINE), re.IGNORECASE)
_DIFFERENCE = lazy_union((en.DIFFERENCE, ja.DIFFERENCE, zh.DIFFERENCE), re.IGNORECASE)
_COUNT = lazy_union((en.COUNT, ja.COUNT, zh.COUNT), re.IGNORECASE)
_SUM = lazy_union((en.SUM, ja.SUM, zh.SUM), re.IGNORECASE)
_AVG = lazy_union((en.AVERAGE, ja.AVERAGE), re.IGNORECASE)
"""Averages; "what do these lines mean?" asks for a meaning."""
_HIGH = lazy_union((en.HIGHEST, ja.HIGHEST, zh.HIGHER, en.HIGHER), re.IGNORECASE)
_LOW = lazy_union((en.LOWEST, ja.LOWEST, zh.LOWER, en.LOWER), re.IGNORECASE)
_LATEST = lazy_union((en.LATEST, ja.LATEST, zh.LATEST), re.IGNORECASE)
_EARLIEST = lazy_union((en.EARLIEST, ja.EARLIEST, zh.EARLIEST), re.IGNORECASE)
_FIRST = lazy_union((en.FIRST, ja.FIRST, zh.FIRST), re.IGNORECASE)
_LAST = lazy_union((en.LAST, ja.LAST, zh.LAST), re.IGNORECASE)
"""A ranking by time ("the newest", 最古, 最早; "which … first" when a row is asked for): the row whose date is the
latest or the earliest, read from a column that holds when (`by_time`)."""
_GROUP = lazy_compile(f"{en.GROUPED_BY}|{ja.GROUPED_BY}|{zh.GROUPED_BY}", re.IGNORECASE)
_WHICH = lazy_union((en.WHICH_ROWS, ja.WHICH_ROWS, zh.WHICH_ROWS), re.IGNORECASE)
"""A question that asks for the rows themselves: with conditions and no other operation, it lists them."""
_CONTAINS = lazy_union((en.CONTAINS, ja.CONTAINS, zh.CONTAINS), re.IGNORECASE)
_QUOTED = lazy_compile(r"[\"'“‘「『]([^\"'”’」』]{1,40})[\"'”’」』]")

_SYMBOLS_BEFORE_NUMBER = ("", "|>=|≥", "", "|<=|≤", "", "", "|=")
"""The comparison signs that may stand before a number, in the order of en.COMPARISONS_BEFORE_NUMBER."""
_PREFIX_OPS: tuple[tuple[str, str], ...] = (
    *(
        (f"(?:{english}|{chinese}{symbols})", op)
        for (english, op), (chinese, _), symbols in zip(
            en.COMPARISONS_BEFORE_NUMBER, zh.COMPARISONS_BEFORE_NUMBER, _SYMBOLS_BEFORE_NUMBER, strict=True
        )
    ),
    (r">", ">"),
    (r"<", "<"),
)
_SUFFIX_OPS: tuple[tuple[str, str], ...] = tuple(
    ("(?:" + "|".join(words for words in (japanese, chinese, english) if words) + ")", op)
    for (japanese, op), (chinese, _), (english, _) in zip(
        ja.COMPARISONS_AFTER_NUMBER, zh.COMPARISONS_AFTER_NUMBER, en.COMPARISONS_AFTER_NUMBER, strict=True
    )
)

_PREFIX_PATTERNS = tuple((lazy_compile(rf"{pattern}\s*(?:the\s+)?(?:of\s+)?$"), op) for pattern, op in _PREFIX_OPS)
_SUFFIX_PATTERNS = tuple((lazy_compile(rf"\s*(?:[a-z][a-z0-9²³]{{0,4}}|[^\x00-\x7f]{{0,2}}?)\s*{pattern}"), op) for pattern, op in _SUFFIX_OPS)
"""The operators around a number, compiled once: built and looked up per number, they were a fifth of routing a question
that holds one."""


@dataclass
class Condition:
    op: str
    """> >= < <= ="""
    quantity: Quantity
    start: int
    """Where the condition is in the normalised question (the column it constrains is named near it)."""


@dataclass
class TableIntent:
    operation: str
    """count | sum | avg | max | min | top | bottom | growth | difference | list (the rows a filter keeps)"""
    cue: str
    """The words that gave the operation, for the trace and the answer's wording."""
    n: int | None = None
    conditions: list[Condition] = field(default_factory=list)
    group: str | None = None
    """The words a grouped question groups by ("region" of "by region", 地域 of 地域別), or None."""
    decline: bool = False
    """A growth question about the largest fall."""
    contains: str | None = None
    """A quoted text the rows must contain."""
    low: bool = False
    """The question wants the lowest (of a group, of a growth) rather than the highest."""
    by_time: bool = False
    """A ranking by time (max: the latest, min: the earliest): the column read is one that holds when (a date, a year,
    a release), never another number; a table without one cannot rank its rows so."""
    total: bool = False
    """A count that also asks for a total ("how many … together", 全部足すと何件): when the table holds the number
    asked (a "number of packages" column, a size in kilobytes), that column is summed instead of the rows counted."""


def _number(text: str) -> int:
    if text.lower() in en.NUMERAL_DIGITS:
        return int(en.NUMERAL_DIGITS[text.lower()])
    return zh.DIGIT_VALUES[text] if text in zh.DIGIT_VALUES else int(text)


def _first_group(match: re.Match[str]) -> str:
    return next(g for g in match.groups() if g)


def _conditions(clean: str, skip: list[tuple[int, int]]) -> tuple[list[Condition], list[tuple[int, int]]]:
    conditions: list[Condition] = []
    spans: list[tuple[int, int]] = []
    lowered = clean.lower()
    for start, end, quantity in quantity_spans(clean):
        if any(s <= start < e for s, e in skip):
            continue
        before = lowered[max(0, start - 24):start]
        after = lowered[end:end + 12]
        found = None
        for prefix, op in _PREFIX_PATTERNS:
            match = prefix.search(before)
            if match:
                found = (op, start - (len(before) - match.start()), end)
                break
        if found is None:
            for suffix, op in _SUFFIX_PATTERNS:
                match = suffix.match(after)
                if match:
                    found = (op, start, end + match.end())
                    break
        if found is not None and (quantity.kind != DATE or found[0] != "="):
            conditions.append(Condition(found[0], quantity, found[1]))
            spans.append((found[1], found[2]))
    return conditions, spans


def _by_time(text: str) -> tuple[str, str] | None:
    """(max or min, the cue) for a question that ranks rows by time: a temporal superlative anywhere, an ordinal
    ("first", 最初に, 最先) only beside a word asking for a row."""
    latest, earliest = _LATEST.search(text), _EARLIEST.search(text)
    if latest is None and earliest is None and _WHICH.search(text):
        latest, earliest = _LAST.search(text), _FIRST.search(text)
    found = [(m.start(), op, m.group()) for m, op in ((latest, MAX), (earliest, MIN)) if m is not None]
    if not found:
        return None
    _, op, cue = min(found)
    return op, cue


def table_intent(question: str) -> TableIntent | None:
    """The aggregate a question asks for, or None when it asks none (a lookup: "what is the hotel limit for London")."""
    clean = normalize(question)
    top, bottom = (_TOP.search(clean), _BOTTOM.search(clean)) if _NUMERAL.search(clean) else (None, None)
    skip = [m.span() for m in (top, bottom) if m]
    conditions, spans = _conditions(clean, skip)
    rest = clean
    for s, e in sorted(spans, reverse=True):
        rest = rest[:s] + " " * (e - s) + rest[e:]
    quoted = _QUOTED.search(clean)
    contains = quoted.group(1) if quoted and _CONTAINS.search(clean) else None
    high, low = _HIGH.search(rest), _LOW.search(rest)
    wants_low = low is not None and (high is None or low.start() < high.start())
    intent: TableIntent | None = None
    if top:
        intent = TableIntent(TOP, top.group(), _number(_first_group(top)))
    elif bottom:
        intent = TableIntent(BOTTOM, bottom.group(), _number(_first_group(bottom)))
    elif (growth := _GROWTH.search(rest)) and (high or low or (_COUNT.search(rest) is None and (_DECLINE.search(rest) is None))):
        intent = TableIntent(GROWTH, growth.group(), decline=False, low=wants_low)
    elif (decline := _DECLINE.search(rest)) and (high or low):
        intent = TableIntent(GROWTH, decline.group(), decline=True, low=wants_low)
    elif difference := _DIFFERENCE.search(rest):
        intent = TableIntent(DIFFERENCE, difference.group())
    elif (count := _COUNT.search(rest)) and not _AVG.search(rest):
        # "how many" beside "average" (平均人口はいくつ) asks what the average is, not how many rows there are
        intent = TableIntent(COUNT, count.group(), total=_SUM.search(rest) is not None)
    elif avg := _AVG.search(rest):
        intent = TableIntent(AVG, avg.group())
    elif total := _SUM.search(rest):
        intent = TableIntent(SUM, total.group())
    elif timed := _by_time(rest):
        intent = TableIntent(timed[0], timed[1], by_time=True)
    elif low and wants_low:
        intent = TableIntent(MIN, low.group())
    elif high:
        intent = TableIntent(MAX, high.group())
    elif (conditions or contains) and (which := _WHICH.search(rest)):
        intent = TableIntent(LIST, which.group())
    if intent is None:  # most questions the router sees: the group pattern, the slowest here, is not needed
        return None
    intent.conditions, intent.contains = conditions, contains
    group_match = _GROUP.search(rest)
    group = _first_group(group_match).strip() if group_match else None
    if group and intent.operation in (SUM, AVG, COUNT, MAX, MIN):
        intent.group = group
    if intent.operation in (SUM, AVG, COUNT) and (high or low) and group:
        intent.low = wants_low
    return intent


def is_table_question(question: str) -> bool:
    """Whether a question asks for an aggregate over rows (the router sends it to the table route)."""
    return table_intent(question) is not None
