"""The topic route: a short phrase naming a topic is looking for the document about it.

A title-like query holds a few words, and every chunk holding them all saturates its keyword
coverage; ranked by that, the page with one paragraph dense in those words beats the page about
them. A phrase that is no question or request therefore takes the document-ranking weights
(its document's BM25 and dense similarity, half the chunks' keyword weight) for chunk hits too;
questions keep the semantic route, and so answers rank as before.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_document_evidence import KEYWORD_ONLY, write_corpus

from bunko import Bunko
from bunko.config import RetrieveConfig
from bunko.retrieve.router import route
from bunko.retrieve.searcher import Searcher, SearchResult
from bunko.text.questions import names_topic

TOPICS = {
    "en": ["Shutting down the system", "Package states of APT", "signing keys, backup window and audit logs",
           "I/O scheduler settings", "List of supported architectures"],
    "ja": ["パッケージの状態", "システムのシャットダウン", "署名鍵、バックアップ時間帯、監査ログ", "パスワードなどの設定"],
    "zh": ["软件包状态", "Debian 档案库基础", "签名密钥、备份窗口和审计日志", "请假申请流程", "几乎所有软件包的依赖"],
}
NOT_TOPICS = {
    "en": ["What is sudo?", "How to install packages", "Tell me about apt", "The backup window opens at two.", "I want the apt proxy",
           "configure the proxy that apt uses for every download from the archive mirrors here"],
    "ja": ["駐車場の料金はいくら", "パッケージの状態について知りたい", "設定を教えてください", "署名鍵を更新しますか", "どの設定"],
    "zh": ["怎样关闭系统", "我想了解目录", "软件包状态是什么", "签名密钥多久轮换一次", "能删除吗", "请问请假流程", "几点下班"],
}


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_a_short_phrase_names_a_topic_and_a_question_or_request_does_not(lang: str) -> None:
    assert all(names_topic(query) for query in TOPICS[lang])
    assert not any(names_topic(query) for query in NOT_TOPICS[lang])


def test_the_topic_route_weighs_evidence_as_documents_are_ranked() -> None:
    config = RetrieveConfig()
    topic = route(TOPICS["en"][0], ["shutting", "down", "system"], config)
    assert topic.name == "topic" and topic.retriever is None
    assert topic.weights["keyword"] == pytest.approx(config.keyword_weight * config.document_rank_keyword_share)
    assert topic.weights["document"] == config.document_rank_weight
    assert topic.weights["document_similarity"] == config.document_rank_similarity_weight
    assert route("What is sudo?", ["what", "sudo"], config).name == "semantic"
    assert route("E-1024 error", ["e-1024", "error"], config).name == "exact"  # an identifier still favours keyword search


def first_source(kb: Bunko, query: str, group_by: str = "chunk") -> tuple[str, str]:
    """The first hit's file and the route that ranked it, keyword evidence only."""
    searcher = kb.searcher
    searcher.config = searcher.config.model_copy(update={**KEYWORD_ONLY, "document_rank_keyword_share": 0.0})
    result = searcher.search(query, k=3, group_by=group_by)
    assert result.route is not None
    return Path(result.hits[0].chunk.source).name, result.route.name


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_a_topic_phrase_finds_the_document_about_it_among_chunk_hits(
    make_kb: Callable[..., Bunko], tmp_path: Path, lang: str
) -> None:
    """operations.md holds the three things, each in its own long section; notes.md one short chunk naming two.
    Named as a topic, the chunk hits start in operations.md, as the documents do; asked as a question, the short
    chunk's coverage wins as before."""
    write_corpus(tmp_path / "docs", lang)
    kb = make_kb()
    assert kb.ingest(tmp_path / "docs").ok
    phrase = TOPICS[lang][2]
    assert first_source(kb, phrase) == ("operations.md", "topic")
    assert first_source(kb, phrase, group_by="document") == ("operations.md", "topic")
    question = phrase + ("?" if lang == "en" else "？")
    assert first_source(kb, question) == ("notes.md", "semantic")


CUT_QUESTIONS = {
    "en": "signing keys, backup window and audit logs, and how long are audit logs kept?",
    "ja": "署名鍵、バックアップ時間帯、監査ログ、および監査ログは何年保管しますか？",
    "zh": "签名密钥、备份窗口和审计日志，以及审计日志保存几年？",
}


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_a_clause_cut_from_a_question_is_no_topic(
    make_kb: Callable[..., Bunko], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lang: str
) -> None:
    """The answerer searches each part of a several-part question; a part such as "apt upgrade のように" reads like a
    short phrase, but it is a clause of a question: it keeps the semantic route, searched alone or as the answerer's."""
    write_corpus(tmp_path / "docs", lang)
    kb = make_kb()
    assert kb.ingest(tmp_path / "docs").ok
    phrase = TOPICS[lang][2]
    assert kb.searcher.search(phrase).route.name == "topic"  # type: ignore[union-attr]
    assert kb.searcher.search(phrase, question_part=True).route.name == "semantic"  # type: ignore[union-attr]

    routes: list[tuple[str, bool, str]] = []
    search = Searcher.search

    def recorded(self: Searcher, query: str, *args: Any, **kwargs: Any) -> SearchResult:
        result = search(self, query, *args, **kwargs)
        routes.append((query, bool(kwargs.get("question_part")), result.route.name if result.route else ""))
        return result

    monkeypatch.setattr(Searcher, "search", recorded)
    kb.config.agent.decompose = True
    kb.ask(CUT_QUESTIONS[lang])
    parts = [(query, name) for query, part, name in routes if part]
    assert parts, routes  # the question was cut, and its parts searched as parts
    assert all(name != "topic" for _, name in parts), parts
