"""PDF parsing on generated reports: sections, pages, reading order, tables, figures, failures."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from difflib import SequenceMatcher
from pathlib import Path

import pytest
from pdfgen import (
    LATEX_TABLES,
    TEXTS,
    has_ink,
    make_latex_table,
    make_long,
    make_running_heads,
    make_scanned,
    make_text_pdf,
    scan_image,
)

from bunko.errors import DocumentError
from bunko.parse.ocr import Tesseract
from bunko.parse.pdf import PdfParser
from bunko.schema import ErrorCode, ParsedDocument
from system_packages import missing

LANGS = ("en", "ja", "zh")


def parse(path: Path, ocr: Tesseract | None = None) -> ParsedDocument:
    return PdfParser(ocr=ocr).parse(path, path.name, "application/pdf")


@pytest.mark.parametrize("lang", LANGS)
def test_headings_nest_into_section_paths_with_page_numbers(report_pdfs: dict[str, Path], lang: str) -> None:
    t = TEXTS[lang]
    doc = parse(report_pdfs[lang])
    outline = [(e.page, e.text, e.meta["level"], e.section_path) for e in doc.elements if e.kind == "heading"]
    assert outline == [
        (1, t.title, 1, [t.title]),
        (1, t.h1, 2, [t.title, t.h1]),
        (1, t.h11, 4, [t.title, t.h1, t.h11]),
        (2, t.h2, 2, [t.title, t.h2]),
    ]
    paragraph = next(e for e in doc.elements if e.kind == "paragraph" and e.text == t.p11)
    assert paragraph.page == 1
    assert paragraph.section_path == [t.title, t.h1, t.h11]
    assert doc.title == t.title
    assert doc.meta["pages"] == 4


@pytest.mark.parametrize("lang", LANGS)
def test_two_column_page_reads_left_column_first(report_pdfs: dict[str, Path], lang: str) -> None:
    t = TEXTS[lang]
    page2 = [e for e in parse(report_pdfs[lang]).elements if e.page == 2]
    assert [(e.kind, e.text) for e in page2] == [("heading", t.h2), ("paragraph", t.left), ("paragraph", t.right)]
    left, right = page2[1].bbox, page2[2].bbox
    assert left is not None and right is not None
    assert left[2] < right[0], "the left paragraph's box ends before the right one starts"
    assert all(e.meta["method"] == "text-layer" for e in page2)


@pytest.mark.parametrize("lang", LANGS)
def test_ruled_table_keeps_header_and_cells_as_markdown(report_pdfs: dict[str, Path], lang: str) -> None:
    t = TEXTS[lang]
    doc = parse(report_pdfs[lang])
    table = next(e for e in doc.elements if e.kind == "table" and e.page == 1)
    header, *rows = (list(r) for r in t.table)
    assert table.meta["cells"] == {"header": header, "rows": rows}
    assert table.text.splitlines()[0] == "| " + " | ".join(header) + " |"
    assert table.text.splitlines()[2] == "| " + " | ".join(rows[0]) + " |"
    assert table.section_path == [t.title, t.h1, t.h11]
    x0, top, x1, bottom = table.bbox or (0, 0, 0, 0)
    assert (x0, x1) == (72.0, 432.0) and bottom - top == pytest.approx(60.0)


@pytest.mark.parametrize("lang", LANGS)
def test_table_ruled_only_between_its_columns_keeps_every_row_whole(tmp_path: Path, lang: str) -> None:
    """LaTeX's tabular{l|l|l} draws no outer sides; read column by column, "3" and "KERN_ERR" end up far apart."""
    t = TEXTS[lang]
    doc = parse(make_latex_table(tmp_path / f"latex-{lang}.pdf", lang))
    tables = [e for e in doc.elements if e.kind == "table"]
    assert len(tables) == 1
    header, *rows = (list(r) for r in LATEX_TABLES[lang])
    assert tables[0].meta["cells"] == {"header": header, "rows": rows}
    assert tables[0].meta["method"] == "pdf-ruling-lines"
    assert [(e.kind, e.text) for e in doc.elements if e.kind != "table"] == [
        ("paragraph", t.p1), ("code", "```\n# dmesg -n3\n```"), ("paragraph", t.p11), ("paragraph", t.after_table),
        ("code", "```\n$ journalctl -k\n```"),
    ], "the prose between the two framed code lines stays prose"


@pytest.mark.parametrize("lang", LANGS)
def test_running_heads_and_feet_are_not_text_but_a_one_off_margin_line_is(tmp_path: Path, lang: str) -> None:
    """The book's title atop every page would be glued into every passage that crosses a page break."""
    t = TEXTS[lang]
    doc = parse(make_running_heads(tmp_path / f"heads-{lang}.pdf", lang))
    texts = [(e.page, e.text) for e in doc.elements]
    assert texts == [(1, t.h2), (1, t.title), (1, t.p1), (2, t.p11), (3, t.p1), (4, t.p11)]
    assert doc.meta["running_heads_dropped"] == 3 + 4
    assert all("in_margin" not in e.meta for e in doc.elements)


