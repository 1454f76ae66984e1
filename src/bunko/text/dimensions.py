"""Which kind of quantity a question asks for — a duration, a time of day, a month, a size, a percentage, a key
combination — and whether a text states one.

"How many minutes does sudo remember the password?" is answered by "15 minutes", not by any sentence with a
digit in it. A passage about sudo that gives a path or a version number holds *a* value but not the one asked
for; quoting it is the typical wrong answer to a question whose number the documents do not give (the Debian
Reference set: 何分, 几秒, 几点钟, 多长时间 — each answered from a passage without a time in it). Only questions that
name the dimension in their interrogative ("how many seconds", 何分, 几点, 多大, 何月) get one; "what is the default
timeout?" names none (an answer may well be a bare number), so it gets none and nothing is asked of the answer.
"""

from __future__ import annotations

import re
from enum import StrEnum

from bunko.text.lazy_regex import lazy_compile
from bunko.text.lexicon import en, ja, zh


class Dimension(StrEnum):
    PERCENT = "percent"
    MONTH = "month"
    TIME_OF_DAY = "time_of_day"
    SIZE = "size"
    DURATION = "duration"
    KEY_COMBINATION = "key_combination"



SHORTCUT_NAMES = rf"\b(?:{en.SHORTCUT_NAMES})s?\b|{ja.SHORTCUT_NAMES}|{zh.SHORTCUT_NAMES}"
"""The names of a key combination (shortcut, ショートカット, 快捷键): a question naming one asks for a value, and with
"which/what" (or a Japanese or Chinese name) for the KEY_COMBINATION dimension."""

# Checked in this order: "物理メモリーの何％" asks for a percentage even though it is about a size limit.
_ASKED: list[tuple[Dimension, str]] = [
    (dimension, "|".join(lexicon.DIMENSION_QUESTIONS[dimension.value] for lexicon in (ja, zh, en)))
    for dimension in (Dimension.PERCENT, Dimension.MONTH, Dimension.TIME_OF_DAY, Dimension.SIZE, Dimension.DURATION,
                      Dimension.KEY_COMBINATION)
]
"""Each dimension's interrogatives in the three languages; any of them names it (searched for, so their order is free)."""
_ASKED_RES = [(dimension, lazy_compile(pattern, re.IGNORECASE)) for dimension, pattern in _ASKED]

_NUMERAL = rf"(?:\d+(?:[.,]\d+)*|[{zh.HAN_COUNT_NUMERALS}]+|\b(?:{en.NUMBER_WORDS})\b)"

_NOT_WORDS: dict[Dimension, str] = {
    Dimension.PERCENT: r"\d\s*[%％]",
    Dimension.MONTH: r"\b\d{4}-\d{1,2}\b|\b\d{1,2}/\d{1,2}/\d{2,4}\b",
    Dimension.TIME_OF_DAY: r"\b\d{1,2}:\d{2}\b|\bOnCalendar=|\b\d{1,2}\s+\d{1,2}\s+\*\s+\*\s+\*",
    Dimension.SIZE: r"\d\s*(?:[KMGTPE]i?B\b|[KMGTPE]\b|[%％])",
    Dimension.DURATION: rf"{_NUMERAL}\s*-?\s*{en.TIME_UNITS}\b|{_NUMERAL}\s*(?:{ja.DURATION_UNITS}|{zh.DURATION_UNITS})|\b\d+\s*(?:s|m|h|d|ms)\b",
    Dimension.KEY_COMBINATION: r"\b[CMS]-[a-z0-9]\b|\^[A-Z]\b",
}
"""What states a dimension without a word of any language: symbols, numeric dates, clock times, systemd and cron
schedules, unit abbreviations, Emacs and caret key notation (and a number before a duration's unit)."""
_STATED: dict[Dimension, str] = {
    dimension: "|".join(part for part in (
        _NOT_WORDS[dimension], *(lexicon.DIMENSION_STATEMENTS[dimension.value] for lexicon in (en, ja, zh))) if part)
    for dimension in Dimension
}
"""Any of these states the dimension (searched for, so their order is free)."""
_STATED_RES = {dimension: lazy_compile(pattern, re.IGNORECASE) for dimension, pattern in _STATED.items()}


def asked_dimension(question: str) -> Dimension | None:
    """The quantity the question's interrogative names, or None when it names none."""
    for dimension, pattern in _ASKED_RES:
        if pattern.search(question):
            return dimension
    return None


def states_dimension(text: str, dimension: Dimension) -> bool:
    """Whether the text states a quantity of that dimension: a number with a unit of it (spelled-out numbers,
    kanji numerals and frequencies such as "weekly"/每天 count; a bare number does not)."""
    return bool(_STATED_RES[dimension].search(text))


def states_quantity(text: str) -> bool:
    """Whether the text states a quantity of any dimension, spelled out or in kanji numerals ("三天", "twelve days",
    "二十日"): what a digit-only number test misses in a unit that answers how many or how long."""
    return any(pattern.search(text) for pattern in _STATED_RES.values())
