"""Hits made from the chunks kept per store generation (`retrieve/hit_chunks.py`) are the hits a `Hit` per candidate
and `expand_parents` make, in ja, zh and en; each hit's chunk is its own, and a write drops what was kept."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import asdict, replace
from pathlib import Path

import pytest

from bunko import Bunko
from bunko.embed.base import embed_queries
from bunko.retrieve.base import Query
from bunko.retrieve.hit_chunks import hit_distance
from bunko.retrieve.parents import expand_parents
from bunko.retrieve.question import analysed_question
from bunko.retrieve.router import route
from bunko.schema import Hit

PARAGRAPHS = {
    "ja": ["出張旅費の精算は帰着後三十日以内に経理部へ申請してください。領収書の原本を添付し、宿泊費は一泊一万二千円を上限とします。",
           "海外出張の日当は地域ごとに定められています。為替は出発日の公示仲値で換算し、精算書に記入してください。",
           "タクシーの利用は深夜や荷物の多い場合に限ります。利用した理由を精算書の備考欄に書いてください。"],
    "zh": ["单笔采购金额超过五万元时，必须取得三家供应商的书面报价。报价单须加盖供应商公章，并由采购部存档三年。",
           "紧急采购可先行下单，但须在五个工作日内补齐审批手续。未补齐手续的，财务部不予付款。",
           "办公用品按季度集中采购，各部门应在每季度末前提交需求清单。清单须经部门负责人签字确认。"],
    "en": ["The proxy must allow long-lived WebSocket connections. Idle connections are closed after ten minutes by the gateway.",
           "Every service logs to the central collector over TLS. Log lines older than ninety days are deleted from the archive.",
           "Deploys run from the release branch only. A failed health check rolls the deploy back within two minutes."],
}
QUESTIONS = {"ja": "出張旅費の精算の期限", "zh": "采购金额超过五万元的报价", "en": "WebSocket connections through the proxy"}


def _write_docs(folder: Path, extra: str = "") -> None:
    folder.mkdir(exist_ok=True)
    for lang, paragraphs in PARAGRAPHS.items():
        body = "\n\n".join(paragraphs * 3)  # long enough for several children under one parent
        (folder / f"{lang}.md").write_text(f"# {lang}\n\n{body}{extra}\n", encoding="utf-8")


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory, embedder) -> Iterator[Bunko]:
    folder = tmp_path_factory.mktemp("hits")
    _write_docs(folder / "docs")
    collection = Bunko(folder / ".bunko", embedder=embedder)
    collection.ingest(folder / "docs")
    yield collection
    collection.close()


def _reference(kb: Bunko, question: str, mode: str, k: int) -> tuple[list[Hit], list[Hit]]:
    """The hits `_hits` makes of one ranked list, and the hits a `Hit` per candidate read from the store and
    `expand_parents` make of the same list."""
    searcher = kb.searcher
    facts = analysed_question(question, kb.analyzer)
    vector = embed_queries(kb.embedder, [question])[0] if mode == "hybrid" else None
    fused = searcher.retriever(mode).retrieve(Query(facts, list(facts.tokens), vector, None, route(facts, searcher.config)), 50)
    window = fused[: min(k * 4, len(fused))]
    chunks = {c.chunk_id: c for c in kb.store.get_chunks([cid for cid, _, _ in window])}
    made = [Hit(chunks[cid], score, hit_distance(signals), signals) for cid, score, signals in window if cid in chunks]
    expected = expand_parents(made, kb.store.search(), len(made))[:k]
    return searcher._hits(fused, k), expected


@pytest.mark.parametrize("lang", ["ja", "zh", "en"])
@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_hits_are_what_a_hit_per_candidate_and_parent_expansion_make(kb: Bunko, lang: str, mode: str) -> None:
    for _ in range(2):  # the chunks read, then the chunks kept
        hits, expected = _reference(kb, QUESTIONS[lang], mode, 5)
        assert any(h.chunk.meta.get("matched_child") for h in hits)  # parents stood in for children
        assert [(h.chunk, h.score, h.distance) for h in hits] == [(h.chunk, h.score, h.distance) for h in expected]
    assert kb.search(QUESTIONS[lang], k=5, mode=mode)[0].chunk.source == f"docs/{lang}.md"


@pytest.mark.parametrize("lang", ["ja", "zh", "en"])
def test_a_hits_chunk_is_its_own(kb: Bunko, lang: str) -> None:
    first = kb.search(QUESTIONS[lang], k=5, mode="keyword")
    before = copy.deepcopy([(h.chunk.chunk_id, h.chunk.text, h.chunk.element_ids, h.chunk.meta) for h in first])
    for hit in first:  # what callers do to hits: label them, extend their lists
        hit.chunk.meta["children_hit"].append("edited")
        hit.chunk.meta["note"] = "edited"
        hit.chunk.element_ids.append("edited")
        hit.chunk.meta["child_element_ids"].append("edited")
    again = kb.search(QUESTIONS[lang], k=5, mode="keyword")
    assert [(h.chunk.chunk_id, h.chunk.text, h.chunk.element_ids, h.chunk.meta) for h in again] == before


def test_a_write_drops_the_kept_chunks(tmp_path: Path, make_kb) -> None:
    _write_docs(tmp_path / "docs")
    kb = make_kb()
    kb.ingest(tmp_path / "docs")
    for question in QUESTIONS.values():
        assert not any("改訂 修订 Revised" in h.chunk.text for h in kb.search(question, k=10, mode="keyword"))
    kept_at = kb.hit_chunks.generation
    _write_docs(tmp_path / "docs", extra="\n\n改訂 修订 Revised: 出張旅費の精算 采购金额 WebSocket connections.")
    kb.ingest(tmp_path / "docs")
    for lang, question in QUESTIONS.items():
        texts = [h.chunk.text for h in kb.search(question, k=10, mode="keyword") if h.chunk.source == f"docs/{lang}.md"]
        assert any("改訂 修订 Revised" in text for text in texts), lang
    assert kb.hit_chunks.generation != kept_at


def test_the_engines_searcher_is_reused_only_while_it_searches_as_built(kb: Bunko) -> None:
    searcher = kb.searcher
    assert kb.searcher is searcher
    searcher.config = searcher.config.model_copy(update={"keyword_document_weight": 0.0})  # what tests and benches do
    assert kb.searcher is not searcher and kb.searcher.config is kb.config.retrieve
    mine = kb.searcher
    mine.copies = None
    assert kb.searcher is not mine and kb.searcher.copies is kb.copies
    assert kb.search(QUESTIONS["zh"], k=3, mode="keyword")[0].chunk.source == "docs/zh.md"


@pytest.mark.parametrize("lang", ["ja", "zh", "en"])
def test_a_keyword_hits_lazy_fields_are_what_an_eager_hit_holds(kb: Bunko, lang: str) -> None:
    """A keyword hit's lists, meta and signals are made when read (`KeptChunk`, `KeptHit`): the same values as the
    store's chunk and the ranked list's entry, with the fused rank; copies, replacements and equality as a dataclass's."""
    result = kb.search_detailed(QUESTIONS[lang], k=8, mode="keyword")
    fused = kb.searcher.retriever("keyword").retrieve(
        Query(analysed_question(QUESTIONS[lang], kb.analyzer), list(result.query_tokens), None, None, result.route), 50)
    entries = {cid: (score, signals) for cid, score, signals in fused}
    stored = {c.chunk_id: c for c in kb.store.get_chunks([h.chunk.chunk_id for h in result.hits])}
    for rank, hit in enumerate(result.hits, start=1):
        child = hit.chunk.meta.get("matched_child", hit.chunk.chunk_id)
        assert hit.score == entries[child][0] and hit.distance is None and hit.also_at == []
        assert hit.signals.keyword == entries[child][1].keyword and hit.signals.keyword is not None
        assert (hit.signals.fusion.rank, hit.signals.fusion.score) == (rank, hit.score)  # type: ignore[union-attr]
        own = stored[hit.chunk.chunk_id]
        assert (hit.chunk.element_ids, hit.chunk.pages, hit.chunk.section_path, hit.chunk.kinds) == (
            own.element_ids, own.pages, own.section_path, own.kinds)
        plain = Hit(replace(hit.chunk, text=hit.chunk.text), hit.score, hit.distance, hit.signals)
        assert plain == hit and hit == plain and type(plain.chunk) is type(hit.chunk)
        assert asdict(hit)["chunk"]["meta"] == hit.chunk.meta and copy.deepcopy(hit) == hit
        relabelled = replace(hit, score=0.5)
        assert relabelled.signals is hit.signals and relabelled.chunk is hit.chunk and relabelled.score == 0.5
