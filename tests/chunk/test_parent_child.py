"""`parent_child`: children are searched, the parent is returned; parents never enter an index."""

from __future__ import annotations

from pathlib import Path

import pytest
from chunkdocs import SENTENCES, joined, parse_markdown

from bunko import Config
from bunko.chunk.parent_child import ParentChildChunker
from bunko.config import ChunkConfig

FACTS = {
    "ja": ("宿泊費の上限は一泊一万二千円です。", "宿泊費の上限はいくらですか？"),
    "zh": ("婚假为三天，须在领取结婚证后一年内休完。", "婚假有几天？"),
    "en": ("Hotels are reimbursed up to 120 dollars per night.", "How much is reimbursed for a hotel night?"),
}
FILLER = {
    "ja": ["申請は所属長の承認を得てから行います。", "精算は帰着後十日以内に行ってください。", "交通費は最も経済的な経路で計算します。",
           "日当は出張日数に応じて支給されます。", "海外出張では別の規程が適用されます。", "立替金は翌月の給与で精算されます。"],
    "zh": ["年假每年十五天。", "病假需要提供医生证明。", "事假为无薪假期，按日扣除工资。", "产假按国家规定执行。",
           "请假须提前三个工作日申请。", "未休完的年假可顺延至次年三月。"],
    "en": ["Requests need the approval of a manager.", "Claims are filed within ten days of return.",
           "Train fares follow the cheapest route.", "Daily allowances depend on the length of the trip.",
           "International trips follow a separate policy.", "Advances are settled with the next salary."],
}


def _doc_text(lang: str) -> str:
    fact = FACTS[lang][0]
    return f"# Policy\n\n## Rules\n\n{joined(lang, FILLER[lang][:3])}\n\n{fact}\n\n{joined(lang, FILLER[lang][3:])}\n"


@pytest.mark.parametrize("lang", ["ja", "zh", "en"])
def test_children_are_small_and_point_to_a_parent_holding_them(lang: str) -> None:
    doc = parse_markdown(_doc_text(lang), f"{lang}.md")
    chunks = ParentChildChunker().chunk(doc, ChunkConfig(max_chars=40, parent_max_chars=1000))
    parents = [c for c in chunks if c.meta.get("role") == "parent"]
    children = [c for c in chunks if c.meta.get("role") == "child"]
    assert len(parents) == 1 and len(children) >= 3
    assert parents[0].meta["searchable"] is False and parents[0].parent_id is None
    assert chunks[0] is parents[0]  # a parent comes before its children: ordinals are stable
    for child in children:
        assert child.parent_id == parents[0].chunk_id
        assert len(child.text) <= 40
        assert child.text in parents[0].text
        assert set(child.element_ids) <= set(parents[0].element_ids)


def test_a_parent_with_one_child_is_stored_once_as_that_child() -> None:
    doc = parse_markdown("# A\n\nShort section.\n\n# B\n\n" + joined("en", FILLER["en"]) + "\n", "p.md")
    chunks = ParentChildChunker().chunk(doc, ChunkConfig(max_chars=120, parent_max_chars=1000))
    assert chunks[0].text == "Short section." and "role" not in chunks[0].meta and chunks[0].parent_id is None
    assert [c.meta.get("role") for c in chunks[1:]] == ["parent"] + ["child"] * (len(chunks) - 2)


@pytest.mark.parametrize("lang", ["ja", "zh", "en"])
def test_search_finds_a_child_and_returns_its_parent(lang: str, make_kb, tmp_path: Path) -> None:
    config = Config()
    config.chunk.strategy = "parent_child"
    config.chunk.max_chars = 60
    config.chunk.parent_max_chars = 1000
    kb = make_kb(config=config)
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / f"policy-{lang}.md").write_text(_doc_text(lang), encoding="utf-8")
    (folder / "other.md").write_text("# Other\n\n" + joined("en", SENTENCES["en"]) + "\n", encoding="utf-8")
    assert kb.ingest(folder).ok

    stored = kb.chunks(f"docs/policy-{lang}.md")
    parents = {c.chunk_id: c for c in stored if c.meta.get("role") == "parent"}
    children = {c.chunk_id: c for c in stored if c.meta.get("role") == "child"}
    assert parents and children

    fact, question = FACTS[lang]
    hits = kb.search(question, k=3)
    top = hits[0]
    child = children[top.chunk.meta["matched_child"]]  # the child matched ...
    assert fact in child.text
    parent = parents[child.parent_id]
    assert top.chunk.chunk_id == parent.chunk_id and top.chunk.text == parent.text  # ... the reader gets its parent
    assert top.chunk.element_ids == parent.element_ids  # so every quote of the passage has a true citation
    assert top.chunk.meta["child_text"] == child.text and top.chunk.meta["child_element_ids"] == child.element_ids
    assert len({h.chunk.chunk_id for h in hits}) == len(hits)  # one hit per parent

    vector = kb.embedder.embed([question])[0]
    searched = {cid for cid, _ in kb.store.search().dense_search(vector, 1000)} | {
        cid for cid, _ in kb.store.search().keyword_search(kb.analyzer(question), 1000)
    }
    assert searched and not searched & set(parents)  # parents are never in an index

    answer = kb.ask(question)
    assert not answer.abstained
    for sentence in answer.sentences:
        for citation in sentence.citations:
            (cited,) = kb.store.get_chunks([citation.chunk_id])
            assert citation.quote in cited.text or all(p.split(": ", 1)[-1] in cited.text for p in citation.quote.split(" / "))
