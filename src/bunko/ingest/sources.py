"""Which files an ingest run covers, and the stable name (`source`) each is stored under.

Everything found under a folder that is not a directory becomes a job: a regular file is read; a named
pipe, socket or device (NOT_A_FILE, never opened: opening a pipe would wait forever) and a symbolic link
to nothing or a loop of links (BROKEN_LINK) fail with their code, so the run reports them instead of
passing over them. A link to a directory is not followed (it could lead out of the folder or round in a
loop).

A folder keeps its boundary: a link to a file outside the folder given (the watched folder, the folder
source's path) fails as OUTSIDE_FOLDER unless `[ingest] follow_links = "all"`. Whoever can write into a
folder that is ingested could otherwise put any file the ingesting user can read (`ln -s ~/.ssh/id_rsa
notes.md`) in front of everyone the collection is served to.
"""

from __future__ import annotations

import errno
import fnmatch
import json
import os
import stat
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from bunko.errors import BunkoError
from bunko.schema import ErrorCode
from bunko.store.base import CollectionMeta


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
    """Path relative to the collection's root when inside it (portable), else absolute: where a source's spec
    (a folder, a repository) is; documents are named by `SourceNames`."""
    resolved = path.resolve()
    try:
        return resolved.relative_to(root.resolve()).as_posix()
    except ValueError:
        return resolved.as_posix()


def link_name(path: Path, anchor: Path) -> str:
    """The name of a path itself, not of what it points to (a broken link resolves to nothing)."""
    parent = relative_name(path.parent, anchor)
    return path.name if parent == "." else f"{parent}/{path.name}"


_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


FollowLinks = Literal["inside", "all"]
"""`[ingest] follow_links`: "inside" follows a link only to a file inside the folder given; "all" follows any."""


def classify(path: Path, anchor: Path, boundary: Path | None = None) -> SourceFile | Unreadable | None:
    """A regular file (a link to one included), a path that fails with its code, or None (a directory).

    `boundary`: the folder whose files these are; a link (the path itself or a folder on its way) to a file
    outside it is OUTSIDE_FOLDER. None: no boundary (a file named on its own, or `follow_links = "all"`)."""
    if boundary is not None and (target := _escape(path, boundary)) is not None:
        name = link_name(path, anchor)
        return Unreadable(
            path, name, ErrorCode.OUTSIDE_FOLDER,
            f"{name}: a link to {target}, outside the folder {boundary}; it is not read "
            f'(set [ingest] follow_links = "all" to follow links out of a folder)',
        )
    try:
        mode = path.stat().st_mode  # follows links; never opens
    except OSError as exc:
        name = link_name(path, anchor)
        if path.is_symlink():
            if exc.errno == errno.ELOOP:
                return Unreadable(path, name, ErrorCode.BROKEN_LINK, f"{name}: a loop of symbolic links; nothing to read")
            target = os.readlink(path)
            return Unreadable(path, name, ErrorCode.BROKEN_LINK, f"{name}: a symbolic link to {target}, which does not exist")
        return None if exc.errno == errno.ENOENT else Unreadable(path, name, ErrorCode.NOT_FOUND, f"{name}: {exc.strerror}")
    if stat.S_ISDIR(mode):
        return None
    if stat.S_ISREG(mode):
        return SourceFile(path, relative_name(path, anchor))
    name = link_name(path, anchor)
    kind = next((label for test, label in _KINDS if test(mode)), "not a regular file")
    return Unreadable(path, name, ErrorCode.NOT_A_FILE, f"{name}: {kind}, not a regular file; it is not read")


def _escape(path: Path, boundary: Path) -> str | None:
    """The resolved target of `path` when a link takes it outside `boundary`; None when inside, or when it does not
    resolve (a broken link or a loop, which `classify` reports as such)."""
    try:
        folder = boundary.resolve(strict=True)
        target = path.resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    return None if target == folder or folder in target.parents else target.as_posix()


