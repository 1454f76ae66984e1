"""The LLM entity extractor, against a fake OpenAI-compatible server: names become mentions only where written."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeChatServer

from bunko import Bunko, Config
from bunko.errors import ConfigError
from bunko.llm.base import LLMError
from bunko.llm.entities import located, names_in
from bunko.schema import JobStatus

DOCUMENTS = {
    "en.md": "# Mail\n\nWietse Venema wrote tcpd and created Postfix, the modular mail server.\n",
    "ja.md": "# メール\n\nWietse Venema は tcpd を書き、モジュール型メールサーバ Postfix を作りました。\n",
    "zh.md": "# 邮件\n\nWietse Venema 编写了 tcpd，并创建了模块化邮件服务器 Postfix。\n",
}
NAMED = {"en": ["Wietse Venema", "tcpd", "Postfix", "Sendmail"], "ja": ["Wietse Venema", "tcpd", "Postfix", "メールサーバ"],
         "zh": ["Wietse Venema", "tcpd", "Postfix", "邮件服务器"]}


def reply(messages: list[dict[str, str]], body: dict[str, Any]) -> str:
    passage = messages[-1]["content"]
    lang = "ja" if "メール" in passage else "zh" if "邮件" in passage else "en"
    return "Here you are:\n" + json.dumps({"entities": NAMED[lang]}, ensure_ascii=False)


@pytest.fixture
def server() -> Iterator[FakeChatServer]:
    with FakeChatServer() as fake:
        fake.reply = reply
        yield fake


def llm_config(server: FakeChatServer) -> Config:
    config = Config()
    config.ingest.entities = "llm"
    config.llm.base_url = server.url
    config.llm.model = "fake-model"
    config.llm.retries = 0
    config.llm.timeout_s = 5
    return config


def write_docs(folder: Path) -> Path:
    folder.mkdir()
    for name, text in DOCUMENTS.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def test_the_models_names_become_mentions_where_the_chunk_writes_them(tmp_path: Path, embedder, server: FakeChatServer) -> None:
    kb = Bunko(tmp_path / ".bunko", config=llm_config(server), embedder=embedder)
    assert kb.ingest(write_docs(tmp_path / "docs")).ok
    graph = kb.store.search().entity_graph()
    assert len(graph.passages_of("postfix")) == 3 and len(graph.passages_of("wietse venema")) == 3
    assert graph.passages_of("sendmail") == []  # named by the model, written nowhere: no node without its passage
    assert graph.passages_of("メールサーバ") and graph.passages_of("邮件服务器")
    for chunk in kb.chunks():
        for mention in kb.store.search().mentions([chunk.chunk_id]).get(chunk.chunk_id, []):
            assert chunk.text[mention.start : mention.end] == mention.surface
    kb.close()


def test_a_model_that_fails_fails_its_document_with_the_reason_and_the_rest_continue(tmp_path: Path, embedder, server: FakeChatServer) -> None:
    server.reply = lambda messages, body: "I cannot help with that." if "邮件" in messages[-1]["content"] else reply(messages, body)
    kb = Bunko(tmp_path / ".bunko", config=llm_config(server), embedder=embedder)
    report = kb.ingest(write_docs(tmp_path / "docs"))
    failed = {Path(j.source).name: j for j in report.failed}
    assert list(failed) == ["zh.md"] and "entity extraction failed" in (failed["zh.md"].error_detail or "")
    assert report.count(JobStatus.READY) == 2
    kb.close()


def test_llm_entities_without_a_model_are_refused_with_what_to_set(tmp_path: Path, embedder) -> None:
    config = Config()
    config.ingest.entities = "llm"
    kb = Bunko(tmp_path / ".bunko", config=config, embedder=embedder)
    with pytest.raises(ConfigError, match=r"\[llm\] base_url"):
        kb.ingest(write_docs(tmp_path / "docs"))
    kb.close()


def test_an_answer_that_is_not_the_json_asked_for_is_an_error_not_an_empty_list() -> None:
    with pytest.raises(LLMError, match="entities"):
        names_in("Postfix, tcpd")
    assert names_in('```json\n{"entities": ["Postfix", 3, " "]}\n```') == ["Postfix"]


def test_every_occurrence_is_located_case_insensitively() -> None:
    mentions = located(["postfix", "tcpd"], "Postfix uses tcpd; POSTFIX again.")
    assert [(m.key, m.surface, m.start) for m in mentions] == [("postfix", "Postfix", 0), ("tcpd", "tcpd", 13), ("postfix", "POSTFIX", 19)]
