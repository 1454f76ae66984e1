from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bunko.cli import app
from bunko.retrieve.calibrate import best_threshold


def test_best_threshold_separates_distances_and_confidences() -> None:
    assert best_threshold([0.2, 0.3, 0.4], [0.6, 0.7], accept_below=True) == pytest.approx(0.5)
    assert best_threshold([0.9, 0.8], [0.1, 0.3], accept_below=False) == pytest.approx(0.55)
    assert best_threshold([], [0.5], accept_below=True) is None


def test_calibrate_on_the_samples_suggests_a_threshold_between_the_groups(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, samples_dir: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    assert runner.invoke(app, ["ingest", str(samples_dir)]).exit_code == 0
    golden = samples_dir.parent / "golden.jsonl"
    result = runner.invoke(app, ["calibrate", str(golden), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    find, reject = report["dense_distance"]["should_find"], report["dense_distance"]["should_not_find"]
    assert find["n"] >= 40 and reject["n"] >= 10
    assert find["p50"] < reject["p50"]
    assert find["p25"] < report["suggested"]["retrieve.max_distance"] < reject["p95"]
