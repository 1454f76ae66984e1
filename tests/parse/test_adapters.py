"""Adapters for third-party converters.

MarkItDown and Docling (docling-slim, which reads Word files without models) are installed in CI (the `integrations`
extra and deps/integrations-no-deps.txt) and run here offline; Unstructured is experimental and skipped without it
(it downloads NLP data at run time: README, "Parsers").
"""

from __future__ import annotations

import importlib.util
import os
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from officegen import OFFICE, make_docx
from pdfgen import TEXTS, make_report

from bunko.errors import BunkoError, DocumentError
from bunko.parse.adapters import ADAPTERS, _failed, adapter
from bunko.parse.registry import default_registry
from bunko.schema import ElementKind, ErrorCode

DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


def test_unknown_adapter_is_refused_with_the_known_names() -> None:
    with pytest.raises(BunkoError, match="known: markitdown, docling, unstructured"):
        adapter("nope")


@pytest.mark.parametrize("name", sorted(ADAPTERS))
def test_missing_tool_names_the_pip_command(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Installed or not here, the tool is made to look absent."""
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda module, *args: None if module == name else find_spec(module, *args))
    with pytest.raises(BunkoError, match=f"pip install {name}"):
        adapter(name)


def test_a_tools_error_is_named_by_its_first_line_that_says_something() -> None:
    """NLTK opens its "resource not found" with a row of asterisks: the reason is the line after it."""
    nltk_like = LookupError("\n" + "*" * 70 + "\n  Resource 'punkt_tab' not found.\n  Please use the NLTK Downloader\n" + "*" * 70)
    error = _failed("memo.docx", "unstructured", nltk_like)
    assert error.code == ErrorCode.PARSE_FAILED
    assert str(error).endswith("memo.docx: unstructured could not convert it (LookupError: Resource 'punkt_tab' not found.)")


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


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every socket connect and DNS lookup refused and recorded; HF_HUB_OFFLINE as the adapter leaves it, restored after."""
    attempts: list[str] = []

    def refuse(*args: Any, **kwargs: Any) -> None:
        attempts.append(repr(args[1:] or args))
        raise OSError("network access refused by the test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    constants = sys.modules.get("huggingface_hub.constants")
    if constants is not None:
        monkeypatch.setattr(constants, "HF_HUB_OFFLINE", constants.HF_HUB_OFFLINE)
    yield attempts


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_docling_reads_word_headings_sections_and_tables_offline(lang: str, tmp_path: Path, offline: list[str]) -> None:
    pytest.importorskip("docling", reason="docling is not installed (pip install -r deps/integrations-no-deps.txt)")
    o = OFFICE[lang]
    path = make_docx(tmp_path / f"handbook-{lang}.docx", lang)
    parser, mime = default_registry(adapters=["docling"]).parser_for(path, path.name)
    assert mime == DOCX
    doc = parser.parse(path, path.name, mime)
    assert doc.parser.startswith("docling/") and doc.parser != "docling/unknown"
    assert all(e.meta["method"] == "docling" for e in doc.elements)
    headings = [e.text for e in doc.elements if e.kind == ElementKind.HEADING]
    assert headings[:4] == [o.title, o.h1, o.h11, o.h2] and doc.title == o.title
    claims = next(e for e in doc.elements if e.text.startswith(o.p1))
    assert claims.section_path == [o.title, o.h1]
    assert [e.text for e in doc.elements if e.kind == ElementKind.LIST] == [*o.bullets, *o.steps]
    table = next(e for e in doc.elements if e.kind == ElementKind.TABLE)
    assert table.meta["cells"] == {"header": list(o.table[0]), "rows": [list(r) for r in o.table[1:]]}
    assert next(e for e in doc.elements if e.text.startswith(o.p2)).section_path == [o.title, o.h2]
    assert offline == [] and os.environ["HF_HUB_OFFLINE"] == "1"


def test_docling_on_a_pdf_reads_it_or_fails_naming_what_is_missing(tmp_path: Path, offline: list[str]) -> None:
    """CI installs docling-slim without its PDF backend and models: the file fails, with the reason and the fix, and
    nothing is fetched (the network is refused, so a download attempt would show in `offline`; pytest-timeout bounds a hang)."""
    pytest.importorskip("docling", reason="docling is not installed (pip install -r deps/integrations-no-deps.txt)")
    path = make_report(tmp_path / "r.pdf", "en")
    try:
        doc = adapter("docling").parse(path, path.name, "application/pdf")
    except DocumentError as exc:
        assert exc.code == ErrorCode.PARSE_FAILED and str(exc).count("r.pdf: docling") == 1
        if importlib.util.find_spec("docling_parse") is None:
            assert "docling-parse" in str(exc) and "pip install" in str(exc)
        else:
            assert "docling-tools models download" in str(exc)
    else:  # full docling, its models on this machine
        assert any(e.kind == ElementKind.HEADING and e.text == TEXTS["en"].h1 for e in doc.elements)
        assert {e.page for e in doc.elements if e.page} >= {1, 2}
    assert offline == [] and os.environ["HF_HUB_OFFLINE"] == "1"


def test_a_docling_model_missing_from_this_machine_is_named_not_downloaded(tmp_path: Path, offline: list[str]) -> None:
    """With the hub off, docling's model lookup raises the hub's LocalEntryNotFoundError (here raised by a stand-in
    converter, as full docling raises it from inside its pipeline): the error names the fix, and no download starts."""
    pytest.importorskip("docling", reason="docling is not installed (pip install -r deps/integrations-no-deps.txt)")
    errors = pytest.importorskip("huggingface_hub.errors")
    docling = adapter("docling")

    class NoModels:
        def convert(self, source: str) -> None:
            assert os.environ["HF_HUB_OFFLINE"] == "1"
            try:
                raise errors.LocalEntryNotFoundError("Cannot find the requested files in the disk cache")
            except Exception as exc:
                raise RuntimeError("pipeline initialisation failed") from exc

    docling._converter = NoModels()  # type: ignore[attr-defined]
    with pytest.raises(DocumentError) as raised:
        docling.parse(tmp_path / "scan.png", "scan.png", "image/png")
    message = str(raised.value)
    assert "scan.png: docling needs its layout models to read an image" in message
    assert "docling-tools models download" in message and "DOCLING_ARTIFACTS_PATH" in message
    assert offline == []


UNSTRUCTURED_SKIP = ("unstructured is not installed: the adapter is experimental and not tested in CI, since unstructured "
                     "downloads NLP data at run time (NLTK punkt_tab/tagger up to 0.20, spaCy en_core_web_sm from 0.21), "
                     "none of it on PyPI from its authors")


def test_unstructured_adapter_finds_headings_and_pages(tmp_path: Path) -> None:
    pytest.importorskip("unstructured", reason=UNSTRUCTURED_SKIP)
    path = make_report(tmp_path / "r.pdf", "en")
    doc = adapter("unstructured").parse(path, path.name, "application/pdf")
    assert doc.parser.startswith("unstructured/")
    assert any(e.kind == "heading" and e.text == TEXTS["en"].h1 for e in doc.elements)
    assert {e.page for e in doc.elements if e.page} >= {1, 2}
