"""Adapters that let third-party converters (MarkItDown, Docling, Unstructured) act as bunko parsers.

They are optional: none is installed by default, each is imported only when
chosen (``default_registry(adapters=["docling"])``), and a missing one fails
with the pip command that installs it. An adapter returns the same
ParsedDocument as a built-in parser, with parser = "<tool>/<version>" and
meta["method"] = the tool's name on every element, so a collection records
which converter produced each citation.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from bunko.errors import BunkoError, DocumentError
from bunko.parse.base import ElementBuilder, Parser, dist_version
from bunko.parse.tables import table_markdown, table_meta
from bunko.schema import Element, ElementKind, ErrorCode, ParsedDocument

OFFICE = (
    "application/pdf",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "text/html",
)


def _reason(exc: BaseException) -> str:
    """The error's type and the first line of its message that says something (NLTK's opens with a row of asterisks)."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip(" *=-#")]
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__


def _failed(source: str, tool: str, exc: Exception) -> DocumentError:
    return DocumentError(ErrorCode.PARSE_FAILED, f"{source}: {tool} could not convert it ({_reason(exc)})")


_HUB_MISSES = {"LocalEntryNotFoundError", "OfflineModeIsEnabled", "EntryNotFoundError", "RepositoryNotFoundError"}


def _hub_off() -> None:
    """bunko never downloads: with the hub off, a model missing from this machine fails at once instead of being
    fetched (or waited for, without network). huggingface_hub reads HF_HUB_OFFLINE when first imported; if something
    imported it before us, its module constant is switched too (as the sentence-transformers embedder does)."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
    constants = sys.modules.get("huggingface_hub.constants")
    if constants is not None:
        constants.HF_HUB_OFFLINE = True  # type: ignore[attr-defined]


def _missing_model(exc: BaseException) -> bool:
    """Whether the error, or one it was raised from, is the hub saying a model is not on this machine."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if any(cls.__name__ in _HUB_MISSES for cls in type(current).__mro__):
            return True
        current = current.__cause__ or current.__context__
    return False


class MarkItDownAdapter:
    """Microsoft's MarkItDown turns a file into Markdown; bunko's Markdown parser then finds the structure."""

    name = "markitdown"
    module = "markitdown"
    mimes = OFFICE

    def __init__(self) -> None:
        from markitdown import MarkItDown

        self._converter = MarkItDown()
        self.version = dist_version("markitdown")

    def parse(self, path: Path, source: str, mime: str) -> ParsedDocument:
        from bunko.parse.markdown import MarkdownParser

        try:
            markdown = self._converter.convert(str(path)).text_content
        except Exception as exc:  # the tool's own error types vary by format
            raise _failed(source, self.name, exc) from None
        doc = MarkdownParser().parse_text(markdown, source)
        for element in doc.elements:
            element.meta["method"] = self.name
        doc.mime, doc.parser = mime, f"{self.name}/{self.version}"
        return doc


class DoclingAdapter:
    """IBM's Docling: layout models for PDFs and images, with page numbers and boxes per item; DOCX, PPTX, XLSX and
    HTML through its converters that need no model.

    ``docling`` or ``docling-slim`` (its modular release: ``docling-slim[format-docx]`` reads Word files without
    torch or any model). The layout models are never downloaded: a PDF without them on this machine fails at once,
    naming the command that fetches them.
    """

    name = "docling"
    module = "docling"
    mimes = (*OFFICE, "image/png", "image/jpeg", "image/tiff")
    _KINDS: ClassVar[dict[str, ElementKind]] = {"title": ElementKind.HEADING, "section_header": ElementKind.HEADING, "list_item": ElementKind.LIST, "table": ElementKind.TABLE, "picture": ElementKind.FIGURE,
              "caption": ElementKind.CAPTION, "footnote": ElementKind.FOOTNOTE, "code": ElementKind.CODE, "formula": ElementKind.EQUATION}

    def __init__(self) -> None:
        _hub_off()
        from docling.document_converter import DocumentConverter

        self._converter = DocumentConverter()
        self.version = next((v for v in (dist_version("docling"), dist_version("docling-slim")) if v != "unknown"), "unknown")

    def parse(self, path: Path, source: str, mime: str) -> ParsedDocument:
        _hub_off()  # again: something may have switched it back on since __init__
        try:
            document: Any = self._converter.convert(str(path)).document  # its items are a union the loop tells apart by label
        except Exception as exc:  # the tool's own error types vary by format
            if _missing_model(exc):
                what = "a PDF" if mime == "application/pdf" else "an image"
                raise DocumentError(
                    ErrorCode.PARSE_FAILED,
                    f"{source}: docling needs its layout models to read {what} and they are not on this machine "
                    f"(bunko never downloads them): fetch them once with `docling-tools models download` and set "
                    f"DOCLING_ARTIFACTS_PATH to the folder it names ({_reason(exc)})",
                ) from None
            raise _failed(source, self.name, exc) from None
        builder = ElementBuilder(source)
        for item, depth in document.iterate_items():
            label = str(getattr(item, "label", "text")).split(".")[-1].lower()
            if label in ("page_header", "page_footer"):
                continue
            prov = item.prov[0] if getattr(item, "prov", None) else None
            page = getattr(prov, "page_no", None)
            box = getattr(prov, "bbox", None)
            bbox = (box.l, box.t, box.r, box.b) if box is not None else None
            meta: dict[str, Any] = {"method": self.name, "label": label}
            kind = self._KINDS.get(label, ElementKind.PARAGRAPH)
            if kind == ElementKind.TABLE:
                try:
                    frame = item.export_to_dataframe(doc=document)
                except TypeError:  # docling-core before the `doc` argument
                    frame = item.export_to_dataframe()
                header = [str(c) for c in frame.columns]
                rows = [[str(v) for v in row] for row in frame.itertuples(index=False)]
                builder.add(ElementKind.TABLE, table_markdown(header, rows), page=page, bbox=bbox, meta={**meta, **table_meta(header, rows)})
            elif kind == ElementKind.HEADING:
                builder.heading(1 if label == "title" else max(1, int(getattr(item, "level", depth) or 1)) + 1, item.text, page=page, bbox=bbox, meta=meta)
            elif getattr(item, "text", "") or kind == ElementKind.FIGURE:
                builder.add(kind, getattr(item, "text", "") or "", page=page, bbox=bbox, meta=meta)
        return _document(builder.elements, source, mime, self)


