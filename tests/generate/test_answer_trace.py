"""`ask` returns its trace: the same record the store keeps, so nobody reads it back to learn timings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bunko import Bunko
from bunko.schema import Answer
from bunko.trace import Trace

QUESTIONS = [
    "東京23区に出張する一般社員の宿泊費の上限はいくらですか？",
    "婚假有几天？",
    "How long must invoices and accounting records be retained?",
    "火星の首都はどこですか？",
]


@pytest.mark.parametrize("question", QUESTIONS)
def test_ask_returns_the_trace_it_stores(samples_kb_path: Path, embedder, question: str) -> None:
    with Bunko(samples_kb_path, embedder=embedder) as kb:
        answer = kb.ask(question)
        stored = kb.trace(answer.trace_id)
    trace = answer.trace
    assert trace is not None and trace.trace_id == answer.trace_id and trace.question == question
    assert json.loads(json.dumps(trace.to_dict())) == stored
    assert Trace.from_dict(stored).to_dict() == stored
    assert {"search", "rerank", "grade", "generate", "check", "total"} <= set(trace.timings)
    assert trace.grade.confidence == answer.confidence and trace.generation.mode in ("extractive", "table") and trace.usage is None


def test_a_streamed_answer_carries_its_trace_too(samples_kb_path: Path, embedder) -> None:
    with Bunko(samples_kb_path, embedder=embedder) as kb:
        final = list(kb.ask_stream("婚假有几天？"))[-1]
        assert isinstance(final, Answer) and final.trace is not None
        assert final.trace.to_dict() == kb.trace(final.trace_id)
    assert final.trace.abstain_reason is None and final.trace.answer["text"] == final.text
