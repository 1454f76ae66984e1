"""The retriever interface: every route ranks chunk ids; a new route is one class picked by its name."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from bunko import Bunko
from bunko.config import RetrieveConfig
from bunko.embed.use_m3 import UseM3Embedder
from bunko.retrieve.base import Query, signal_lines
from bunko.retrieve.fusion import Fused
from bunko.retrieve.question import QuestionFacts
from bunko.retrieve.router import DEFAULT_RULES, Route, weights
from bunko.retrieve.searcher import Searcher
from bunko.schema import Signals
from bunko.store.base import Store

DOCUMENTS = {
    "guide-en.md": "# Travel\n\n## Hotels\n\nThe hotel limit in London is 25,000 yen per night.\n",
    "guide-ja.md": "# 出張\n\n## 宿泊\n\nロンドンの宿泊費の上限は一泊二万五千円です。\n",
    "guide-zh.md": "# 出差\n\n## 住宿\n\n伦敦的住宿上限为每晚两万五千日元。\n",
}


class SourceNameRetriever:
    """Ranks the chunks of documents whose file name holds the query text: a route that needs no vector."""

    name = "source-name"
    needs_vector = False

    def __init__(self, store: Store, config: RetrieveConfig) -> None:
        self.store = store

    def retrieve(self, query: Query, k: int) -> list[Fused]:
        chunks = [c for c in self.store.chunks() if query.text in Path(c.source).name and c.meta.get("searchable", True)]
        found = [(c.chunk_id, 1.0 / rank, Signals()) for rank, c in enumerate(chunks[:k], start=1)]
        for rank, (_, score, signals) in enumerate(found, start=1):
            signals.found_in(self.name, float(rank), score)
        return found

    def explain(self, signals: Signals) -> list[str]:
        return [f"its file name holds the query (rank {signals.routes[self.name].rank:.0f})"]


@pytest.fixture
def kb(tmp_path: Path, embedder: UseM3Embedder) -> Iterator[Bunko]:
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in DOCUMENTS.items():
        (folder / name).write_text(text, encoding="utf-8")
    collection = Bunko(tmp_path / ".bunko", embedder=embedder, retrievers=[SourceNameRetriever])
    assert collection.ingest(folder).ok
    yield collection
    collection.close()


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_a_retriever_handed_to_the_engine_becomes_a_search_mode(kb: Bunko, lang: str) -> None:
    result = kb.search_detailed(f"-{lang}.", k=3, mode="source-name")
    assert result.mode == "source-name" and "embed_query" not in result.timings
    assert [Path(h.chunk.source).name for h in result.hits] == [f"guide-{lang}.md"]
    assert result.hits[0].chunk.text  # fetched, expanded and grouped by the searcher like any route's
    assert result.hits[0].signals.fusion is not None and result.hits[0].signals.fusion.rank == 1.0
    assert result.hits[0].signals.to_dict()["source-name"] == {"rank": 1.0, "score": 1.0}


def test_an_unknown_mode_is_refused_with_the_modes_there_are(kb: Bunko) -> None:
    with pytest.raises(ValueError, match="hybrid, dense, keyword, graph, graph-local, graph-global, tree, table, source-name"):
        kb.search("hotel", mode="magic")


@pytest.mark.parametrize("question", ["hotel limit in London", "ロンドンの宿泊費の上限", "伦敦的住宿上限"])
def test_each_built_in_route_explains_its_own_signals(kb: Bunko, question: str) -> None:
    searcher = kb.searcher
    for mode in ("hybrid", "dense", "keyword"):
        hit = searcher.search(question, k=1, mode=mode).hits[0]
        lines = searcher.retriever(mode).explain(hit.signals)
        assert lines[: len(hit.signals.to_dict())] == signal_lines(hit.signals)
        assert any("idf-weighted terms" in line for line in lines) == (mode == "hybrid")
        if mode == "hybrid":  # a topic phrase: its hits weigh their document's opening, and the sum says so
            assert hit.signals.coverage is not None and hit.signals.coverage.document_opening is not None
            assert any("+ document opening weight × document opening" in line for line in lines)


def test_a_router_rule_can_send_a_query_to_a_route_unless_the_caller_names_one(kb: Bunko) -> None:
    def file_names(question: QuestionFacts, config: RetrieveConfig) -> Route | None:
        return Route("by-file", weights(config, config.keyword_weight), "names a file", retriever="source-name") if question.text.startswith("-") else None

    store = kb.store
    searcher = Searcher(store.search(), kb.embedder, kb.analyzer, kb.config.retrieve, rules=[file_names, *DEFAULT_RULES],
                        retrievers=[SourceNameRetriever(store, kb.config.retrieve)])
    routed = searcher.search("-zh.", k=3)
    assert routed.mode == "source-name" and [Path(h.chunk.source).name for h in routed.hits] == ["guide-zh.md"]
    assert searcher.search("-zh.", k=3, mode="keyword").mode == "keyword"
    assert searcher.search("伦敦的住宿上限", k=3).mode == "hybrid"


@pytest.mark.parametrize("question", ["What is the hotel limit in London?", "ロンドンの宿泊費の上限は？", "伦敦的住宿上限是多少？"])
def test_one_ask_reads_the_query_term_weights_once(kb: Bunko, question: str, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[list[str]] = []
    read = kb.store.search().term_weights

    def counted(tokens: Sequence[str]) -> dict[str, float]:
        calls.append(list(tokens))
        return read(tokens)

    monkeypatch.setattr(kb.store.search(), "term_weights", counted)
    kb.ask(question)
    assert len(calls) == 1


def test_the_explanation_names_the_lists_a_hit_without_a_cosine_was_found_in(kb: Bunko) -> None:
    hit = kb.search_detailed("-en.", k=1, mode="source-name").hits[0]
    assert kb.explain(hit, "source-name", filtered=False)[-1].endswith("found by source-name")
    keyword_hit = kb.search_detailed("宿泊費", k=1, mode="keyword").hits[0]
    assert kb.explain(keyword_hit, "keyword", filtered=False)[-1].endswith("found by keyword")
