"""Step 5: the table route. An aggregate over a table, or the cell a question names by its row and column, is
computed from the collection's tables (`generate/table_answer.py`) instead of quoted from a passage."""

from __future__ import annotations

import time
from collections.abc import Generator, Mapping
from typing import TYPE_CHECKING, Any

from bunko.generate.confidence import FEATURES, AnswerFeatures, features_dict, table_answer_features
from bunko.generate.grade import unnamed_key_terms
from bunko.generate.guardrails import masks_personal_data
from bunko.generate.sentence_pipeline import SentencePipeline
from bunko.generate.steps.check import finish, guard_trace_texts, traced
from bunko.generate.steps.retrieve import LOW_CONFIDENCE
from bunko.generate.steps.state import AskState, Declined, Gathered, Retrieved
from bunko.generate.table_answer import CANNOT_RANK
from bunko.retrieve.table_plan import LOOKUP
from bunko.retrieve.table_route import TABLE
from bunko.schema import Answer, AnswerSentence, Hit
from bunko.text.lexicon import speaking
from bunko.trace import AgentStep, Generation, Grade
from bunko.trace_steps import TableStep

if TYPE_CHECKING:
    from bunko.generate.answerer import Answerer
    from bunko.generate.table_answer import TableOutcome

LOOKUP_EVIDENCE_RANK = 3
"""A cell is read as the answer when its row's chunk is among this many best hits, or when the passages could not
answer (the grade is insufficient): on real manuals a table that merely shares a word with the question ("root",
GNOME, 端口) otherwise answered questions the passages answered right (7 of the Debian Reference set's 120 at 78d15ac)."""
LOOKUP_SURE_SCORE = 3.0
"""…or when the question names the cell this plainly: its row, its column and its sheet (`TablePlanner.plan_lookup`'s
score; row and column alone score about 1.8–2.6, the sheet adds 2)."""


def tabulate(answerer: Answerer, state: AskState, gathered: Gathered) -> list[AnswerSentence] | None:
    """The sentences computed from a table, or None to answer from the passages: an aggregate when the router chose
    the table route, else (for the extractive generator; a model reads the row from the passages itself) a lookup.
    None with `gathered.declined` set: the question is declined (`declined_ranking`)."""
    if gathered.summary is not None:
        return None
    computed = aggregate(answerer, state, gathered)
    if computed is None and gathered.declined is None and answerer.generator_name == "extractive":
        computed = lookup(answerer, state, gathered)
    return computed


def aggregate(answerer: Answerer, state: AskState, gathered: Gathered) -> list[AnswerSentence] | None:
    """The computed answer when the router chose the table route and a table fits; the step says why not otherwise."""
    evidence = gathered.evidence
    if answerer.tables is None or evidence.result.mode != TABLE:
        return None
    started = time.perf_counter()
    outcome, detail = answerer.tables.answer(answerer.read(state.question), state.language, state.filters)
    outcome, detail = named_by_table(answerer, state.question, gathered, outcome, detail)
    if outcome is None and detail.get("outcome") == CANNOT_RANK:
        detail = declined_ranking(answerer, state, gathered, detail)
    state.steps.append(AgentStep("table", state.question, TableStep.from_dict(detail), time.perf_counter() - started))
    return outcome.sentences if outcome is not None else None


def declined_ranking(answerer: Answerer, state: AskState, gathered: Gathered, detail: dict[str, Any]) -> dict[str, Any]:
    """A question asking for the row ranked first or last ("the oldest", 最新, "the largest") of a table that has no
    column to rank by: the passages still answer, but an answer that would quote nothing but that table's rows (and
    its caption) is declined (`Declined.covers`): rows cannot rank themselves. Prose can ("Foo was the first browser")."""
    assert answerer.tables is not None
    table = detail.get("table") or {}
    chunks = answerer.tables.table_chunks(str(table.get("id", "")))
    parents = {c.parent_id for c in answerer.store.get_chunks(sorted(chunks)) if c.parent_id}
    title = str(table.get("sheet") or table.get("title") or "")
    message = speaking(state.language).TABLE_CANNOT_RANK.format(t=title, a=str(detail.get("cue") or ""))
    gathered.declined = Declined(message, frozenset(chunks | parents), title)
    return {**detail, "outcome": f"not used: {CANNOT_RANK}; an answer quoting only its rows is declined"}



