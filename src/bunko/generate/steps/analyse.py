"""Step 2: what kind of question this is (`generate/analysis.py`), recorded as an agent step."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from bunko.generate.analysis import analyze
from bunko.generate.steps.state import AskState
from bunko.trace import AgentStep

if TYPE_CHECKING:
    from bunko.generate.answerer import Answerer


def analyse(answerer: Answerer, state: AskState) -> AskState:
    """`state.analysis` set while `[agent] analysis` is on (the rules, the classifier, or the model when asked)."""
    if not answerer.config.agent.analysis:
        return state
    started = time.perf_counter()
    model = answerer.chat_model if answerer.config.agent.llm_analysis else None
    analysis = analyze(state.question, answerer.analyzer, state.asked, answerer.kind_classifier, model)
    output: dict[str, Any] = {"kind": analysis.kind, "reason": analysis.reason, "parts": analysis.parts}
    if analysis.request is not None:
        output["request"] = analysis.request
    if analysis.classifier is not None:
        output.update({"rule_kind": analysis.rule_kind, "classifier": analysis.classifier, "decided_by": analysis.decided_by})
    if analysis.llm is not None:
        output.update({"rule_kind": analysis.rule_kind, "llm": analysis.llm, "decided_by": analysis.decided_by})
    state.steps.append(AgentStep("analysis", state.asked, output, time.perf_counter() - started))
    state.analysis = analysis
    return state
