"""The figure thumbnails of a collection: `<collection>/figures/<doc_id>/<figure_id>.png`, one folder per document.

Kept as files beside the store, not in it, because a browser fetches them one by one and the PostgreSQL store
must not carry pictures in its rows. A document's folder is replaced whole when the document is written again
(written as a new folder, then renamed over the old one), so a re-ingest never leaves figures of the previous
version; it is removed when the document is deleted, and `sweep` removes folders whose document is gone (a
delete made by a process that crashed between the two).
"""

from __future__ import annotations

import io
import os
import shutil
import uuid
from collections.abc import Iterable, Mapping
from pathlib import Path

from bunko.index.atomic import replacing
from bunko.text.lazy_regex import lazy_compile

THUMBNAIL_MAX_SIDE = 320
FOLDER = "figures"
_ID = lazy_compile(r"^[A-Za-z0-9_-]{1,64}$")


def thumbnail(png: bytes, max_side: int = THUMBNAIL_MAX_SIDE) -> bytes:
    """A figure's picture shrunk to `max_side` on its longest side, as PNG."""
    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        image.thumbnail((max_side, max_side), Image.Resampling.LANCZOS)
        out = io.BytesIO()
        image.save(out, format="PNG", optimize=True)
    return out.getvalue()


class FigureFiles:
    """Thumbnails of one collection (see the module doc)."""

    def __init__(self, collection: Path) -> None:
        self.root = collection / FOLDER

    def folder(self, doc_id: str) -> Path:
        if not _ID.match(doc_id):
            raise ValueError(f"not a document id: {doc_id!r}")
        return self.root / doc_id

    def path(self, doc_id: str, figure_id: str) -> Path | None:
        """The thumbnail's file, or None when there is none (or either id is not one this store writes)."""
        if not _ID.match(doc_id) or not _ID.match(figure_id):
            return None
        path = self.root / doc_id / f"{figure_id}.png"
        return path if path.is_file() else None

    def write(self, doc_id: str, images: Mapping[str, bytes]) -> int:
        """Replace the document's thumbnails by those of `images` (figure id → picture); returns how many."""
        target = self.folder(doc_id)
        if not images:
            self.remove(doc_id)
            return 0
        self.root.mkdir(parents=True, exist_ok=True)
        staging = self.root / f".{doc_id}.{os.getpid()}-{uuid.uuid4().hex[:8]}.tmp"
        staging.mkdir()
        try:
            for figure_id, png in images.items():
                if not _ID.match(figure_id):
                    raise ValueError(f"not a figure id: {figure_id!r}")
                with replacing(staging / f"{figure_id}.png") as temporary:
                    temporary.write_bytes(thumbnail(png))
            old = None
            if target.exists():
                old = self.root / f".{doc_id}.{uuid.uuid4().hex[:8]}.old"
                os.replace(target, old)
            os.replace(staging, target)
            if old is not None:
                shutil.rmtree(old, ignore_errors=True)
        finally:
            if staging.exists():
                shutil.rmtree(staging, ignore_errors=True)
        return len(images)

    def remove(self, doc_id: str) -> None:
        shutil.rmtree(self.folder(doc_id), ignore_errors=True)

    def documents(self) -> list[str]:
        """Ids of the documents that have thumbnails."""
        if not self.root.is_dir():
            return []
        return sorted(p.name for p in self.root.iterdir() if p.is_dir() and not p.name.startswith("."))

    def sweep(self, kept: Iterable[str]) -> list[str]:
        """Remove the folders of documents not in `kept`, and leftovers of interrupted writes; returns the ids removed."""
        keep = set(kept)
        removed = [doc_id for doc_id in self.documents() if doc_id not in keep]
        for doc_id in removed:
            self.remove(doc_id)
        if self.root.is_dir():
            for leftover in self.root.glob(".*"):
                shutil.rmtree(leftover, ignore_errors=True)
        return removed
