"""The PDF outline gives the section tree; look-alike headings and contents pages do not."""

from __future__ import annotations

from pathlib import Path

import pytest
from pdfgen import MANUALS, make_manual

from bunko.parse.pdf import PdfParser
from bunko.parse.pdf_layout import Segment, TextRun
from bunko.parse.pdf_outline import Outline, OutlineEntry, is_contents_page, title_key
from bunko.schema import ElementKind, ParsedDocument

LANGS = ("en", "ja", "zh")


@pytest.fixture(scope="module")
def manuals(tmp_path_factory: pytest.TempPathFactory) -> dict[str, ParsedDocument]:
    folder = tmp_path_factory.mktemp("manual")
    parsed = {}
    for lang in LANGS:
        path = make_manual(folder / f"manual-{lang}.pdf", lang)
        parsed[lang] = PdfParser().parse(path, path.name, "application/pdf")
    return parsed


@pytest.mark.parametrize("lang", LANGS)
def test_outline_entries_give_sections_their_levels(manuals: dict[str, ParsedDocument], lang: str) -> None:
    doc = manuals[lang]
    chapters = MANUALS[lang]["chapters"]
    (first, first_sections), (second, second_sections) = chapters  # type: ignore[misc]
    paths = {tuple(e.section_path) for e in doc.elements if e.kind == ElementKind.PARAGRAPH and e.section_path}
    assert (first, f"1.1 {first_sections[0][1]}") in paths
    assert (second, f"2.2 {second_sections[1][1]}") in paths
    assert doc.meta["outline"] == {"entries": 6, "matched": 6}


@pytest.mark.parametrize("lang", LANGS)
def test_a_bold_label_or_chapter_line_is_not_a_section(manuals: dict[str, ParsedDocument], lang: str) -> None:
    doc = manuals[lang]
    note = str(MANUALS[lang]["note"])
    chapter_line = str(MANUALS[lang]["chapter"]).format(n=1)
    assert all(note not in e.section_path and chapter_line not in e.section_path for e in doc.elements)
    headings = [e.text for e in doc.elements if e.kind == ElementKind.HEADING]
    assert note not in headings and chapter_line not in headings
    assert any(str(MANUALS[lang]["note_text"])[:10] in e.text for e in doc.elements)  # the note's text is kept


@pytest.mark.parametrize("lang", LANGS)
def test_contents_page_is_recorded_not_indexed(manuals: dict[str, ParsedDocument], lang: str) -> None:
    doc = manuals[lang]
    assert doc.meta["contents_pages"] == [1]
    assert not [e for e in doc.elements if e.page == 1]


def test_title_key_ignores_numbering_width_case_and_quotes() -> None:
    assert title_key("1.2.3 The Shell  Prompt") == title_key("the shell prompt")
    assert title_key("11.10List of XML tools") == title_key("List of XML tools")
    assert title_key("第3章 バックアップ") == title_key("バックアップ")
    assert title_key("1.5.2 ”$LANG” 変数") == title_key('"$LANG" 変数')
    assert title_key("２．１ 备份策略") == title_key("备份策略")


def _run(text: str, size: float = 10.0, bold: bool = True, kind: ElementKind = ElementKind.HEADING, level: int = 4) -> TextRun:
    segment = Segment(text, (0, 0, 100, 10), size, bold)
    return TextRun(kind, text, (0, 0, 100, 10), level, [segment])


def test_outline_match_wants_the_entry_page_and_uses_each_entry_once() -> None:
    outline = Outline([OutlineEntry(1, "Backups", 10), OutlineEntry(2, "Restoring files", 11)])
    assert outline.match("Restoring files", 3) is None  # a contents line on page 3
    assert outline.match("2.2 Restoring files", 11) == OutlineEntry(2, "Restoring files", 11)
    assert outline.match("2.2 Restoring files", 11) is None
    assert outline.match("Backups", 11) is not None  # the heading one page after the entry's destination


def test_place_demotes_unnumbered_body_size_labels_and_keeps_larger_headings_below_the_outline() -> None:
    outline = Outline([OutlineEntry(1, "Backups", 1), OutlineEntry(2, "Policy", 1)])
    assert outline.place(_run("Note"), 1, 10.0).kind == ElementKind.PARAGRAPH
    assert outline.place(_run("Chapter 2", size=16.0, level=1), 1, 10.0).kind == ElementKind.PARAGRAPH
    larger = outline.place(_run("Appendix notes", size=14.0, level=2), 1, 10.0)
    assert larger.kind == ElementKind.HEADING and larger.level == outline.depth + 2
    named = outline.place(_run("Policy", kind=ElementKind.PARAGRAPH, bold=False), 1, 10.0)
    assert named.kind == ElementKind.HEADING and named.level == 2


def test_contents_page_needs_many_dot_leader_lines() -> None:
    def seg(text: str) -> Segment:
        return Segment(text, (0, 0, 1, 1), 10.0, False)

    contents = [seg("Contents")] + [seg(f"{i}.1 Section {i} . . . . . . . . {i * 3}") for i in range(1, 9)]
    prose = [seg("Wait . . . . . and see."), *[seg(f"Line {i} of ordinary text") for i in range(20)]]
    assert is_contents_page(contents)
    assert not is_contents_page(prose)


def test_pdf_without_outline_is_parsed_as_before(tmp_path: Path) -> None:
    from pdfgen import make_report

    doc = PdfParser().parse(make_report(tmp_path / "r.pdf", "en"), "r.pdf", "application/pdf")
    assert "outline" not in doc.meta and "contents_pages" not in doc.meta
    assert any(e.kind == ElementKind.HEADING for e in doc.elements)
