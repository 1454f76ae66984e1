"""Output that survives a pipe (issue 50, item 6): piped, `bunko docs`, `jobs`, `chunks` and `status` print plain text,
one record a line, every field whole; a terminal still gets the table."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import bunko
from bunko.cli import app

DEEP = "handbook/第二版/附録/configuration-and-installation-guide"
DOCS = {
    f"{DEEP}/leave-policy-ja.md": "# 休暇規程\n\n年次有給休暇は入社半年後に十日付与されます。\n",
    f"{DEEP}/leave-policy-zh.md": "# 休假制度\n\n员工入职满一年后享有五天年假。\n",
    f"{DEEP}/leave-policy-en.md": "# Leave policy\n\nEmployees receive twenty days of annual leave.\n",
}


@pytest.fixture
def collection(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("BUNKO_COLLECTION", raising=False)
    for name, text in DOCS.items():
        path = tmp_path / "docs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(app, ["ingest", "docs", "--root", "docs", "--json"])
    assert result.exit_code == 0, result.output
    return tmp_path / ".bunko"


def test_docs_piped_is_one_document_a_line_with_every_field_whole(collection: Path) -> None:
    result = CliRunner().invoke(app, ["docs"], env={"COLUMNS": "60"})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    records = {fields[0]: fields for fields in (line.split("\t") for line in lines)}
    assert len(lines) == len(DOCS) == len(records)
    for name in DOCS:
        assert len(records[name]) == 5, records[name]  # source, title, chunks, lang, parser: none lost
    assert [records[name][1] for name in sorted(DOCS)] == ["Leave policy", "休暇規程", "休假制度"]
    assert [records[name][3] for name in sorted(DOCS)] == ["en", "ja", "zh"]
    assert all(int(fields[2]) >= 1 and fields[4].startswith("markdown") for fields in records.values())
    assert not any(c in result.stdout for c in "│┃━…\x1b")


def test_status_piped_is_name_value_lines_without_python_reprs(collection: Path) -> None:
    result = CliRunner().invoke(app, ["status"])
    assert result.exit_code == 0, result.output
    fields = dict(line.split(": ", 1) for line in result.stdout.splitlines())
    assert fields["documents"] == "3"
    assert fields["last_run"] == "READY=3"
    assert fields["reembed"] == "none"
    assert fields["index"].startswith("dense_index=")
    assert not any(c in result.stdout for c in "{}'") and "None" not in result.stdout
    assert set(fields) == set(json.loads(CliRunner().invoke(app, ["status", "--json"]).stdout))  # the same fields


def test_jobs_and_chunks_piped_are_records(collection: Path) -> None:
    jobs = [line.split("\t") for line in CliRunner().invoke(app, ["jobs"]).stdout.splitlines()]
    assert sorted(j[1] for j in jobs) == sorted(DOCS)
    assert all(len(j) == 5 and j[0] == "READY" and j[2] == j[3] == "-" and len(j[4]) == 16 for j in jobs)
    name = f"{DEEP}/leave-policy-zh.md"
    chunks = [line.split("\t") for line in CliRunner().invoke(app, ["chunks", name]).stdout.splitlines()]
    assert chunks and all(len(c) == 8 for c in chunks)
    assert any(c[6] == "zh" and c[2] == "休假制度" for c in chunks)


def test_a_terminal_still_gets_the_table(collection: Path) -> None:
    result = CliRunner().invoke(app, ["docs"], env={"COLUMNS": "100", "TTY_COMPATIBLE": "1"})
    assert result.exit_code == 0, result.output
    assert "┃ source" in result.stdout and "│" in result.stdout
    status = CliRunner().invoke(app, ["status"], env={"TTY_COMPATIBLE": "1"}).stdout
    assert "last_run: " in status and "READY" in status and "{" not in status


def test_a_real_pipe(collection: Path) -> None:
    """The command as a user pipes it (`bunko docs | cat`), not through the test runner."""
    src = str(Path(bunko.__file__).resolve().parents[1])
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE")}
    env |= {"PYTHONPATH": src, "COLUMNS": "40"}
    out = subprocess.run(
        [sys.executable, "-m", "bunko", "docs"], cwd=collection.parent, env=env, capture_output=True, text=True, check=True,
    ).stdout
    assert sorted(line.split("\t")[0] for line in out.splitlines()) == sorted(DOCS)
