"""Chunk and query languages, and the soft preference for the question's language."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from scipy import sparse

from bunko import Bunko
from bunko.index.bm25 import BM25Index
from bunko.text.analyzers import multilingual
from bunko.text.languages import LANGUAGES, query_language, row_languages, token_classes, tokens_language

PASSAGES = {
    "en": "To change the host name, edit /etc/hostname and run hostnamectl.",
    "ja": "ホスト名を変更するには /etc/hostname を編集して hostnamectl を実行します。",
    "zh": "要更改主机名，请编辑 /etc/hostname 并运行 hostnamectl。",
}


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_a_passage_is_judged_by_its_tokens(lang: str) -> None:
    assert tokens_language(multilingual(PASSAGES[lang])) == lang


def test_latin_names_in_cjk_prose_and_a_cjk_heading_over_english_prose() -> None:
    assert tokens_language(multilingual("apt-get、dpkg、aptitude と synaptic の違いを説明します。")) == "ja"
    assert tokens_language(multilingual("使用 systemctl 和 journalctl 查看 nginx 服务的日志。")) == "zh"
    assert tokens_language(multilingual("規程 > 第1章\nPasswords must be rotated every 90 days and never shared.")) == "en"
    assert tokens_language(multilingual("本页列出 ゆのみ 这个名字以外全是中文的说明文字和例子。")) == "zh"  # one Japanese name


def test_rows_of_an_index_are_judged_as_single_texts() -> None:
    texts = [PASSAGES["en"], PASSAGES["ja"], PASSAGES["zh"], "規程 > 第1章\nPasswords must be rotated every 90 days."]
    index = BM25Index().build([multilingual(t) for t in texts])
    terms = sorted(index.vocab, key=index.vocab.__getitem__)
    judged = [LANGUAGES[i] for i in row_languages(index.matrix, token_classes(terms))]
    assert judged == [tokens_language(multilingual(t)) for t in texts] == ["en", "ja", "zh", "en"]
    assert len(row_languages(sparse.csc_matrix((0, 3)), token_classes(["a", "b", "c"]))) == 0


@pytest.mark.parametrize(("question", "lang"), [("ホスト名の変更", "ja"), ("如何更改主机名", "zh"), ("change the host name", "en"),
                                               ("hostnamectl の使い方", "ja")])
def test_query_language(question: str, lang: str) -> None:
    assert query_language(question) == lang


def test_the_questions_language_is_preferred_softly(make_kb: Callable[..., Bunko], tmp_path: Path) -> None:
    """Three translations of one page: the one in the question's language comes first, or the one asked for."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for lang, text in PASSAGES.items():
        (docs / f"hostname-{lang}.md").write_text(f"# Host name\n\n{text}\n", encoding="utf-8")
    kb = make_kb()
    assert kb.ingest(docs).ok
    searcher = kb.searcher
    first = lambda question, **options: Path(searcher.search(question, k=3, **options).hits[0].chunk.source).stem  # noqa: E731
    # no collection preference (the default): a language named per query still applies
    assert first("hostnamectl /etc/hostname", language="ja") == "hostname-ja"
    assert first("hostnamectl /etc/hostname", language="zh") == "hostname-zh"
    searcher.config = searcher.config.model_copy(update={"language_weight": 0.5})
    assert first("hostnamectl /etc/hostname") == "hostname-en"  # the question's own language
    assert first("hostnamectl /etc/hostname", language="ja") == "hostname-ja"
    hits = searcher.search("hostnamectl /etc/hostname", k=3, language="any").hits
    assert all(h.signals.language is None for h in hits) and len(hits) == 3  # no preference: nothing dropped either
    with pytest.raises(ValueError, match="unknown language"):
        searcher.search("hostnamectl", language="fr")
    searcher.config = searcher.config.model_copy(update={"fusion": "rrf"})
    with pytest.raises(ValueError, match="needs coverage fusion"):  # never silently ignored
        searcher.search("hostnamectl", language="ja")
