"""Step 2: what kind of question this is (`generate/analysis.py`), recorded as an agent step."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from bunko.generate.analysis import analyze
from bunko.generate.steps.state import AskState
from bunko.trace import AgentStep
from bunko.trace_steps import AnalysisStep, ClassifierVerdict, ModelVerdict

if TYPE_CHECKING:
    from bunko.generate.answerer import Answerer


def analyse(answerer: Answerer, state: AskState) -> AskState:
    """`state.analysis` set while `[agent] analysis` is on (the rules, the classifier, or the model when asked)."""
    if not answerer.config.agent.analysis:
        return state
    started = time.perf_counter()
    model = answerer.chat_model if answerer.config.agent.llm_analysis else None
    analysis = analyze(state.question, answerer.analyzer, state.asked, answerer.kind_classifier, model)
    output = AnalysisStep(analysis.kind, analysis.reason, list(analysis.parts), analysis.request)
    if analysis.classifier is not None or analysis.llm is not None:
        output.rule_kind, output.decided_by = analysis.rule_kind, analysis.decided_by
        output.classifier = ClassifierVerdict.from_dict(analysis.classifier) if analysis.classifier is not None else None
        output.llm = ModelVerdict.from_dict(analysis.llm) if analysis.llm is not None else None
    state.steps.append(AgentStep("analysis", state.asked, output, time.perf_counter() - started))
    state.analysis = analysis
    return state
