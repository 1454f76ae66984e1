"""Per-file limits on what parsing a file may cost, and the checks that hold a file to them.

A hostile or broken file must fail alone, quickly, with a code that names the limit: TOO_LARGE (bytes,
memory, pixels, characters), TOO_COMPLEX (rows, pages, members, nesting, elements) or TIMEOUT. Four
kinds of check share one `ParseLimits`:

* before a parser runs (`check_container`): a zip package's members and unpacked size are read from its
  central directory, never by unpacking; a workbook's rows are counted by streaming its sheets (at most
  `max_unpacked_mb` of them, already checked); a presentation's slides are counted from its member names;
* inside the parsers, where only they can see it: HTML nesting (`parse/html.py`), CSV/JSON rows
  (`parse/records.py`), PDF pages and pixels per rendered page (`parse/pdf.py`, `parse/ocr.py`), YAML front
  matter's expanded size (`parse/markdown.py`); they read the limits in force with `current()`;
* while the parser builds (`Tally`, kept by every `ElementBuilder`): the elements and characters produced so far,
  so a document past `max_elements` or `max_chars` stops at the element that passes it, not after it is whole;
  a Word body is counted by streaming its XML before python-docx builds its tree (`parse/docx.py`);
* after the parser (`check_document`): the elements and characters a document brings to chunking, exactly.

`parse_within` runs them all for one file. Wall time and peak memory are the ingest pipeline's
(`ingest/isolation.py`: a child process, killed past them); `[ingest]` in `bunko.toml` sets every value.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING

from bunko.errors import BunkoError, DocumentError
from bunko.schema import ErrorCode, ParsedDocument
from bunko.text.lazy_regex import lazy_compile

if TYPE_CHECKING:
    from bunko.config import IngestConfig
    from bunko.parse.registry import ParserRegistry

MB = 1024 * 1024
ZIP_MIMES = (
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
)
XLSX = ZIP_MIMES[2]
PPTX = ZIP_MIMES[1]
_SHEET = lazy_compile(r"^xl/worksheets/[^/]+\.xml$")
_SLIDE = lazy_compile(r"^ppt/slides/slide\d+\.xml$")
_ROW = lazy_compile(rb"<(?:[A-Za-z_][\w.-]*:)?row[\s/>]")
_CELL = lazy_compile(rb"<(?:[A-Za-z_][\w.-]*:)?c[\s/>]")
_BLOCK = 1 << 20


@dataclass(frozen=True)
class ParseLimits:
    """The `[ingest]` limits (same names, same defaults: tests/ingest/test_limits.py pins that they agree)."""

    max_parse_seconds: float = 300.0
    max_memory_mb: float = 1024.0
    max_unpacked_mb: float = 256.0
    max_zip_members: int = 20_000
    max_depth: int = 256
    max_rows: int = 100_000
    max_cells: int = 1_000_000
    max_pages: int = 5_000
    max_page_pixels: int = 50_000_000
    max_elements: int = 200_000
    max_chars: int = 20_000_000
    max_front_matter_values: int = 10_000
    max_figures: int = 100

    @classmethod
    def from_config(cls, ingest: IngestConfig) -> ParseLimits:
        return cls(**{f.name: getattr(ingest, f.name) for f in fields(cls)})


DEFAULT_LIMITS = ParseLimits()
_CURRENT: ContextVar[ParseLimits | None] = ContextVar("bunko_parse_limits", default=None)


def current() -> ParseLimits:
    """The limits the file being parsed is held to (the defaults outside `applied`)."""
    return _CURRENT.get() or DEFAULT_LIMITS


@contextmanager
def applied(limits: ParseLimits) -> Iterator[ParseLimits]:
    token = _CURRENT.set(limits)
    try:
        yield limits
    finally:
        _CURRENT.reset(token)


def _number(value: float) -> str:
    return f"{value:,.1f}" if isinstance(value, float) and not value.is_integer() else f"{int(value):,}"


def over_limit(
    code: ErrorCode, source: str, what: str, value: float, key: str, unit: str = "", at_least: bool = False,
    limit: float | None = None,
) -> DocumentError:
    """One wording for every violation: what was measured, its value, and the setting that would allow it (`limit`:
    its value, when not the one in force)."""
    limit = getattr(current(), key) if limit is None else limit
    found = f"more than {_number(limit)}{unit}" if at_least else f"{_number(value)}{unit}"
    prefix = f"{source}: " if source else ""  # no source: a page's or frame's own problem, recorded under its number
    return DocumentError(code, f"{prefix}{what}: {found} (limit: ingest.{key} = {_number(limit)}{unit})")


def too_deep(source: str, what: str) -> DocumentError:
    """Nesting past what a parser can follow (Python's recursion limit, libxml2's 256 levels)."""
    return DocumentError(ErrorCode.TOO_COMPLEX, f"{source}: {what} is nested too deeply to read")


# -- before the parser -------------------------------------------------------------------------


def damaged_zip(source: str, exc: Exception) -> DocumentError:
    return DocumentError(ErrorCode.PARSE_FAILED, f"{source}: truncated or damaged zip package ({type(exc).__name__}: {exc})")


def unreadable_package(source: str, kind: str, exc: Exception) -> DocumentError:
    """An Office package its library could not open: damaged zip, XML nested past libxml2's 256 levels, or other."""
    if isinstance(exc, zipfile.BadZipFile | EOFError):
        return damaged_zip(source, exc)
    if "depth" in str(exc).lower() and type(exc).__name__ == "XMLSyntaxError":
        return too_deep(source, f"the {kind}'s XML (libxml2 stops at 256 levels)")
    return DocumentError(ErrorCode.PARSE_FAILED, f"{source}: not a readable {kind} ({type(exc).__name__}: {exc})".splitlines()[0])


