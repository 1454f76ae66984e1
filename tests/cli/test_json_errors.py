"""Under `--json`, every command's error is a JSON object on stdout too (issue 50, item 5: "errors are JSON too"),
with the exit code it exits with; without `--json` stdout stays empty and the error is one line on stderr."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bunko.cli import app


@pytest.fixture
def collection(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("BUNKO_COLLECTION", raising=False)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "vpn-ja.md").write_text("# VPN\n\n社外からは VPN で接続します。接続先は vpn.example.jp です。\n", encoding="utf-8")
    assert CliRunner().invoke(app, ["ingest", "docs"]).exit_code == 0
    return tmp_path / ".bunko"


@pytest.mark.parametrize(("args", "code", "says"), [
    (["status", "-c", "nowhere"], 2, "no bunko collection here"),
    (["docs", "-c", "nowhere"], 2, "no bunko collection here"),
    (["search", "VPN", "--where", "{not json"], 2, "--where is not valid JSON"),
    (["search", "VPN", "--where", '{"lang": {"$gt": []}}'], 2, "where.lang.$gt: expected a number or a string"),
    (["trace", "0123456789abcdef"], 1, "no trace 0123456789abcdef"),
    (["graph", "entity", "存在しない名前"], 1, "no entity"),
])
def test_an_error_under_json_is_json_on_stdout(collection: Path, args: list[str], code: int, says: str) -> None:
    result = CliRunner().invoke(app, [*args, "--json"])
    assert result.exit_code == code, result.output
    payload = json.loads(result.stdout)
    assert payload["exit_code"] == code and says in payload["error"], payload
    assert says in result.stderr
    plain = CliRunner().invoke(app, args)
    assert plain.exit_code == code and plain.stdout == "" and says in plain.stderr
