"""Answer units: the sentences of prose and the rows of tables, each quotable on its own.

A table row alone ("| 東京 | 12,000円 |") means nothing; paired with its
header it reads "地域: 東京 / 上限額: 12,000円", which is both an answer and a
faithful quote of the cited table.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bunko.chunk.sentences import split_sentences


@dataclass
class Unit:
    text: str
    hit_index: int
    position: int


def _cells(line: str) -> list[str]:
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    return [c.strip().replace("\\|", "|") for c in inner.split(" | ")] if " | " in inner else [c.strip() for c in inner.split("|")]


def _is_separator(line: str) -> bool:
    return set(line.replace("|", "").replace(":", "").strip()) <= {"-"} and "-" in line


def table_row_units(lines: list[str]) -> list[str]:
    if len(lines) < 2 or not _is_separator(lines[1]):
        return [" ".join(lines)]
    header = _cells(lines[0])
    units = []
    for line in lines[2:]:
        cells = _cells(line)
        pairs = [f"{h}: {c}" if h else c for h, c in zip(header, cells, strict=False) if c]
        if pairs:
            units.append(" / ".join(pairs))
    return units


def split_units(text: str) -> list[str]:
    units: list[str] = []
    prose: list[str] = []
    table: list[str] = []
    in_code = False
    for line in text.splitlines():
        if line.strip().startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            continue
        if line.strip().startswith("|"):
            if prose:
                units.extend(split_sentences("\n".join(prose)))
                prose = []
            table.append(line)
            continue
        if table:
            units.extend(table_row_units(table))
            table = []
        prose.append(line)
    if table:
        units.extend(table_row_units(table))
    if prose:
        units.extend(split_sentences("\n".join(prose)))
    return [u.strip() for u in units if u.strip()]


_ROW = re.compile(r"^[^/\n]+?: [^\n]*?(?: / [^/\n]+?: [^\n]*?)+$")
ROW_SEPARATORS = {"ja": ("：", "、"), "zh": ("：", "，"), "en": (": ", "; ")}


def readable_row(unit: str, language: str) -> str:
    """A table-row unit ("地域: 東京 / 上限額: 12,000円") punctuated for the answer's language.

    "地域：東京、上限額：12,000円" reads as Japanese, "假期类型：婚假，天数：3天" as
    Chinese; the citation keeps the unit as quoted. Other units are returned unchanged.
    """
    if not _ROW.match(unit):
        return unit
    colon, comma = ROW_SEPARATORS.get(language, ROW_SEPARATORS["en"])
    parts = []
    for part in unit.split(" / "):
        head, sep, cell = part.partition(": ")
        parts.append(f"{head}{colon}{cell}" if sep else part)
    return comma.join(parts)
