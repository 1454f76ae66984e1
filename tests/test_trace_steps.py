"""The agent steps' typed records: what each step decided, stored as the JSON it always was and read back whole."""

from __future__ import annotations

from typing import Any

import pytest

from bunko.generate.steps.check import guard_trace_texts
from bunko.trace import AgentStep, Generation
from bunko.trace_steps import (
    AnalysisStep,
    ClassifierVerdict,
    CritiqueStep,
    DecomposeStep,
    DirectAnswerStep,
    ModelVerdict,
    OtherStep,
    RewriteStep,
    TableRef,
    TableStep,
)

PARTS = {
    "en": ["How long is parental leave?", "How long is sick leave?"],
    "ja": ["育児休暇は何日ですか", "病気休暇は何日ですか"],
    "zh": ["育儿假有几天", "病假有几天"],
}


def _records(language: str) -> list[AgentStep]:
    first, second = PARTS[language]
    return [
        AgentStep("analysis", first, AnalysisStep("comparison", "two parts", [first, second], rule_kind="single",
                                                  classifier=ClassifierVerdict("comparison", 0.81, {"comparison": 0.81, "single_hop": 0.19}),
                                                  llm=ModelVerdict(None, "unsure", None), decided_by="classifier"), 0.002),
        AgentStep("decompose", first, DecomposeStep([first, second], ["a.md#3"], 0.41, 0.66), 0.01),
        AgentStep("rewrite", first, RewriteStep("prf", query=f"{first} leave days", terms=["leave", "days"], before=0.2, after=0.6,
                                                kept=True), 0.02),
        AgentStep("critique", first, CritiqueStep([second], rewritten=first, still_rejected=[], kept=True), 0.3),
        AgentStep("direct_answer", first, DirectAnswerStep("conversation", text=second, request="asked", history_turns=2,
                                                           quoted=[0], used_llm=False), 0.001),
        AgentStep("table", first, TableStep("answered", operation="sum", tables=2,
                                            table=TableRef("t1", "leave.csv", title=second, rows=12), measure="days",
                                            filters=[{"column": "kind", "op": "=", "value": second}], score=2.4,
                                            sql="SELECT SUM(v2) FROM t1", params=[second], value=42.5, rows=3), 0.004),
    ]


@pytest.mark.parametrize("language", ["en", "ja", "zh"])
def test_each_step_round_trips_through_its_stored_json(language: str) -> None:
    for step in _records(language):
        stored = step.to_dict()
        again = AgentStep.from_dict(stored)
        assert again == step, step.name
        assert again.to_dict() == stored


def test_the_stored_json_keeps_the_keys_the_steps_always_wrote() -> None:
    decompose, rewrite, table = (_records("en")[i].to_dict()["output"] for i in (1, 2, 5))
    assert decompose["confidence"] == {"whole": 0.41, "merged": 0.66}
    assert list(rewrite) == ["method", "terms", "query", "confidence", "kept"]
    assert rewrite["confidence"] == {"before": 0.2, "after": 0.6}
    assert table["sql"].startswith("SELECT SUM(") and table["value"] == 42.5 and table["table"]["source"] == "leave.csv"
    assert "writer" not in table and "llm_sql_error" not in table  # a field left None is not written


def test_a_step_without_a_classifier_writes_no_classifier_key() -> None:
    output = AnalysisStep("single", "one question").to_dict()
    assert output == {"kind": "single", "reason": "one question", "parts": []}


def test_an_older_or_newer_step_loses_nothing() -> None:
    stored: dict[str, Any] = {"name": "analysis", "input": "q", "seconds": 0.1,
                              "output": {"kind": "single", "reason": "r", "parts": [], "hint": {"from": "v9"}}}
    step = AgentStep.from_dict(stored)
    assert isinstance(step.output, AnalysisStep) and step.output.other == {"hint": {"from": "v9"}}
    assert step.to_dict() == stored
    unknown = {"name": "plan", "input": "q", "seconds": 0.0, "output": {"actions": ["search", "read"]}}
    read = AgentStep.from_dict(unknown)
    assert isinstance(read.output, OtherStep) and read.to_dict() == unknown


def test_a_step_whose_output_is_damaged_reads_as_empty_not_an_error() -> None:
    step = AgentStep.from_dict({"name": "table", "output": ["not", "a", "mapping"]})
    assert isinstance(step.output, TableStep) and step.output.outcome == "" and step.output.table is None


@pytest.mark.parametrize(("language", "phone"), [("en", "555-123-4567"), ("ja", "03-1234-5678"), ("zh", "138-1234-5678")])
def test_the_policy_masks_what_the_typed_steps_kept(language: str, phone: str) -> None:
    """A masking policy guards the steps' texts as it guards the answer: nested records and lists included."""
    steps = [
        AgentStep("critique", "q", CritiqueStep([f"Call {phone}"], rewritten=f"Call {phone} now", still_rejected=[phone])),
        AgentStep("table", "q", TableStep("answered", table=TableRef("t", "x.csv", title=phone), params=[phone])),
    ]
    guard_trace_texts(Generation("extractive"), None, steps, "regulated", language)
    dumped = str([step.to_dict() for step in steps])
    assert phone not in dumped
    assert isinstance(steps[0].output, CritiqueStep) and isinstance(steps[1].output, TableStep)
