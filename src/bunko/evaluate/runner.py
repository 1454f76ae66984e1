"""Ask one opened collection every golden question and record what came back.

Retrieval metrics are measured on ``Bunko.search`` with the largest k asked for (so recall@10 is
possible while ``ask`` uses ``[retrieve] k``); answer metrics and stage latencies on ``Bunko.ask``
and the trace it writes — the same path a user's question takes, not a re-implementation of it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from bunko.engine import Bunko
from bunko.evaluate.golden import GoldenItem
from bunko.evaluate.records import CitationRecord, HitRecord, QuestionRecord, SentenceRecord
from bunko.schema import Answer, Hit

QuestionProgress = Callable[[int, int, GoldenItem], None]

_USAGE_KEYS = ("prompt_tokens", "completion_tokens", "total_tokens", "input_tokens", "output_tokens", "cost")


def usage_from_trace(trace: Mapping[str, Any]) -> dict[str, float]:
    """LLM token use and cost, wherever a generator put them: ``usage`` at the top or under ``llm``.

    OpenAI-style ``prompt_tokens``/``completion_tokens`` and Anthropic-style
    ``input_tokens``/``output_tokens`` are both accepted; ``cost`` may sit beside ``usage``.
    """
    usage: dict[str, float] = {}
    candidates = [trace.get("usage"), (trace.get("llm") or {}).get("usage") if isinstance(trace.get("llm"), dict) else None]
    for block in candidates:
        if isinstance(block, dict):
            for key in _USAGE_KEYS:
                value = block.get(key)
                if isinstance(value, int | float) and not isinstance(value, bool):
                    usage[key] = usage.get(key, 0.0) + float(value)
    if "input_tokens" in usage:
        usage.setdefault("prompt_tokens", usage.pop("input_tokens"))
    if "output_tokens" in usage:
        usage.setdefault("completion_tokens", usage.pop("output_tokens"))
    cost = trace.get("cost")
    if isinstance(cost, int | float) and not isinstance(cost, bool):
        usage["cost"] = float(cost)
    return usage


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
    trace = kb.trace(answer.trace_id) or {}
    timings = trace.get("timings") or {}
    record.timings = {str(stage): float(v) for stage, v in timings.items() if isinstance(v, int | float)}
    record.usage = usage_from_trace(trace)
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
