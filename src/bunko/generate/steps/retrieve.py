"""Step 4: the evidence, and whether it is enough to answer.

`retrieve` searches the question (and, for a several-part question, each part) and grades the merged hits;
`judge` decides whether to answer from them: the model's CRAG verdict when `[answer] llm_grader` is on, the
grade's refusal reasons, and one more search (`[agent] rewrite`) when the evidence was too weak.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from bunko.generate.crag import NOT_FOUND, REWRITE, llm_grade
from bunko.generate.expansion import expanded, feedback_terms, hypothetical_passage
from bunko.generate.steps.state import AskState, Gathered, Retrieved
from bunko.llm.base import LLMError, model_step_on
from bunko.schema import Hit
from bunko.trace import AgentStep
from bunko.trace_steps import DecomposeStep, RewriteStep

LOW_CONFIDENCE = "low_confidence"
"""The abstain reason of an answer, quoted or computed from a table, whose confidence is below `min_confidence`."""

if TYPE_CHECKING:
    from bunko.generate.answerer import Answerer


def retrieve(answerer: Answerer, state: AskState) -> Gathered:
    """The question's evidence; for a multi-part or comparison question (`[agent] decompose`), each part's best
    passages interleaved into it, judged against the whole question."""
    question, filters, k, mode = state.question, state.filters, state.k, state.mode
    whole = answerer.evidence(question, filters, k, mode)
    analysis = state.analysis
    if analysis is None or not analysis.parts or not answerer.config.agent.decompose:
        return Gathered(whole, whole)
    started = time.perf_counter()
    # each part's best hits only: its own grade would be thrown away, the merged hits are graded against the whole
    per_part = [answerer.reranked(part, filters, k, mode, judged_as=part, question_part=True)[3][:k] for part in analysis.parts]
    merged: dict[str, Hit] = {}
    for rank in range(k):
        for hits in [whole.hits, *per_part]:
            if rank < len(hits):
                merged.setdefault(hits[rank].chunk.chunk_id, hits[rank])
    hits = list(merged.values())[: k + len(per_part)]
    whole_ids = {h.chunk.chunk_id for h in whole.hits}
    judged = answerer.judged(answerer.read(question), whole.result, whole.query_vector, whole.weights, hits, whole.duplicates,
                             whole.rerank_notes, filters, k, dict(whole.timings))
    added = [h.chunk.chunk_id for h in hits if h.chunk.chunk_id not in whole_ids]
    output = DecomposeStep(list(analysis.parts), added, whole.grade.confidence, judged.grade.confidence)
    state.steps.append(AgentStep("decompose", question, output, time.perf_counter() - started))
    return Gathered(judged, judged)


def judge(answerer: Answerer, state: AskState, gathered: Gathered) -> Gathered:
    """Why not to answer, if anything: no hits, the model's verdict, the grade's reason or its low confidence; a
    low confidence gets one more search, kept when its own grade says sufficient."""
    question, filters, k, mode = state.question, state.filters, state.k, state.mode
    evidence = gathered.evidence
    abstain_reason = None if evidence.hits else "no_hits"
    if answerer.chat_model is not None and model_step_on(answerer.config.answer.llm_grader, answerer.chat_model) and evidence.hits:
        timer = time.perf_counter()
        graded = gathered.llm_grade = llm_grade(answerer.chat_model, question, evidence.hits)
        state.stage_timings["llm_grade"] = time.perf_counter() - timer
        if graded.usage is not None:
            graded.usage = answerer.priced(graded.usage)
        if graded.verdict == REWRITE and graded.query and gathered.summary is None:
            evidence = gathered.evidence = answerer.evidence(graded.query, filters, k, mode)
            abstain_reason = None if evidence.hits else "no_hits"
        elif graded.verdict == NOT_FOUND:
            abstain_reason = "llm_grade_not_found"
    if abstain_reason is None and evidence.grade.reason:
        abstain_reason = evidence.grade.reason
    if abstain_reason is None and not evidence.grade.sufficient:
        abstain_reason = LOW_CONFIDENCE
    if abstain_reason == LOW_CONFIDENCE and evidence is gathered.first and gathered.summary is None:
        retried = second_search(answerer, state, evidence)
        if retried is not None:
            gathered.evidence, abstain_reason = retried, None
    gathered.abstain_reason = abstain_reason
    return gathered


def second_search(answerer: Answerer, state: AskState, evidence: Retrieved) -> Retrieved | None:
    """`[agent] rewrite` prf or hyde: one more search when the grade found the evidence insufficient; its result
    is kept only when its own grade (against the question) says sufficient."""
    question = state.question
    method = answerer.config.agent.rewrite
    started = time.perf_counter()
    output = RewriteStep(method)
    if method == "prf":
        output.terms = feedback_terms(evidence.result.query_tokens, evidence.hits, answerer.analyzer, answerer.store.search().term_weights,
                                      answerer.config.agent.expansion_terms)
        query = expanded(question, output.terms)
    elif method == "hyde" and answerer.chat_model is not None:
        try:
            output.passage = hypothetical_passage(answerer.chat_model, question)
        except LLMError as exc:
            output.error = str(exc)
            state.steps.append(AgentStep("rewrite", question, output, time.perf_counter() - started))
            return None
        query = f"{question}\n{output.passage}"
    else:
        return None
    retried = answerer.evidence(query, filters=state.filters, k=state.k, mode=state.mode, judged_as=question)
    output.query, output.before, output.after = query, evidence.grade.confidence, retried.grade.confidence
    output.kept = retried.grade.sufficient and retried.grade.reason is None
    state.steps.append(AgentStep("rewrite", question, output, time.perf_counter() - started))
    return retried if output.kept else None