@pytest.mark.parametrize("lang", LANGS)
def test_table_split_by_a_page_break_becomes_one_table_without_the_repeated_header(report_pdfs: dict[str, Path], lang: str) -> None:
    t = TEXTS[lang]
    doc = parse(report_pdfs[lang])
    tables = [e for e in doc.elements if e.kind == "table" and e.page != 1]
    assert len(tables) == 1
    header, *rows = (list(r) for r in t.long_table)
    assert tables[0].meta["cells"] == {"header": header, "rows": rows}
    assert tables[0].page == 3
    assert tables[0].meta["pages"] == [3, 4]
    last = doc.elements[-1]
    assert (last.kind, last.text, last.page) == ("paragraph", t.after_table, 4)


@pytest.mark.parametrize("lang", LANGS)
def test_captions_are_linked_to_the_figure_and_table_beside_them(report_pdfs: dict[str, Path], lang: str) -> None:
    t = TEXTS[lang]
    page1 = [e for e in parse(report_pdfs[lang]).elements if e.page == 1]
    kinds = [e.kind for e in page1]
    assert kinds[-3:] == ["caption", "table", "figure"]  # the figure's caption is its text (tests/parse/test_figures.py)
    table_caption, table, figure = page1[-3:]
    assert (table_caption.text, table_caption.parent_id) == (t.table_caption, table.element_id)
    assert figure.text == t.figure_caption and figure.meta["figure_id"] == "fig1"
    assert figure.meta["caption"] == t.figure_caption and figure.meta["method"] == "pdf-image"
    assert figure.bbox is not None and figure.bbox[2] - figure.bbox[0] == pytest.approx(200.0)


def test_page_numbers_in_the_footer_are_not_text(report_pdfs: dict[str, Path]) -> None:
    texts = [e.text for e in parse(report_pdfs["en"]).elements]
    assert "1" not in texts and "2" not in texts


def test_parser_and_its_version_are_recorded(report_pdfs: dict[str, Path]) -> None:
    doc = parse(report_pdfs["en"])
    assert doc.parser.startswith("pdf/pdfplumber-")
    assert "+pdfium-" in doc.parser
    assert all("method" in e.meta for e in doc.elements)


@pytest.mark.parametrize("lang", LANGS)
def test_password_protected_pdf_fails_as_encrypted(tmp_path: Path, lang: str) -> None:
    path = make_text_pdf(tmp_path / f"secret-{lang}.pdf", lang, [TEXTS[lang].p1], encrypt="s3cret")
    with pytest.raises(DocumentError) as caught:
        parse(path)
    assert caught.value.code == ErrorCode.ENCRYPTED
    assert path.name in caught.value.detail


def test_pdf_encrypted_with_pypdf_aes_fails_as_encrypted(tmp_path: Path) -> None:
    from pypdf import PdfReader, PdfWriter

    plain = make_text_pdf(tmp_path / "plain.pdf", "en", [TEXTS["en"].p1])
    writer = PdfWriter(clone_from=PdfReader(plain))
    writer.encrypt("user-pass", "owner-pass", algorithm="AES-256")
    locked = tmp_path / "aes.pdf"
    with locked.open("wb") as handle:
        writer.write(handle)
    with pytest.raises(DocumentError) as caught:
        parse(locked)
    assert caught.value.code == ErrorCode.ENCRYPTED


def test_pdf_with_only_an_owner_password_is_read(tmp_path: Path) -> None:
    """No password is needed to open it, so users expect it indexed like any other PDF."""
    from pypdf import PdfReader, PdfWriter

    plain = make_text_pdf(tmp_path / "plain.pdf", "en", [TEXTS["en"].p1])
    writer = PdfWriter(clone_from=PdfReader(plain))
    writer.encrypt("", "owner-pass", algorithm="AES-128")
    path = tmp_path / "owner-only.pdf"
    with path.open("wb") as handle:
        writer.write(handle)
    assert [e.text for e in parse(path).elements] == [TEXTS["en"].p1]


