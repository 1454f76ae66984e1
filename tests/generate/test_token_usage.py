"""Token use and cost: reported by the fake OpenAI-compatible server, carried by the trace `ask` returns, read by the evaluator."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeChatServer

from bunko import Bunko, Config
from bunko.evaluate.golden import GoldenItem
from bunko.evaluate.runner import evaluate_question
from bunko.generate.crag import SYSTEM as GRADER_SYSTEM
from bunko.llm.openai_chat import OpenAIChatModel
from bunko.schema import Answer
from bunko.trace import Usage

REPORTED = Usage(321, 45)
"""What tests/generate/fake_openai.py reports for every call."""


@pytest.fixture
def server() -> Iterator[FakeChatServer]:
    with FakeChatServer() as fake:
        yield fake


def open_kb(path: Path, embedder: Any, server: FakeChatServer, grader: bool = False, prices: tuple[float, float] | None = None) -> Bunko:
    config = Config()
    config.answer.generator = "openai"
    config.answer.llm_grader = grader
    config.llm.base_url = server.url
    config.llm.model = "fake-model"
    config.llm.retries = 0
    config.llm.timeout_s = 5
    if prices is not None:
        config.llm.prompt_price_per_1k, config.llm.completion_price_per_1k = prices
    return Bunko(path, config=config, embedder=embedder)


def reply(messages: list[dict[str, str]], body: dict[str, Any]) -> str:
    if messages[0]["content"] == GRADER_SYSTEM:
        return '{"verdict": "sufficient"}'
    question = messages[-1]["content"].rsplit("Question:", 1)[-1]
    if "宿泊費" in question:
        return "宿泊費の上限は1泊12,000円です。[1]"
    return "婚假为3天。[1]" if "婚假" in question else "Invoices are kept for 7 years. [1]"


def fail_on_store_read(kb: Bunko) -> None:
    def get_trace(trace_id: str) -> None:
        raise AssertionError(f"read trace {trace_id} back from the store")

    kb.store.get_trace = get_trace  # type: ignore[method-assign]


@pytest.mark.parametrize("question", [
    "東京23区に出張する一般社員の宿泊費の上限はいくらですか？", "婚假有几天？", "How long must invoices and accounting records be retained?",
])
def test_ask_returns_the_usage_the_server_reported(samples_kb_path: Path, embedder, server: FakeChatServer, question: str) -> None:
    server.reply = reply
    with open_kb(samples_kb_path, embedder, server) as kb:
        answer = kb.ask(question)
        stored = kb.trace(answer.trace_id)
    assert answer.trace is not None and answer.trace.generation.mode == "llm"
    assert answer.trace.generation.usage == REPORTED and answer.trace.usage == REPORTED
    assert answer.trace.usage.cost is None, "no prices configured: the cost is unknown, not 0"
    assert stored["usage"] == {"prompt_tokens": 321, "completion_tokens": 45, "total_tokens": 366, "estimated": False}


def test_streamed_usage_is_read_from_the_last_chunk(samples_kb_path: Path, embedder, server: FakeChatServer) -> None:
    server.reply = reply
    server.stream_usage = True
    with open_kb(samples_kb_path, embedder, server) as kb:
        final = list(kb.ask_stream("婚假有几天？"))[-1]
    assert isinstance(final, Answer) and final.trace is not None
    assert final.trace.generation.usage == REPORTED


def test_cost_is_tokens_times_the_configured_prices(samples_kb_path: Path, embedder, server: FakeChatServer) -> None:
    server.reply = reply
    with open_kb(samples_kb_path, embedder, server, prices=(0.5, 1.5)) as kb:
        answer = kb.ask("東京23区に出張する一般社員の宿泊費の上限はいくらですか？")
        stored = kb.trace(answer.trace_id)
    assert answer.trace is not None and answer.trace.usage is not None
    assert answer.trace.usage.cost == pytest.approx((321 * 0.5 + 45 * 1.5) / 1000)
    assert stored["usage"]["cost"] == pytest.approx(0.228)


def test_the_llm_grade_counts_toward_the_answers_usage(samples_kb_path: Path, embedder, server: FakeChatServer) -> None:
    server.reply = reply
    with open_kb(samples_kb_path, embedder, server, grader=True, prices=(1.0, 2.0)) as kb:
        answer = kb.ask("How long must invoices and accounting records be retained?")
        stored = kb.trace(answer.trace_id)
    assert answer.trace is not None and answer.trace.llm_grade is not None
    assert answer.trace.llm_grade.verdict == "sufficient" and answer.trace.llm_grade.usage is not None
    total = answer.trace.usage
    assert total is not None and (total.prompt_tokens, total.completion_tokens) == (642, 90)
    assert total.cost == pytest.approx(2 * (321 * 1.0 + 45 * 2.0) / 1000)
    assert stored["llm_grade"]["usage"]["total_tokens"] == 366


def test_the_evaluator_takes_timings_and_usage_from_the_returned_trace(samples_kb_path: Path, embedder, server: FakeChatServer) -> None:
    server.reply = reply
    item = GoldenItem("q43", "How long must invoices and accounting records be retained?", ("7 years",))
    with open_kb(samples_kb_path, embedder, server, prices=(0.5, 1.5)) as kb:
        fail_on_store_read(kb)
        record = evaluate_question(kb, item, k=5)
    assert record.error is None
    assert record.timings["total"] > 0 and "search" in record.timings and "generate" in record.timings
    assert record.usage == {"prompt_tokens": 321.0, "completion_tokens": 45.0, "total_tokens": 366.0, "cost": pytest.approx(0.228)}


# -- the chat models on their own -----------------------------------------------

MESSAGES = [{"role": "user", "content": "こんにちは"}]


def test_openai_model_records_usage_of_completions_and_streams(server: FakeChatServer) -> None:
    chat = OpenAIChatModel(server.url, "fake-model", backoff_s=0.01)
    chat.complete(MESSAGES)
    assert chat.last_usage == REPORTED
    "".join(chat.stream(MESSAGES))
    assert chat.last_usage is None, "a stream without a usage chunk reports nothing"
    server.stream_usage = True
    assert "".join(chat.stream(MESSAGES)) == "OK [1]"
    assert chat.last_usage == REPORTED


def test_openai_model_without_usage_in_the_reply_reports_none(server: FakeChatServer) -> None:
    server.usage = {}
    chat = OpenAIChatModel(server.url, "fake-model", backoff_s=0.01)
    chat.complete(MESSAGES)
    assert chat.last_usage is None


