"""The official `openai` client against /v1: a collection is a model, answers are cited, errors are typed."""

from __future__ import annotations

import openai
import pytest
from server_harness import Live

QUESTION = "東京23区に出張する一般社員の宿泊費の上限はいくらですか？"


@pytest.fixture
def client(samples_live: Live) -> openai.OpenAI:
    return openai.OpenAI(base_url=samples_live.url + "/v1", api_key=samples_live.keys["app"], max_retries=0)


def test_models_are_the_collections(client: openai.OpenAI) -> None:
    models = client.models.list()
    assert [m.id for m in models] == ["handbook"] and models.data[0].owned_by == "bunko"
    assert client.models.retrieve("handbook").id == "handbook"


def test_a_completion_is_a_cited_answer(client: openai.OpenAI) -> None:
    completion = client.chat.completions.create(
        model="handbook", temperature=0.2, messages=[{"role": "system", "content": "Be brief."}, {"role": "user", "content": QUESTION}],
    )
    message = completion.choices[0].message
    assert completion.choices[0].finish_reason == "stop" and message.role == "assistant"
    assert "12,000円" in message.content and "[1]" in message.content
    assert "出典:" in message.content and "travel-expense-policy-ja.md" in message.content
    extra = completion.model_extra
    assert extra["citations"][0]["number"] == 1 and extra["citations"][0]["source"].endswith("travel-expense-policy-ja.md")
    assert extra["bunko"]["trace_id"] and not extra["bunko"]["abstained"]
    assert completion.usage.total_tokens > 0


def test_a_streamed_completion_adds_up_to_the_same_answer(client: openai.OpenAI) -> None:
    whole = client.chat.completions.create(model="handbook", messages=[{"role": "user", "content": QUESTION}]).choices[0].message.content
    chunks = list(client.chat.completions.create(model="handbook", messages=[{"role": "user", "content": QUESTION}], stream=True))
    assert chunks[0].choices[0].delta.role == "assistant"
    text = "".join(c.choices[0].delta.content or "" for c in chunks)
    assert text == whole and len(chunks) >= 4
    last = chunks[-1]
    assert last.choices[0].finish_reason == "stop" and last.model_extra["citations"][0]["source"].endswith("travel-expense-policy-ja.md")


def test_content_parts_filters_and_abstention(client: openai.OpenAI) -> None:
    parts = client.chat.completions.create(
        model="handbook", messages=[{"role": "user", "content": [{"type": "text", "text": "婚假有几天？"}]}],
    ).choices[0].message.content
    assert "婚假" in parts and "来源:" in parts
    filtered = client.chat.completions.create(
        model="handbook", messages=[{"role": "user", "content": QUESTION}], extra_body={"filters": {"source": {"$glob": "*-zh.md"}}},
    )
    assert "12,000円" not in filtered.choices[0].message.content
    unknown = client.chat.completions.create(model="handbook", messages=[{"role": "user", "content": "What is the airspeed of an unladen swallow?"}])
    assert unknown.choices[0].message.content == "The documents do not contain this." and unknown.model_extra["citations"] == []


def test_errors_are_openai_errors(client: openai.OpenAI, samples_live: Live) -> None:
    with pytest.raises(openai.NotFoundError, match="no model 'nope'"):
        client.chat.completions.create(model="nope", messages=[{"role": "user", "content": QUESTION}])
    with pytest.raises(openai.AuthenticationError):
        openai.OpenAI(base_url=samples_live.url + "/v1", api_key="bk_wrong", max_retries=0).chat.completions.create(
            model="handbook", messages=[{"role": "user", "content": QUESTION}]
        )
    with pytest.raises(openai.BadRequestError, match="filter"):
        client.chat.completions.create(model="handbook", messages=[{"role": "user", "content": QUESTION}], extra_body={"filters": {"x": 1}})
    with pytest.raises(openai.BadRequestError, match="no user message"):
        client.chat.completions.create(model="handbook", messages=[{"role": "system", "content": "hi"}])
    with pytest.raises(openai.UnprocessableEntityError):
        client.chat.completions.create(model="handbook", messages=[])

