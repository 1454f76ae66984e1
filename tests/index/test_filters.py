"""Filters apply inside each retriever before top-k, and an unknown field is an error."""

from __future__ import annotations

from pathlib import Path

import pytest

from bunko.errors import FilterError
from bunko.index.filters import compile_filter


@pytest.fixture
def kb(make_kb, tmp_path: Path):
    docs = tmp_path / "docs"
    (docs / "hr").mkdir(parents=True)
    (docs / "it").mkdir()
    for i in range(12):
        (docs / "hr" / f"leave-{i}.md").write_text(f"# 休暇 {i}\n\n## 年次休暇\n\n年次休暇は{i + 10}日です。休暇の申請は人事部へ。\n", encoding="utf-8")
    for i in range(3):
        (docs / "it" / f"vpn-{i}.md").write_text(f"# VPN {i}\n\n## 接続\n\n休暇中のVPN接続{i}は申請が必要です。\n", encoding="utf-8")
    collection = make_kb()
    collection.ingest(docs)
    return collection


@pytest.mark.parametrize("mode", ["dense", "keyword", "hybrid"])
def test_filter_returns_exactly_k_when_enough_matches_exist(kb, mode: str) -> None:
    hits = kb.search("休暇の申請", k=3, mode=mode, filters={"source": {"$glob": "docs/it/*"}})
    assert len(hits) == 3
    assert all(h.chunk.source.startswith("docs/it/") for h in hits)


def test_section_and_boolean_filters(kb) -> None:
    hits = kb.search("申請", k=20, mode="keyword", filters={"$and": [{"section": "年次休暇"}, {"$not": {"source": "docs/hr/leave-0.md"}}]})
    assert len(hits) == 11 and all("年次休暇" in h.chunk.section_path for h in hits)
    hits = kb.search("申請", k=20, mode="keyword", filters={"$or": [{"source": {"$in": ["docs/it/vpn-1.md"]}}, {"section": {"$glob": "*> 接続"}}]})
    assert {h.chunk.source for h in hits} == {f"docs/it/vpn-{i}.md" for i in range(3)}


def test_unknown_field_or_operator_fails_loudly(kb) -> None:
    with pytest.raises(FilterError, match="unknown filter field 'sourse'"):
        kb.search("休暇", filters={"sourse": "docs/hr/leave-1.md"})
    with pytest.raises(FilterError, match="unknown filter operator"):
        kb.search("休暇", filters={"source": {"$like": "x"}})


def test_list_fields_match_any_element_and_negations_all() -> None:
    predicate = compile_filter({"page": {"$gte": 3, "$lte": 4}, "kind": {"$nin": ["table"]}})
    assert predicate is not None
    assert predicate({"page": [1, 3], "kind": ["paragraph"]})
    assert not predicate({"page": [1, 2], "kind": ["paragraph"]})
    assert not predicate({"page": [3], "kind": ["paragraph", "table"]})


@pytest.mark.parametrize("where", [
    {"source": {"$in": [[1]]}},
    {"source": {"$nin": [["docs/hr/leave-1.md"]]}},
    {"source": {"$in": [{"$glob": "*"}]}},
    {"tags": {"$nin": ["hr", {"a": 1}]}},
    {"$or": [{"section": "年次休暇"}, {"source": {"$in": ["docs/it/vpn-1.md", ["docs/it/vpn-2.md"]]}}]},
])
def test_a_list_or_object_inside_in_or_nin_is_a_filter_error_not_a_crash(kb, where: dict) -> None:
    """Members of $in/$nin were put in a set: a list or dict raised TypeError (a 500 from the server) instead of BAD_FILTER."""
    for mode in ("keyword", "dense", "hybrid"):
        with pytest.raises(FilterError, match=r"^where(\.\$or\[1\])?\.\w+\.\$n?in\[\d\]: expected a string, number, boolean or null, got"):
            kb.search("休暇の申請", k=3, mode=mode, filters=where)
    assert kb.search("休暇の申請", k=3, filters={"source": {"$in": ["docs/it/vpn-1.md", None, 1, 2.5, True]}})
