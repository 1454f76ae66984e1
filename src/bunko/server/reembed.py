"""A re-embed started over HTTP: one background thread per collection, its progress read by `GET …/reembed`.

The thread runs the collection's `Reembedder` (`ingest/reembed.py`), so the server's searches keep answering with the old model while it stages
and follow the switch when it commits. What survives a restart is the store's (the staged vectors and the plan,
which `GET` reports as interrupted and a new `POST` resumes); the thread only adds whether it is running now,
its live count, and how the last run in this server ended.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from bunko.engine import Bunko
from bunko.errors import BunkoError
from bunko.schema import to_dict


class ReembedRunner:
    def __init__(self, kb: Bunko) -> None:
        self.kb = kb
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._progress: tuple[int, int] | None = None
        self._last: dict[str, Any] | None = None
        """How the last run in this server ended: {"status": "done"|"failed", …}."""

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self, model: str | None, batch: int) -> dict[str, Any]:
        """Start (or resume) a re-embed in the background; BunkoError when one runs or the model is the current one."""
        with self._lock:
            if self.running:
                raise BunkoError("a re-embed of this collection is already running")
            current = self.kb.store.get_meta("embedder")
            plan = self.kb.reembedder.status()
            if plan is not None and plan["running"]:
                raise BunkoError(f"a re-embed to {plan['embedder']} is running in another process; wait for it or stop it there")
            if model is None and plan is None:
                raise BunkoError("name the model to re-embed with (no interrupted re-embed to continue)")
            if model is not None and plan is None and model == self.kb.config.embed.model and current == self.kb.embedder_name:
                raise BunkoError(f"the collection is embedded with {current} already; name another model")
            self._progress, self._last = None, None
            self._thread = threading.Thread(target=self._run, args=(model, batch), name="bunko-reembed", daemon=True)
            self._thread.start()
        return self.status()

    def _run(self, model: str | None, batch: int) -> None:
        started = time.time()
        try:
            report = self.kb.reembedder.run(model, batch=batch, progress=self._record)
            self._last = {"status": "done", "started_at": started, **to_dict(report)}
        except Exception as exc:  # reported by GET, not raised into a thread nobody joins
            self._last = {"status": "failed", "started_at": started, "error": str(exc).splitlines()[0] if str(exc) else type(exc).__name__}

    def _record(self, done: int, total: int) -> None:
        self._progress = (done, total)

    def abort(self) -> str:
        """Stop the running re-embed (at its next batch) or discard an interrupted one; the old model stays."""
        return self.kb.reembedder.abort()

    def stop(self, timeout: float = 30.0) -> None:
        """Server shutdown: the running re-embed stops at its next batch and keeps what it staged."""
        if self.kb.reembedder.stop():
            self.wait(timeout)

    def status(self) -> dict[str, Any]:
        running = self.running
        staged = self.kb.reembedder.status()
        if running and self._progress is not None:
            # the thread's own count: between the swap (the staged plan is gone) and the thread's end, the stored
            # status alone would report a running re-embed without its progress
            done, total = self._progress
            staged = {**(staged or {}), "chunks_embedded": done, "chunks": total}
        state = "running" if running else "interrupted" if staged is not None else (self._last or {}).get("status", "idle")
        return {"state": state, "embedder": self.kb.store.get_meta("embedder") or self.kb.embedder_name, "reembed": staged,
                "last_run": self._last}

    def wait(self, timeout: float | None = None) -> None:
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
