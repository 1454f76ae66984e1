"""The outer sides of tables that rule only between their columns, on plain line geometry."""

from __future__ import annotations

from itertools import pairwise

from bunko.parse.pdf_rulings import MAX_PAIRS, missing_sides


def h(y: float, x0: float, x1: float) -> dict[str, float]:
    return {"x0": x0, "x1": x1, "top": y, "bottom": y}


def v(x: float, top: float, bottom: float) -> dict[str, float]:
    return {"x0": x, "x1": x, "top": top, "bottom": bottom}


def test_a_grid_drawn_cell_by_cell_gets_its_two_sides_from_first_to_last_rule() -> None:
    rows = (100.0, 112.0, 124.0)
    lines = [h(y, x0, x1) for y in rows for x0, x1 in ((62, 213), (213, 364), (364, 561))]
    lines += [v(x, top, bottom) for top, bottom in pairwise(rows) for x in (213, 364)]
    assert [(e["x0"], e["top"], e["bottom"]) for e in missing_sides(lines)] == [(62, 100, 124), (561, 100, 124)]


def test_two_frames_of_one_width_with_no_column_rule_get_no_sides() -> None:
    lines = [h(100, 54, 570), h(112, 54, 570), h(200, 54, 570), h(212, 54, 570), v(300, 400, 420)]
    assert missing_sides(lines) == []


def test_a_drawing_of_many_rules_is_not_searched_for_tables() -> None:
    count = int(MAX_PAIRS**0.5) + 1
    lines = [h(5.0 * i, 0, 10) for i in range(count)] + [v(5, 5.0 * i, 5.0 * i + 5) for i in range(count)]
    assert missing_sides(lines) == []
