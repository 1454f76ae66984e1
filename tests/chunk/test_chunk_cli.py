"""`bunko chunks` and `bunko inspect`, as scripts use them (--json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bunko import Config
from bunko.cli import app


@pytest.fixture
def runner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("BUNKO_COLLECTION", raising=False)
    return CliRunner()


def test_chunks_and_inspect(runner: CliRunner, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# 規程\n\n## 宿泊\n\n宿泊費の上限は一泊一万二千円です。\n\n## 日当\n\n日当は二千円です。\n", encoding="utf-8")
    assert runner.invoke(app, ["ingest", str(docs), "--json"]).exit_code == 0

    stored = json.loads(runner.invoke(app, ["chunks", "docs/a.md", "--json"]).stdout)
    assert stored["stored"] is True and stored["chunk_strategy"] == Config().chunk.strategy
    assert [c["section_path"] for c in stored["chunks"]] == [["規程", "宿泊"], ["規程", "日当"]]
    assert [c["chars"] for c in stored["chunks"]] == [17, 9]
    assert stored["chunks"][0]["chunk_id"] == "docs/a.md#0" and stored["chunks"][0]["kinds"] == ["paragraph"]

    preview = json.loads(runner.invoke(app, ["chunks", str(docs / "a.md"), "--strategy", "fixed", "--json"]).stdout)
    assert preview["stored"] is False and preview["chunk_strategy"] == "fixed" and len(preview["chunks"]) == 1

    table = runner.invoke(app, ["chunks", "docs/a.md"])
    assert table.exit_code == 0 and "宿泊" in table.stdout
    assert runner.invoke(app, ["chunks", "docs/missing.md"]).exit_code == 1

    report = json.loads(runner.invoke(app, ["inspect", "--json"]).stdout)
    assert report["documents"] == 1 and report["chunks"] == 2 and report["chunks_crossing_headings"] == 0
    assert report["sizes"]["max"] == 17
    text = runner.invoke(app, ["inspect"])
    assert text.exit_code == 0 and "tables split" in text.stdout
