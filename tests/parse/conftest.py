"""Generated documents shared by the parser tests (built once per session, in a temp folder)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from pdfgen import make_report

from bunko.parse.ocr import Tesseract
from system_packages import missing


@pytest.fixture(scope="session")
def report_pdfs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The four-page report (headings, table, figure, two columns, split table) in en, ja and zh."""
    folder = tmp_path_factory.mktemp("pdf")
    return {lang: make_report(folder / f"report-{lang}.pdf", lang) for lang in ("en", "ja", "zh")}


@pytest.fixture
def no_tesseract() -> Tesseract:
    """A Tesseract pointed at a binary that does not exist: the machine without OCR."""
    return Tesseract(binary="/nonexistent/bin/tesseract")


@pytest.fixture
def tesseract_with() -> Callable[[str], Tesseract]:
    """tesseract_with("jpn"): the installed Tesseract limited to one language, or a skip naming the package to install."""

    def factory(lang: str) -> Tesseract:
        engine = Tesseract(langs=lang)
        installed = Tesseract().langs.split("+") if engine.binary else []
        if lang not in installed:
            pytest.skip(missing(f"Tesseract with {lang} (tesseract-ocr-{lang.replace('_', '-')})"))
        return engine

    return factory
