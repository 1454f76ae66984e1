"""What a question asks of a table, by rule, in ja/zh/en: the operation, how many, and the conditions on values.

"how many regions have a limit above 20,000 yen" is a count with the condition > 20000 JPY; "関西シートのQ3売上の
合計" a sum; "哪个产品增长最多" the row with the largest growth; "上位3" the top three. The question's words that
name columns, rows and sheets are matched against a table elsewhere (`retrieve/table_plan.py`); this module
reads only the shape of the question, so the router can tell an aggregate question before any table is read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bunko.text.numbers import DATE, Quantity, normalize, quantity_spans

COUNT, SUM, AVG, MAX, MIN, TOP, BOTTOM = "count", "sum", "avg", "max", "min", "top", "bottom"
GROWTH, DIFFERENCE, LIST = "growth", "difference", "list"
OPERATIONS = (COUNT, SUM, AVG, MAX, MIN, TOP, BOTTOM, GROWTH, DIFFERENCE, LIST)

_ZH_DIGITS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
_N = r"(\d+|[一二两三四五六七八九十])"

_TOP = re.compile(rf"\btop\s*{_N}|\b{_N}\s+(?:largest|highest|biggest|most|best)\b|上位\s*{_N}|トップ\s*{_N}|前\s*{_N}\s*[名个位家项]?"
                  rf"|排名前\s*{_N}|多い順に\s*{_N}|高い順に\s*{_N}|大きい順に\s*{_N}", re.IGNORECASE)
_BOTTOM = re.compile(rf"\bbottom\s*{_N}|\b{_N}\s+(?:smallest|lowest|least|fewest|worst)\b|下位\s*{_N}|倒数\s*{_N}|后\s*{_N}\s*[名个位家项]"
                     rf"|少ない順に\s*{_N}|低い順に\s*{_N}|小さい順に\s*{_N}", re.IGNORECASE)
_NUMERAL = re.compile(r"[\d一二两三四五六七八九十]")
"""Every branch of _TOP and _BOTTOM holds a number (`_N`, whose characters have no case): a question without one
is neither, and skips their two searches (4 µs of the ~60 µs routing takes)."""
_GROWTH = re.compile(r"\b(?:increase[ds]?|grew|grown|growth|rose|gain(?:ed)?)\b|増加|伸び|増え|上昇|增长|增加|增幅|涨幅|上涨|提高", re.IGNORECASE)
_DECLINE = re.compile(r"\b(?:decrease[ds]?|declined?|fell|dropped|drop)\b|減少|減っ|下落|低下|减少|下降|下跌|降幅", re.IGNORECASE)
_DIFFERENCE = re.compile(r"\bdifference\b|\bhow much (?:more|higher|larger|less|lower|bigger)\b|の差|差は|差額|相差|差距|差额|差多少"
                         r"|多多少|高多少|少多少", re.IGNORECASE)
_COUNT = re.compile(r"\bhow many\b|\bnumber of\b|\bcount\b|いくつ|何件|何か所|何カ所|何ヶ所|何個|何社|何つ|何品目|何(?:都道府県|地域|県|支店|製品|商品|人)"
                    r"|件数|(?:多少|几)(?:个|家|种|项|位|座|名|款|条|所|省|地区|城市)", re.IGNORECASE)
_SUM = re.compile(r"\btotal\b|\bsum\b|\baltogether\b|\bcombined\b|合計|合算|総額|総計|合わせて|総数|总计|总和|合计|总共|一共|总额|加起来|总数",
                  re.IGNORECASE)
_AVG = re.compile(r"\baverage\b|\b(?:the|a|arithmetic) mean\b|\bmean (?:of|value|size|time|price|cost)\b|平均", re.IGNORECASE)
"""Averages; "what do these lines mean?" asks for a meaning."""
_HIGH = re.compile(r"\b(?:highest|largest|biggest|most|maximum|greatest|longest|max)\b|(?:最も|一番)[^。？?]{0,10}?(?:高|多|大き|長)"
                   r"|最(?:大|高|多|長|长)|(?:高|多|大)い(?:のは|方)|更(?:多|高|大|长)|\b(?:higher|more|larger|bigger|greater)\b", re.IGNORECASE)
_LOW = re.compile(r"\b(?:lowest|smallest|least|fewest|minimum|cheapest|shortest|min)\b|(?:最も|一番)[^。？?]{0,10}?(?:低|少な|小さ|安|短)"
                  r"|最(?:小|低|少|短|便宜)|(?:低|少な|小さ|安)い(?:のは|方)|更(?:少|低|小|便宜)|\b(?:lower|less|fewer|smaller|cheaper)\b",
                  re.IGNORECASE)
_GROUP = re.compile(r"\b(?:by|per|for each|each)\s+([a-z][\w ]{1,30}?)\b(?=[\s?.,]|$)|([^\s、。？?]{1,8}?)(?:ごと|別)(?:の|に)?|按\s*([^\s，。？?]{1,8}?)(?:统计|汇总|分组|计算|的)"
                    r"|每个\s*([^\s，。？?]{1,6})|各\s*([^\s，。？?]{1,6}?)的", re.IGNORECASE)
_WHICH = re.compile(r"\b(?:which|list|what are|name the|show)\b|どの|どれ|どこ|一覧|挙げ|哪些|哪个|哪几|列出|有哪", re.IGNORECASE)
"""A question that asks for the rows themselves: with conditions and no other operation, it lists them."""
_CONTAINS = re.compile(r"\bcontain(?:s|ing)?\b|\binclud(?:e|es|ing)\b|を含む|が含まれ|包含|含有", re.IGNORECASE)
_QUOTED = re.compile(r"[\"'“‘「『]([^\"'”’」』]{1,40})[\"'”’」』]")

_PREFIX_OPS: tuple[tuple[str, str], ...] = (
    (r"(?:more than|greater than|over|above|exceeds?|exceeding|higher than|larger than|bigger than|超过|大于|高于|多于|超出)", ">"),
    (r"(?:at least|no less than|not less than|不少于|不低于|至少|>=|≥)", ">="),
    (r"(?:less than|fewer than|under|below|lower than|smaller than|低于|小于|少于|不到|不足)", "<"),
    (r"(?:at most|no more than|not more than|不超过|不高于|至多|最多|<=|≤)", "<="),
    (r"(?:after|since|later than|以后的|之后的)", ">"),
    (r"(?:before|earlier than|之前的|以前的)", "<"),
    (r"(?:equal to|exactly|等于|=)", "="),
    (r">", ">"),
    (r"<", "<"),
)
_SUFFIX_OPS: tuple[tuple[str, str], ...] = (
    (r"(?:以上)", ">="),
    (r"(?:以下)", "<="),
    (r"(?:超|を超え|を上回|より(?:多|大き|高|長)|を超过|以上的)", ">"),
    (r"(?:未満|を下回|に満たない|より(?:少な|小さ|低|短))", "<"),
    (r"(?:以降|以后|之后|or later|or more|and above|or above)", ">="),
    (r"(?:以前|之前|or earlier|or less|and below|or below)", "<="),
)

_PREFIX_PATTERNS = tuple((re.compile(rf"{pattern}\s*(?:the\s+)?(?:of\s+)?$"), op) for pattern, op in _PREFIX_OPS)
_SUFFIX_PATTERNS = tuple((re.compile(rf"\s*(?:[a-z][a-z0-9²³]{{0,4}}|[^\x00-\x7f]{{0,2}}?)\s*{pattern}"), op) for pattern, op in _SUFFIX_OPS)
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


def _number(text: str) -> int:
    return _ZH_DIGITS[text] if text in _ZH_DIGITS else int(text)


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
    elif count := _COUNT.search(rest):
        intent = TableIntent(COUNT, count.group())
    elif avg := _AVG.search(rest):
        intent = TableIntent(AVG, avg.group())
    elif total := _SUM.search(rest):
        intent = TableIntent(SUM, total.group())
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