def lookup(answerer: Answerer, state: AskState, gathered: Gathered) -> list[AnswerSentence] | None:
    """The table cell a question names by its row and column: read from the table, not quoted from a passage
    (a row cut from its header, a merged header, a long table's far rows are where passages fail). A follow-up's
    own words (`state.follow_up`) decide the column."""
    if answerer.tables is None:
        return None
    evidence = gathered.evidence
    started = time.perf_counter()
    outcome, detail = answerer.tables.lookup(state.question, state.language, state.filters, focus=state.follow_up)
    leading = {hit.chunk.chunk_id for hit in evidence.hits[:LOOKUP_EVIDENCE_RANK]}
    cited = {c.chunk_id for s in outcome.sentences for c in s.citations} if outcome is not None else set()
    sure = float(detail.get("score", 0.0)) >= LOOKUP_SURE_SCORE
    outcome, detail = named_by_table(answerer, state.question, gathered, outcome, detail)
    if outcome is not None and evidence.grade.sufficient and not cited & leading and not sure:
        # a table that shares a word with the question ("root", GNOME, 端口) is not the evidence the search found,
        # and the passages that are can answer
        outcome, detail = not_used(detail, f"the row is not among the top {LOOKUP_EVIDENCE_RANK} hits")
    state.steps.append(AgentStep("table_lookup", state.question, TableStep.from_dict(detail), time.perf_counter() - started))
    return outcome.sentences if outcome is not None else None


def not_used(detail: Mapping[str, Any], reason: str) -> tuple[None, dict[str, Any]]:
    """No computed answer, and the table step saying why (``not used: …``) beside what it read."""
    return None, {**detail, "outcome": f"not used: {reason}"}


def named_by_table(
    answerer: Answerer, question: str, gathered: Gathered, outcome: TableOutcome | None, detail: dict[str, Any],
) -> tuple[TableOutcome | None, dict[str, Any]]:
    """`outcome` and its step as they are, or none when the table and the cells it read leave a rare key term of the
    question unnamed (`unnamed_by_table`): a cell about something else, with a computation's certainty."""
    if outcome is not None and (unnamed := unnamed_by_table(answerer, question, gathered, outcome.sentences, detail)):
        return not_used(detail, f"the table does not name {', '.join(unnamed)}")
    return outcome, detail


def unnamed_by_table(
    answerer: Answerer, question: str, gathered: Gathered, sentences: list[AnswerSentence], detail: Mapping[str, Any],
) -> list[str]:
    """The question's rare key terms that neither the table (source, title, section, columns) nor the cells the
    answer read name (`unnamed_key_terms`)."""
    table = detail.get("table") or {}
    named = [str(table.get("title") or ""), str(table.get("sheet") or ""), str(table.get("source") or "")]
    for sentence in sentences:
        for citation in sentence.citations:
            named += [citation.source, " ".join(citation.section_path), citation.quote]
            named += [f"{cell.column} {cell.text}" for cell in citation.cells]
    evidence = gathered.evidence
    return unnamed_key_terms(answerer.read(question), evidence.weights, answerer.analyzer, "\n".join(named))


AGGREGATE_CEILING = 0.95
"""The most a computed aggregate's confidence can be: the arithmetic is exact, but a sum or a maximum over rows is
only as right as the reading of the question that chose them, which no evidence makes certain."""


def mapping_certainty(state: AskState) -> tuple[float, bool]:
    """The certainty the table step recorded for the plan it answered with (1 when none was recorded), and whether the
    answer is an aggregate (a computation over rows) rather than one cell read."""
    for step in reversed(state.steps):
        detail = step.output
        if step.name in ("table", "table_lookup") and isinstance(detail, TableStep) and detail.outcome == "answered":
            certainty = detail.certainty if detail.certainty is not None else 1.0
            return certainty, step.name == "table" and detail.operation != LOOKUP
    return 1.0, False


