"""The integrity report tells a naive chunking from a structure-aware one."""

from __future__ import annotations

from pathlib import Path

from chunkdocs import SENTENCES, document, joined

from bunko import Config
from bunko.chunk.registry import get_chunker
from bunko.chunk.sizing import Sizer
from bunko.config import ChunkConfig
from bunko.ingest.integrity import document_integrity, inspect_store, report, size_summary
from bunko.parse.tables import table_markdown, table_meta

HEADER = ["Region", "Limit"]
ROWS = [[f"region {i}", f"{i * 1000}"] for i in range(30)]


def _doc():
    return document("i.md", [
        ("heading", "Travel", {"level": 1}),
        ("paragraph", joined("en", SENTENCES["en"]), {}),
        ("figure", "flow of a claim", {}),
        ("caption", "Figure 1: claims", {"caption_of": 2}),
        ("heading", "Limits", {"level": 1}),
        ("table", table_markdown(HEADER, ROWS), {"meta": table_meta(HEADER, ROWS)}),
        ("heading", "Leave", {"level": 1}),
        ("paragraph", joined("zh", SENTENCES["zh"]), {}),
    ])


def _integrity(strategy: str, **config: int):
    doc = _doc()
    chunks = get_chunker(strategy).chunk(doc, ChunkConfig(**config))
    return document_integrity(doc.source, doc.elements, chunks, strategy=strategy)


def test_fixed_windows_split_tables_without_headers_and_cross_headings() -> None:
    fixed = _integrity("fixed", max_chars=120)
    assert fixed.tables == 1 and fixed.tables_split == 1 and fixed.tables_split_without_header == 1
    assert fixed.headings_crossed >= 2
    assert fixed.elements_missing == 0


def test_structure_keeps_headers_captions_and_sections() -> None:
    structure = _integrity("structure", max_chars=120)
    assert structure.tables_split == 1 and structure.tables_split_without_header == 0
    assert structure.headings_crossed == 0
    assert structure.captions == 1 and structure.captions_separated == 0
    assert structure.elements_missing == 0


def test_a_caption_cut_from_its_figure_is_counted() -> None:
    doc = _doc()
    chunks = get_chunker("heading").chunk(doc, ChunkConfig(max_chars=40))  # heading does not group captions
    assert document_integrity(doc.source, doc.elements, chunks).captions_separated == 1


def test_truncation_sizes_and_parents_in_the_summary() -> None:
    doc = _doc()
    chunks = get_chunker("parent_child").chunk(doc, ChunkConfig(max_chars=60, parent_max_chars=400))
    one = document_integrity(doc.source, doc.elements, chunks, limit=Sizer(50), strategy="parent_child")
    assert one.parents > 0 and one.chunks == len(chunks) - one.parents
    assert one.truncated == sum(len(c.embed_text) > 50 for c in chunks if c.meta.get("role") != "parent")
    summary = report([one, _integrity("structure", max_chars=120)])
    assert summary["documents"] == 2
    assert set(summary["by_strategy"]) == {"parent_child", "structure"}
    assert summary["truncated_share"] == round(one.truncated / summary["chunks"], 4)
    assert sum(summary["sizes"]["histogram"].values()) == summary["chunks"]


def test_size_summary() -> None:
    sizes = size_summary([50, 150, 150, 900, 5000])
    assert sizes["min"] == 50 and sizes["max"] == 5000 and sizes["median"] == 150
    assert sizes["histogram"] == {"0-100": 1, "100-200": 2, "200-400": 0, "400-800": 0, "800-1600": 1, "1600-3200": 0, "3200+": 1}


def test_inspect_a_stored_collection(make_kb, tmp_path: Path) -> None:
    kb = make_kb(config=Config.from_dict({"chunk": {"strategy": "fixed", "max_chars": 120}}))
    (tmp_path / "t.md").write_text("# Limits\n\n" + table_markdown(HEADER, ROWS) + "\n\n# Next\n\nText.\n", encoding="utf-8")
    assert kb.ingest(tmp_path / "t.md").ok
    result = inspect_store(kb.store)
    assert result["tables_split"] == 1 and result["tables_split_without_header"] == 1
    assert result["by_strategy"]["fixed"]["documents"] == 1
    assert inspect_store(kb.store, source_glob="nothing/*")["documents"] == 0
