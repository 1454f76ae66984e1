"""`bunko sources add|list|sync|rm` and `bunko sync`: what a user types, the exit codes and JSON scripts read."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bunko.cli import app


@pytest.fixture
def runner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("BUNKO_COLLECTION", raising=False)
    return CliRunner()


def _ok(result) -> object:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_sources_add_list_sync_rm(runner: CliRunner, tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "alpha.md").write_text("# Alpha\n\nThe zebracorn protocol uses port 4711.\n", encoding="utf-8")
    with sqlite3.connect(tmp_path / "kb.db") as db:
        db.execute("CREATE TABLE faq (id INTEGER PRIMARY KEY, question TEXT, answer TEXT)")
        db.execute("INSERT INTO faq VALUES (1, '年假有几天？', '年假申请需要提前五天提交。')")

    assert runner.invoke(app, ["sync"]).exit_code == 2  # no collection yet
    assert _ok(runner.invoke(app, ["sources", "add", "handbook", "folder", "docs", "--json"]))["path"] == "docs"
    added = _ok(runner.invoke(app, ["sources", "add", "faq", "sql", "kb.db", "--table", "faq", "--title-column", "question", "--json"]))
    assert added["url"] == "sqlite:///kb.db" and added["table"] == "faq"
    duplicate = runner.invoke(app, ["sources", "add", "faq", "sql", "kb.db", "--table", "faq"])
    assert duplicate.exit_code == 2 and "exists already" in duplicate.output

    listed = _ok(runner.invoke(app, ["sources", "list", "--json"]))
    assert [(s["name"], s["type"], s["last_sync"]) for s in listed] == [("handbook", "folder", {}), ("faq", "sql", {})]

    synced = _ok(runner.invoke(app, ["sync", "--json"]))
    assert [(r["source"], r["counts"]["READY"]) for r in synced] == [("handbook", 1), ("faq", 1)]
    hits = _ok(runner.invoke(app, ["search", "年假申请", "--json", "--mode", "keyword"]))["hits"]
    assert hits[0]["source"] == "faq:1"
    assert [s["last_sync"]["items"] for s in _ok(runner.invoke(app, ["sources", "list", "--json"]))] == [1, 1]

    (tmp_path / "docs" / "alpha.md").unlink()
    text = runner.invoke(app, ["sources", "sync", "handbook"])
    assert text.exit_code == 0, text.output
    assert "deleted docs/alpha.md" in text.stdout and "0 indexed, 0 unchanged, 0 failed, 1 deleted" in text.stdout

    removed = _ok(runner.invoke(app, ["sources", "rm", "faq", "--json"]))
    assert removed == {"name": "faq", "deleted": ["faq:1"]}
    assert _ok(runner.invoke(app, ["docs", "--json"])) == []
    unknown = runner.invoke(app, ["sources", "sync", "faq"])
    assert unknown.exit_code == 2 and "no source 'faq'" in unknown.output


def test_sync_failures_set_the_exit_code(runner: CliRunner, tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "good.md").write_text("# Good\n\nThe zebracorn protocol.\n", encoding="utf-8")
    (tmp_path / "docs" / "empty.md").write_text("", encoding="utf-8")
    assert runner.invoke(app, ["sources", "add", "handbook", "folder", "docs"]).exit_code == 0
    assert runner.invoke(app, ["sources", "add", "gone", "folder", "nowhere"]).exit_code == 0
    result = runner.invoke(app, ["sync"])
    assert result.exit_code == 1
    assert "FAILED docs/empty.md: EMPTY" in result.output and "nowhere is not a folder" in result.output
    jobs = _ok(runner.invoke(app, ["jobs", "--json"]))
    assert sorted((j["source"], j["status"], j["error_code"]) for j in jobs) == [
        ("docs/empty.md", "FAILED", "EMPTY"), ("docs/good.md", "READY", None)]


def test_sources_add_refuses_credentials_and_bad_keys(runner: CliRunner, tmp_path: Path) -> None:
    runner.invoke(app, ["init"])
    password = runner.invoke(app, ["sources", "add", "db", "sql", "postgresql://me:hunter2@db.example/kb", "--table", "t"])
    assert password.exit_code == 2 and "password" in password.output and "BUNKO_SOURCE_DB_PASSWORD" in password.output
    unknown = runner.invoke(app, ["sources", "add", "w", "web", "http://example.com/", "--set", "depth=3"])
    assert unknown.exit_code == 2 and "depth: unknown key" in unknown.output
    s3 = runner.invoke(app, ["sources", "add", "b", "s3", "bucket-without-scheme"])
    assert s3.exit_code == 2 and "s3://BUCKET/PREFIX" in s3.output
    assert not (tmp_path / ".bunko" / "sources.toml").exists()
