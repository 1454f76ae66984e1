"""Ask one opened collection every golden question and record what came back.

Retrieval metrics are measured on ``Bunko.search`` with the largest k asked for (so recall@10 is
possible while ``ask`` uses ``[retrieve] k``); answer metrics, stage latencies and token use on
``Bunko.ask`` and the trace it returns — the same path a user's question takes, not a re-implementation of it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bunko.engine import Bunko
from bunko.evaluate.golden import GoldenItem
from bunko.evaluate.records import CitationRecord, HitRecord, QuestionRecord, SentenceRecord
from bunko.schema import Answer, Hit
from bunko.trace import Trace

QuestionProgress = Callable[[int, int, GoldenItem], None]


def usage_from_trace(trace: Trace) -> dict[str, float]:
    """Tokens of every model call the trace records (LLM grade and generation), and their cost when priced.

    Empty for the extractive generator without an LLM grader: no model, nothing to count. ``cost`` is
    absent, not 0, when ``[llm]`` gives no prices, so the cost metric averages only over priced runs.
    """
    usage = trace.usage
    if usage is None:
        return {}
    record = {"prompt_tokens": float(usage.prompt_tokens), "completion_tokens": float(usage.completion_tokens),
              "total_tokens": float(usage.total_tokens)}
    if usage.cost is not None:
        record["cost"] = usage.cost
    return record


def hit_record(hit: Hit) -> HitRecord:
    chunk = hit.chunk
    return HitRecord(
        chunk_id=chunk.chunk_id, source=chunk.source, section_path=list(chunk.section_path), pages=list(chunk.pages),
        kinds=list(chunk.kinds), score=float(hit.score), text=chunk.text,
    )


def sentence_records(answer: Answer) -> list[SentenceRecord]:
    return [
        SentenceRecord(
            text=s.text, verdict=s.verdict, support=s.support,
            citations=[CitationRecord(c.chunk_id, c.source, c.page) for c in s.citations],
        )
        for s in answer.sentences
    ]


def evaluate_question(kb: Bunko, item: GoldenItem, k: int) -> QuestionRecord:
    record = QuestionRecord(item_id=item.id, question=item.question)
    try:
        record.hits = [hit_record(h) for h in kb.search(item.question, k=k)]
        answer = kb.ask(item.question)
    except Exception as exc:  # one failing question is a result to report, not a reason to lose the run
        record.error = f"{type(exc).__name__}: {exc}"
        return record
    record.answer = answer.text
    record.abstained = answer.abstained
    record.confidence = float(answer.confidence)
    record.sentences = sentence_records(answer)
    record.trace_id = answer.trace_id
    if answer.trace is not None:
        record.timings = dict(answer.trace.timings)
        record.usage = usage_from_trace(answer.trace)
    return record


def evaluate_collection(
    kb: Bunko, items: Sequence[GoldenItem], k: int, progress: QuestionProgress | None = None,
) -> list[QuestionRecord]:
    """One record per item, in the golden set's order (the order the paired bootstrap relies on)."""
    records = []
    for index, item in enumerate(items):
        records.append(evaluate_question(kb, item, k))
        if progress is not None:
            progress(index + 1, len(items), item)
    return records
