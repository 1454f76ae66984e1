"""The topic route: a short phrase naming a topic is looking for the document about it.

A title-like query holds a few words, and every chunk holding them all saturates its keyword
coverage; ranked by that, the page with one paragraph dense in those words beats the page about
them. A phrase that is no question or request therefore takes the document-ranking weights
(its document's BM25, dense similarity and opening, half the chunks' keyword weight) for chunk hits too;
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
from bunko.retrieve.question import read_question
from bunko.retrieve.router import DEFAULT_RULES, route, topic_rule
from bunko.retrieve.searcher import Searcher, SearchResult
from bunko.schema import CoverageSignal
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
    topic = route(read_question(TOPICS["en"][0], ["shutting", "down", "system"]), config)
    assert topic.name == "topic" and topic.retriever is None
    assert topic.weights["keyword"] == pytest.approx(config.keyword_weight * config.document_rank_keyword_share)
    assert topic.weights["document"] == config.document_rank_weight
    assert topic.weights["document_similarity"] == config.document_rank_similarity_weight
    assert topic.weights["document_opening"] == config.document_rank_opening_weight > 0
    assert route(read_question("What is sudo?", ["what", "sudo"]), config).name == "semantic"
    assert route(read_question("E-1024 error", ["e-1024", "error"]), config).name == "exact"  # an identifier still favours keyword search


CLAIMED_TOPICS = {
    "en": ("ISO-27001 signing keys and audit logs", "What do ISO-27001 signing keys and audit logs need?"),
    "ja": ("ISO-27001 の署名鍵と監査ログ", "ISO-27001 の署名鍵と監査ログには何が必要ですか？"),
    "zh": ("ISO-27001 签名密钥和审计日志", "ISO-27001 的签名密钥和审计日志需要什么？"),
}
"""A topic phrase holding an identifier, which the exact route claims, and a question holding the same."""


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_a_topic_phrase_another_rule_claims_keeps_its_route_and_ranks_documents(lang: str) -> None:
    """The exact route keeps its retriever and its keyword weight, and ranks documents as the topic route does; a
    question with the same identifier keeps the exact route's own weights."""
    from bunko.text.analyzers import multilingual, query_text

    config = RetrieveConfig()
    phrase, question = CLAIMED_TOPICS[lang]
    claimed = route(read_question(phrase, multilingual(query_text(phrase))), config)
    assert claimed.name == "exact" and claimed.names_topic and "short phrase naming a topic" in claimed.reason
    assert claimed.weights["keyword"] == pytest.approx(config.exact_keyword_weight * config.document_rank_keyword_share)
    assert claimed.weights["document"] == config.document_rank_weight
    assert claimed.weights["document_opening"] == config.document_rank_opening_weight > 0
    asked = route(read_question(question, multilingual(query_text(question))), config)
    assert asked.name == "exact" and not asked.names_topic
    assert asked.weights["keyword"] == config.exact_keyword_weight and "document_opening" not in asked.weights
    part = route(read_question(phrase, multilingual(query_text(phrase))), config, [rule for rule in DEFAULT_RULES if rule is not topic_rule])
    assert part.name == "exact" and not part.names_topic  # a clause cut from a question (`question_part`) is no topic


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
    claimed = f"ISO-27001 {phrase}"  # an identifier sends it to the exact route, which ranks it as a topic all the same
    assert first_source(kb, claimed) == ("operations.md", "exact")
    assert first_source(kb, claimed + ("?" if lang == "en" else "？")) == ("notes.md", "exact")


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


