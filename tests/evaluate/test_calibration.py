"""The calibration of a run's confidence: which claims count as right, ECE by hand, and its paired bootstrap."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bunko.evaluate.bootstrap import resample_indices
from bunko.evaluate.calibration import claim, claims, ece_difference, reliability
from bunko.evaluate.experiments import Experiment
from bunko.evaluate.golden import GoldenItem
from bunko.evaluate.records import QuestionRecord
from bunko.evaluate.report_md import render_markdown

ANSWERABLE = [
    GoldenItem("en-1", "How many days of annual leave?", expected_answers=("20 days",), lang="en"),
    GoldenItem("ja-1", "年次有給休暇は何日ですか？", expected_answers=("20日",), lang="ja"),
    GoldenItem("zh-1", "年假有多少天？", expected_answers=("20天",), lang="zh"),
]
ABSENT = GoldenItem("en-2", "What is the parking fee?", type="absent")


def record(item: GoldenItem, confidence: float, answer: str = "", abstained: bool = False, draft: str = "") -> QuestionRecord:
    return QuestionRecord(item.id, item.question, answer=answer, abstained=abstained, confidence=confidence, draft=draft)


def test_an_absent_question_is_never_right_whatever_the_answer() -> None:
    assert claim(ABSENT, record(ABSENT, 0.9, answer="The parking fee is 500 yen [1].")) == (0.9, 0.0)
    assert claim(ABSENT, record(ABSENT, 0.1, abstained=True, draft="Parking costs 500 yen.")) == (0.1, 0.0)


@pytest.mark.parametrize(("item", "quote"), list(zip(ANSWERABLE, [
    "Employees receive 20 days of annual leave.", "年次有給休暇は20日付与される。", "员工每年享有20天年假。",
], strict=True)))
def test_an_abstention_is_judged_by_the_passage_it_would_have_quoted(item: GoldenItem, quote: str) -> None:
    assert claim(item, record(item, 0.3, abstained=True, draft=quote)) == (0.3, 1.0)
    assert claim(item, record(item, 0.3, abstained=True, draft="")) == (0.3, 0.0)
    assert claim(item, record(item, 0.8, answer=quote + " [1]")) == (0.8, 1.0)


def test_questions_that_cannot_be_judged_are_left_out() -> None:
    unlabelled = GoldenItem("en-3", "Tell me about leave.")
    failed = record(ANSWERABLE[0], 0.0)
    failed.error = "RuntimeError: boom"
    assert claim(unlabelled, record(unlabelled, 0.7, answer="Leave is …")) is None
    assert claim(ANSWERABLE[0], failed) is None
    assert reliability([None, None]).ece is None


def test_ece_is_the_count_weighted_gap_per_bin() -> None:
    # bin 0.9–1.0: two claims at 0.95, one right → gap 0.45; bin 0.2–0.3: two at 0.25, none right → gap 0.25
    result = reliability([(0.95, 1.0), (0.95, 0.0), (0.25, 0.0), (0.25, 0.0), None])
    assert result.questions == 4
    assert result.ece == pytest.approx(0.5 * 0.45 + 0.5 * 0.25)
    assert [(b["count"], b["confidence"], b["accuracy"]) for b in result.bins] == [(2, 0.25, 0.0), (2, 0.95, 0.5)]


def test_the_ece_interval_is_zero_for_one_run_and_excludes_zero_for_an_overconfident_one() -> None:
    rng = np.random.default_rng(3)
    confidence = rng.uniform(0, 1, 200)
    right = (rng.uniform(0, 1, 200) < confidence).astype(float)
    calibrated = [(float(p), float(y)) for p, y in zip(confidence, right, strict=True)]
    overconfident = [(min(1.0, p + 0.4), y) for p, y in calibrated]
    indices = resample_indices(200, 300, seed=0)
    same = ece_difference(calibrated, calibrated, indices)
    assert same is not None and same.diff == 0.0 and same.low == 0.0 and same.high == 0.0
    worse = ece_difference(calibrated, overconfident, indices)
    assert worse is not None and worse.diff > 0.2 and worse.significant


def test_reports_carry_ece_and_the_reliability_table(table_experiment: Experiment) -> None:
    run = table_experiment.runs[0]
    assert run.claims == claims(table_experiment.items, run.records)
    judged = [c for c in run.claims if c is not None]
    assert run.reliability is not None and run.reliability.questions == len(judged) > 0
    assert sum(int(b["count"]) for b in run.reliability.bins) == len(judged)
    assert run.summary["ece"] == run.reliability.ece
    comparison = table_experiment.comparison("ece")
    assert comparison is not None and not comparison.info.higher_is_better
    assert all(comparison.diffs[other.name] is not None for other in table_experiment.runs[1:])
    markdown = render_markdown(table_experiment)
    assert "## Calibration" in markdown and f"ECE {run.reliability.ece:.3f}" in markdown
    data = json.loads(json.dumps(table_experiment.to_json()))
    assert data["runs"][0]["reliability"]["ece"] == run.reliability.ece


def test_an_abstention_records_the_passage_it_would_have_quoted(table_experiment: Experiment) -> None:
    refusals = [r for run in table_experiment.runs for r in run.records if r.abstained]
    assert refusals, "the absent questions of the fixture are expected to be refused"
    assert any(r.draft for r in refusals)
    assert all(not r.draft for run in table_experiment.runs for r in run.records if not r.abstained)