class UnstructuredAdapter:
    """Unstructured's partition(): a category and page number per element, tables as HTML.

    Experimental, and not tested in CI: whatever the format, unstructured tells titles from narrative text with NLP
    data it downloads on first use (NLTK's punkt_tab and tagger up to 0.20, spaCy's en_core_web_sm from 0.21), none
    of it published on PyPI by its authors. Offline, install that data beforehand, or a file fails as PARSE_FAILED
    naming the missing resource.
    """

    name = "unstructured"
    module = "unstructured"
    mimes = (*OFFICE, "message/rfc822", "application/vnd.ms-outlook", "image/png", "image/jpeg")
    _KINDS: ClassVar[dict[str, ElementKind]] = {"Title": ElementKind.HEADING, "ListItem": ElementKind.LIST, "Table": ElementKind.TABLE, "Image": ElementKind.FIGURE, "FigureCaption": ElementKind.CAPTION,
              "Footnote": ElementKind.FOOTNOTE, "CodeSnippet": ElementKind.CODE, "Formula": ElementKind.EQUATION}

    def __init__(self) -> None:
        from unstructured.partition.auto import partition

        self._partition = partition
        self.version = dist_version("unstructured")

    def parse(self, path: Path, source: str, mime: str) -> ParsedDocument:
        from bunko.parse.html import HtmlParser

        try:
            items = self._partition(filename=str(path))
        except Exception as exc:  # the tool's own error types vary by format
            raise _failed(source, self.name, exc) from None
        builder = ElementBuilder(source)
        for item in items:
            category = getattr(item, "category", "NarrativeText")
            if category in ("Header", "Footer", "PageBreak", "PageNumber"):
                continue
            metadata = item.metadata
            page = getattr(metadata, "page_number", None)
            meta: dict[str, Any] = {"method": self.name, "category": category}
            kind = self._KINDS.get(category, ElementKind.PARAGRAPH)
            html = getattr(metadata, "text_as_html", None)
            if kind == ElementKind.TABLE and html:
                table = next((e for e in HtmlParser().parse_text(html, source).elements if e.kind == ElementKind.TABLE), None)
                if table is not None:
                    builder.add(ElementKind.TABLE, table.text, page=page, meta={**meta, **{k: table.meta[k] for k in ("cells", "n_rows", "n_cols")}})
                    continue
            if kind == ElementKind.HEADING:
                builder.heading((getattr(metadata, "category_depth", 0) or 0) + 1, item.text, page=page, meta=meta)
            elif item.text:
                builder.add(kind, item.text, page=page, meta=meta)
        return _document(builder.elements, source, mime, self)


def _document(elements: list[Element], source: str, mime: str, parser: Any) -> ParsedDocument:
    title = next((e.text for e in elements if e.kind == ElementKind.HEADING), Path(source).stem)
    return ParsedDocument(doc_id="", source=source, title=title, mime=mime, parser=f"{parser.name}/{parser.version}", elements=elements)


ADAPTERS: dict[str, Callable[[], Parser]] = {"markitdown": MarkItDownAdapter, "docling": DoclingAdapter, "unstructured": UnstructuredAdapter}


def _rebuilt(cls: type) -> tuple[Callable[[str], Parser], tuple[str]]:
    """Pickled by name and rebuilt where unpickled (the parse worker), since a tool's converter does not pickle."""
    return adapter, (cls.name,)  # type: ignore[attr-defined]


for _cls in (MarkItDownAdapter, DoclingAdapter, UnstructuredAdapter):
    _cls.__reduce__ = _rebuilt  # type: ignore[assignment,method-assign]
_MODULES = {"markitdown": "markitdown", "docling": "docling", "unstructured": "unstructured"}


def available_adapters() -> list[str]:
    """Adapters whose tool is installed in this environment."""
    return [name for name, module in _MODULES.items() if importlib.util.find_spec(module) is not None]


def adapter(name: str) -> Parser:
    """The named adapter, or a BunkoError saying how to install its tool."""
    if name not in ADAPTERS:
        raise BunkoError(f"unknown parser adapter {name!r}; known: {', '.join(ADAPTERS)}")
    if importlib.util.find_spec(_MODULES[name]) is None:
        raise BunkoError(f"parser adapter {name!r} needs its package: pip install {name}")
    return ADAPTERS[name]()
