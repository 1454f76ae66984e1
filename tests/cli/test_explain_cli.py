"""`bunko search --explain` reads in one line a hit; `--explain full` keeps the whole breakdown (issue 50, item 11)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bunko.cli import app

DOCS = {
    "rooms-ja.md": "# 会議室\n\n## 予約\n\n会議室は十四日前から予約できます。\n\n## 定員\n\n大会議室の定員は二十人です。\n",
    "rooms-zh.md": "# 会议室\n\n## 预订\n\n会议室可以提前十四天预订。\n\n## 容量\n\n大会议室可容纳二十人。\n",
    "rooms-en.md": "# Meeting rooms\n\n## Booking\n\nMeeting rooms can be booked fourteen days ahead.\n\n## Capacity\n\n"
                   "The large meeting room seats twenty people.\n",
}
QUESTIONS = {"ja": "会議室の予約", "zh": "会议室预订", "en": "meeting room booking"}
HIT_LINE = re.compile(r"^(\d+)\. (\S.*?)  score (\d+\.\d{4})  (en|ja|zh)  (.+)$")


@pytest.fixture
def runner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("BUNKO_COLLECTION", raising=False)
    (tmp_path / "docs").mkdir()
    for name, text in DOCS.items():
        (tmp_path / "docs" / name).write_text(text, encoding="utf-8")
    runner = CliRunner()
    assert runner.invoke(app, ["ingest", "docs"]).exit_code == 0
    return runner


@pytest.mark.parametrize("lang", ["ja", "zh", "en"])
def test_explain_is_one_line_a_hit(runner: CliRunner, lang: str) -> None:
    result = runner.invoke(app, ["search", QUESTIONS[lang], "-k", "3", "--explain"])
    assert result.exit_code == 0, result.output
    header, *lines = result.stdout.splitlines()
    assert header.startswith("route ") and "keyword tokens:" in header and "--explain full" in header
    assert len(lines) == 3  # no text, no breakdown: one line each
    for rank, line in enumerate(lines, start=1):
        match = HIT_LINE.match(line)
        assert match, line
        assert int(match.group(1)) == rank
        why = match.group(5)
        assert re.search(r"\b(dense|keyword|document) #\d+", why) and re.search(r"fused #\d+", why), why
    first = HIT_LINE.match(lines[0])
    assert first and first.group(2).startswith(f"docs/rooms-{lang}.md") and first.group(4) == lang
    assert "of the query's terms" in first.group(5)


def test_explain_full_keeps_the_breakdown_and_the_text(runner: CliRunner) -> None:
    result = runner.invoke(app, ["search", QUESTIONS["ja"], "-k", "2", "--explain", "full"])
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert "mode " in text and "filter (applied inside each retriever" in text
    assert re.search(r"keyword: rank \d", text) and "dense distance (1 − cosine)" in text
    assert "十四日前から予約できます" in text  # the hit's text, as without --explain
    assert runner.invoke(app, ["search", QUESTIONS["ja"], "-k", "2", "--explain=full"]).stdout == text


def test_the_option_may_come_first_and_its_value_is_checked(runner: CliRunner) -> None:
    """`--explain` stands bare before the query: the query is not taken for its value."""
    before = runner.invoke(app, ["search", "--explain", QUESTIONS["zh"], "-k", "2"])
    assert before.exit_code == 0, before.output
    after = runner.invoke(app, ["search", QUESTIONS["zh"], "-k", "2", "--explain"])
    assert before.stdout == after.stdout and len(after.stdout.splitlines()) == 3
    assert runner.invoke(app, ["search", QUESTIONS["zh"], "--explain=everything"]).exit_code == 2


def test_json_gives_each_hit_its_why_and_full_its_lines(runner: CliRunner) -> None:
    brief = json.loads(runner.invoke(app, ["search", QUESTIONS["en"], "-k", "2", "--explain", "--json"]).stdout)
    assert all(hit["why"] and "explanation" not in hit for hit in brief["hits"])
    full = json.loads(runner.invoke(app, ["search", QUESTIONS["en"], "-k", "2", "--explain", "full", "--json"]).stdout)
    assert all(hit["why"] and len(hit["explanation"]) >= 2 for hit in full["hits"])
    plain = json.loads(runner.invoke(app, ["search", QUESTIONS["en"], "-k", "2", "--json"]).stdout)
    assert all("why" not in hit for hit in plain["hits"]) and "route" not in plain
