"""Figures from PDF, Word and PowerPoint: page, box, caption, OCR'd words, picture kept; icons left out."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image

from bunko.parse.docx import DocxParser
from bunko.parse.figures import FIGURE_ID_KEY, IMAGE_MAX_SIDE, link_captions
from bunko.parse.limits import ParseLimits, applied
from bunko.parse.ocr import Tesseract
from bunko.parse.pdf import PdfParser
from bunko.parse.pptx import PptxParser
from bunko.schema import Element, ElementKind, ParsedDocument
from figuredocs import FIGURE_TEXTS, PDF_FIGURE_BOX, figure_docx, figure_pdf, figure_pptx
from system_packages import missing

LANGS = ("en", "ja", "zh")
OCR_LANG = {"en": "eng", "ja": "jpn", "zh": "chi_sim"}


def figures(doc: ParsedDocument) -> list[Element]:
    return [e for e in doc.elements if e.kind == ElementKind.FIGURE]


def compact(text: str) -> str:
    return "".join(text.split()).lower()


def parse(kind: str, path: Path, ocr: Tesseract) -> ParsedDocument:
    if kind == "pdf":
        return PdfParser(ocr=ocr).parse(path, path.name, "application/pdf")
    if kind == "docx":
        return DocxParser(ocr=ocr).parse(path, path.name, "")
    return PptxParser(ocr=ocr).parse(path, path.name, "")


MAKERS: dict[str, Callable[[Path, str], Path]] = {"pdf": figure_pdf, "docx": figure_docx, "pptx": figure_pptx}


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("kind", ["pdf", "docx", "pptx"])
def test_a_picture_becomes_a_figure_with_its_caption_and_the_words_drawn_in_it(
    tmp_path: Path, kind: str, lang: str, tesseract_with: Callable[[str], Tesseract],
) -> None:
    texts = FIGURE_TEXTS[lang]
    doc = parse(kind, MAKERS[kind](tmp_path / f"fig.{kind}", lang), tesseract_with(OCR_LANG[lang]))
    [figure] = figures(doc)
    assert figure.page == 1 and figure.meta[FIGURE_ID_KEY] == "fig1"
    assert figure.meta["caption"] == texts.caption
    assert compact(texts.drawn) in compact(figure.meta["ocr_text"])
    assert figure.text.startswith(texts.caption) and compact(texts.drawn) in compact(figure.text)
    # the caption is carried by the figure, not repeated as an element of its own
    assert not [e for e in doc.elements if e.kind == ElementKind.CAPTION and e.text == texts.caption]
    picture = Image.open(io.BytesIO(doc.images["fig1"]))
    assert picture.format == "PNG" and max(picture.size) <= IMAGE_MAX_SIDE and min(picture.size) > 100


def test_pdf_figure_keeps_its_box_on_the_page_and_the_icon_is_left_out(tmp_path: Path, no_tesseract: Tesseract) -> None:
    doc = parse("pdf", figure_pdf(tmp_path / "fig.pdf", "en"), no_tesseract)
    [figure] = figures(doc)
    assert figure.bbox == pytest.approx(PDF_FIGURE_BOX, abs=0.5)
    assert figure.text == FIGURE_TEXTS["en"].caption and "ocr_text" not in figure.meta  # no Tesseract: the caption still finds it
    assert set(doc.images) == {"fig1"}


def test_docx_icon_is_counted_as_skipped(tmp_path: Path, no_tesseract: Tesseract) -> None:
    doc = parse("docx", figure_docx(tmp_path / "fig.docx", "ja"), no_tesseract)
    assert len(figures(doc)) == 1
    assert doc.meta["figures"] == {"kept": 1, "skipped": {"small": 1}}


def test_pptx_figure_has_its_slide_place_and_alt_text(tmp_path: Path, no_tesseract: Tesseract) -> None:
    doc = parse("pptx", figure_pptx(tmp_path / "fig.pptx", "zh", alt="柱状图：各地区销售额"), no_tesseract)
    [figure] = figures(doc)
    assert figure.bbox == pytest.approx((72.0, 150.0, 392.0, 270.0))
    assert figure.meta["alt"] == "柱状图：各地区销售额"
    assert figure.text == f"{FIGURE_TEXTS['zh'].caption}\n柱状图：各地区销售额"


def test_pptx_file_name_put_in_alt_text_is_not_the_figure_text(tmp_path: Path, no_tesseract: Tesseract) -> None:
    [figure] = figures(parse("pptx", figure_pptx(tmp_path / "fig.pptx", "en"), no_tesseract))
    assert "fig.png" not in figure.text and "alt" not in figure.meta


def test_figures_past_the_limit_are_left_out_and_counted(tmp_path: Path, no_tesseract: Tesseract) -> None:
    path = figure_pdf(tmp_path / "fig.pdf", "en")
    with applied(ParseLimits(max_figures=0)):
        doc = parse("pdf", path, no_tesseract)
    assert figures(doc) == [] and doc.images == {}
    assert doc.meta["figures"] == {"kept": 0, "skipped": {"over_limit": 1}}


@pytest.mark.parametrize(("lang", "langs"), [("en", "eng"), ("ja", "jpn+eng"), ("zh", "chi_sim+chi_tra+eng")])
def test_figures_are_read_with_the_documents_languages_only(tmp_path: Path, lang: str, langs: str) -> None:
    full = Tesseract()
    if not {"eng", "jpn", "chi_sim", "chi_tra"} <= set(full.langs.split("+")):
        pytest.skip(missing("tesseract with eng, jpn, chi_sim and chi_tra (tesseract-ocr and its language packages)"))
    doc = parse("docx", figure_docx(tmp_path / "fig.docx", lang), full)
    assert doc.meta["figure_ocr"] == {"langs": langs}
    assert compact(FIGURE_TEXTS[lang].drawn) in compact(figures(doc)[0].text)


def test_figure_ocr_past_its_time_budget_keeps_the_caption_and_is_counted(tmp_path: Path, tesseract_with: Callable[[str], Tesseract]) -> None:
    path = figure_pdf(tmp_path / "fig.pdf", "en")
    with applied(ParseLimits(max_parse_seconds=1e-9)):
        doc = parse("pdf", path, tesseract_with("eng"))
    [figure] = figures(doc)
    assert doc.meta["figure_ocr"] == {"langs": "eng", "over_budget": 1}
    assert figure.text == FIGURE_TEXTS["en"].caption and "ocr_text" not in figure.meta


@pytest.mark.parametrize(("caption", "owner"), [
    ("Fig. 3: Disk layout", ElementKind.FIGURE), ("Figure 3 Disk layout", ElementKind.FIGURE), ("図3 ディスク構成", ElementKind.FIGURE),
    ("图3 磁盘布局", ElementKind.FIGURE), ("圖3 磁碟配置", ElementKind.FIGURE), ("図表3 容量の推移", ElementKind.FIGURE),
    ("Table 3: Disk sizes", ElementKind.TABLE), ("表3 ディスク容量", ElementKind.TABLE), ("表3 磁盘容量", ElementKind.TABLE),
])
def test_a_caption_between_a_table_and_a_figure_goes_to_the_one_it_names(caption: str, owner: ElementKind) -> None:
    table = Element("t", ElementKind.TABLE, "| a |\n|---|\n| 1 |")
    label = Element("c", ElementKind.CAPTION, caption)
    figure = Element("f", ElementKind.FIGURE, "", meta={FIGURE_ID_KEY: "fig1"})
    link_captions([table, label, figure])
    named, other = (figure, table) if owner == ElementKind.FIGURE else (table, figure)
    assert named.meta["caption"] == caption and label.parent_id == named.element_id and "caption" not in other.meta
