"""`[agent] llm_analysis`: the configured model names the question's kind (ja/zh/en) before the classifier and rules;
the certain rules still come first, and a reply naming no kind or a failing model leaves the kind to them."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeChatServer
from rich.console import Console

from bunko import Bunko, Config
from bunko.generate.llm_kind import SYSTEM as KIND_SYSTEM
from bunko.generate.llm_kind import parse_kind
from bunko.generate.trace_view import render_trace


@pytest.fixture
def server() -> Iterator[FakeChatServer]:
    with FakeChatServer() as fake:
        yield fake


def open_kb(path: Path, embedder: Any, server: FakeChatServer, llm_analysis: bool = True) -> Bunko:
    config = Config()
    config.llm.base_url = server.url
    config.llm.model = "fake-model"
    config.llm.retries = 0
    config.llm.timeout_s = 5
    config.agent.llm_analysis = llm_analysis
    return Bunko(path, config=config, embedder=embedder)


def kind_requests(server: FakeChatServer) -> list[dict[str, Any]]:
    return [r for r in server.requests if r["body"]["messages"][0]["content"] == KIND_SYSTEM]


@pytest.mark.parametrize(("reply", "kind"), [
    ('{"kind": "comparison"}', "comparison"),
    ('Sure. {"kind": "multi-hop"}', "multi_hop"),
    ("aggregation", "aggregation"),
    ('{"kind": "banana"}', None),
    ("single_hop or multi_hop", None),
    ("", None),
])
def test_a_reply_is_read_as_one_kind_or_none(reply: str, kind: str | None) -> None:
    assert parse_kind(reply) == kind


@pytest.mark.parametrize("question", [
    "What is the hotel limit for the Tokyo office?", "東京23区の宿泊費の上限はいくらですか？", "婚假有几天？",
])
def test_the_models_kind_decides_and_is_traced(samples_kb_path: Path, embedder: Any, server: FakeChatServer, question: str) -> None:
    server.reply = lambda messages, body: '{"kind": "comparison"}' if messages[0]["content"] == KIND_SYSTEM else "OK [1]"
    with open_kb(samples_kb_path, embedder, server) as kb:
        answer = kb.ask(question)
        stored = kb.trace(answer.trace_id)
    assert answer.trace is not None
    step = answer.trace.steps[0]
    assert step.name == "analysis" and step.output.to_dict()["kind"] == "comparison" and step.output.to_dict()["decided_by"] == "llm"
    assert step.output.to_dict()["llm"]["kind"] == "comparison" and step.output.to_dict()["rule_kind"] == "single"
    asked = kind_requests(server)
    assert len(asked) == 1 and question in asked[0]["body"]["messages"][-1]["content"]
    out = io.StringIO()
    render_trace(Console(file=out, width=300), stored)
    assert "llm comparison" in out.getvalue()


def test_a_reply_naming_no_kind_leaves_it_to_the_classifier(samples_kb_path: Path, embedder: Any, server: FakeChatServer) -> None:
    server.reply = lambda messages, body: "I am not sure." if messages[0]["content"] == KIND_SYSTEM else "OK [1]"
    with open_kb(samples_kb_path, embedder, server) as kb:
        step = kb.ask("What is the hotel limit for the Tokyo office?").trace.steps[0]  # type: ignore[union-attr]
    assert step.output.to_dict()["decided_by"] in ("rules", "classifier") and step.output.to_dict()["llm"] == {
        "kind": None, "raw": "I am not sure.", "error": None}


def test_a_failing_model_is_traced_and_the_question_still_answered(samples_kb_path: Path, embedder: Any, server: FakeChatServer) -> None:
    server.mode = "error"
    with open_kb(samples_kb_path, embedder, server) as kb:
        answer = kb.ask("出張の宿泊費に上限はありますか？")
    assert answer.trace is not None
    step = answer.trace.steps[0]
    assert step.output.to_dict()["llm"]["kind"] is None and "500" in (step.output.to_dict()["llm"]["error"] or "")
    assert not answer.abstained and answer.sentences


def test_certain_rules_and_the_switch_ask_no_model(samples_kb_path: Path, embedder: Any, server: FakeChatServer) -> None:
    server.reply = lambda messages, body: '{"kind": "aggregation"}'
    with open_kb(samples_kb_path, embedder, server) as kb:
        assert kb.ask("こんにちは").trace.steps[0].output.to_dict()["kind"] == "greeting"  # type: ignore[union-attr]
        assert kb.ask("12 * 7 等于多少？").trace.steps[0].output.to_dict()["kind"] == "arithmetic"  # type: ignore[union-attr]
    assert not kind_requests(server)
    with open_kb(samples_kb_path, embedder, server, llm_analysis=False) as kb:
        assert "llm" not in kb.ask("What is the hotel limit for the Tokyo office?").trace.steps[0].output.to_dict()  # type: ignore[union-attr]
    assert not kind_requests(server)
