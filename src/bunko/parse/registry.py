"""Which parser reads a file: decided by its content first, its extension second.

A PNG renamed to ``.md`` must fail as "binary", not feed garbage to the
Markdown parser, so the first bytes are sniffed before the extension is trusted.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from bunko.errors import DocumentError
from bunko.parse.base import Parser
from bunko.parse.encoding import has_bom
from bunko.schema import ErrorCode

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


def _looks_binary(head: bytes) -> bool:
    return b"\x00" in head and not has_bom(head)


def sniff_mime(path: Path) -> str:
    with path.open("rb") as handle:
        head = handle.read(8192)
    suffix = path.suffix.lower()
    for magic, mime in _MAGIC:
        if head.startswith(magic):
            if mime == "application/x-ole-storage" and suffix in BINARY_EXTENSIONS:
                return BINARY_EXTENSIONS[suffix]
            return mime
    if head.startswith(b"PK\x03\x04"):
        try:
            with zipfile.ZipFile(path) as archive:
                names = archive.namelist()
        except zipfile.BadZipFile:
            return "application/zip"
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
        parser = self._by_mime.get(mime)
        if parser is None:
            suffix = path.suffix.lower() or "(no extension)"
            if mime == "application/octet-stream" or (suffix in TEXT_EXTENSIONS and TEXT_EXTENSIONS[suffix] != mime):
                detail = f"{source}: content is binary ({mime}), not the text its extension {suffix} promises"
            else:
                detail = f"{source}: no parser for {mime} ({suffix}); supported: {', '.join(self.mimes)}"
            raise DocumentError(ErrorCode.UNSUPPORTED_FORMAT, detail)
        return parser, mime


def default_registry() -> ParserRegistry:
    from bunko.parse.markdown import MarkdownParser
    from bunko.parse.text import TextParser

    registry = ParserRegistry()
    registry.register(MarkdownParser())
    registry.register(TextParser())
    return registry