def table_confidence(certainty: float, passages: float, aggregate: bool) -> float:
    """A computed answer's confidence from the mapping's certainty (how plainly the question named the column, how
    far the table led any other that could answer: `TablePlan.certainty`), half of it on the mapping alone and the
    rest as far as the passages bear the rows out (`passages`, the confidence model's). A computation is exact, but
    whether it read the right table and columns is not: no table answer is certain by construction, and an
    aggregate stays under `AGGREGATE_CEILING`."""
    confidence = certainty * (0.5 + 0.5 * passages)
    return round(min(confidence, AGGREGATE_CEILING) if aggregate else confidence, 4)


def table_grade(answerer: Answerer, state: AskState, evidence: Retrieved, sentences: list[AnswerSentence]) -> Grade:
    """The computed answer's grade, decided as every answer is: the confidence model's probability that it is right,
    from the table route's features (`table_answer_features`: the mapping's certainty, the rows it read graded as
    evidence for the question, or the passages' grade when it cites none), against the same `min_confidence`. A
    table answer is neither certain by construction nor exempt from abstaining; abstaining, it keeps what it would
    have said (`Grade.quoted`), so that calibration judges the claim. With a model fitted without the route's
    features (``calibrated``, the ``query_passage`` model) or none (``retrieval``): `table_confidence`."""
    retrieval = evidence.grade
    certainty, aggregate = mapping_certainty(state)
    cited = list(dict.fromkeys(c.chunk_id for s in sentences for c in s.citations))
    rows = [Hit(chunk, 1.0) for chunk in answerer.store.get_chunks(cited)]
    graded = answerer.judged_against(state.question, evidence, rows, state.filters, state.k,
                                     (retrieval.key_terms, retrieval.missing_key_terms)).grade if rows else retrieval
    passages = max(graded.confidence, retrieval.confidence)
    features = table_answer_features(
        AnswerFeatures(**{name: float(graded.features[name]) for name in FEATURES if name in graded.features}), certainty,
    )
    model = answerer.confidence
    fitted = model is not None and "table" in model.features
    confidence = round(model.probability(features), 4) if fitted and model else table_confidence(certainty, passages, aggregate)
    recorded = {**features_dict(features), "retrieval_confidence": retrieval.confidence, "rows_confidence": graded.confidence,
                "mapping_certainty": certainty}
    return Grade(confidence >= answerer.min_confidence(state.language), confidence, "table", recorded, retrieval.key_terms,
                 retrieval.missing_key_terms, quoted="\n".join(s.text for s in sentences))


def computed(
    answerer: Answerer, state: AskState, gathered: Gathered, sentences: list[AnswerSentence],
) -> Generator[str, None, Answer]:
    """An answer computed from a table: its sentences are the evidence itself (the cells they cite), so they are
    not checked against passages; the grade the trace keeps is the table's (`table_grade`, the passages' own
    confidence kept beside it), and below `min_confidence` the answer abstains as any other would."""
    timer = time.perf_counter()
    evidence = gathered.evidence
    policy = answerer.config.answer.policy
    pipeline = SentencePipeline(answerer.checker, evidence.hits, state.language, policy, answerer.config.answer.max_sentences)
    evidence.grade = table_grade(answerer, state, evidence, sentences)
    abstain_reason = None if evidence.grade.sufficient else LOW_CONFIDENCE
    if abstain_reason is None:
        yield from pipeline.feed_computed(sentences, state.stream)
    gathered.abstain_reason = abstain_reason
    generation = Generation("table")
    generation.sentences = pipeline.verdicts
    generation.timings = {"generate": time.perf_counter() - timer, "check": 0.0}
    if masks_personal_data(policy):
        guard_trace_texts(generation, None, state.steps, policy, state.language)
    answer = finish(answerer, state, evidence, pipeline, abstain_reason)
    if state.stream and answer.abstained:
        yield answer.text
    return traced(answerer, state, answer, Gathered(evidence, evidence, abstain_reason=abstain_reason), generation)
