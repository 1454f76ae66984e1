"""Adapters for third-party converters: exercised when the tool is installed, skipped otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest
from officegen import OFFICE, make_docx
from pdfgen import TEXTS, make_report

from bunko.errors import BunkoError
from bunko.parse.adapters import ADAPTERS, adapter, available_adapters
from bunko.parse.registry import default_registry


def test_unknown_adapter_is_refused_with_the_known_names() -> None:
    with pytest.raises(BunkoError, match="known: markitdown, docling, unstructured"):
        adapter("nope")


@pytest.mark.parametrize("name", sorted(ADAPTERS))
def test_missing_tool_names_the_pip_command(name: str) -> None:
    if name in available_adapters():
        pytest.skip(f"{name} is installed")
    with pytest.raises(BunkoError, match=f"pip install {name}"):
        adapter(name)


def test_markitdown_adapter_takes_over_docx_and_keeps_section_paths(tmp_path: Path) -> None:
    pytest.importorskip("markitdown")
    o = OFFICE["en"]
    path = make_docx(tmp_path / "h.docx", "en")
    registry = default_registry(adapters=["markitdown"])
    parser, mime = registry.parser_for(path, path.name)
    doc = parser.parse(path, path.name, mime)
    assert doc.parser.startswith("markitdown/")
    assert all(e.meta["method"] == "markitdown" for e in doc.elements)
    claims = next(e for e in doc.elements if e.text.startswith(o.p1))
    assert claims.section_path == [o.h1]


def test_markitdown_adapter_reads_pdf_text(report_pdfs: dict[str, Path]) -> None:
    pytest.importorskip("markitdown")
    doc = adapter("markitdown").parse(report_pdfs["en"], "report.pdf", "application/pdf")
    assert TEXTS["en"].h11 in "\n".join(e.text for e in doc.elements)


@pytest.mark.parametrize("name", ["docling", "unstructured"])
def test_layout_tool_adapters_find_headings_and_pages(name: str, tmp_path: Path) -> None:
    pytest.importorskip(name)
    path = make_report(tmp_path / "r.pdf", "en")
    doc = adapter(name).parse(path, path.name, "application/pdf")
    assert doc.parser.startswith(f"{name}/")
    assert any(e.kind == "heading" and e.text == TEXTS["en"].h1 for e in doc.elements)
    assert {e.page for e in doc.elements if e.page} >= {1, 2}
