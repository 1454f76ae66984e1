"""Which parser reads a file: decided by its content first, its extension second.

A PNG renamed to ``.md`` must fail as "binary", not feed garbage to the
Markdown parser, so the first bytes are sniffed before the extension is trusted.
A file of no known extension (``README``, ``changelog.Debian``, ``notes.conf``) is
read as plain text when its bytes are text (`encoding.looks_like_text`), and a
file bunko cannot read fails naming what it is and the nearest format it reads
(a ``.doc`` is Word 97-2003: save it as ``.docx``).
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
from bunko.parse.encoding import has_bom, looks_like_text, utf16_detected
from bunko.parse.limits import damaged_zip
from bunko.parse.roff import GZIPPED_ROFF_MIME, ROFF_MIME, is_manual_page_name, looks_like_roff
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
    (b"{\\rtf", "application/rtf"),
    (b"SQLite format 3\x00", "application/vnd.sqlite3"),
    (b"\xfd7zXZ\x00", "application/x-xz"),
    (b"Rar!\x1a\x07", "application/vnd.rar"),
)
_WEAK_MAGIC = (
    (b"MZ", "application/x-msdownload"),
    (b"BZh", "application/x-bzip2"),
    (b"OggS", "audio/ogg"),
    (b"ID3", "audio/mpeg"),
    (b"fLaC", "audio/flac"),
)
"""Signatures a line of text may begin with too ("MZ Engineering notes"): they count only when the rest is not text."""
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
_ZIP_MIMETYPES = ("application/vnd.oasis.opendocument.", "application/epub+zip")
"""Zip containers that name their type in a first ``mimetype`` member (OpenDocument, EPUB)."""
_UNSUPPORTED: dict[str, tuple[str, str]] = {
    # detected type: (what it is, what to do: the nearest format bunko reads)
    "application/msword": ("a Word 97-2003 document (.doc)", "save it as .docx (Word: File > Save As), which bunko reads"),
    "application/vnd.ms-excel": ("an Excel 97-2003 workbook (.xls)", "save it as .xlsx, which bunko reads"),
    "application/vnd.ms-powerpoint": ("a PowerPoint 97-2003 presentation (.ppt)", "save it as .pptx, which bunko reads"),
    "application/x-ole-storage": ("an OLE compound file of no known Office type", "export it as .docx, .xlsx, .pptx or PDF"),
    "application/vnd.oasis.opendocument.text": ("an OpenDocument text (.odt)", "save it as .docx or PDF, which bunko reads"),
    "application/vnd.oasis.opendocument.spreadsheet": ("an OpenDocument spreadsheet (.ods)", "save it as .xlsx or CSV"),
    "application/vnd.oasis.opendocument.presentation": ("an OpenDocument presentation (.odp)", "save it as .pptx or PDF"),
    "application/rtf": ("a Rich Text Format document (.rtf)", "save it as .docx or plain text"),
    "application/epub+zip": ("an EPUB book", "its chapters are HTML: unzip it and ingest the .xhtml files, or export it as PDF"),
    "application/zip": ("a ZIP archive", "unzip it and ingest the folder"),
    "application/gzip": ("a gzip-compressed file", "decompress it (gunzip) and ingest the file inside"),
    "application/x-bzip2": ("a bzip2-compressed file", "decompress it (bunzip2) and ingest the file inside"),
    "application/x-xz": ("an xz-compressed file", "decompress it (unxz) and ingest the file inside"),
    "application/x-7z-compressed": ("a 7-Zip archive", "extract it and ingest the folder"),
    "application/vnd.rar": ("a RAR archive", "extract it and ingest the folder"),
    "application/x-executable": ("an executable program (ELF)", "it holds no document text"),
    "application/x-msdownload": ("a Windows program (EXE/DLL)", "it holds no document text"),
    "application/vnd.sqlite3": ("an SQLite database", "export its tables as CSV, which bunko reads"),
    "audio/ogg": ("audio", "transcribe it to text first"),
    "audio/mpeg": ("audio", "transcribe it to text first"),
    "audio/flac": ("audio", "transcribe it to text first"),
}
UNREADABLE_EXTENSIONS = {
    ".doc": "application/msword", ".xls": "application/vnd.ms-excel", ".ppt": "application/vnd.ms-powerpoint",
    ".odt": "application/vnd.oasis.opendocument.text", ".ods": "application/vnd.oasis.opendocument.spreadsheet",
    ".odp": "application/vnd.oasis.opendocument.presentation", ".rtf": "application/rtf", ".epub": "application/epub+zip",
    ".zip": "application/zip", ".gz": "application/gzip", ".tgz": "application/gzip", ".bz2": "application/x-bzip2",
    ".xz": "application/x-xz", ".7z": "application/x-7z-compressed", ".rar": "application/vnd.rar",
    ".exe": "application/x-msdownload", ".dll": "application/x-msdownload", ".so": "application/x-executable",
    ".sqlite": "application/vnd.sqlite3", ".mp3": "audio/mpeg", ".ogg": "audio/ogg", ".flac": "audio/flac",
}
"""Extensions of formats bunko does not read, for checks made before the content is at hand (the server's uploads);
a file of any other extension is judged by its content."""
READABLE = "text and Markdown, HTML, manual pages (roff, gzipped or not), PDF, Word/PowerPoint/Excel (.docx/.pptx/.xlsx), mail (.eml/.msg), CSV/JSON, images (OCR)"
"""The formats bunko reads, in words: named when a file is of no type bunko knows, instead of every MIME type."""
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
    """Zero bytes, and not text in UTF-16 (with a byte-order mark or without one)."""
    return b"\x00" in head and not has_bom(head) and utf16_detected(head, whole=False) is None


def sniff_mime(path: Path) -> str:
    with path.open("rb") as handle:
        head = handle.read(8192)
    suffix = path.suffix.lower()
    for magic, mime in _MAGIC:
        if head.startswith(magic):
            if mime == "application/x-ole-storage":
                return _ole_mime(path)
            if mime == "application/gzip" and is_manual_page_name(path.name):
                return GZIPPED_ROFF_MIME  # a manual page as installed ("ls.1.gz")
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
        declared = _zip_mimetype(path) if "mimetype" in names else None
        return declared if declared and declared.startswith(_ZIP_MIMETYPES) else "application/zip"
    binary = next((mime for magic, mime in _WEAK_MAGIC if head.startswith(magic)), "application/octet-stream")
    if _looks_binary(head):
        return binary
    if suffix in TEXT_EXTENSIONS:  # named as text: a decoding problem is reported as one (ENCODING), not as binary
        return TEXT_EXTENSIONS[suffix]
    stripped = head.lstrip().lower()
    if stripped.startswith((b"<!doctype html", b"<html")):
        return "text/html"
    if stripped.startswith(_MAIL_HEADERS) and b"\n\n" in head.replace(b"\r\n", b"\n"):
        return "message/rfc822"
    if looks_like_roff(head):
        return ROFF_MIME
    return "text/plain" if looks_like_text(head) else binary


def _zip_mimetype(path: Path) -> str | None:
    try:
        with zipfile.ZipFile(path) as archive:
            return archive.read("mimetype")[:100].decode("ascii", errors="replace").strip()
    except (zipfile.BadZipFile, EOFError, KeyError, OSError):
        return None


def unsupported_detail(mime: str, suffix: str) -> str:
    """Why a file of type `mime` cannot be read, naming what it is and the nearest format bunko reads."""
    what, advice = _UNSUPPORTED.get(mime, ("", ""))
    if what:
        return f"{what} ({mime}) is not a format bunko reads: {advice}"
    if mime == "application/octet-stream":
        return f"binary content of no known document type ({suffix}); bunko reads {READABLE}"
    return f"{mime} ({suffix}) is not a format bunko reads; it reads {READABLE}"


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
            if suffix in TEXT_EXTENSIONS and TEXT_EXTENSIONS[suffix] != mime:
                detail = f"{source}: content is binary ({mime}), not the text its extension {suffix} promises"
            else:
                detail = f"{source}: {unsupported_detail(mime, suffix)}"
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
    ("xlsx", "xlsx", "XlsxParser", (_OOXML[2][1],)),
    ("records", "records", "RecordsParser", ("text/csv", "text/tab-separated-values", "application/json", "application/x-ndjson")),
    ("roff", "roff", "RoffParser", (ROFF_MIME, GZIPPED_ROFF_MIME)),
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
    ocr = SharedOcr()  # scanned pages, image files, and the text inside figures of PDF, Word and PowerPoint
    registry.register(LazyParser("pdf", ("application/pdf",), "pdf", "PdfParser", ocr=ocr))
    registry.register(LazyParser("docx", (_OOXML[0][1],), "docx", "DocxParser", ocr=ocr))
    registry.register(LazyParser("pptx", (_OOXML[1][1],), "pptx", "PptxParser", ocr=ocr))
    registry.register(LazyParser("image-ocr", ("image/png", "image/jpeg", "image/tiff", "image/gif"), "ocr", "ImageParser", ocr=ocr))
    registry.register(LazyParser("email", ("message/rfc822", "application/vnd.ms-outlook"), "email", "EmailParser", registry=registry))
    registry.register(EncryptedOfficeParser())
    for name in adapters:
        from bunko.parse.adapters import adapter

        registry.register(adapter(name))
    return registry
