"""Step 7: the answer as the user gets it. What the pipeline kept, or the abstention with its reason; its confidence
(for a model's answer, lowered by what the citation check found: `sentence_pipeline.checked_confidence`); the
notices the policy, the check and the evidence's language call for; the trace, saved."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Generator, Sequence
from dataclasses import fields, is_dataclass, replace
from typing import TYPE_CHECKING, Any

from bunko.generate.guardrails import guard_text, masks_personal_data, regulated_notices, source_date
from bunko.generate.language import abstain_message, cited_languages, cross_language_note, unverified_notice
from bunko.generate.sentence_pipeline import SentencePipeline, checked_confidence
from bunko.generate.steps.state import TABLE_CANNOT_RANK, AskState, Composed, Gathered, Retrieved
from bunko.schema import Answer, AnswerSentence, Chunk, Hit, to_dict
from bunko.trace import AgentStep, Generation, Grade, LLMGrade, Trace

if TYPE_CHECKING:
    from bunko.generate.answerer import Answerer

NO_SUPPORTED_SENTENCE = "no_supported_sentence"
CHECK_LOWERED_CONFIDENCE = "check_lowered_confidence"
"""A model's answer whose confidence, lowered by the share of its sentences the check supported, fell below the
threshold the grade decides by."""


def check(answerer: Answerer, state: AskState, gathered: Gathered, composed: Composed) -> Generator[str, None, Answer]:
    """The answer, its trace saved; when streaming, the text the sentences did not already carry (a notice)."""
    pipeline, generation = composed.pipeline, composed.generation
    abstain_reason = gathered.abstain_reason
    if abstain_reason is None and not pipeline.kept:
        abstain_reason = gathered.abstain_reason = "model_abstained" if pipeline.model_abstained else "no_supported_sentence"
    confidence = gathered.evidence.grade.confidence
    if generation.mode == "llm" and generation.prompt is not None:
        checked = checked_confidence(confidence, pipeline)
        generation.checked_confidence = checked.to_dict()
        confidence = checked.confidence
        if abstain_reason is None and not checked.supported:
            abstain_reason = gathered.abstain_reason = NO_SUPPORTED_SENTENCE
        elif abstain_reason is None and confidence < answerer.min_confidence(state.language):
            abstain_reason = gathered.abstain_reason = CHECK_LOWERED_CONFIDENCE
    policy = answerer.config.answer.policy
    if masks_personal_data(policy):
        grades = [gathered.first.grade, gathered.evidence.grade]
        guard_trace_texts(generation, gathered.llm_grade, state.steps, policy, state.language, grades)
    cite_cells(answerer, pipeline)
    declined = gathered.declined.message if gathered.declined is not None else None
    if gathered.declined is not None and (abstain_reason is not None or gathered.declined.covers(pipeline.kept)):
        # the table the question ranks cannot rank its rows: that is why nothing answers, whatever else fell short
        abstain_reason = gathered.abstain_reason = TABLE_CANNOT_RANK
    answer = finish(answerer, state, gathered.evidence, pipeline, abstain_reason, confidence,
                    declined if abstain_reason == TABLE_CANNOT_RANK else None)
    if state.stream:  # what the streamed sentences did not say; an abstention after them is said after them
        tail = answer.text[len(pipeline.text):] if answer.text.startswith(pipeline.text) else "\n\n" + answer.text
        if tail:
            yield tail
    return traced(answerer, state, answer, gathered, generation)


def traced(answerer: Answerer, state: AskState, answer: Answer, gathered: Gathered, generation: Generation) -> Answer:
    """`answer` with its trace attached and saved."""
    state.stage_timings["total"] = state.seconds()
    rewritten = gathered.rewritten
    answer.trace = Trace(
        question=state.asked, trace_id=answer.trace_id, language=state.language, policy=answerer.config.answer.policy,
        reranker=answerer.reranker.name, evidence=gathered.first.record(), generation=generation, filters=dict(state.filters or {}),
        llm_grade=gathered.llm_grade, rewrite=rewritten.record() if rewritten is not None else None,
        abstain_reason=gathered.abstain_reason, answer=to_dict(answer), stage_timings=state.stage_timings, steps=state.steps,
        condensed=state.condensed,
    )
    answerer.store.save_trace(answer.trace_id, state.asked, answer.trace.to_dict())
    return answer


def finish(
    answerer: Answerer, state: AskState, evidence: Retrieved, pipeline: SentencePipeline, abstain_reason: str | None,
    confidence: float | None = None, declined: str | None = None,
) -> Answer:
    """The kept sentences (or the abstention) as the answer, with the notices the policy, the check and the language
    call for; `confidence` defaults to the grade's. An abstention says `declined` after it (why a table declined)."""
    config = answerer.config.answer
    language, policy = state.language, config.policy
    confidence = evidence.grade.confidence if confidence is None else confidence
    sentences = pipeline.kept if abstain_reason is None else []
    abstained = not sentences
    text = abstain_message(language) if abstained else pipeline.text
    if abstained and declined:
        text = f"{text} {declined}" if language == "en" else text + declined
    needs_review = False
    notices: list[str] = []
    if not abstained:
        note = language_note(language, sentences, pipeline.hits, answerer.store.get_chunks)
        if note:
            notices.append(note)
            text = text + ("\n\n" if "\n" in text else " ") + note
        if pipeline.marked:
            warning = unverified_notice(language)
            notices.append(warning)
            text = text + "\n\n" + warning
    if policy == "regulated":
        needs_review = confidence < answerer.review_below(language) or bool(pipeline.removed)
        if not abstained:
            dates = source_dates(answerer, sentences)
            notices = regulated_notices(language, dates, needs_review)
            text = text + "\n\n" + "\n".join(notices)
    return Answer(
        question=state.asked, text=text, sentences=sentences, abstained=abstained, confidence=confidence,
        trace_id=uuid.uuid4().hex[:16], language=language, needs_review=needs_review, notices=notices, policy=policy,
    )


