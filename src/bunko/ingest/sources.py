"""Which files an ingest run covers, and the stable name (`source`) each is stored under.

Everything found under a folder that is not a directory becomes a job: a regular file is read; a named
pipe, socket or device (NOT_A_FILE, never opened: opening a pipe would wait forever) and a symbolic link
to nothing or a loop of links (BROKEN_LINK) fail with their code, so the run reports them instead of
passing over them. A link to a directory is not followed (it could lead out of the folder or round in a
loop).
"""

from __future__ import annotations

import errno
import fnmatch
import os
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from bunko.schema import ErrorCode


@dataclass(frozen=True)
class SourceFile:
    path: Path
    source: str


@dataclass(frozen=True)
class Unreadable:
    """A path that gets a job which fails at once: what it is, in `code` and `detail`."""

    path: Path
    source: str
    code: ErrorCode
    detail: str


def source_name(path: Path, root: Path) -> str:
    """Path relative to the collection's root when inside it (portable), else absolute."""
    resolved = path.resolve()
    try:
        return resolved.relative_to(root.resolve()).as_posix()
    except ValueError:
        return resolved.as_posix()


def link_name(path: Path, root: Path) -> str:
    """The name of a path itself, not of what it points to (a broken link resolves to nothing)."""
    parent = source_name(path.parent, root)
    return path.name if parent == "." else f"{parent}/{path.name}"


_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def classify(path: Path, root: Path) -> SourceFile | Unreadable | None:
    """A regular file (a link to one included), a path that fails with its code, or None (a directory)."""
    try:
        mode = path.stat().st_mode  # follows links; never opens
    except OSError as exc:
        name = link_name(path, root)
        if path.is_symlink():
            if exc.errno == errno.ELOOP:
                return Unreadable(path, name, ErrorCode.BROKEN_LINK, f"{name}: a loop of symbolic links; nothing to read")
            target = os.readlink(path)
            return Unreadable(path, name, ErrorCode.BROKEN_LINK, f"{name}: a symbolic link to {target}, which does not exist")
        return None if exc.errno == errno.ENOENT else Unreadable(path, name, ErrorCode.NOT_FOUND, f"{name}: {exc.strerror}")
    if stat.S_ISDIR(mode):
        return None
    if stat.S_ISREG(mode):
        return SourceFile(path, source_name(path, root))
    name = link_name(path, root)
    kind = next((label for test, label in _KINDS if test(mode)), "not a regular file")
    return Unreadable(path, name, ErrorCode.NOT_A_FILE, f"{name}: {kind}, not a regular file; it is not read")


def _matches(relative: str, patterns: Iterable[str]) -> bool:
    return any(fnmatch.fnmatchcase(relative, p) or fnmatch.fnmatchcase("/" + relative, p) for p in patterns)


def discover(paths: Iterable[Path], root: Path, include: list[str], exclude: list[str]) -> Iterator[SourceFile | Unreadable | Path]:
    """Yield every file to ingest, in a stable order; a path that does not exist is yielded as a bare Path."""
    for given in paths:
        if not given.exists() and not given.is_symlink():
            yield given
            continue
        if not given.is_dir():
            found = classify(given, root)
            yield found if found is not None else given
            continue
        for path in sorted(given.rglob("*")):
            relative = path.relative_to(given).as_posix()
            if not _matches(relative, include) or _matches(relative, exclude):
                continue
            item = classify(path, root)
            if item is not None:
                yield item
