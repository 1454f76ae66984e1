"""The collection's one writer: a thread that ingests uploads in order, so an upload returns at once.

Uploads are staged under ``uploads/.incoming/`` and moved into place by this
thread only, right before they are ingested: the file the pipeline hashes and
parses is never replaced under it by a later upload of the same name. Each
upload is one `Bunko.ingest` call, so while it runs the engine's current run
holds exactly its live stage (PARSING, EMBEDDING, …).
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bunko.engine import Bunko
from bunko.errors import BunkoError
from bunko.schema import TERMINAL_STATUSES, JobStatus, doc_id_for

HISTORY = 2000
"""Finished upload jobs kept in memory for `GET /jobs` (the engine keeps its own job history on disk)."""


@dataclass
class UploadJob:
    job_id: str
    filename: str
    source: str
    owner: str
    groups: list[str] | None
    staged: Path
    target: Path
    owner_groups: tuple[str, ...] | None = None
    """The uploader's own access (None: every document); decides whether it may replace a stored document."""
    status: str = JobStatus.PENDING.value
    error_code: str | None = None
    error_detail: str | None = None
    engine_job_id: str | None = None
    doc_id: str | None = None
    created_at: float = field(default_factory=time.time)
    updated_at: float = field(default_factory=time.time)
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def finished(self) -> bool:
        return self.status in TERMINAL_STATUSES

    def public(self) -> dict[str, Any]:
        return {
            "job_id": self.job_id, "filename": self.filename, "source": self.source, "owner": self.owner,
            "groups": self.groups, "status": self.status, "error_code": self.error_code, "error_detail": self.error_detail,
            "engine_job_id": self.engine_job_id, "doc_id": self.doc_id, "created_at": self.created_at,
            "updated_at": self.updated_at, "timings": self.timings,
        }


Gate = Callable[[UploadJob], str | None]
"""Returns why a job may not replace what is stored (e.g. a document of other groups), or None."""


class IngestWorker:
    def __init__(self, kb: Bunko, gate: Gate, on_finished: Callable[[UploadJob], None] | None = None) -> None:
        self.kb = kb
        self._gate = gate
        self.on_finished = on_finished
        self._queue: queue.Queue[UploadJob | None] = queue.Queue()
        self._jobs: OrderedDict[str, UploadJob] = OrderedDict()
        self._lock = threading.Lock()
        self._current: UploadJob | None = None
        self._thread = threading.Thread(target=self._run, name=f"bunko-ingest-{kb.path.name}", daemon=True)

    def start(self, incoming: Path | None = None) -> None:
        """Start the thread; staged files left by a server that was killed are removed (their jobs died with it)."""
        if incoming is not None and incoming.is_dir():
            for stale in incoming.iterdir():
                with contextlib.suppress(OSError):
                    stale.unlink()
        self._thread.start()

    def stop(self, timeout: float = 30.0) -> None:
        """Finish the job in hand, then stop; queued jobs fail as INTERRUPTED and their staged files are removed."""
        with self._lock:
            pending = [j for j in self._jobs.values() if j.status == JobStatus.PENDING.value and j is not self._current]
        for job in pending:
            self._finish(job, JobStatus.FAILED.value, "INTERRUPTED", "the server stopped before this upload was ingested; upload it again")
        self._queue.put(None)
        if self._thread.is_alive():
            self._thread.join(timeout)

    def submit(self, jobs: list[UploadJob]) -> None:
        with self._lock:
            for job in jobs:
                self._jobs[job.job_id] = job
            while len(self._jobs) > HISTORY:
                oldest = next(iter(self._jobs.values()))
                if not oldest.finished:
                    break
                self._jobs.popitem(last=False)
        for job in jobs:
            self._queue.put(job)

    @property
    def queued(self) -> int:
        return self._queue.qsize()

    def get(self, job_id: str) -> UploadJob | None:
        with self._lock:
            job = self._jobs.get(job_id)
        if job is not None:
            self._refresh(job)
        return job

    def jobs(self) -> list[UploadJob]:
        with self._lock:
            listed = list(reversed(self._jobs.values()))
        for job in listed:
            self._refresh(job)
        return listed

    def _refresh(self, job: UploadJob) -> None:
        """While a job runs, its stage is the engine's: read it from the engine's current run."""
        if job is not self._current or job.finished:
            return
        for engine_job in self.kb.jobs(limit=5):
            if engine_job.source == job.source and engine_job.status not in TERMINAL_STATUSES:
                job.status = str(engine_job.status)
                job.engine_job_id = engine_job.job_id
                job.updated_at = engine_job.updated_at

    def _run(self) -> None:
        while True:
            job = self._queue.get()
            if job is None:
                return
            if job.finished:  # failed by stop() while queued
                job.staged.unlink(missing_ok=True)
                continue
            self._current = job
            try:
                self._process(job)
            except Exception as exc:  # the writer thread must survive anything one upload does
                self._finish(job, JobStatus.FAILED.value, "INDEX_FAILED", f"{job.source}: {type(exc).__name__}: {exc}".splitlines()[0])
            finally:
                self._current = None
                with contextlib.suppress(OSError):
                    job.staged.unlink(missing_ok=True)

    def _process(self, job: UploadJob) -> None:
        reason = self._gate(job)
        if reason is not None:
            self._finish(job, JobStatus.FAILED.value, "FORBIDDEN", reason)
            return
        job.target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(job.staged, job.target)
        job.status = JobStatus.PARSING.value
        fields = {"groups": job.groups} if job.groups is not None else None
        try:
            report = self.kb.ingest([job.target], fields=fields)
        except BunkoError as exc:  # e.g. the collection stayed locked by another writer
            self._finish(job, JobStatus.FAILED.value, "LOCKED", str(exc))
            return
        engine = report.jobs[0]
        job.engine_job_id = engine.job_id
        job.timings = dict(engine.timings)
        if engine.status == JobStatus.FAILED and self.kb.store.document_hash(job.source) is None:
            with contextlib.suppress(OSError):
                job.target.unlink()  # nothing indexed from it: do not keep a file no document stands for
        job.doc_id = doc_id_for(job.source) if engine.status in (JobStatus.READY, JobStatus.SKIPPED) else None
        self._finish(job, str(engine.status), engine.error_code, engine.error_detail)

    def _finish(self, job: UploadJob, status: str, code: str | None, detail: str | None) -> None:
        job.status = status
        job.error_code = code
        job.error_detail = detail
        job.updated_at = time.time()
        if self.on_finished is not None:
            self.on_finished(job)


def new_job_id() -> str:
    return uuid.uuid4().hex[:16]
