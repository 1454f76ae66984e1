"""One writer per collection, across processes: an advisory lock on `write.lock`.

Readers never take it (SQLite WAL lets them read during a write). A writer
that finds the lock held waits up to `timeout` seconds, then says who holds it.
"""

from __future__ import annotations

import fcntl
import os
import threading
import time
from pathlib import Path
from types import TracebackType

from bunko.errors import CollectionError


class WriterLock:
    def __init__(self, path: Path, timeout: float = 600.0) -> None:
        self.path = path
        self.timeout = timeout
        self._thread_lock = threading.Lock()
        self._handle: int | None = None

    def __enter__(self) -> WriterLock:
        if not self._thread_lock.acquire(timeout=self.timeout):
            raise CollectionError(f"{self.path.parent}: another writer in this process held the collection for {self.timeout:.0f}s")
        handle = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    holder = os.pread(handle, 64, 0).decode(errors="replace").strip() or "unknown"
                    os.close(handle)
                    self._thread_lock.release()
                    raise CollectionError(
                        f"{self.path.parent}: locked by another writer (pid {holder}); wait for it to finish"
                    ) from None
                time.sleep(0.1)
        os.ftruncate(handle, 0)
        os.pwrite(handle, str(os.getpid()).encode(), 0)
        self._handle = handle
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self._handle is not None:
            fcntl.flock(self._handle, fcntl.LOCK_UN)
            os.close(self._handle)
            self._handle = None
        self._thread_lock.release()