def _matches(relative: str, patterns: Iterable[str]) -> bool:
    return any(fnmatch.fnmatchcase(relative, p) or fnmatch.fnmatchcase("/" + relative, p) for p in patterns)


def discover(
    paths: Iterable[tuple[Path, Path]], include: list[str], exclude: list[str], *,
    follow_links: FollowLinks = "inside", within_folder: Path | None = None,
) -> Iterator[SourceFile | Unreadable | Path]:
    """Yield every file to ingest under each (path, anchor its files are named from; `SourceNames.anchor`), in a
    stable order; a path that does not exist is yielded as a bare Path.

    The boundary links may not leave is `within_folder` when given (the watched folder the paths were found in),
    else each folder given; a file given on its own has none (its name was typed, link or not)."""
    for given, anchor in paths:
        if not given.exists() and not given.is_symlink():
            yield given
            continue
        folder = within_folder if within_folder is not None else (given if given.is_dir() else None)
        boundary = folder if follow_links == "inside" else None
        if not given.is_dir():
            found = classify(given, anchor, boundary)
            yield found if found is not None else given
            continue
        for path in sorted(given.rglob("*")):
            relative = path.relative_to(given).as_posix()
            if not _matches(relative, include) or _matches(relative, exclude):
                continue
            item = classify(path, anchor, boundary)
            if item is not None:
                yield item


# -- document names --------------------------------------------------------------------------------

FOLDERS_META = "source_folders"
"""Collection meta: the folders (and single files) outside the root that documents are named from, by first name."""


def _absolute(path: Path) -> Path:
    """`path` made absolute without following links (`..` folded): the place it was given as."""
    return Path(os.path.abspath(path.expanduser()))


def within(path: Path, folder: Path) -> bool:
    """Whether `path` is `folder` or under it, as given or with links followed."""
    for resolved in (False, True):
        try:
            inner, outer = (path.resolve(), folder.resolve()) if resolved else (_absolute(path), _absolute(folder))
        except (OSError, RuntimeError):
            continue
        if inner == outer or outer in inner.parents:
            return True
    return False


def relative_name(path: Path, anchor: Path) -> str:
    """`path` relative to `anchor` with links followed (a link to a file in the folder is that file), else as given
    (a link to a file elsewhere is named by its own place), else absolute."""
    for resolved in (True, False):
        try:
            inner, outer = (path.resolve(), anchor.resolve()) if resolved else (_absolute(path), _absolute(anchor))
            return inner.relative_to(outer).as_posix()
        except (ValueError, OSError, RuntimeError):  # outside; or a loop of links, which only its own place names
            continue
    return _absolute(path).as_posix()


