"""`bunko trace` prints the grade's real figures: the quoted unit's similarity, coverage and reader probability."""

from __future__ import annotations

import re

import pytest
from rich.console import Console

from bunko.generate.trace_view import render_trace

QUESTIONS = {
    "ja": "出張の日当はいくらですか？",
    "zh": "年假有几天？",
    "en": "How many days of annual leave do employees get?",
}


@pytest.fixture(scope="module")
def kb(tmp_path_factory, embedder, samples_dir):
    from bunko import Bunko

    with Bunko(tmp_path_factory.mktemp("trace-view") / ".bunko", embedder=embedder) as opened:
        opened.ingest(samples_dir)
        yield opened


@pytest.mark.parametrize("lang", ["ja", "zh", "en"])
def test_the_grade_line_shows_the_figures_the_grade_measured(kb, lang: str) -> None:
    answer = kb.ask(QUESTIONS[lang])
    trace = kb.trace(answer.trace_id)
    measured = trace["grade"]["features"]
    console = Console(record=True, width=240)
    render_trace(console, trace)
    [line] = [line for line in console.export_text().splitlines() if line.startswith("grade ")]
    shown = dict(re.findall(r"(similarity|coverage|reader) (\d\.\d\d)", line))
    assert shown == {name: f"{measured[name]:.2f}" for name in ("similarity", "coverage", "reader")}
    assert float(shown["similarity"]) > 0 and float(shown["reader"]) > 0
