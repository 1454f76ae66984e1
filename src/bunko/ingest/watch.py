"""Watching a folder people edit: its changes, debounced into batches of paths to re-ingest and paths now gone.

`watchfiles` (the `watch` extra) reports the file system's events (inotify, FSEvents, ReadDirectoryChangesW;
polling where there are none). A batch is handed over once the folder has been quiet for `debounce` seconds
(an editor's save — a temporary file, a rename, a second write — is one change), or after `max_wait` seconds
of changes without a pause (a file written continuously still gets indexed). What a path became is read when
the batch is applied, not from the events: a path that exists is ingested (a file, or a folder moved in), one
that does not is removed (a file, or a folder with everything that was under it). Editors' swap and backup
files (watchfiles' `DefaultFilter`), `[ingest] exclude` and the collection's own folder are never reported.
"""

from __future__ import annotations

import fnmatch
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bunko.errors import BunkoError
from bunko.schema import IngestJob

READY_TIMEOUT_MS = 250
"""How long the watcher waits for a first event before saying it is in place; then how often it wakes when idle."""


@dataclass
class FolderChanges:
    updated: list[Path]
    """Paths that exist after the batch: files changed or added, folders moved in."""
    removed: list[Path]
    """Paths that no longer exist: files deleted or moved away, or whole folders."""


@dataclass
class WatchBatch:
    """What one batch did to the collection: the ingest jobs (one run) and the documents deleted."""

    run_id: str
    jobs: list[IngestJob] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)


def _matches(relative: str, patterns: Iterable[str]) -> bool:
    return any(fnmatch.fnmatchcase(relative, p) or fnmatch.fnmatchcase("/" + relative, p) for p in patterns)


class _Filter:
    """watchfiles' filter: its default (swap files, .git, __pycache__…), the collection's folder, [ingest] exclude."""

    def __init__(self, folder: Path, include: list[str], exclude: list[str], ignore: Sequence[Path]) -> None:
        from watchfiles import DefaultFilter

        self.default = DefaultFilter()
        self.folder = folder.resolve()
        self.include = include
        self.exclude = exclude
        self.ignore = [p.resolve() for p in ignore]

    def __call__(self, change: object, path: str) -> bool:
        if not self.default(change, path):  # type: ignore[arg-type]
            return False
        resolved = Path(path)
        if any(resolved == p or resolved.is_relative_to(p) for p in self.ignore):
            return False
        try:
            relative = resolved.relative_to(self.folder).as_posix()
        except ValueError:
            return False
        if _matches(relative, self.exclude):
            return False
        return resolved.is_dir() or not resolved.exists() or _matches(relative, self.include)


def watch_folder(
    folder: Path, *, include: list[str], exclude: list[str], ignore: Sequence[Path] = (), debounce: float = 1.0,
    max_wait: float = 30.0, stop: threading.Event | None = None, on_ready: Callable[[], None] | None = None,
) -> Iterator[FolderChanges]:
    """Batches of changes under `folder` until `stop` is set (or KeyboardInterrupt). `on_ready` is called once the
    file system is being watched, before any batch: what it does to the folder (a catch-up ingest) and what people
    do meanwhile is not missed, since the events are already being collected."""
    try:
        from watchfiles import watch
    except ImportError:
        raise BunkoError("bunko watch needs watchfiles: pip install 'bunko[watch]'") from None
    folder = folder.resolve()
    step = max(int(debounce * 1000), 10)
    ready = False
    for changes in watch(
        folder, watch_filter=_Filter(folder, include, exclude, ignore), step=step, debounce=max(int(max_wait * 1000), step),
        stop_event=stop, raise_interrupt=False, rust_timeout=READY_TIMEOUT_MS, yield_on_timeout=True,
    ):
        if not ready:  # the first answer, changes or a timeout, comes from a watcher that is in place
            ready = True
            if on_ready:
                on_ready()
        paths = sorted({Path(path) for _, path in changes})
        updated = [p for p in paths if p.exists()]
        removed = [p for p in paths if not p.exists()]
        # a folder's own event (its mtime) says nothing its files' events do not: keep folders only when moved in
        updated = [p for p in updated if p.is_file() or not any(q != p and q.is_relative_to(p) for q in paths)]
        if updated or removed:
            yield FolderChanges(updated, removed)
