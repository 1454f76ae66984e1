"""Which parser reads a file: decided by its content first, its extension second.

A PNG renamed to ``.md`` must fail as "binary", not feed garbage to the
Markdown parser, so the first bytes are sniffed before the extension is trusted.
"""

from __future__ import annotations

import importlib
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import olefile

from bunko.errors import DocumentError
from bunko.parse.base import Parser
from bunko.parse.encoding import has_bom
from bunko.parse.limits import damaged_zip
from bunko.schema import ErrorCode, ParsedDocument

_MAGIC = (
    (b"%PDF-", "application/pdf"),
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF8", "image/gif"),
    (b"II*\x00", "image/tiff"),
    (b"MM\x00*", "image/tiff"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "application/x-ole-storage"),
    (b"\x1f\x8b", "application/gzip"),
    (b"7z\xbc\xaf\x27\x1c", "application/x-7z-compressed"),
    (b"\x7fELF", "application/x-executable"),
)
_OOXML = (
    ("word/", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
    ("ppt/", "application/vnd.openxmlformats-officedocument.presentationml.presentation"),
    ("xl/", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"),
)
TEXT_EXTENSIONS = {
    ".md": "text/markdown", ".markdown": "text/markdown", ".mdx": "text/markdown",
    ".txt": "text/plain", ".text": "text/plain", ".rst": "text/plain", ".log": "text/plain",
    ".html": "text/html", ".htm": "text/html", ".xhtml": "text/html",
    ".eml": "message/rfc822", ".csv": "text/csv", ".tsv": "text/tab-separated-values",
    ".json": "application/json", ".jsonl": "application/x-ndjson", ".ndjson": "application/x-ndjson",
}
BINARY_EXTENSIONS = {".msg": "application/vnd.ms-outlook"}
DAMAGED_ZIP = "application/x-damaged-zip"
"""A zip's signature without a readable zip behind it: a .docx/.xlsx/.pptx cut short, most often."""
ENCRYPTED_OFFICE = "application/x-encrypted-office"
_OLE_STREAMS = (
    ("EncryptedPackage", ENCRYPTED_OFFICE),
    ("WordDocument", "application/msword"),
    ("Workbook", "application/vnd.ms-excel"),
    ("Book", "application/vnd.ms-excel"),
    ("PowerPoint Document", "application/vnd.ms-powerpoint"),
)
_MAIL_HEADERS = (b"from:", b"received:", b"return-path:", b"mime-version:", b"message-id:", b"delivered-to:", b"subject:", b"date:", b"to:")


def _ole_mime(path: Path) -> str:
    """Which kind of OLE compound file: an encrypted Office file, an Outlook message, a legacy Office file."""
    try:
        with olefile.OleFileIO(str(path)) as ole:
            entries = ole.listdir(streams=True, storages=True)
    except (OSError, ValueError, TypeError):
        # A damaged .msg is still a mail to report as unreadable, not an unknown format.
        return BINARY_EXTENSIONS.get(path.suffix.lower(), "application/x-ole-storage")
    top = {entry[0] for entry in entries}
    for stream, mime in _OLE_STREAMS:
        if stream in top:
            return mime
    if any(name.startswith("__substg1.0_") for name in top):
        return BINARY_EXTENSIONS[".msg"]
    return "application/x-ole-storage"


def _looks_binary(head: bytes) -> bool:
    return b"\x00" in head and not has_bom(head)


def sniff_mime(path: Path) -> str:
    with path.open("rb") as handle:
        head = handle.read(8192)
    suffix = path.suffix.lower()
    for magic, mime in _MAGIC:
        if head.startswith(magic):
            if mime == "application/x-ole-storage":
                return _ole_mime(path)
            return mime
    if head.startswith(b"PK\x03\x04"):
        try:
            with zipfile.ZipFile(path) as archive:
                names = archive.namelist()
        except (zipfile.BadZipFile, EOFError):
            return DAMAGED_ZIP
        for prefix, mime in _OOXML:
            if any(name.startswith(prefix) for name in names):
                return mime
        return "application/zip"
    if _looks_binary(head):
        return "application/octet-stream"
    if suffix in TEXT_EXTENSIONS:
        return TEXT_EXTENSIONS[suffix]
    stripped = head.lstrip().lower()
    if stripped.startswith((b"<!doctype html", b"<html")):
        return "text/html"
    if stripped.startswith(_MAIL_HEADERS) and b"\n\n" in head.replace(b"\r\n", b"\n"):
        return "message/rfc822"
    if not suffix or suffix in {".text"}:
        return "text/plain"
    return f"application/x-unknown{suffix}"


class ParserRegistry:
    """Maps MIME types to parsers; new formats register here and nothing else changes."""

    def __init__(self) -> None:
        self._by_mime: dict[str, Parser] = {}

    def register(self, parser: Parser) -> None:
        for mime in parser.mimes:
            self._by_mime[mime] = parser

    @property
    def mimes(self) -> list[str]:
        return sorted(self._by_mime)

    def parser_for(self, path: Path, source: str) -> tuple[Parser, str]:
        mime = sniff_mime(path)
        if mime == DAMAGED_ZIP:
            try:
                zipfile.ZipFile(path).close()
                problem: Exception = zipfile.BadZipFile("unreadable")
            except (zipfile.BadZipFile, EOFError) as exc:
                problem = exc
            raise damaged_zip(source, problem)
        parser = self._by_mime.get(mime)
        suffix = path.suffix.lower()
        if suffix in TEXT_EXTENSIONS and _is_binary_mime(mime):
            # A PNG renamed to .md is a mistake to report, not an image to OCR.
            parser = None
        if parser is None:
            suffix = path.suffix.lower() or "(no extension)"
            if mime == "application/octet-stream" or (suffix in TEXT_EXTENSIONS and TEXT_EXTENSIONS[suffix] != mime):
                detail = f"{source}: content is binary ({mime}), not the text its extension {suffix} promises"
            else:
                detail = f"{source}: no parser for {mime} ({suffix}); supported: {', '.join(self.mimes)}"
            raise DocumentError(ErrorCode.UNSUPPORTED_FORMAT, detail)
        return parser, mime


def _is_binary_mime(mime: str) -> bool:
    return not (mime.startswith("text/") or mime in ("application/json", "application/x-ndjson", "message/rfc822"))


class EncryptedOfficeParser:
    """Password-protected Word/Excel/PowerPoint files are OLE containers around an encrypted package."""

    name = "encrypted-office"
    version = "1"
    mimes = (ENCRYPTED_OFFICE,)

    def parse(self, path: Path, source: str, mime: str) -> ParsedDocument:
        raise DocumentError(ErrorCode.ENCRYPTED, f"{source}: the Office file is password-protected; remove the password and ingest it again")


class LazyParser:
    """A parser built on first use, so opening a collection to search never imports PDF or Office libraries.

    It pickles as what builds it (module, class, arguments), never as the built parser: the registry is
    handed to the parse worker (`ingest/isolation.py`) that way.
    """

    def __init__(self, name: str, mimes: tuple[str, ...], module: str, cls: str, **kwargs: Any) -> None:
        self.name = name
        self.mimes = mimes
        self._spec = (module, cls, kwargs)
        self._parser: Parser | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_parser": None}

    @property
    def parser(self) -> Parser:
        if self._parser is None:
            module, cls, kwargs = self._spec
            built = {k: v.get() if isinstance(v, SharedOcr) else v for k, v in kwargs.items()}
            self._parser = getattr(importlib.import_module(f"bunko.parse.{module}"), cls)(**built)
        return self._parser

    @property
    def version(self) -> str:
        return self.parser.version

    def parse(self, path: Path, source: str, mime: str) -> ParsedDocument:
        return self.parser.parse(path, source, mime)


class SharedOcr:
    """One Tesseract (and one `--list-langs` call) for PDFs and images alike, made when first needed."""

    def __init__(self) -> None:
        self._engine: Any = None

    def __getstate__(self) -> dict[str, Any]:
        return {"_engine": None}

    def get(self) -> Any:
        if self._engine is None:
            from bunko.parse.ocr import Tesseract

            self._engine = Tesseract()
        return self._engine


_BUILTIN = (
    # name, module, class, MIME types (kept here so nothing is imported until a file needs it)
    ("html", "html", "HtmlParser", ("text/html", "application/xhtml+xml")),
    ("docx", "docx", "DocxParser", (_OOXML[0][1],)),
    ("pptx", "pptx", "PptxParser", (_OOXML[1][1],)),
    ("xlsx", "xlsx", "XlsxParser", (_OOXML[2][1],)),
    ("records", "records", "RecordsParser", ("text/csv", "text/tab-separated-values", "application/json", "application/x-ndjson")),
)


def default_registry(adapters: Sequence[str] = ()) -> ParserRegistry:
    """Every built-in parser; `adapters` (e.g. ["markitdown"]) then take over the formats they read.

    Markdown and text are built at once (cheap, and the common case); the
    others are `LazyParser`s, imported when the first file of their kind arrives.
    """
    from bunko.parse.markdown import MarkdownParser
    from bunko.parse.text import TextParser

    registry = ParserRegistry()
    registry.register(MarkdownParser())
    registry.register(TextParser())
    for name, module, cls, mimes in _BUILTIN:
        registry.register(LazyParser(name, mimes, module, cls))
    ocr = SharedOcr()
    registry.register(LazyParser("pdf", ("application/pdf",), "pdf", "PdfParser", ocr=ocr))
    registry.register(LazyParser("image-ocr", ("image/png", "image/jpeg", "image/tiff", "image/gif"), "ocr", "ImageParser", ocr=ocr))
    registry.register(LazyParser("email", ("message/rfc822", "application/vnd.ms-outlook"), "email", "EmailParser", registry=registry))
    registry.register(EncryptedOfficeParser())
    for name in adapters:
        from bunko.parse.adapters import adapter

        registry.register(adapter(name))
    return registry
