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


class Dimension(StrEnum):
    PERCENT = "percent"
    MONTH = "month"
    TIME_OF_DAY = "time_of_day"
    SIZE = "size"
    DURATION = "duration"
    KEY_COMBINATION = "key_combination"


_TIME_UNITS_EN = r"(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?)"

_SHORTCUT_EN = r"shortcut|hotkey|key ?binding|key combination"
_SHORTCUT_CJK = r"ショートカット|キーバインド|快捷键|组合键|热键"
SHORTCUT_NAMES = rf"\b(?:{_SHORTCUT_EN})s?\b|{_SHORTCUT_CJK}"
"""The names of a key combination (shortcut, ショートカット, 快捷键): a question naming one asks for a value, and with
"which/what" (or a Japanese or Chinese name) for the KEY_COMBINATION dimension."""

# Checked in this order: "物理メモリーの何％" asks for a percentage even though it is about a size limit.
_ASKED: list[tuple[Dimension, str]] = [
    (Dimension.PERCENT, r"何\s*[%％]|何パーセント|百分之(?:多少|几)|多少\s*[%％]|\bwhat percent(?:age)?\b|\bhow many percent\b"),
    (Dimension.MONTH, r"\b(?:which|what|in which) month\b|何月|几月|哪个月"),
    (Dimension.TIME_OF_DAY, r"\bwhat time\b|\bat what hour\b|何時(?!間)|几点"),
    (Dimension.SIZE, r"\bhow (?:big|large)\b|\bwhat size\b|\bhow much (?:disk |memory |ram |storage )?(?:space|memory|ram|storage)\b"
                     r"|\bhow many (?:bytes|kb|mb|gb|tb)\b|何(?:バイト|KB|MB|GB|TB)|どれ(?:くらい|ぐらい)の(?:大きさ|容量|サイズ)|どのくらいの(?:大きさ|容量|サイズ)"
                     r"|(?:大きさ|容量|サイズ)[はが](?:どれ|どの)(?:くらい|ぐらい)|\bwhat is the (?:maximum |max |largest |minimum )?(?:file )?size\b"
                     r"|多大|多少(?:字节|空间|内存|容量|磁盘)|(?:容量|大小)(?:是|有)?多少"),
    (Dimension.DURATION, rf"\bhow long\b|\bhow many {_TIME_UNITS_EN}\b|\bhow often\b"
                         r"|何(?:秒|分|時間|日|週間?|か月|ヶ月|カ月|年)|どれ(?:くらい|ぐらい)の(?:時間|期間|間隔)|どのくらいの(?:時間|期間|間隔)"
                         r"|(?:時間|期間|間隔)[はが](?:どれ|どの)(?:くらい|ぐらい)"
                         r"|几(?:秒|分钟|分|个?小时|天|周|个?星期|个?月|年)|多少(?:秒|分钟|个?小时|天|周|个?月|年)|多长时间|多久"),
    (Dimension.KEY_COMBINATION, rf"\b(?:what|which)\b[^?.]{{0,40}}\b(?:{_SHORTCUT_EN}|keystroke|keys? (?:do|to|should|must))"
                                rf"|{_SHORTCUT_CJK}|キー(?:の)?組み合わせ|どのキー|何キー|哪个键|哪些键|什么键"),
]
_ASKED_RES = [(dimension, re.compile(pattern, re.IGNORECASE)) for dimension, pattern in _ASKED]

_NUMERAL = r"(?:\d+(?:[.,]\d+)*|[一二三四五六七八九十百千两半]+|\b(?:an?|one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty|thirty|sixty|half an?)\b)"

_STATED: dict[Dimension, str] = {
    Dimension.PERCENT: r"\d\s*(?:[%％]|percent\b|パーセント)|百分之",
    Dimension.MONTH: r"\d{1,2}\s*月|[一二三四五六七八九十]+月|\b\d{4}-\d{1,2}\b|\b\d{1,2}/\d{1,2}/\d{2,4}\b"
                     r"|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)(?:[a-z]*)\.?\s+\d|\b\d{1,2}\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)"
                     r"|\b(?:january|february|march|april|june|july|august|september|october|november|december)\b",
    Dimension.TIME_OF_DAY: r"\b\d{1,2}:\d{2}\b|\b\d{1,2}\s*(?:am|pm|a\.m\.|p\.m\.|o'clock)\b|\d{1,2}\s*(?:時(?!間)|点|點)"
                           r"|(?:午前|午後|上午|下午|凌晨|早上|晚上)\s*\d|[一二三四五六七八九十]+点|\b(?:midnight|noon)\b|真夜中|正午|午夜|中午"
                           r"|\bOnCalendar=|\b\d{1,2}\s+\d{1,2}\s+\*\s+\*\s+\*",
    Dimension.SIZE: r"\d\s*(?:[KMGTPE]i?B\b|[KMGTPE]\b|bytes?\b|バイト|字节|位元組|blocks?\b|ブロック|セクタ|扇区|[%％])",
    Dimension.DURATION: rf"{_NUMERAL}\s*-?\s*{_TIME_UNITS_EN}\b|{_NUMERAL}\s*(?:秒|分|時間|日|週|か月|ヶ月|カ月|年|分钟|小时|小時|天|周|星期|个月|個月)"
                        r"|\b\d+\s*(?:s|m|h|d|ms)\b|\b(?:hourly|daily|weekly|monthly|yearly|annually)\b"
                        r"|毎(?:秒|分|時|日|週|月|年)|每(?:秒|分钟|小时|天|日|周|星期|月|年)",
    Dimension.KEY_COMBINATION: r"\b(?:ctrl|control|alt|altgr|shift|super|meta|win|windows|cmd|hyper)\s*[-+]\s*\w|\b[CMS]-[a-z0-9]\b|\^[A-Z]\b"
                               r"|\b(?:enter|return|escape|esc|tab|space|backspace|delete|insert|home|end|page ?up|page ?down|f\d{1,2}"
                               r"|windows|super|menu|print ?screen|sysrq|caps ?lock|scroll ?lock|num ?lock|zenkaku|hankaku|henkan|muhenkan) keys?\b"
                               r"|\b(?:ctrl|alt|shift|super|enter|esc|tab|space|f\d{1,2})\s*(?:キー|键|鍵)|(?:全角|半角|変換|無変換)(?:/\S+)?\s*キー",
}
_STATED_RES = {dimension: re.compile(pattern, re.IGNORECASE) for dimension, pattern in _STATED.items()}


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
