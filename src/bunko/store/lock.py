"""One writer per collection, across processes: an advisory lock on `write.lock`.

Readers never take it (SQLite WAL lets them read during a write). A writer
that finds the lock held waits up to `timeout` seconds, then says who holds it.

The file exists only while a writer holds it: the holder removes it as it releases the lock, so a collection at rest
has no `write.lock` (a writer killed with -9 leaves one behind, unlocked: the next writer takes and removes it, and
`bunko status` says it is free and removes it too). A writer that was waiting on the removed file checks, once it
holds its lock, that the path still names the file it locked; if not, it locks the file there now, so two writers
never hold two different files.
"""

from __future__ import annotations

import fcntl
import os
import threading
import time
from pathlib import Path
from types import TracebackType

from bunko.errors import CollectionError

WRITE_LOCK = "write.lock"
"""The lock file of a local collection's writer, in its folder."""


class WriterLock:
    def __init__(self, path: Path, timeout: float = 600.0) -> None:
        self.path = path
        self.timeout = timeout
        self._thread_lock = threading.Lock()
        self._handle: int | None = None

    def __enter__(self) -> WriterLock:
        if not self._thread_lock.acquire(timeout=self.timeout):
            raise CollectionError(f"{self.path.parent}: another writer in this process held the collection for {self.timeout:.0f}s")
        try:
            self._handle = self._acquire(time.monotonic() + self.timeout)
        except BaseException:
            self._thread_lock.release()
            raise
        return self

    def _acquire(self, deadline: float) -> int:
        while True:
            handle = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                self._lock(handle, deadline)
                if same_file(handle, self.path):
                    os.ftruncate(handle, 0)
                    os.pwrite(handle, str(os.getpid()).encode(), 0)
                    return handle
            except BaseException:
                os.close(handle)
                raise
            os.close(handle)  # the holder removed this file as it released it: lock the one at the path now

    def _lock(self, handle: int, deadline: float) -> None:
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if time.monotonic() > deadline:
                    holder = os.pread(handle, 64, 0).decode(errors="replace").strip() or "unknown"
                    raise CollectionError(
                        f"{self.path.parent}: locked by another writer (pid {holder}); wait for it to finish"
                    ) from None
                time.sleep(0.1)

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self._handle is not None:
            remove_while_held(self._handle, self.path)
            fcntl.flock(self._handle, fcntl.LOCK_UN)
            os.close(self._handle)
            self._handle = None
        self._thread_lock.release()


def same_file(handle: int, path: Path) -> bool:
    """Whether `path` still names the open file `handle`."""
    held = os.fstat(handle)
    try:
        named = os.stat(path)
    except FileNotFoundError:
        return False
    return (held.st_dev, held.st_ino) == (named.st_dev, named.st_ino)


def remove_while_held(handle: int, path: Path) -> None:
    """Remove the lock file `handle` holds, before releasing it (a waiter that then gets it sees it is gone)."""
    if same_file(handle, path):
        path.unlink(missing_ok=True)


def lock_state(path: Path) -> str:
    """What `bunko status` says of a lock file: "free", or "held by pid N". A file no one holds (left by a writer
    killed with -9, or by a bunko before locks were removed) is removed."""
    try:
        handle = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        return "free"
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(handle, 64, 0).decode(errors="replace").strip() or "unknown"
            return f"held by pid {holder}"
        remove_while_held(handle, path)
        fcntl.flock(handle, fcntl.LOCK_UN)
        return "free"
    finally:
        os.close(handle)