@pytest.mark.parametrize("content", [b"%PDF-1.7\n" + b"\x00garbage" * 50, b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n%%EOF"])
def test_broken_pdf_fails_as_parse_failed(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "broken.pdf"
    path.write_bytes(content)
    with pytest.raises(DocumentError) as caught:
        parse(path)
    assert caught.value.code == ErrorCode.PARSE_FAILED
    assert "broken.pdf" in caught.value.detail


@pytest.mark.parametrize("lang", LANGS)
def test_scanned_page_without_tesseract_is_recorded_and_the_text_page_still_indexed(tmp_path: Path, lang: str, no_tesseract: Tesseract) -> None:
    doc = parse(make_scanned(tmp_path / f"scan-{lang}.pdf", lang), ocr=no_tesseract)
    assert [(e.page, e.text) for e in doc.elements] == [(1, TEXTS[lang].p1)]
    [error] = doc.meta["page_errors"]
    assert (error["page"], error["code"]) == (2, "OCR_UNAVAILABLE")
    assert "apt-get install tesseract-ocr" in error["detail"]


def test_fully_scanned_pdf_without_tesseract_fails_as_ocr_unavailable(tmp_path: Path, no_tesseract: Tesseract) -> None:
    path = make_scanned(tmp_path / "scan-only.pdf", "en", text_page_first=False)
    with pytest.raises(DocumentError) as caught:
        parse(path, ocr=no_tesseract)
    assert caught.value.code == ErrorCode.OCR_UNAVAILABLE
    assert "tesseract-ocr-jpn" in caught.value.detail


@pytest.mark.parametrize(("lang", "tess", "must_contain", "min_ratio"), [
    ("en", "eng", "Scanned receipts are accepted", 1.0),
    ("ja", "jpn", "受け付ける", 0.75),
    ("zh", "chi_sim", "本公司接受", 0.75),
])
def test_scanned_page_goes_through_ocr_with_its_confidence(
    tmp_path: Path, lang: str, tess: str, must_contain: str, min_ratio: float, tesseract_with: Callable[[str], Tesseract],
) -> None:
    path = make_scanned(tmp_path / f"scan-{lang}.pdf", lang)
    if not has_ink(scan_image(path)):
        pytest.skip(missing("a CJK font to render the scan's script (fonts-wqy-microhei)"))
    doc = parse(path, ocr=tesseract_with(tess))
    first, scanned = doc.elements
    assert (first.page, first.meta["method"]) == (1, "text-layer")
    assert scanned.page == 2
    assert scanned.meta["method"] == "ocr"
    assert 30 <= scanned.meta["ocr_confidence"] <= 100
    assert must_contain in scanned.text
    assert SequenceMatcher(None, scanned.text, TEXTS[lang].scanned).ratio() >= min_ratio
    assert doc.meta["ocr_pages"] == [2] and "page_errors" not in doc.meta
    x0, top, _x1, bottom = scanned.bbox or (0, 0, 0, 0)
    assert 60 < x0 < 90 and 80 < top < bottom < 140, "OCR boxes are in PDF points like text-layer boxes"


def _peak_rss_mb(path: Path) -> float:
    script = (
        "import resource, sys; from pathlib import Path; from bunko.parse.pdf import PdfParser; "
        "p = Path(sys.argv[1]); d = PdfParser().parse(p, p.name, 'application/pdf'); "
        "print(len(d.elements), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)"
    )
    out = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True, check=True)
    return float(out.stdout.split()[1])


def test_memory_does_not_grow_with_the_page_count(tmp_path: Path) -> None:
    """Pages are parsed one at a time and released: ten times the pages costs only the extra elements."""
    small = _peak_rss_mb(make_long(tmp_path / "short.pdf", 20))
    large = _peak_rss_mb(make_long(tmp_path / "long.pdf", 200))
    assert large - small < 25, f"peak RSS grew from {small:.0f} MB to {large:.0f} MB"


def test_scanned_page_with_a_text_stamp_is_still_read_by_ocr(tmp_path: Path, tesseract_with: Callable[[str], Tesseract]) -> None:
    path = make_scanned(tmp_path / "stamped.pdf", "en", text_page_first=False, stamp="Scanned 2026-03-02")
    elements = parse(path, ocr=tesseract_with("eng")).elements
    assert {e.meta["method"] for e in elements} == {"ocr"}, "the page is rendered whole (stamp included) and read once"
    assert elements[0].text == TEXTS["en"].scanned
    assert "2026" in elements[-1].text


def _typeset(path: Path, font: str, words: list[str], gap_em: float) -> Path:
    """One line drawn word by word with no space characters, the gap alone separating words (as TeX does)."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfgen.canvas import Canvas

    c = Canvas(str(path), pagesize=A4)
    c.setFont(font, 10)
    x = 72.0
    for word in words:
        c.drawString(x, 700, word)
        x += pdfmetrics.stringWidth(word, font, 10) + gap_em * 10
    c.showPage()
    c.save()
    return path


@pytest.mark.parametrize(
    ("font", "words", "expected"),
    [
        ("Helvetica", ["You", "can", "change", "to", "console", "3."], "You can change to console 3."),
        ("HeiseiMin-W3", ["コンソール", "3", "に", "chvt", "で切り替えます。"], "コンソール 3 に chvt で切り替えます。"),
        ("STSong-Light", ["用", "chvt", "切换到控制台", "3。"], "用 chvt 切换到控制台 3。"),
    ],
)
def test_words_separated_only_by_a_typeset_gap_keep_their_spaces(tmp_path: Path, font: str, words: list[str], expected: str) -> None:
    """A quarter-em gap (2.5 pt at 10 pt) is a word space; pdfplumber's fixed 3 pt tolerance glued such words together."""
    doc = parse(_typeset(tmp_path / "typeset.pdf", font, words, 0.25))
    assert [e.text for e in doc.elements] == [expected]


def test_letters_drawn_close_together_stay_one_word(tmp_path: Path) -> None:
    doc = parse(_typeset(tmp_path / "tight.pdf", "STSong-Light", list("切换到虚拟控制台"), 0.0))
    assert [e.text for e in doc.elements] == ["切换到虚拟控制台"]