OPENINGS = {
    "en": ("wrap each input line to fit in a specified width",
           "# fold\n\nThe fold command breaks every line it reads so that no line is longer than a given number of columns.\n\n"
           "## Options\n\n-b, --bytes: count bytes rather than columns.\n\n-s, --spaces: break at spaces.\n\n"
           "-w, --width: use this many columns instead of 80.\n",
           "# Text editor guide\n\nThis guide explains how to open files, save them, and undo changes in the editor.\n\n"
           "## Opening files\n\nUse the open command to load a file into a new buffer.\n\n## Saving\n\nSave writes the buffer back "
           "to its file.\n\n## Display\n\nLong lines: the editor can wrap each input line to fit in a specified width when "
           "displaying it.\n\n## Wrapping width\n\nThe width used to wrap lines is set in the display settings; each input line "
           "wraps at that width.\n"),
    "ja": ("入力の各行を指定した幅に収まるように折り返す",
           "# fold\n\nfold コマンドは、読み込んだ各行を指定した桁数を超えないように折り返して出力する。\n\n"
           "## オプション\n\n-b, --bytes: 桁数ではなくバイト数で数える。\n\n-s, --spaces: 空白で区切る。\n\n"
           "-w, --width: 80 桁の代わりにこの桁数を使う。\n",
           "# テキストエディタの手引き\n\nこの手引きでは、エディタでファイルを開き、保存し、変更を取り消す方法を説明する。\n\n"
           "## ファイルを開く\n\nopen コマンドでファイルを新しいバッファに読み込む。\n\n## 保存\n\n保存するとバッファの内容が"
           "ファイルに書き戻される。\n\n## 表示\n\n長い行：エディタは表示するときに入力の各行を指定した幅に収まるように折り返す"
           "ことができる。\n\n## 折り返し幅\n\n行を折り返す幅は表示設定で決める。入力の各行はその幅で折り返される。\n"),
    "zh": ("将每个输入行折叠以适应指定的宽度",
           "# fold\n\nfold 命令把读入的每一行折断，使任何一行都不超过给定的列数。\n\n## 选项\n\n-b, --bytes：按字节而不是按列计数。\n\n"
           "-s, --spaces：在空格处断行。\n\n-w, --width：使用这个列数代替 80。\n",
           "# 文本编辑器指南\n\n本指南说明如何在编辑器中打开文件、保存文件以及撤销修改。\n\n## 打开文件\n\n使用 open 命令把文件载入新的"
           "缓冲区。\n\n## 保存\n\n保存会把缓冲区写回文件。\n\n## 显示\n\n长行：编辑器可以将每个输入行折叠以适应指定的宽度。\n\n"
           "## 折行宽度\n\n在显示设置中，每个输入行都会折叠以适应指定的宽度。\n"),
}
ONLY = {"dense_weight": 0.0, "keyword_weight": 0.0, "document_rank_weight": 0.0, "document_rank_similarity_weight": 0.0,
        "document_rank_opening_weight": 0.0, "document_rank_opening_keyword_weight": 0.0, "translation_weight": 0.0}


def topic_documents(kb: Bunko, phrase: str, **weights: float) -> list[tuple[str, CoverageSignal | None]]:
    """The phrase's two documents, ranked with nothing but the given document-ranking weights."""
    searcher = kb.searcher
    searcher.config = searcher.config.model_copy(update={**ONLY, **weights})
    result = searcher.search(phrase, k=2, group_by="document")
    assert result.route is not None and result.route.name == "topic"
    return [(Path(h.chunk.source).name, h.signals.coverage) for h in result.hits]


def write_openings(folder: Path, lang: str) -> str:
    phrase, fold, editor = OPENINGS[lang]
    folder.mkdir()
    (folder / "fold.md").write_text(fold, encoding="utf-8")
    (folder / "editor.md").write_text(editor, encoding="utf-8")
    return phrase


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_a_topic_weighs_the_page_that_opens_with_it_apart_from_the_page_that_mentions_it_inside(
    make_kb: Callable[..., Bunko], tmp_path: Path, lang: str
) -> None:
    """fold.md opens by saying what it does; editor.md, about something else, says the phrase's words in two sections
    deep inside. Its closest chunks put editor.md first; the opening evidence (the mean cosine of the first two chunks)
    puts fold.md first, as a page's one-line description asks."""
    phrase = write_openings(tmp_path / "docs", lang)
    kb = make_kb()
    assert kb.ingest(tmp_path / "docs").ok
    by_opening = [(name, c.document_opening if c else None) for name, c in topic_documents(kb, phrase, document_rank_opening_weight=1.0)]
    assert [name for name, _ in by_opening] == ["fold.md", "editor.md"]
    assert by_opening[0][1] is not None and by_opening[1][1] is not None and by_opening[0][1] > by_opening[1][1]
    by_closest_chunks = [
        (name, c.document_opening if c else None) for name, c in topic_documents(kb, phrase, document_rank_similarity_weight=1.0)
    ]
    assert [name for name, _ in by_closest_chunks] == ["editor.md", "fold.md"]
    assert all(opening is None for _, opening in by_closest_chunks)  # not computed when it weighs nothing


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_a_topic_weighs_the_page_that_opens_with_its_words_apart_from_the_page_that_repeats_them_inside(
    make_kb: Callable[..., Bunko], tmp_path: Path, lang: str
) -> None:
    """The keyword twin of the opening: editor.md says the phrase verbatim deep inside, so its BM25 over the whole text
    is the higher; fold.md's first two chunks hold more of the phrase's words than editor.md's, so the BM25 of the
    openings puts fold.md first."""
    phrase = write_openings(tmp_path / "docs", lang)
    kb = make_kb()
    assert kb.ingest(tmp_path / "docs").ok
    by_document_bm25 = topic_documents(kb, phrase, document_rank_weight=1.0)
    assert [name for name, _ in by_document_bm25] == ["editor.md", "fold.md"]
    assert all(c is not None and c.document_opening_keyword is None for _, c in by_document_bm25)  # not read when it weighs nothing
    by_opening_keyword = topic_documents(kb, phrase, document_rank_opening_keyword_weight=1.0)
    assert [name for name, _ in by_opening_keyword] == ["fold.md", "editor.md"]
    fold, editor = (c.document_opening_keyword if c else None for _, c in by_opening_keyword)
    assert fold is not None and editor is not None and fold > editor

