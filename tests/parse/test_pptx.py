"""PowerPoint decks generated with python-pptx: slides as sections, tables, notes, reading order."""

from __future__ import annotations

from pathlib import Path

import pytest
from officegen import OFFICE, make_pptx

from bunko.errors import DocumentError
from bunko.parse.pptx import PptxParser
from bunko.schema import ErrorCode

LANGS = ("en", "ja", "zh")


@pytest.mark.parametrize("lang", LANGS)
def test_each_slide_is_a_section_titled_by_its_title_with_the_slide_as_page(tmp_path: Path, lang: str) -> None:
    o = OFFICE[lang]
    doc = PptxParser().parse(make_pptx(tmp_path / f"s-{lang}.pptx", lang), "s.pptx", "")
    got = [(e.page, e.kind, e.text, e.section_path) for e in doc.elements]
    header, *rows = o.table
    table_text = "\n".join(["| " + " | ".join(header) + " |", "|---|---|", *("| " + " | ".join(r) + " |" for r in rows)])
    assert got == [
        (1, "heading", o.slide1, [o.slide1]),
        (1, "list", "\n".join(f"- {line}" for line in o.slide1_body), [o.slide1]),
        (1, "note", o.notes, [o.slide1]),
        (2, "heading", o.slide2, [o.slide2]),
        (2, "table", table_text, [o.slide2]),
        (2, "paragraph", o.p2, [o.slide2]),
    ]
    assert doc.meta["slides"] == 2 and doc.title == o.slide1


def test_shapes_are_read_top_to_bottom_not_in_file_order(tmp_path: Path) -> None:
    """The text box was added before the table but sits below it."""
    doc = PptxParser().parse(make_pptx(tmp_path / "o.pptx", "en"), "o.pptx", "")
    table, box = [e for e in doc.elements if e.page == 2 and e.kind != "heading"]
    assert table.bbox is not None and box.bbox is not None and table.bbox[3] < box.bbox[1]
    assert table.meta["cells"]["rows"] == [["Hotel", "15000"], ["Meals", "5000"]]


def test_methods_name_title_shape_table_and_notes(tmp_path: Path) -> None:
    doc = PptxParser().parse(make_pptx(tmp_path / "m.pptx", "en"), "m.pptx", "")
    assert [e.meta["method"] for e in doc.elements] == ["pptx-title", "pptx-shape", "pptx-notes", "pptx-title", "pptx-table", "pptx-shape"]
    assert doc.parser.startswith("pptx/python-pptx-")


def test_corrupt_pptx_fails_as_parse_failed(tmp_path: Path) -> None:
    path = tmp_path / "broken.pptx"
    path.write_bytes(b"PK\x03\x04" + b"\x00" * 200)
    with pytest.raises(DocumentError) as caught:
        PptxParser().parse(path, "broken.pptx", "")
    assert caught.value.code == ErrorCode.PARSE_FAILED
