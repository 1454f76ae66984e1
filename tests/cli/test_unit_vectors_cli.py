"""`bunko reindex --unit-vectors`: a collection ingested without unit vectors gets them, each unit once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bunko import Bunko, Config
from bunko.cli import app
from bunko.embed.use_m3 import UseM3Embedder
from bunko.rerank.unit_vectors import chunk_unit_texts

DOCS = {
    "token-en.md": "# Authentication\n\nAPI access tokens are valid for 24 hours. Refresh them with /auth/refresh.\n",
    "leave-zh.md": "# 假期\n\n员工结婚可享受婚假3天。婚假应在登记后一年内休完。\n",
    "password-ja.md": "# パスワード規定\n\nパスワードは12文字以上とします。90日ごとに変更してください。\n",
}


@pytest.fixture
def runner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("BUNKO_COLLECTION", raising=False)
    return CliRunner()


def test_reindex_unit_vectors_embeds_every_unit_once(runner: CliRunner, tmp_path: Path, embedder: UseM3Embedder) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in DOCS.items():
        (docs / name).write_text(text, encoding="utf-8")
    kb = Bunko(tmp_path / ".bunko", config=Config.model_validate({"rerank": {"unit_vectors": "ask"}}), embedder=embedder)
    assert kb.ingest(docs).ok
    units = {t for chunk in kb.chunks() for t in chunk_unit_texts(chunk)}
    assert kb.units.file.count() == 0
    kb.close()
    first = runner.invoke(app, ["reindex", "--unit-vectors", "--json", "--collection", str(tmp_path / ".bunko")])
    assert first.exit_code == 0, first.output
    assert json.loads(first.stdout)["embedded"] == json.loads(first.stdout)["unit_vectors"] == len(units) >= 6
    assert json.loads(first.stdout)["documents_with_units"] == json.loads(first.stdout)["documents"] == len(DOCS)
    again = runner.invoke(app, ["reindex", "--unit-vectors", "--json", "--collection", str(tmp_path / ".bunko")])
    assert json.loads(again.stdout)["embedded"] == 0
    shown = runner.invoke(app, ["reindex", "--unit-vectors", "--collection", str(tmp_path / ".bunko")])
    assert f"{len(units)} unit vectors stored" in shown.stdout and f"{len(DOCS)} of {len(DOCS)} documents" in shown.stdout
