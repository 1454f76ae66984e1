"""The parser interface and the helpers every parser shares."""

from __future__ import annotations

import hashlib
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _dist_version
from pathlib import Path
from typing import Any, Protocol

from bunko.parse.limits import Tally
from bunko.schema import Element, ElementKind, ParsedDocument

IN_MARGIN = "in_margin"
"""`Element.meta` key of a PDF line in the page's top or bottom margin: dropped once the whole document shows it to be
a running head or foot (`parse/pdf.py`), so it does not count towards the limits until then."""


class Parser(Protocol):
    """Turns one file into elements, keeping page, section path and structure.

    A parser raises `bunko.errors.DocumentError` with a specific code
    (PARSE_FAILED, ENCRYPTED, ENCODING, …) when the file cannot be read.
    """

    # Read-only: the registry only reads them, so a class attribute, an instance
    # attribute or a property (LazyParser's version, known once it is built) all do.
    @property
    def name(self) -> str: ...
    @property
    def version(self) -> str: ...
    @property
    def mimes(self) -> tuple[str, ...]: ...

    def parse(self, path: Path, source: str, mime: str) -> ParsedDocument: ...


def element_id(source: str, ordinal: int) -> str:
    """Stable across re-parses of unchanged content: the source plus the element's position."""
    return f"{hashlib.sha1(source.encode('utf-8')).hexdigest()[:12]}:e{ordinal}"


def _counted(element: Element) -> tuple[int, int]:
    """(elements, characters) an element is sure to bring to the finished document, for the running limits: none of
    an empty one (Markdown drops them) or of a line a PDF may drop as a running head; a caption's characters but not
    the element (a figure may absorb it, and its text); a figure itself but not its text (composed later)."""
    if element.meta.get(IN_MARGIN):
        return 0, 0
    if element.kind == ElementKind.FIGURE:
        return 1, 0
    if not element.text.strip():
        return 0, 0
    return (0 if element.kind == ElementKind.CAPTION else 1), len(element.text)


class ElementBuilder:
    """Accumulates elements and tracks the heading stack that becomes `section_path`.

    Every element added is counted against `ingest.max_elements` and `ingest.max_chars` (`limits.Tally`): a
    document past either fails with TOO_COMPLEX or TOO_LARGE at the element that passes it, while it is parsed.
    A parser that changes an element's text afterwards does it through `set_text`, so the count follows.
    """

    def __init__(self, source: str) -> None:
        self.source = source
        self.elements: list[Element] = []
        self._headings: list[tuple[int, str]] = []
        self.tally = Tally(source)

    @property
    def section_path(self) -> list[str]:
        return [text for _, text in self._headings]

    def heading(self, level: int, text: str, **kwargs: object) -> Element:
        while self._headings and self._headings[-1][0] >= level:
            self._headings.pop()
        self._headings.append((level, text))
        meta = dict(kwargs.pop("meta", {}) or {})  # type: ignore[call-overload]
        meta["level"] = level
        return self.add(ElementKind.HEADING, text, meta=meta, **kwargs)

    def add(self, kind: ElementKind, text: str, **kwargs: object) -> Element:
        element = Element(
            element_id=element_id(self.source, len(self.elements)),
            kind=kind,
            text=text,
            section_path=self.section_path,
            **kwargs,  # type: ignore[arg-type]
        )
        self.elements.append(element)
        elements, chars = _counted(element)
        if elements or chars:
            self.tally.add(chars, elements)
        return element

    def set_text(self, element: Element, text: str) -> None:
        """Change the text of an element already added (a list that grows by an item, a table continued on the next
        page), counting the characters it gains."""
        before = _counted(element)
        element.text = text
        after = _counted(element)
        if after != before:
            self.tally.add(after[1] - before[1], after[0] - before[0])


def title_from(elements: list[Element], fallback: str) -> str:
    for element in elements:
        if element.kind == ElementKind.HEADING:
            return element.text
    return fallback


def dist_version(distribution: str) -> str:
    """Installed version of a library, so ParsedDocument.parser names what really read the file."""
    try:
        return _dist_version(distribution)
    except PackageNotFoundError:
        return "unknown"


def parser_label(parser: Parser) -> str:
    """The "name/version" recorded on every ParsedDocument."""
    return f"{parser.name}/{parser.version}"


def page_error(meta: dict[str, Any], page: int | None, code: str, detail: str) -> None:
    """Record one page's failure on the document instead of failing the document.

    A scanned page without OCR must not cost the user the 99 readable pages around it.
    """
    meta.setdefault("page_errors", []).append({"page": page, "code": code, "detail": detail})


BBox = tuple[float, float, float, float]


def union_bbox(boxes: list[BBox]) -> BBox:
    """The smallest box (x0, top, x1, bottom) holding every box: the bbox of a paragraph made of lines."""
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))
