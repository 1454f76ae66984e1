"""Which files an ingest run covers, and the stable name (`source`) each is stored under."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class SourceFile:
    path: Path
    source: str


def source_name(path: Path, root: Path) -> str:
    """Path relative to the collection's root when inside it (portable), else absolute."""
    resolved = path.resolve()
    try:
        return resolved.relative_to(root.resolve()).as_posix()
    except ValueError:
        return resolved.as_posix()


def _matches(relative: str, patterns: Iterable[str]) -> bool:
    return any(fnmatch.fnmatchcase(relative, p) or fnmatch.fnmatchcase("/" + relative, p) for p in patterns)


def discover(paths: Iterable[Path], root: Path, include: list[str], exclude: list[str]) -> Iterator[SourceFile | Path]:
    """Yield every file to ingest, in a stable order; a path that does not exist is yielded as a bare Path."""
    for given in paths:
        if not given.exists():
            yield given
        elif given.is_file():
            yield SourceFile(given, source_name(given, root))
        else:
            for path in sorted(p for p in given.rglob("*") if p.is_file()):
                relative = path.relative_to(given).as_posix()
                if _matches(relative, include) and not _matches(relative, exclude):
                    yield SourceFile(path, source_name(path, root))
