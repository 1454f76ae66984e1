"""Near-identical pages of one folder are two documents; only another language's folder holds copies."""

from __future__ import annotations

from pathlib import Path

import pytest

PAGES = {
    "en": ("Travel rules, Tokyo office\n\nThe hotel limit is 12,000 yen a night.\n",
           "Travel rules, Osaka office\n\nThe hotel limit is 10,000 yen a night.\n", "hotel limit a night"),
    "ja": ("東京本社の旅費規程\n\n宿泊費の上限は一泊一万二千円です。\n", "大阪支社の旅費規程\n\n宿泊費の上限は一泊一万円です。\n", "宿泊費の上限"),
    "zh": ("东京总部差旅规定\n\n住宿费上限为每晚一万二千日元。\n", "大阪分公司差旅规定\n\n住宿费上限为每晚一万日元。\n", "住宿费上限"),
}


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_two_offices_pages_one_figure_apart_are_both_searched(make_kb, tmp_path: Path, lang: str) -> None:
    tokyo, osaka, query = PAGES[lang]
    folder = tmp_path / "rules"
    folder.mkdir()
    (folder / "tokyo.md").write_text(tokyo, encoding="utf-8")
    (folder / "osaka.md").write_text(osaka, encoding="utf-8")
    kb = make_kb()
    kb.ingest(folder)
    assert all(d.meta.get("duplicate_of") is None for d in kb.documents())
    hits = kb.search(query, k=5)
    assert {Path(h.chunk.source).name for h in hits} >= {"tokyo.md", "osaka.md"}
    assert all(not h.also_at for h in hits)


def test_the_same_page_in_another_languages_folder_is_a_copy(make_kb, tmp_path: Path) -> None:
    """The rule's other side: the untranslated English page in ja/, its title translated, is one hit with "also at"."""
    page = "The hotel limit is 12,000 yen a night for every employee travelling on business, booked through the portal.\n"
    (tmp_path / "manual" / "en").mkdir(parents=True)
    (tmp_path / "manual" / "ja").mkdir(parents=True)
    (tmp_path / "manual" / "en" / "travel.md").write_text("# Travel rules\n\n" + page, encoding="utf-8")
    (tmp_path / "manual" / "ja" / "travel.md").write_text("# 旅費規程\n\n" + page, encoding="utf-8")
    kb = make_kb()
    kb.ingest(tmp_path / "manual")
    hits = [h for h in kb.search("hotel limit a night", k=5) if h.chunk.source.endswith("travel.md")]
    assert len(hits) == 1 and len(hits[0].also_at) == 1
