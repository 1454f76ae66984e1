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


HIDDEN_PLACES = {
    "en": ("Travel rules", "The daily limit is 30,000 yen.", "approved by the manager", "call 555-0100", "abolished rule"),
    "ja": ("出張規程", "日当の上限は 30,000 円です。", "部長が承認する", "内線 0100 に連絡", "廃止された規程"),
    "zh": ("差旅规定", "每日补贴上限为 30,000 日元。", "由部门经理批准", "请拨打分机 0100", "已废止的规定"),
}


def _docx_with_hidden_places(path: Path, lang: str) -> None:
    """A content control holding a paragraph and a table cell's text, a tracked insertion and deletion, and a text box
    stored twice (DrawingML with its VML fallback), as Word writes them."""
    from docx import Document
    from docx.oxml import parse_xml
    from docx.oxml.ns import nsdecls

    title, limit, inserted, boxed, deleted = HIDDEN_PLACES[lang]
    document = Document()
    document.add_heading(title, 1)
    body = document.element.body
    w = nsdecls("w")
    mc = 'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"'
    wps = 'xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape"'
    vml = 'xmlns:v="urn:schemas-microsoft-com:vml"'
    box = f"<w:txbxContent><w:p><w:r><w:t>{boxed}</w:t></w:r></w:p></w:txbxContent>"
    blocks = [
        f"<w:sdt {w}><w:sdtPr/><w:sdtContent><w:p><w:r><w:t>{limit}</w:t></w:r></w:p></w:sdtContent></w:sdt>",
        f'<w:p {w}><w:r><w:t xml:space="preserve">— </w:t></w:r><w:ins w:id="1" w:author="a" w:date="2024-01-01T00:00:00Z">'
        f'<w:r><w:t>{inserted}</w:t></w:r></w:ins><w:del w:id="2" w:author="a" w:date="2024-01-01T00:00:00Z"><w:r>'
        f"<w:delText>{deleted}</w:delText></w:r></w:del></w:p>",
        f"<w:p {w} {mc} {wps} {vml}><w:r><mc:AlternateContent><mc:Choice Requires=\"wps\"><w:drawing><wps:txbx>{box}</wps:txbx>"
        f"</w:drawing></mc:Choice><mc:Fallback><w:pict><v:shape><v:textbox>{box}</v:textbox></v:shape></w:pict></mc:Fallback>"
        "</mc:AlternateContent></w:r></w:p>",
    ]
    for xml in blocks:
        body.insert(len(body) - 1, parse_xml(xml))
    table = document.add_table(rows=2, cols=1)
    table.rows[0].cells[0].text = title
    cell = table.rows[1].cells[0]._tc
    cell.remove(cell.find("{http://schemas.openxmlformats.org/wordprocessingml/2006/main}p"))
    cell.append(parse_xml(f"<w:sdt {w}><w:sdtContent><w:p><w:r><w:t>{limit}</w:t></w:r></w:p></w:sdtContent></w:sdt>"))
    document.save(str(path))


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_content_controls_insertions_and_text_boxes_are_read_and_deletions_are_not(tmp_path: Path, lang: str) -> None:
    """Text python-docx's own paragraph text leaves out: forms and contract templates keep their fields in content
    controls, a reviewed document its insertions, a report its call-outs in text boxes."""
    title, limit, inserted, boxed, deleted = HIDDEN_PLACES[lang]
    path = tmp_path / f"{lang}.docx"
    _docx_with_hidden_places(path, lang)
    elements = DocxParser().parse(path, path.name, "").elements
    texts = [e.text for e in elements]
    assert texts[:4] == [title, limit, f"— {inserted}", boxed]
    assert elements[4].kind == "table" and limit in elements[4].text
    assert not any(deleted in text for text in texts)
