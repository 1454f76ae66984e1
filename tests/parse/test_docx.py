"""Word documents generated with python-docx: styles, lists, tables, footnotes, pages, failures."""

from __future__ import annotations

from pathlib import Path

import pytest
from officegen import OFFICE, make_docx

from bunko.errors import DocumentError
from bunko.parse.docx import DocxParser
from bunko.schema import ErrorCode

LANGS = ("en", "ja", "zh")


@pytest.mark.parametrize("lang", LANGS)
def test_heading_styles_become_section_paths_and_body_keeps_its_order(tmp_path: Path, lang: str) -> None:
    o = OFFICE[lang]
    doc = DocxParser().parse(make_docx(tmp_path / f"h-{lang}.docx", lang), f"h-{lang}.docx", "")
    got = [(e.kind, e.text, e.section_path, e.page) for e in doc.elements]
    top, sub, second = [o.title, o.h1], [o.title, o.h1, o.h11], [o.title, o.h2]
    assert got == [
        ("heading", o.title, [o.title], 1),
        ("heading", o.h1, top, 1),
        ("paragraph", o.p1, top, 1),
        ("footnote", o.footnote, top, 1),
        ("heading", o.h11, sub, 1),
        ("list", "\n".join(f"- {b}" for b in o.bullets), sub, 1),
        ("list", "\n".join(f"{i}. {s}" for i, s in enumerate(o.steps, 1)), sub, 1),
        ("table", doc.elements[7].text, sub, 1),
        ("heading", o.h2, second, 2),
        ("paragraph", o.p2, second, 2),
    ]
    assert doc.title == o.title
    assert doc.parser.startswith("docx/python-docx-")


@pytest.mark.parametrize("lang", LANGS)
def test_table_cells_and_markdown(tmp_path: Path, lang: str) -> None:
    o = OFFICE[lang]
    doc = DocxParser().parse(make_docx(tmp_path / f"t-{lang}.docx", lang), "t.docx", "")
    table = next(e for e in doc.elements if e.kind == "table")
    header, *rows = (list(r) for r in o.table)
    assert table.meta["cells"] == {"header": header, "rows": rows}
    assert table.text == "\n".join(["| " + " | ".join(header) + " |", "|---|---|", *("| " + " | ".join(r) + " |" for r in rows)])


def test_footnote_follows_and_points_to_the_paragraph_that_cites_it(tmp_path: Path) -> None:
    doc = DocxParser().parse(make_docx(tmp_path / "f.docx", "en"), "f.docx", "")
    kinds = [e.kind for e in doc.elements]
    note = doc.elements[kinds.index("footnote")]
    cited = doc.elements[kinds.index("footnote") - 1]
    assert note.parent_id == cited.element_id and cited.text == OFFICE["en"].p1
    assert note.meta == {"method": "docx-footnotes", "footnote_id": "1"}


@pytest.mark.parametrize("lang", LANGS)
def test_headers_and_footers_are_left_out_of_the_body(tmp_path: Path, lang: str) -> None:
    o = OFFICE[lang]
    doc = DocxParser().parse(make_docx(tmp_path / f"hf-{lang}.docx", lang), "hf.docx", "")
    text = "\n".join(e.text for e in doc.elements)
    assert o.header not in text and o.footer not in text


def test_every_element_says_how_it_was_found(tmp_path: Path) -> None:
    doc = DocxParser().parse(make_docx(tmp_path / "m.docx", "en"), "m.docx", "")
    assert {e.meta["method"] for e in doc.elements} == {"docx-style", "docx-numbering", "docx-table", "docx-footnotes"}


def test_corrupt_docx_fails_as_parse_failed(tmp_path: Path) -> None:
    path = tmp_path / "broken.docx"
    path.write_bytes(b"PK\x03\x04" + b"\x00" * 200)
    with pytest.raises(DocumentError) as caught:
        DocxParser().parse(path, "broken.docx", "")
    assert caught.value.code == ErrorCode.PARSE_FAILED and "broken.docx" in caught.value.detail
