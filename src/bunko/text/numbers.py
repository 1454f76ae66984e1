"""Numbers as people write them in ja/zh/en tables and questions: separators, units, currencies, dates.

A table cell "1,200円", "1.2万", "1億2千万", "12 %", "¥1,200", "$3.5k", "２０２４年４月１日" or "▲300" is a
value a sum or a comparison can use only once it is read as one: this module is the one rule for that, shared
by the table store (column typing) and the aggregate questions (thresholds such as "above 20,000 yen").
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from dataclasses import dataclass

from bunko.text.lazy_regex import lazy_compile
from bunko.text.lexicon import common, en, ja, zh

NUMBER, PERCENT, CURRENCY, DATE = "number", "percent", "currency", "date"
NUMERIC_KINDS = frozenset({NUMBER, PERCENT, CURRENCY})


@dataclass(frozen=True)
class Quantity:
    value: float
    """The number itself (1.2万 → 12000.0); a date's is its proleptic ordinal, so dates compare and sort."""
    unit: str
    """A currency's code (JPY, CNY, USD, EUR, GBP), "%" for a percent, a measure's own suffix (km², 人), or ""."""
    kind: str
    """number | percent | currency | date"""
    text: str
    """The text it was read from."""

    @property
    def date(self) -> dt.date | None:
        return dt.date.fromordinal(int(self.value)) if self.kind == DATE else None


_CURRENCY_PREFIX = {**zh.CURRENCY_BEFORE_NUMBER, **common.CURRENCY_SIGNS, **common.CURRENCY_CODES}
_CURRENCY_SUFFIX = {**ja.CURRENCY_WORDS, **zh.CURRENCY_WORDS, **en.CURRENCY_WORDS, **common.CURRENCY_CODES}
_PERCENT_SUFFIX = ("%", *ja.PERCENT_WORDS, *en.PERCENT_WORDS)

_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+"
_KANJI_UNITS = "".join(zh.HAN_LARGE_UNITS) + "".join(zh.HAN_SMALL_UNITS)
_AMOUNT = rf"(?:{_NUM})(?:\s*[{_KANJI_UNITS}](?:\s*(?:{_NUM}))?)*(?:\s*[{_KANJI_UNITS}])?"
_SIGN = r"[-+−▲△]"
_PREFIX = f"{common.CURRENCY_SIGN_PATTERN}|{zh.CURRENCY_BEFORE_NUMBER_PATTERN}|{common.CURRENCY_CODE_PATTERN}"
_SUFFIX = f"{ja.CURRENCY_AFTER_NUMBER}|{zh.CURRENCY_AFTER_NUMBER}|%|{'|'.join(ja.PERCENT_WORDS)}|{en.UNITS_AFTER_NUMBER}"
"""ja and zh currency words start with different characters, so their order changes no match."""

_QUANTITY = lazy_compile(
    rf"(?P<sign>{_SIGN})?\s*(?P<prefix>{_PREFIX})?\s*(?P<sign2>{_SIGN})?(?P<amount>{_AMOUNT})(?P<scale>{en.SCALE_PATTERN})?"
    rf"\s*(?P<suffix>{_SUFFIX})?",
    re.IGNORECASE,
)
_DATE = lazy_compile(rf"(?P<y>\d{{4}})\s*(?:{zh.YEAR_MONTH_DAY}|[-/.](?P<m2>\d{{1,2}})[-/.](?P<d2>\d{{1,2}}))")
_EN_MONTHS = {m: i for i, m in enumerate(en.MONTH_ABBREVIATIONS, start=1)}
_EN_DATE = lazy_compile(
    r"\b(?:(?P<d1>\d{1,2})\s+(?P<m1>[A-Za-z]{3,9})\.?,?\s+(?P<y1>\d{4})|(?P<m2>[A-Za-z]{3,9})\.?\s+(?P<d2>\d{1,2}),?\s+(?P<y2>\d{4}))\b"
)
_PAREN_NEGATIVE = lazy_compile(r"^\((.+)\)$")
_ANY_DIGIT = lazy_compile(r"\d")


def normalize(text: str) -> str:
    """NFKC (full-width digits, ％, ￥ stay readable) with the ideographic comma and minus read as ASCII."""
    text = unicodedata.normalize("NFKC", text)
    return text.replace("，", ",").replace("、", ",").replace("−", "-").replace("\u2212", "-").replace("\u3000", " ")


def _amount_value(amount: str) -> float:
    """"1億2千万" → 120000000; "1.2万" → 12000; "1万5000" → 15000; "13,960" → 13960."""
    total = 0.0
    section = 0.0
    pending: float | None = None
    for token in re.findall(rf"{_NUM}|[{_KANJI_UNITS}]", amount.replace(" ", "")):
        if token in zh.HAN_LARGE_UNITS:
            total += (section + (pending or 0.0)) * zh.HAN_LARGE_UNITS[token] if (section or pending) else zh.HAN_LARGE_UNITS[token]
            section, pending = 0.0, None
        elif token in zh.HAN_SMALL_UNITS:
            section += (pending if pending is not None else 1.0) * zh.HAN_SMALL_UNITS[token]
            pending = None
        else:
            pending = float(token.replace(",", ""))
    return total + section + (pending or 0.0)


