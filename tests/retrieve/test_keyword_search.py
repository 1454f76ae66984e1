"""Keyword search finds what embeddings miss: CJK words without spaces, error codes, IDs."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def kb(make_kb, tmp_path: Path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ja.md").write_text("# 経費\n\n出張旅費の精算は帰着後三十日以内に経理部へ申請してください。\n", encoding="utf-8")
    (docs / "zh.md").write_text("# 采购\n\n单笔采购金额超过五万元时，必须取得三家供应商的书面报价。\n", encoding="utf-8")
    (docs / "en.md").write_text("# Network\n\nThe proxy must allow long-lived WebSocket connections.\n", encoding="utf-8")
    (docs / "codes.md").write_text(
        "# Codes\n\n" + "\n\n".join(f"Error QX-{n} is raised by module {n % 7}." for n in range(7100, 7160)) + "\n", encoding="utf-8"
    )
    collection = make_kb()
    collection.ingest(docs)
    return collection


@pytest.mark.parametrize(
    ("query", "source"),
    [("精算", "docs/ja.md"), ("経理部へ申請", "docs/ja.md"), ("供应商报价", "docs/zh.md"), ("五万元", "docs/zh.md"), ("websocket", "docs/en.md")],
)
def test_cjk_and_english_queries_find_their_text_by_keyword(kb, query: str, source: str) -> None:
    hits = kb.search(query, mode="keyword", k=3)
    assert hits and hits[0].chunk.source == source


def test_error_code_is_found_by_keyword_and_leads_the_hybrid_ranking(kb) -> None:
    target = "QX-7142"
    keyword = kb.search(target, mode="keyword", k=1)
    assert keyword and target in keyword[0].chunk.text
    hybrid = kb.search(f"what raises {target}?", k=1)
    assert target in hybrid[0].chunk.text
    assert hybrid[0].signals.keyword is not None and hybrid[0].signals.keyword.rank == 1.0


@pytest.mark.parametrize(
    ("question", "answer", "phrasing_only"),
    [
        ("宿泊費の上限について教えてください", "宿泊費の上限は一泊一万二千円です。", "不明な点は総務部に教えてください。詳しく知りたい方は、ご連絡ください。"),
        ("住宿费的上限是什么？如何报销？", "住宿费的上限为每晚八百元。", "如何提问？什么是好问题？请问哪里可以找到帮助？"),
    ],
)
def test_a_questions_phrasing_does_not_outrank_its_content(make_kb, tmp_path: Path, question: str, answer: str, phrasing_only: str) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "answer.md").write_text(f"# 規程\n\n{answer}\n", encoding="utf-8")
    (docs / "phrasing.md").write_text(f"# FAQ\n\n{phrasing_only}\n", encoding="utf-8")
    kb = make_kb()
    kb.ingest(docs)
    for mode in ("keyword", "hybrid"):
        assert kb.search(question, mode=mode, k=1)[0].chunk.source == "docs/answer.md", mode
