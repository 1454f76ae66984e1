"""The Ragas export read and scored by Ragas itself (the `integrations` extra), offline and without telemetry.

tests/evaluate/test_reports.py checks the file's fields; here Ragas loads it and a metric that needs no LLM
scores it, with every socket connect and DNS lookup refused.
"""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest

from bunko.evaluate.experiments import Experiment
from bunko.evaluate.ragas_export import ragas_rows, write_ragas


def test_ragas_loads_and_scores_the_export_offline(table_experiment: Experiment, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    attempts: list[str] = []

    def refuse(*args: Any, **kwargs: Any) -> None:
        attempts.append(repr(args[1:] or args))
        raise OSError("network access refused by the test")

    monkeypatch.setenv("RAGAS_DO_NOT_TRACK", "true")  # Ragas' own switch for its usage analytics
    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    ragas = pytest.importorskip("ragas", reason="ragas is not installed (pip install -e \".[integrations]\")")
    from ragas.metrics import StringPresence

    run = table_experiment.run("default")
    rows = ragas_rows(table_experiment.items, run.records, contexts=5)
    dataset = ragas.EvaluationDataset.from_jsonl(str(write_ragas(tmp_path / "ragas.jsonl", table_experiment.items, run.records, contexts=5)))
    assert [s.user_input for s in dataset.samples] == [r["user_input"] for r in rows]
    assert [s.retrieved_contexts for s in dataset.samples] == [r["retrieved_contexts"] for r in rows]
    assert [s.response for s in dataset.samples] == [r["response"] for r in rows]
    assert [s.reference for s in dataset.samples] == [r.get("reference") for r in rows]

    # String presence: is the reference answer in bunko's response? Only the questions that have one.
    with_reference = ragas.EvaluationDataset(samples=[s for s in dataset.samples if s.reference])
    result = ragas.evaluate(with_reference, metrics=[StringPresence()], show_progress=False)
    scores = result.to_pandas()["string_present"].tolist()
    assert scores == [float(r["reference"] in r["response"]) for r in rows if "reference" in r]
    assert 0 < sum(scores) <= len(scores)
    assert attempts == []
