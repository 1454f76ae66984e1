"""`bunko eval` through the real CLI: templates, drafts, reports, and a gate that fails when it should."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bunko import Bunko
from bunko.cli import app
from bunko.cli.shared import SAMPLES_GOLDEN
from bunko.embed.use_m3 import UseM3Embedder
from bunko.evaluate import experiments
from bunko.evaluate.golden import dump_lines, load_golden


@pytest.fixture
def runner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, embedder: UseM3Embedder) -> CliRunner:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("BUNKO_COLLECTION", raising=False)
    monkeypatch.setattr(experiments, "build_embedder", lambda config: embedder)  # the session's model, not a second load
    return CliRunner()


def test_init_writes_a_template_and_keeps_an_existing_file(runner: CliRunner, tmp_path: Path) -> None:
    result = runner.invoke(app, ["eval", "init"])
    assert result.exit_code == 0, result.output
    items = load_golden(tmp_path / "golden.jsonl")
    assert items and all(item.draft for item in items)
    assert runner.invoke(app, ["eval", "init"]).exit_code == 2
    assert runner.invoke(app, ["eval", "init", "--force"]).exit_code == 0


def test_usage_and_golden_set_errors_exit_2(runner: CliRunner, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "ok?", "expected_answer": "x"}\n{"question": "no evidence?"}\n', encoding="utf-8")
    result = runner.invoke(app, ["eval", "run", str(bad), "--samples"])
    assert result.exit_code == 2 and "bad.jsonl:2: nothing to measure" in result.output
    result = runner.invoke(app, ["eval", "run", "--samples", "--fail-under", "recal@5=0.8"])
    assert result.exit_code == 2 and "unknown metric" in result.output
    assert runner.invoke(app, ["eval", "run"]).exit_code == 2  # neither a golden set nor --samples
    result = runner.invoke(app, ["eval", "run", str(SAMPLES_GOLDEN)])  # no collection here and no --docs
    assert result.exit_code == 2 and "no bunko collection" in result.output


def test_the_samples_pass_their_gate_and_write_every_report(runner: CliRunner, tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["eval", "run", "--samples", "--fail-under", "recall@5=0.8", "--fail-under", "abstention_recall=0.6",
              "-o", "out", "--resamples", "200", "--json"],
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["gate"] == {"passed": True, "failures": []}
    assert payload["questions"] == len(load_golden(SAMPLES_GOLDEN))
    summary = payload["runs"]["samples"]["summary"]
    assert summary["recall@5"] >= 0.8 and summary["fact_match"] > 0.5
    for name in ("report.html", "report.md", "results.json", "ragas-samples.jsonl"):
        assert (tmp_path / "out" / name).stat().st_size > 0


def test_a_worse_configuration_fails_the_gate(runner: CliRunner, tmp_path: Path) -> None:
    items = [item for item in load_golden(SAMPLES_GOLDEN) if item.type == "table"]
    (tmp_path / "tables.jsonl").write_text(dump_lines(items), encoding="utf-8")
    (tmp_path / "default.toml").write_text("[retrieve]\nk = 5\n", encoding="utf-8")
    (tmp_path / "tiny.toml").write_text('[chunk]\nstrategy = "fixed"\nmax_chars = 60\n', encoding="utf-8")
    args = ["eval", "run", "tables.jsonl", "--samples", "--config", "default.toml", "--config", "tiny.toml", "--resamples", "200"]
    result = runner.invoke(app, [*args, "--fail-under", "fact_match=0.7"])
    assert result.exit_code == 1, result.output
    assert "tiny: fact_match" in result.output and "default: fact_match" not in result.output
    assert "gate FAILED" in result.output
    markdown = (tmp_path / "bunko-eval" / "report.md").read_text(encoding="utf-8")
    assert "FAILED tiny: fact_match" in markdown and "| fact_match ↑ |" in markdown


def test_generate_drafts_then_run_them_on_the_collection(
    runner: CliRunner, tmp_path: Path, make_kb: Callable[..., Bunko], samples_dir: Path,
) -> None:
    kb = make_kb()
    kb.ingest(samples_dir)
    kb.close()
    result = runner.invoke(app, ["eval", "generate", "-n", "8", "-o", "drafts.jsonl"])
    assert result.exit_code == 0, result.output
    drafts = load_golden(tmp_path / "drafts.jsonl")
    assert len(drafts) == 8 and all(d.draft and d.expected_answers and d.relevant_sources for d in drafts)
    assert {d.lang for d in drafts} == {"ja", "zh", "en"}
    result = runner.invoke(app, ["eval", "run", "drafts.jsonl"])
    assert result.exit_code == 2 and "draft" in result.output  # drafts are not scored until reviewed
    result = runner.invoke(app, ["eval", "run", "drafts.jsonl", "--include-drafts", "--fail-under", "recall@5=0.5", "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["runs"]["collection"]["index"] == "collection"


def test_config_runs_are_compared_with_the_collection_as_is_unless_told_not_to(runner: CliRunner, tmp_path: Path) -> None:
    items = [item for item in load_golden(SAMPLES_GOLDEN) if item.type == "table"][:3]
    (tmp_path / "few.jsonl").write_text(dump_lines(items), encoding="utf-8")
    (tmp_path / "tiny.toml").write_text('[chunk]\nstrategy = "fixed"\nmax_chars = 60\n', encoding="utf-8")
    args = ["eval", "run", "few.jsonl", "--samples", "--config", "tiny.toml", "--resamples", "100", "--json"]
    kept = runner.invoke(app, args)
    assert kept.exit_code == 0, kept.output
    assert list(json.loads(kept.stdout)["runs"]) == ["samples", "tiny"]  # the baseline first, then the file
    dropped = runner.invoke(app, [*args, "--no-baseline"])
    assert dropped.exit_code == 0, dropped.output
    assert list(json.loads(dropped.stdout)["runs"]) == ["tiny"]
    assert "--no-baseline" in dropped.stderr and "not with the collection as is" in dropped.stderr