def check_container(path: Path, source: str, mime: str) -> None:
    """Hold an Office package to the limits from its central directory, before any parser unpacks it."""
    if mime not in ZIP_MIMES:
        return
    limits = current()
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
            if len(members) > limits.max_zip_members:
                raise over_limit(ErrorCode.TOO_COMPLEX, source, "members in the zip package", len(members), "max_zip_members")
            unpacked = sum(m.file_size for m in members)
            if unpacked > limits.max_unpacked_mb * MB:
                raise over_limit(ErrorCode.TOO_LARGE, source, "unpacked size", round(unpacked / MB, 1), "max_unpacked_mb", " MB")
            if mime == PPTX:
                slides = sum(1 for m in members if _SLIDE.match(m.filename))
                if slides > limits.max_pages:
                    raise over_limit(ErrorCode.TOO_COMPLEX, source, "slides", slides, "max_pages")
            elif mime == XLSX:
                cells = 0
                for member in members:
                    if _SHEET.match(member.filename):
                        rows, found = count_rows_and_cells(archive, member, limits.max_rows, limits.max_cells - cells)
                        if rows > limits.max_rows:
                            what = f"rows in worksheet {member.filename.rsplit('/', 1)[-1]}"
                            raise over_limit(ErrorCode.TOO_COMPLEX, source, what, rows, "max_rows", at_least=True)
                        cells += found
                        if cells > limits.max_cells:
                            raise over_limit(ErrorCode.TOO_COMPLEX, source, "cells in the workbook", cells, "max_cells", at_least=True)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError) as exc:
        raise damaged_zip(source, exc) from None


def count_rows_and_cells(archive: zipfile.ZipFile, member: zipfile.ZipInfo, max_rows: int, max_cells: int) -> tuple[int, int]:
    """`<row>` and `<c>` elements of a worksheet, streamed a block at a time; stops once past either limit."""
    rows = cells = 0
    tail = b""
    with archive.open(member) as stream:
        while block := stream.read(_BLOCK):
            data = tail + block
            cut = max(0, len(data) - 64)  # a tag split across blocks is counted in the next one
            rows += len(_ROW.findall(data, 0, cut))
            cells += len(_CELL.findall(data, 0, cut))
            tail = data[cut:]
            if rows > max_rows or cells > max_cells:
                return rows, cells
    return rows + len(_ROW.findall(tail)), cells + len(_CELL.findall(tail))


# -- while the parser builds ------------------------------------------------------------------


class LimitExceeded(DocumentError):
    """A limit on the whole document passed while it was being parsed: the document fails, never only the page or
    part being read (the PDF parser records most page failures on the page and goes on; not this one)."""


class Tally:
    """The elements and characters a parser has produced so far, held to `max_elements` and `max_chars` as they grow.

    What is counted must be a lower bound of what `check_document` will count (an element the parser may still drop,
    a caption a figure absorbs, is not counted as one), so stopping early never refuses a document the check after
    the parser would accept; it only stops sooner the ones it would refuse.
    """

    __slots__ = ("chars", "elements", "max_chars", "max_elements", "source")

    def __init__(self, source: str, limits: ParseLimits | None = None) -> None:
        limits = limits or current()
        self.source = source
        self.elements = 0
        self.chars = 0
        self.max_elements = limits.max_elements
        self.max_chars = limits.max_chars

    def add(self, chars: int, elements: int = 1) -> None:
        self.elements += elements
        self.chars += chars
        if self.elements > self.max_elements:
            raise self._passed(ErrorCode.TOO_COMPLEX, "elements", self.elements, "max_elements")
        if self.chars > self.max_chars:
            raise self._passed(ErrorCode.TOO_LARGE, "characters of text", self.chars, "max_chars")

    def _passed(self, code: ErrorCode, what: str, value: int, key: str) -> LimitExceeded:
        error = over_limit(code, self.source, what, value, key, at_least=True, limit=getattr(self, key))
        return LimitExceeded(error.code, error.detail)


# -- after the parser --------------------------------------------------------------------------


def check_document(doc: ParsedDocument, source: str) -> None:
    """What the document brings to chunking, embedding and the store: its elements and characters."""
    if len(doc.elements) > current().max_elements:
        raise over_limit(ErrorCode.TOO_COMPLEX, source, "elements", len(doc.elements), "max_elements")
    chars = sum(len(e.text) for e in doc.elements)
    if chars > current().max_chars:
        raise over_limit(ErrorCode.TOO_LARGE, source, "characters of text", chars, "max_chars")


def parse_within(registry: ParserRegistry, path: Path, source: str, limits: ParseLimits | None = None) -> ParsedDocument:
    """Sniff, check the container, parse and check the result, all under `limits` (the ones in force if None)."""
    with applied(limits or current()):
        try:
            parser, mime = registry.parser_for(path, source)
            check_container(path, source, mime)
            doc = parser.parse(path, source, mime)
        except RecursionError:
            raise too_deep(source, "the document") from None
        except (BunkoError, MemoryError):
            raise
        except Exception as exc:
            raise unparsable(source, exc) from exc
        check_document(doc, source)
        return doc


def unparsable(source: str, exc: Exception) -> DocumentError:
    """A library's own error on a file it could not read (a damaged zip stream, a PDF that fails as it is closed, an
    unknown charset in a mail part, a YAML date that is no date…): the file fails as PARSE_FAILED saying what the
    library said. The fuzz harness (tests/fuzz/) found such errors escaping from every binary format's library, and a
    list of them per parser would never be complete."""
    return DocumentError(ErrorCode.PARSE_FAILED, f"{source}: not readable ({type(exc).__name__}: {exc})".splitlines()[0])
