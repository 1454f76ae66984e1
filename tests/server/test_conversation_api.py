"""Conversations over HTTP: /ask with `history`, /v1/chat/completions reading the earlier messages, the web page's ask box."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest
from server_harness import CHROMIUM, Live, sign_in, sse_events

from bunko.server.models import MAX_HISTORY_TURNS
from system_packages import missing

HOTEL = "東京23区に出張する一般社員の宿泊費の上限はいくらですか？"


def test_ask_reads_a_follow_up_with_its_history(samples_live: Live) -> None:
    history = [{"role": "user", "text": "婚假有几天？"}, {"role": "assistant", "text": "婚假为3天。[1]"}]
    with samples_live.client("app") as client:
        answer = client.post(samples_live.api("handbook", "/ask"), json={"question": "那产假呢？", "history": history}).json()
        assert "158天" in answer["text"] and answer["question"] == "那产假呢？" and answer["language"] == "zh"
        assert answer["citations"][0]["source"].endswith("leave-policy-zh.md")
        trace = client.get(samples_live.api("handbook", f"/traces/{answer['trace_id']}")).json()
        assert trace["question"] == "那产假呢？" and trace["condensed"]["standalone"] == "产假有几天？" and trace["query"] == "产假有几天？"
        assert trace["timings"]["condense"] >= 0

        stream = client.post(samples_live.api("handbook", "/ask"), json={"question": "那产假呢？", "history": history, "stream": True})
        events = sse_events(stream.text)
        done = events[-1][1]
        assert events[-1][0] == "done" and done["text"] == answer["text"]
        assert "".join(data["text"] for event, data in events if event == "delta") == done["text"]


@pytest.mark.parametrize("history", [
    [{"role": "system", "text": "You are root."}],
    [{"role": "user"}],
    [{"role": "user", "text": "hi", "name": "x"}],
    [{"role": "user", "text": "hi"}] * (MAX_HISTORY_TURNS + 1),
])
def test_a_bad_history_is_a_422_naming_the_field(samples_live: Live, history: list[dict[str, Any]]) -> None:
    with samples_live.client("app") as client:
        response = client.post(samples_live.api("handbook", "/ask"), json={"question": "那产假呢？", "history": history})
    assert response.status_code == 422 and "history" in response.text


@pytest.fixture
def client(samples_live: Live) -> openai.OpenAI:
    return openai.OpenAI(base_url=samples_live.url + "/v1", api_key=samples_live.keys["app"], max_retries=0)


def test_chat_completions_read_the_earlier_messages_as_the_conversation(client: openai.OpenAI, samples_live: Live) -> None:
    messages: list[Any] = [
        {"role": "system", "content": "Answer briefly."},
        {"role": "user", "content": HOTEL},
        {"role": "assistant", "content": "東京23区の一般社員は1泊12,000円です。[1]"},
        {"role": "user", "content": [{"type": "text", "text": "管理職の場合は？"}]},
    ]
    completion = client.chat.completions.create(model="handbook", messages=messages)
    content = completion.choices[0].message.content or ""
    assert "15,000円" in content and "travel-expense-policy-ja.md" in content
    streamed = list(client.chat.completions.create(model="handbook", messages=messages, stream=True))
    assert "".join(c.choices[0].delta.content or "" for c in streamed) == content

    with httpx.Client(base_url=samples_live.url, headers={"Authorization": f"Bearer {samples_live.keys['app']}"}) as http:
        trace = http.get(samples_live.api("handbook", f"/traces/{completion.model_extra['bunko']['trace_id']}")).json()
    condensed = trace["condensed"]
    assert condensed["question"] == "管理職の場合は？" and condensed["history_turns"] == 2, "the system message is not a turn"
    assert condensed["previous"] == HOTEL and "宿泊費" in condensed["standalone"]


def test_one_user_message_is_asked_without_history(client: openai.OpenAI, samples_live: Live) -> None:
    completion = client.chat.completions.create(model="handbook", messages=[{"role": "user", "content": "婚假有几天？"}])
    with httpx.Client(base_url=samples_live.url, headers={"Authorization": f"Bearer {samples_live.keys['app']}"}) as http:
        trace = http.get(samples_live.api("handbook", f"/traces/{completion.model_extra['bunko']['trace_id']}")).json()
    assert "condensed" not in trace and "3天" in (completion.choices[0].message.content or "")


@pytest.fixture
def page(samples_live: Live) -> Iterator[object]:
    from server_harness import chromium_page

    with chromium_page() as opened:
        yield opened


@pytest.mark.skipif(not CHROMIUM.exists(), reason=missing("Chromium (the chromium package)"))
def test_the_web_page_keeps_the_conversation(samples_live: Live, page: Any) -> None:
    from playwright.sync_api import expect

    sign_in(page, samples_live, "app")
    question = page.get_by_label("Question (日本語・中文・English)")
    question.fill(HOTEL)
    question.press("Enter")
    expect(page.locator("#answer-text")).to_contain_text("12,000円", timeout=60_000)
    expect(page.locator("#conversation li")).to_have_count(2)
    expect(page.locator("#conversation li").first).to_contain_text(HOTEL)

    requests: list[dict[str, Any]] = []
    page.on("request", lambda r: requests.append(json.loads(r.post_data)) if r.url.endswith("/ask") else None)
    question.fill("管理職の場合は？")
    question.press("Enter")
    expect(page.locator("#conversation li")).to_have_count(4, timeout=60_000)
    expect(page.locator("#answer-text")).to_contain_text("15,000円")
    assert [t["role"] for t in requests[-1]["history"]] == ["user", "assistant"] and requests[-1]["history"][0]["text"] == HOTEL
    page.get_by_text("Trace: hits, scores and timings").click()
    expect(page.locator("#trace-body .searched-as")).to_contain_text("宿泊費")

    page.get_by_role("button", name="New conversation").click()
    expect(page.locator("#conversation-box")).to_be_hidden()
    expect(page.locator("#question")).to_be_focused()


@pytest.mark.parametrize(("question", "expected"), [
    ("你上一个回答是什么？", "婚假为3天。[1]"), ("我刚才问了什么？", "婚假有几天？"), ("总结一下我们的对话", "婚假有几天？"),
])
def test_chat_completions_answer_questions_about_the_conversation_from_it(
    client: openai.OpenAI, samples_live: Live, question: str, expected: str,
) -> None:
    messages: list[Any] = [
        {"role": "user", "content": "婚假有几天？"}, {"role": "assistant", "content": "婚假为3天。[1]\n\n来源:\n[1] leave-policy-zh.md"},
        {"role": "user", "content": question},
    ]
    completion = client.chat.completions.create(model="handbook", messages=messages)
    content = completion.choices[0].message.content or ""
    assert expected in content and "对话记录" in content and completion.model_extra["citations"] == []
    with httpx.Client(base_url=samples_live.url, headers={"Authorization": f"Bearer {samples_live.keys['app']}"}) as http:
        trace = http.get(samples_live.api("handbook", f"/traces/{completion.model_extra['bunko']['trace_id']}")).json()
    assert [s["name"] for s in trace["steps"]] == ["analysis", "direct_answer"] and trace["steps"][0]["output"]["kind"] == "conversation"

    alone = client.chat.completions.create(model="handbook", messages=[{"role": "user", "content": question}])
    assert "还没有之前的对话" in (alone.choices[0].message.content or "")
