"""Uploaded files: safe names, accepted types, size limits, staging on disk (fsynced: the 202 promises it).

A client chooses the file name, so it is reduced to one plain path component
before it touches the disk: directories, ``..``, control and reserved characters
and leading dots are removed, Unicode is NFC-normalised (macOS sends NFD), and the
final path is checked to lie inside the uploads folder. Japanese and Chinese
names survive intact (出張旅費規程.md stays 出張旅費規程.md).
"""

from __future__ import annotations

import os
import re
import unicodedata
from pathlib import Path
from typing import BinaryIO

from bunko.parse.registry import BINARY_EXTENSIONS, TEXT_EXTENSIONS, UNREADABLE_EXTENSIONS, ParserRegistry, unsupported_detail
from bunko.parse.roff import is_manual_page_name

UPLOADS = "uploads"
INCOMING = ".incoming"
MAX_NAME_BYTES = 200
_UNSAFE = re.compile(r'[\x00-\x1f\x7f<>:"/\\|?*]')
_OFFICE_AND_MEDIA = {
    ".pdf": "application/pdf",
    ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    ".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".tif": "image/tiff", ".tiff": "image/tiff",
}


class UploadRejected(Exception):
    """One file is refused before it is queued; `code` is an ingest error code, `status` the HTTP status."""

    def __init__(self, code: str, message: str, status: int) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


def accepted_extensions(registry: ParserRegistry) -> dict[str, str]:
    """Extensions whose type some registered parser reads. The pipeline still sniffs the content."""
    known = {**TEXT_EXTENSIONS, **BINARY_EXTENSIONS, **_OFFICE_AND_MEDIA}
    mimes = set(registry.mimes)
    return {ext: mime for ext, mime in known.items() if mime in mimes}


def sanitize_filename(name: str) -> str:
    """One safe path component from a client-given name, or `UploadRejected`."""
    name = unicodedata.normalize("NFC", name or "")
    name = re.split(r"[/\\]", name)[-1]  # a browser or a client may send a full path
    name = _UNSAFE.sub("_", name).strip().lstrip(".").strip()
    name = re.sub(r"\s+", " ", name)
    if not name or set(name) <= {".", "_", " "}:
        raise UploadRejected("BAD_FILENAME", "the file has no usable name", 400)
    while len(name.encode("utf-8")) > MAX_NAME_BYTES:
        stem, dot, ext = name.rpartition(".")
        name = (stem[:-1] + dot + ext) if dot and stem else name[:-1]
    return name


def upload_target(collection: Path, filename: str) -> Path:
    folder = (collection / UPLOADS).resolve()
    target = (folder / filename).resolve()
    if target.parent != folder:  # belt and braces: sanitize_filename already removed separators
        raise UploadRejected("BAD_FILENAME", f"{filename!r} would leave the uploads folder", 400)
    return target


def check_type(filename: str, allowed: dict[str, str]) -> None:
    """Refuse at once a file whose extension names a format bunko does not read (.exe, .zip, .doc…), saying what it is
    and the nearest format it reads. Any other file is queued: the pipeline judges it by its content, so a text file
    of no known extension (README, changelog.Debian, notes.conf) is read as text."""
    ext = Path(filename).suffix.lower()
    if ext == ".gz" and is_manual_page_name(filename):
        return  # a manual page as installed ("crontab.5.gz"), read by the roff parser
    if ext not in allowed and ext in UNREADABLE_EXTENSIONS:
        raise UploadRejected("UNSUPPORTED_FORMAT", f"{filename}: {unsupported_detail(UNREADABLE_EXTENSIONS[ext], ext)}", 415)


def stage(source: BinaryIO, path: Path, limit_bytes: int, filename: str) -> int:
    """Copy an upload to its staging file, refusing it as soon as it passes the size limit."""
    path.parent.mkdir(parents=True, exist_ok=True)
    size = 0
    try:
        with path.open("wb") as out:
            while block := source.read(1 << 20):
                size += len(block)
                if size > limit_bytes:
                    raise UploadRejected(
                        "TOO_LARGE", f"{filename}: over the {limit_bytes / 1048576:g} MB upload limit", 413
                    )
                out.write(block)
            out.flush()
            os.fsync(out.fileno())  # durable before its job row is, and so before the 202
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    if size == 0:
        path.unlink(missing_ok=True)
        raise UploadRejected("EMPTY", f"{filename}: the file is empty", 400)
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)  # the file's name too
    finally:
        os.close(folder)
    return size
