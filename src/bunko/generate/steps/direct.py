"""Step 3: a greeting, a sum or a question about the conversation, answered without the documents."""

from __future__ import annotations

import time
import uuid
from typing import TYPE_CHECKING

from bunko.generate.guardrails import guard_text
from bunko.generate.language import direct_reply as reply_for
from bunko.generate.recall import recall
from bunko.generate.steps.state import AskState
from bunko.generate.usage import token_usage
from bunko.schema import Answer, to_dict
from bunko.trace import AgentStep, Evidence, Generation, Grade, Trace
from bunko.trace_steps import DirectAnswerStep

if TYPE_CHECKING:
    from bunko.generate.answerer import Answerer


def direct_reply(answerer: Answerer, state: AskState) -> Answer | None:
    """The reply when the analysis says the question needs no retrieval (`[agent] retrieve_or_not`), saying so, and
    traced like any answer; None when the documents are to be searched."""
    analysis = state.analysis
    if analysis is None or analysis.retrieves or not answerer.config.agent.retrieve_or_not:
        return None
    timer = time.perf_counter()
    policy = answerer.config.answer.policy
    question, language = state.asked, state.language
    generation = Generation("none")
    output = DirectAnswerStep(analysis.kind)
    if analysis.kind == "conversation" and analysis.request is not None:
        model = answerer.chat_model if answerer.config.answer.generator != "extractive" else None
        recalled = recall(state.history, question, analysis.request, language, model)
        text = guard_text(recalled.text, policy, language)  # a model's recall may repeat what was masked
        output.request, output.history_turns, output.quoted = recalled.request, recalled.history_turns, list(recalled.quoted)
        output.used_llm = recalled.raw is not None and recalled.llm_error is None
        output.llm_error = recalled.llm_error or None
        if recalled.prompt is not None and model is not None:
            generation = Generation(model.name, prompt=recalled.prompt, raw_output=recalled.raw)
            if recalled.raw is not None:
                generation.usage = answerer.priced(token_usage(model, recalled.prompt, recalled.raw))
    else:
        text = reply_for(language, analysis.kind, analysis.value)
    answer = Answer(question=question, text=text, sentences=[], abstained=False, confidence=1.0,
                    trace_id=uuid.uuid4().hex[:16], language=language, policy=policy)
    output.text = text
    state.steps.append(AgentStep("direct_answer", question, output, time.perf_counter() - timer))
    empty = Evidence(question, {"mode": "none", "reason": analysis.reason}, [], [], [], Grade(True, 1.0))
    answer.trace = Trace(
        question=question, trace_id=answer.trace_id, language=language, policy=policy,
        reranker=answerer.reranker.name, evidence=empty, generation=generation, steps=state.steps, condensed=state.condensed,
        answer=to_dict(answer), stage_timings={"total": state.seconds()},
    )
    answerer.store.save_trace(answer.trace_id, question, answer.trace.to_dict())
    return answer
