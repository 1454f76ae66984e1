"""The collection's one writer: a thread that ingests uploads in order, so an upload returns at once.

Uploads are staged under ``uploads/.incoming/`` and moved into place by this
thread only, right before they are ingested: the file the pipeline hashes and
parses is never replaced under it by a later upload of the same name. Each
upload is one `Bunko.ingest` call, so while it runs the engine's current run
holds exactly its live stage (PARSING, EMBEDDING, …).

Every accepted upload is a row in the collection's `UploadJournal` before its
202 is sent, and the row follows the job. A server that stops, or is killed,
leaves unfinished rows; `start` resumes them: a staged file is queued again, a
file already moved into ``uploads/`` is ingested again (its half-done engine job
is marked INTERRUPTED first), and a job that three servers died running fails
with INTERRUPTED instead of killing a fourth.

Uploads and deletes of one document are ordered: the thread holds the
document's name (`holding`) from the moment it takes an upload until that upload
is ingested, and a DELETE holds it too, so a DELETE waits for the upload in hand,
cancels (`cancel`) the queued uploads of that name accepted before it, and never
removes a file the thread has just moved in for a newer upload.
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from bunko.engine import Bunko
from bunko.errors import BunkoError
from bunko.schema import TERMINAL_STATUSES, JobStatus, doc_id_for
from bunko.server.jobs import UploadJob, UploadJournal, new_job_id

__all__ = ["MAX_ATTEMPTS", "IngestWorker", "UploadJob", "new_job_id"]

MAX_ATTEMPTS = 3
"""A job that was running when the server stopped this many times fails instead of being resumed again."""
_STRIPES = 64

Gate = Callable[[UploadJob], str | None]
"""Returns why a job may not replace what is stored (e.g. a document of other groups), or None."""


class IngestWorker:
    def __init__(
        self, kb: Bunko, gate: Gate, on_finished: Callable[[UploadJob], None] | None = None, journal: UploadJournal | None = None
    ) -> None:
        self.kb = kb
        self._gate = gate
        self.on_finished = on_finished
        self.journal = journal or UploadJournal(kb.path)
        self._queue: queue.Queue[UploadJob | None] = queue.Queue()
        self._active: dict[str, UploadJob] = {}
        """Accepted, not finished: queued ones and the one in hand."""
        self._lock = threading.Lock()
        self._last_seq = 0
        self._names = [threading.Lock() for _ in range(_STRIPES)]
        self._current: UploadJob | None = None
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"bunko-ingest-{kb.path.name}", daemon=True)

    # -- life ---------------------------------------------------------------
    def start(self, incoming: Path | None = None) -> None:
        """Resume what a stopped or killed server left (see the module), then start the thread.

        A staged file no job row names belonged to a request that was never answered 202: it is removed.
        """
        self.kb.fail_unfinished_jobs()
        keep: set[str] = set()
        for job in self.journal.unfinished():
            self._last_seq = max(self._last_seq, job.seq)
            if job.attempts >= MAX_ATTEMPTS:
                self._finish(job, JobStatus.FAILED.value, "INTERRUPTED",
                             f"{job.filename}: the server stopped {job.attempts} times while ingesting it; it is not tried again")
            elif job.staged.exists() or (job.attempts > 0 and job.target.exists()):
                job.status = JobStatus.PENDING.value
                job.updated_at = time.time()
                self.journal.update(job)
                self._active[job.job_id] = job
                self._queue.put(job)
                keep.add(job.staged.name)
            else:
                self._finish(job, JobStatus.FAILED.value, "INTERRUPTED",
                             f"{job.filename}: the server stopped before the upload was stored; upload it again")
        if incoming is not None and incoming.is_dir():
            for stale in incoming.iterdir():
                if stale.name not in keep:
                    with contextlib.suppress(OSError):
                        stale.unlink()
        self.journal.prune()
        self._thread.start()

    def stop(self, timeout: float = 30.0) -> None:
        """Finish the job in hand, then stop. Queued jobs stay queued on disk: the next start resumes them."""
        self._stopping.set()
        self._queue.put(None)
        if self._thread.is_alive():
            self._thread.join(timeout)
        if not self._thread.is_alive():
            self.journal.close()

    # -- accept and look up -------------------------------------------------------
    def submit(self, jobs: list[UploadJob]) -> None:
        """Record the jobs on disk (their staged files must already be), then queue them."""
        with self._lock:
            self.journal.add(jobs)
            for job in jobs:
                self._active[job.job_id] = job
                self._last_seq = max(self._last_seq, job.seq)
        for job in jobs:
            self._queue.put(job)

    @property
    def queued(self) -> int:
        with self._lock:
            return sum(1 for j in self._active.values() if j.status == JobStatus.PENDING.value)

    def get(self, job_id: str) -> UploadJob | None:
        with self._lock:
            job = self._active.get(job_id)
        if job is None:
            return self.journal.get(job_id)
        self._refresh(job)
        return job

    def jobs(self, limit: int = 200, owner: str | None = None) -> list[UploadJob]:
        """Newest first (only `owner`'s when given); running jobs with their live stage."""
        listed = self.journal.recent(limit, owner)
        with self._lock:
            listed = [self._active.get(j.job_id, j) for j in listed]
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
                job.progress = engine_job.progress

    # -- order per document ---------------------------------------------------------
    def _name_lock(self, source: str) -> threading.Lock:
        return self._names[hash(source) % _STRIPES]

    @contextlib.contextmanager
    def holding(self, source: str) -> Iterator[int]:
        """Hold a document's name: no upload of it is moved in or ingested until the block ends (one in hand is waited
        for). Yields the order of the last upload accepted before the call, for `cancel`."""
        with self._lock:
            before = self._last_seq
        with self._name_lock(source):
            yield before

    def cancel(self, source: str, before: int, detail: str, allowed: Callable[[UploadJob], bool] = lambda job: True) -> list[UploadJob]:
        """Fail as CANCELLED the queued uploads of `source` accepted up to `before`; call it inside `holding(source)`."""
        with self._lock:
            doomed = [
                j for j in self._active.values()
                if j.source == source and j.seq <= before and j.status == JobStatus.PENDING.value and j is not self._current and allowed(j)
            ]
        for job in doomed:
            self._finish(job, JobStatus.FAILED.value, "CANCELLED", detail)
            with contextlib.suppress(OSError):
                job.staged.unlink(missing_ok=True)
        return doomed

    def unfinished(self, doc_id: str) -> list[UploadJob]:
        """Accepted uploads that would store this document: queued ones and the one in hand."""
        with self._lock:
            return [j for j in self._active.values() if doc_id_for(j.source) == doc_id]

    # -- the thread -----------------------------------------------------------------
    def _run(self) -> None:
        while True:
            job = self._queue.get()
            if job is None or self._stopping.is_set():
                return
            with self._name_lock(job.source):
                if job.finished:  # cancelled by a DELETE while queued
                    with contextlib.suppress(OSError):
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
        job.attempts += 1
        job.status = JobStatus.PARSING.value
        job.updated_at = time.time()
        self.journal.update(job)  # a server killed from here on finds attempts > 0: the file may be moved in already
        if job.staged.exists():
            job.target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(job.staged, job.target)
        elif not job.target.exists():
            self._finish(job, JobStatus.FAILED.value, "INTERRUPTED", f"{job.filename}: the staged upload is gone; upload it again")
            return
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
        status = str(engine.status)
        if engine.status == JobStatus.SKIPPED and job.attempts > 1:
            status = JobStatus.READY.value  # the attempt a stopped server made had stored it: this upload is in
        job.doc_id = doc_id_for(job.source) if engine.status in (JobStatus.READY, JobStatus.SKIPPED) else None
        self._finish(job, status, engine.error_code, engine.error_detail)

    def _finish(self, job: UploadJob, status: str, code: str | None, detail: str | None) -> None:
        job.status = status
        job.progress = None
        job.error_code = code
        job.error_detail = detail
        job.updated_at = time.time()
        self.journal.update(job)
        with self._lock:
            self._active.pop(job.job_id, None)
        if self.on_finished is not None:
            self.on_finished(job)