def language_note(
    language: str, sentences: list[AnswerSentence], hits: list[Hit], get_chunks: Callable[[list[str]], list[Chunk]] | None = None,
) -> str | None:
    """Cross-language evidence is used only when nothing in the question's language answered; the answer says so, judged
    by the languages of the quoted units themselves (`cited_languages`), not of the chunks they sit in. A cited chunk
    that is not among the hits (a table answer cites the chunk its row was read from) is read from the store, so a
    row of names and amounts in Han characters is judged by its own passage's language."""
    cited = {c.chunk_id for s in sentences for c in s.citations}
    texts = {h.chunk.chunk_id: h.chunk.text for h in hits if h.chunk.chunk_id in cited}
    if get_chunks is not None and (missing := sorted(cited - texts.keys())):
        texts.update((chunk.chunk_id, chunk.text) for chunk in get_chunks(missing))
    languages = cited_languages(sentences, texts)
    return cross_language_note(language, languages) if languages and language not in languages else None


def source_dates(answerer: Answerer, sentences: list[AnswerSentence]) -> dict[str, str]:
    """Each cited source's date (its own field, else when it was ingested), set on the citations too."""
    documents = {d.source: d for d in answerer.store.documents()}
    dates: dict[str, str] = {}
    for sentence in sentences:
        for citation in sentence.citations:
            doc = documents.get(citation.source)
            day = source_date(doc.meta.get("fields") if doc else None, doc.ingested_at if doc else None)
            citation.updated = day
            if day:
                dates.setdefault(citation.source, day)
    return dates


def cite_cells(answerer: Answerer, pipeline: SentencePipeline) -> None:
    """A sentence quoting a table row cites that row's cells (a lookup: "the hotel limit for London")."""
    if answerer.tables is None:
        return
    table_chunks = {h.chunk.chunk_id for h in pipeline.hits if "table" in h.chunk.kinds}
    for sentence in pipeline.kept:
        for citation in sentence.citations:
            if citation.chunk_id in table_chunks and not citation.cells:
                citation.cells = answerer.tables.cells_for_quote(citation)


def guard_trace_texts(
    generation: Generation, graded: LLMGrade | None, steps: list[AgentStep], policy: str, language: str,
    grades: Sequence[Grade] = (),
) -> None:
    """The document text a trace keeps (prompt, model output, checked and removed sentences, what the agent steps
    wrote and rejected, the unit each grade judged) as the policy lets the answer out: a stored trace is an output
    too (`bunko trace`, HTTP ``traces/{id}``)."""

    def guard(text: str) -> str:
        return guard_text(text, policy, language)

    def guard_value(value: Any) -> Any:
        if isinstance(value, str):
            return guard(value)
        if isinstance(value, list):
            return [guard_value(v) for v in value]
        if isinstance(value, dict):
            return {k: guard_value(v) for k, v in value.items()}
        if is_dataclass(value) and not isinstance(value, type):
            return replace(value, **{f.name: guard_value(getattr(value, f.name)) for f in fields(value) if f.init})
        return value

    for step in steps:
        step.output = guard_value(step.output)

    generation.sentences = [{**v, "text": guard(v["text"])} if isinstance(v.get("text"), str) else v for v in generation.sentences]
    generation.removed = [guard(text) for text in generation.removed]
    if generation.raw_output is not None:
        generation.raw_output = guard(generation.raw_output)
    if generation.prompt is not None:
        generation.prompt = [{**m, "content": guard(m["content"])} if isinstance(m.get("content"), str) else m for m in generation.prompt]
    if graded is not None:
        graded.raw = guard(graded.raw)
    for grade in grades:
        grade.quoted = guard(grade.quoted)