@dataclass
class SourceNames:
    """The one rule that names a file's document (its `source`, from which its id is derived), for ingest, watch,
    folder sources, retry, prune and delete alike.

    A file is named relative to its anchor: a file inside the root (`[ingest] root`, by default the folder that holds
    the collection) relative to the root, as before; a folder given from outside the root is named from its own
    name down (`bunko ingest ../corpus` stores `corpus/zh/说明.md`), a single file outside it by its file name, and
    with a root given for the run (`--root`, `ingest(root=…)`) every file relative to that root. The names are
    therefore the same when the folder moves. Each such anchor is recorded (`mounts`: first name → the folder or
    file it stands for, in the collection's meta) so that later runs name files under it the same way, retries and
    prune find the files again, and a second folder that would give the same names is refused instead of silently
    replacing the first one's documents (unless the first is gone: a moved folder).
    """

    root: Path
    mounts: dict[str, str] = field(default_factory=dict)
    changed: bool = False

    def anchor(self, given: Path, run_root: Path | None = None, *, record: bool = True) -> Path:
        """The folder `given`'s files are named relative to; a new anchor is recorded unless `record` is False (or
        `given` does not exist: its job fails as NOT_FOUND)."""
        record = record and os.path.lexists(given)
        if run_root is not None:
            if not within(given, run_root):
                raise BunkoError(f"{given}: not inside the root given for this run ({run_root}); give a root that holds it")
            base = _absolute(run_root)
            if base == self.root:  # the collection's own root: nothing to record
                return self.root
            first = relative_name(given, base).split("/", 1)[0]
            if record and first != ".":
                self._mount(first, base / first, given)
            elif first == "." and record:
                for child in sorted(_absolute(given).iterdir()) if given.is_dir() else []:
                    self._mount(child.name, child, given)
            return base
        for target in sorted(self.mounts.values(), key=len, reverse=True):
            if within(given, Path(target)):
                return Path(target).parent
        if within(given, self.root):
            first = relative_name(given, self.root).split("/", 1)[0]
            if first in self.mounts and record:
                if os.path.lexists(self.mounts[first]):
                    self._refuse(first, Path(self.mounts[first]), given)
                del self.mounts[first]  # that folder moved into the root: the same names, found here from now on
                self.changed = True
            return self.root
        if record:
            self._mount(_absolute(given).name, _absolute(given), given)
        return _absolute(given).parent

    def name(self, path: Path, anchor: Path) -> str:
        return relative_name(path, anchor)

    def path_of(self, source: str) -> Path:
        """Where the file a document was named from is (or was)."""
        path = Path(source)
        if path.is_absolute():
            return path
        first = source.split("/", 1)[0]
        if first in self.mounts:
            return Path(self.mounts[first]).parent / source
        return self.root / source

    def resolve(self, given: str, stored: Collection[str]) -> str:
        """A document's name, of those `stored`, from what a person types: a stored name as is; a path to a file, named
        as ingest names it; else the one stored name that ends with it (a collection written with absolute names:
        ``zh/说明.md`` finds ``/data/corpus/zh/说明.md``). Unknown names come back unchanged."""
        if given in stored:
            return given
        path = Path(given)
        if os.path.lexists(path):
            name = self.name(path, self.anchor(path, record=False))
            if name in stored:
                return name
            if path.resolve().as_posix() in stored:
                return path.resolve().as_posix()
        tail = "/" + given.strip("/")
        ending = [source for source in stored if source.endswith(tail)]
        return ending[0] if len(ending) == 1 else given

    def folder_of(self, source: str) -> Path | None:
        """The folder a document's file belongs to (the mounted folder its name starts with, else the root), whose
        boundary its links keep; None for a file given on its own."""
        if Path(source).is_absolute():
            return None
        first = source.split("/", 1)[0]
        if first in self.mounts:
            mounted = Path(self.mounts[first])
            return mounted if mounted.is_dir() else None
        return self.root

    def _mount(self, name: str, target: Path, given: Path) -> None:
        recorded = self.mounts.get(name)
        if recorded == str(target):
            return
        if recorded is not None and os.path.lexists(recorded) and not within(target, Path(recorded)):
            self._refuse(name, Path(recorded), given)
        if (self.root / name).exists() and not within(target, self.root / name):  # root-named documents of that name
            self._refuse(name, self.root / name, given)
        self.mounts[name] = str(target)
        self.changed = True

    @staticmethod
    def _refuse(name: str, other: Path, given: Path) -> None:
        raise BunkoError(
            f"{given}: its documents would be named {name}/…, as those from {other} are; give a root that holds both "
            f"(--root, or [ingest] root) so their names differ, or rename one of them"
        )

    @classmethod
    def load(cls, store: CollectionMeta, root: Path) -> SourceNames:
        recorded = store.get_meta(FOLDERS_META)
        return cls(_absolute(root), json.loads(recorded) if recorded else {})

    def save(self, store: CollectionMeta) -> None:
        if self.changed:
            store.set_meta(FOLDERS_META, json.dumps(self.mounts, ensure_ascii=False, sort_keys=True))
            self.changed = False
