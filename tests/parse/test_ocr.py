"""Images go through Tesseract; without it they fail with OCR_UNAVAILABLE and an install hint."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from pdfgen import TEXTS, has_ink, make_scanned, scan_image
from PIL import Image

from bunko.errors import DocumentError
from bunko.parse.ocr import ImageParser, Tesseract, _lines_from_tsv
from bunko.schema import ErrorCode
from system_packages import missing


def scan_png(tmp_path: Path, lang: str) -> Path:
    png = scan_image(make_scanned(tmp_path / f"s-{lang}.pdf", lang))
    if not has_ink(png):
        pytest.skip(missing("a CJK font to render the scan's script (fonts-wqy-microhei)"))
    return png


def test_image_is_read_by_ocr_with_confidence_and_point_boxes(tmp_path: Path, tesseract_with: Callable[[str], Tesseract]) -> None:
    doc = ImageParser(ocr=tesseract_with("eng")).parse(scan_png(tmp_path, "en"), "scan.png", "image/png")
    [element] = doc.elements
    assert element.text == TEXTS["en"].scanned
    assert (element.page, element.meta["method"], element.meta["ocr_langs"]) == (1, "ocr", "eng")
    assert element.meta["ocr_confidence"] > 80
    assert element.meta["ocr_engine"].startswith("tesseract/")
    x0, top, _, bottom = element.bbox or (0, 0, 0, 0)
    assert 60 < x0 < 90 and 80 < top < bottom < 140
    assert doc.parser.startswith("image-ocr/tesseract-")


def test_japanese_image_uses_the_japanese_model(tmp_path: Path, tesseract_with: Callable[[str], Tesseract]) -> None:
    [element] = ImageParser(ocr=tesseract_with("jpn")).parse(scan_png(tmp_path, "ja"), "scan.png", "image/png").elements
    assert "受け付ける" in element.text and " " not in element.text


def test_each_tiff_frame_is_a_page(tmp_path: Path, tesseract_with: Callable[[str], Tesseract]) -> None:
    page = Image.open(scan_png(tmp_path, "en"))
    blank = Image.new("L", page.size, 255)
    path = tmp_path / "two.tiff"
    page.save(path, save_all=True, append_images=[blank, page])
    doc = ImageParser(ocr=tesseract_with("eng")).parse(path, "two.tiff", "image/tiff")
    assert [(e.page, e.text) for e in doc.elements] == [(1, TEXTS["en"].scanned), (3, TEXTS["en"].scanned)]
    assert doc.meta["pages"] == 3


def test_image_without_tesseract_fails_as_ocr_unavailable_with_install_hint(tmp_path: Path, no_tesseract: Tesseract) -> None:
    with pytest.raises(DocumentError) as caught:
        ImageParser(ocr=no_tesseract).parse(scan_png(tmp_path, "en"), "scan.png", "image/png")
    assert caught.value.code == ErrorCode.OCR_UNAVAILABLE
    assert "apt-get install tesseract-ocr tesseract-ocr-jpn tesseract-ocr-chi-sim tesseract-ocr-chi-tra" in caught.value.detail
    assert "scan.png" in caught.value.detail


def test_tesseract_from_environment_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BUNKO_TESSERACT", "/nowhere/tesseract")
    engine = Tesseract()
    assert not engine.available and "/nowhere/tesseract" in engine.unavailable_reason()


def test_unreadable_image_fails_as_parse_failed(tmp_path: Path) -> None:
    path = tmp_path / "bad.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(30))
    with pytest.raises(DocumentError) as caught:
        ImageParser(ocr=Tesseract(binary="/nonexistent")).parse(path, "bad.png", "image/png")
    assert caught.value.code == ErrorCode.PARSE_FAILED


def test_tsv_words_join_into_lines_without_spaces_between_cjk() -> None:
    header = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext"
    rows = [
        "5\t1\t1\t1\t1\t1\t100\t50\t40\t40\t90\t出張",
        "5\t1\t1\t1\t1\t2\t140\t50\t40\t40\t70\t規程",
        "5\t1\t1\t1\t2\t1\t100\t100\t60\t30\t96\tTravel",
        "5\t1\t1\t1\t2\t2\t170\t100\t60\t30\t-1\trules",
    ]
    first, second = _lines_from_tsv("\n".join([header, *rows]), scale=2.0)
    assert (first.text, first.confidence, first.bbox) == ("出張規程", 80.0, (50.0, 25.0, 90.0, 45.0))
    assert (second.text, second.confidence) == ("Travel rules", 96.0)
