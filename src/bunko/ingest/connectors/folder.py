"""A local folder: its files, named as `bunko ingest` names them (relative to the collection's root; a folder outside
it from its own name down: `corpus/zh/a.md`), so a folder source and `bunko ingest FOLDER` share their documents;
the version is the file's modification time and size."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import Field

from bunko.errors import DocumentError
from bunko.ingest.connectors.base import NAME_PATTERN, Item, Listing, SourceError, SourceSpec
from bunko.ingest.sources import FollowLinks, SourceFile, Unreadable, discover, relative_name, within
from bunko.schema import ErrorCode


class FolderSpec(SourceSpec):
    type: Literal["folder"] = "folder"
    path: str = Field(min_length=1, description="The folder (relative to the collection's root, or absolute).")

    def target(self) -> str:
        return self.path


class FolderSource:
    def __init__(
        self, name: str, spec: FolderSpec, root: Path, include: list[str], exclude: list[str], follow_links: FollowLinks = "inside",
    ) -> None:
        self.name = name
        self.follow_links: FollowLinks = follow_links
        self.root = root
        given = Path(spec.path).expanduser()
        self.folder = given if given.is_absolute() else root / given
        self.include = include
        self.exclude = exclude
        self._anchor = root if within(self.folder, root) else self.folder.parent
        self._prefix = relative_name(self.folder, self._anchor).rstrip("/") + "/"
        self._paths: dict[str, Path] = {}
        self._unreadable: dict[str, Unreadable] = {}

    def list_items(self) -> Listing:
        if not self.folder.is_dir():
            raise SourceError(f"source {self.name}: {self.folder} is not a folder")
        items = []
        self._paths = {}
        self._unreadable = {}
        for found in discover([(self.folder, self._anchor)], self.include, self.exclude, follow_links=self.follow_links):
            if isinstance(found, Unreadable):  # a pipe, socket, device or broken link: a job failing with its code, as in ingest
                self._unreadable[found.source] = found
                items.append(Item(found.source, "unreadable"))
                continue
            if not isinstance(found, SourceFile):
                continue
            try:
                status = found.path.stat()
            except OSError:
                continue  # gone since it was listed
            self._paths[found.source] = found.path
            items.append(Item(found.source, f"{status.st_mtime_ns}:{status.st_size}", found.path.suffix, status.st_size))
        return Listing(items)

    def fetch(self, item: Item, folder: Path) -> Path:
        if item.key in self._unreadable:
            found = self._unreadable[item.key]
            raise DocumentError(found.code, found.detail)
        path = self._paths.get(item.key) or self._anchor / item.key
        if not path.exists():
            raise DocumentError(ErrorCode.NOT_FOUND, f"{item.key}: no such file (removed since it was listed)")
        return path

    def document_name(self, key: str) -> str:
        return key

    def owns(self, document: str) -> bool:
        if self._prefix == "./":  # the collection's root: every relative name but another source's "name:key"
            return not document.startswith("/") and not re.match(NAME_PATTERN.rstrip("$") + ":", document)
        return document.startswith(self._prefix)

    def close(self) -> None:
        return None
