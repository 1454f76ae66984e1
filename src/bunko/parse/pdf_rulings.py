"""The outer sides of a ruled table that draws only its inner column rules.

LaTeX's ``tabular{l|l|l}`` with ``\\hline`` — and so dblatex, which typesets the Debian Reference — draws a rule
under every row across the whole table and a rule between the columns, but none down the left and right edges.
pdfplumber's line strategy builds a cell only where four rules close it, so such a table comes out as its middle
columns alone, or not at all, and its words fall back to the text layer, where the reading order takes each column
for a text column: "0 1 2 3 … / KERN_EMERG KERN_ALERT … / system is unusable …", every row cut apart.

`missing_sides` returns the two vertical rules such a table leaves out, for ``explicit_vertical_lines``. It adds
them only where the page draws a grid: full-width rules stacked under each other with an inner column rule joining
each one to the next. Two code boxes of the same width, or a text frame, have no inner rule between them and get
no sides, so the prose between them never becomes a table row.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

TOLERANCE = 2.0
"""Points by which rule ends may miss each other and still meet (pdfplumber snaps edges by 3)."""
MAX_PAIRS = 1_000_000
"""Rule pairs past which a page is a drawing (a plotted chart, a schematic), not a table: its sides are not looked for,
so one such page costs no more than a second."""


@dataclass(frozen=True)
class _Rule:
    y: float
    x0: float
    x1: float


def _horizontal_rules(lines: Sequence[dict[str, Any]]) -> list[_Rule]:
    """The page's horizontal rules, each row rule whole: dblatex draws one segment per cell, end to end."""
    segments = sorted(
        (float(line["top"]), float(line["x0"]), float(line["x1"]))
        for line in lines if abs(float(line["bottom"]) - float(line["top"])) <= 1.0 and float(line["x1"]) > float(line["x0"])
    )
    rules: list[_Rule] = []
    for y, x0, x1 in segments:
        last = rules[-1] if rules else None
        if last and abs(last.y - y) <= TOLERANCE and x0 <= last.x1 + TOLERANCE:
            rules[-1] = _Rule(last.y, last.x0, max(last.x1, x1))
        else:
            rules.append(_Rule(y, x0, x1))
    return rules


def _vertical_rules(lines: Sequence[dict[str, Any]]) -> list[tuple[float, float, float]]:
    """(x, top, bottom) of the page's vertical rules."""
    return [
        (float(line["x0"]), float(line["top"]), float(line["bottom"]))
        for line in lines if abs(float(line["x1"]) - float(line["x0"])) <= 1.0 and float(line["bottom"]) > float(line["top"])
    ]


def _joined(upper: _Rule, lower: _Rule, verticals: Sequence[tuple[float, float, float]]) -> bool:
    """An inner column rule runs from `upper` down to `lower`: the two rules bound one row of a grid."""
    return any(
        upper.x0 + TOLERANCE < x < upper.x1 - TOLERANCE and top <= upper.y + TOLERANCE and bottom >= lower.y - TOLERANCE
        for x, top, bottom in verticals
    )


def _edge(x: float, top: float, bottom: float) -> dict[str, Any]:
    return {"object_type": "line", "x0": x, "x1": x, "top": top, "bottom": bottom, "width": 0.0, "height": bottom - top}


def missing_sides(lines: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Left and right rules for every grid of rows the page draws without them (none when it draws them itself:
    an added rule on top of a drawn one changes nothing)."""
    rules = _horizontal_rules(lines)
    verticals = _vertical_rules(lines)
    if not verticals or len(rules) * len(verticals) > MAX_PAIRS:
        return []
    sides: list[dict[str, Any]] = []
    by_extent: dict[tuple[int, int], list[_Rule]] = {}
    for rule in rules:
        by_extent.setdefault((round(rule.x0 / 4), round(rule.x1 / 4)), []).append(rule)
    for stack in by_extent.values():
        stack.sort(key=lambda r: r.y)
        start = 0
        for i in range(1, len(stack) + 1):
            if i < len(stack) and _joined(stack[i - 1], stack[i], verticals):
                continue
            if i - 1 > start:
                first, last = stack[start], stack[i - 1]
                x0 = min(r.x0 for r in stack[start:i])
                x1 = max(r.x1 for r in stack[start:i])
                sides += [_edge(x0, first.y, last.y), _edge(x1, first.y, last.y)]
            start = i
    return sides
