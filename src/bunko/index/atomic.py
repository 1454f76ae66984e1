"""Cache files written whole or not at all: a temporary name beside the target, fsync, then rename.

A reader never sees a half-written file under the real name, even when the writer is killed or the machine
stops: the rename is atomic, and the data is on disk before it (the folder is synced after it, so the new
name is too). The loaders still treat any file they cannot read as missing, since an older version or a
damaged disk can leave anything behind.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def replacing(path: Path) -> Iterator[Path]:
    """Yield a temporary path to write; on leaving without error it becomes `path`, durably."""
    temporary = path.with_name(f"{path.name}.{os.getpid()}-{uuid.uuid4().hex[:8]}.tmp")  # unique: two writers never share one
    try:
        yield temporary
        _fsync(temporary)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)  # left only when writing failed
    _fsync(path.parent)


def _fsync(path: Path) -> None:
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) if path.is_dir() else os.O_RDONLY
    try:
        descriptor = os.open(path, flags)
    except OSError:
        return  # a folder cannot be opened on some systems; the file itself was synced
    try:
        os.fsync(descriptor)
    except OSError:
        pass  # not every file system syncs a folder
    finally:
        os.close(descriptor)