def _from_match(match: re.Match[str]) -> Quantity:
    amount = _amount_value(match.group("amount"))
    scale = (match.group("scale") or "").strip().lower()
    if scale:
        amount *= en.SCALE_WORDS[scale]
    negative = any((match.group(g) or "") in ("-", "−", "▲", "△") for g in ("sign", "sign2"))
    value = -amount if negative else amount
    prefix = (match.group("prefix") or "").strip().lower()
    suffix = (match.group("suffix") or "").strip().lower()
    if suffix in _PERCENT_SUFFIX:
        return Quantity(value, "%", PERCENT, match.group().strip())
    currency = _CURRENCY_PREFIX.get(prefix) or _CURRENCY_SUFFIX.get(suffix)
    if currency:
        return Quantity(value, currency, CURRENCY, match.group().strip())
    return Quantity(value, "", NUMBER, match.group().strip())


def _date(match: re.Match[str]) -> dt.date | None:
    year = int(match.group("y"))
    month = int(match.group("m1") or match.group("m2"))
    day = int(match.group("d1") or match.group("d2") or 1)
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None


def _en_date(match: re.Match[str]) -> dt.date | None:
    month = _EN_MONTHS.get((match.group("m1") or match.group("m2"))[:3].lower())
    if month is None:
        return None
    try:
        return dt.date(int(match.group("y1") or match.group("y2")), month, int(match.group("d1") or match.group("d2")))
    except ValueError:
        return None


def parse_date(text: str) -> Quantity | None:
    """A whole cell that is a date: 2024-04-01, 2024/4/1, 2024年4月1日 (2024年4月 is its first day), 1 April 2024."""
    clean = normalize(text).strip()
    for pattern, read in ((_DATE, _date), (_EN_DATE, _en_date)):
        match = pattern.fullmatch(clean)
        if match:
            day = read(match)
            if day is not None:
                return Quantity(float(day.toordinal()), "", DATE, text.strip())
    return None


MAX_UNIT_CHARS = 6
"""A cell "2,194 km²" or "13,960千人" is a number with a unit; a longer tail ("12 items in stock") is text."""


def parse_quantity(text: str) -> Quantity | None:
    """The quantity a whole table cell holds, or None when the cell is not one (text, empty, a code such as "E-1024").

    A bare year-like integer stays a number; a short trailing unit (km², 人, kg) is kept as the unit. A cell written
    as a date that is no day ("2024年13月1日", "2024-02-30") is none: not a date, and not the year with the rest of
    the date for its unit."""
    clean = normalize(text).strip()
    if not clean:
        return None
    date = parse_date(clean)
    if date is not None:
        return Quantity(date.value, "", DATE, text.strip())
    if _DATE.fullmatch(clean):
        return None
    negative = _PAREN_NEGATIVE.match(clean)
    inner = negative.group(1) if negative else clean
    match = _QUANTITY.match(inner)
    if match is None or not match.group("amount"):
        return None
    rest = inner[match.end():].strip()
    if rest and (len(rest) > MAX_UNIT_CHARS or not re.fullmatch(r"[^\s\d,;:][^\s,;:]*", rest)):
        return None
    found = _from_match(match)
    value = -found.value if negative else found.value
    unit = found.unit or rest
    return Quantity(value, unit, found.kind, text.strip())


def find_quantities(text: str) -> list[Quantity]:
    """Every quantity written in a text (a question's thresholds), dates first read as dates, left to right."""
    return [q for _, _, q in quantity_spans(normalize(text))]


_WORD_BEFORE = lazy_compile(r"[A-Za-z_]")


def quantity_spans(clean: str) -> list[tuple[int, int, Quantity]]:
    """The quantities of an already `normalize`d text with where each is (start, end)."""
    if _ANY_DIGIT.search(clean) is None:  # every pattern below needs a digit; most questions routed have none
        return []
    found: list[tuple[int, int, Quantity]] = []
    taken: list[tuple[int, int]] = []
    for pattern, read in ((_DATE, _date), (_EN_DATE, _en_date)):
        for match in pattern.finditer(clean):
            day = read(match)
            if day is not None:
                found.append((*match.span(), Quantity(float(day.toordinal()), "", DATE, match.group())))
                taken.append(match.span())
    for match in _QUANTITY.finditer(clean):
        if not match.group("amount") or any(s < match.end() and match.start() < e for s, e in taken):
            continue
        first = match.start() + len(match.group()) - len(match.group().lstrip())
        if first > 0 and _WORD_BEFORE.match(clean[first - 1]) and not match.group("prefix"):
            continue  # part of an identifier ("Q3", "E-1024")
        quantity = _from_match(match)
        found.append((first, first + len(quantity.text), quantity))
    return sorted(found, key=lambda item: item[0])


def format_number(value: float, decimals: int = 2) -> str:
    """A result as a person reads it: thousands separators, no trailing ".0", at most `decimals` places."""
    if abs(value - round(value)) < 1e-9:
        return f"{round(value):,}"
    text = f"{value:,.{decimals}f}".rstrip("0").rstrip(".")
    return text
