"""Upload jobs on disk: each accepted upload's row is committed to ``<collection>/server.db`` before its 202 is sent.

An upload is durable once `stage` has fsynced its bytes to ``uploads/.incoming/<job_id>`` and `UploadJournal.add`
has committed its row (``synchronous=FULL``): a server killed at any later moment finds both at start-up and
resumes the job (`IngestWorker.start`). The row is updated as the job moves (attempts and PARSING when the
worker takes it, the outcome when it ends), so ``GET /jobs/{id}`` answers across restarts.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bunko.schema import TERMINAL_STATUSES, JobProgress, JobStatus
from bunko.server.auth import SERVER_DB

KEEP_FINISHED = 20000
"""Finished upload jobs kept on disk for ``GET /jobs``; older ones are pruned as new ones arrive."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS upload_jobs (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, job_id TEXT NOT NULL UNIQUE, filename TEXT NOT NULL, source TEXT NOT NULL,
    owner TEXT NOT NULL, groups TEXT, owner_groups TEXT, staged TEXT NOT NULL, target TEXT NOT NULL,
    status TEXT NOT NULL, error_code TEXT, error_detail TEXT, engine_job_id TEXT, doc_id TEXT,
    created_at REAL NOT NULL, updated_at REAL NOT NULL, timings TEXT NOT NULL DEFAULT '{}', attempts INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS upload_jobs_status ON upload_jobs (status);
CREATE INDEX IF NOT EXISTS upload_jobs_owner ON upload_jobs (owner, seq);
"""
_COLUMNS = (
    "seq, job_id, filename, source, owner, groups, owner_groups, staged, target, status, error_code, error_detail, "
    "engine_job_id, doc_id, created_at, updated_at, timings, attempts"
)


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
    attempts: int = 0
    """How many times a worker has taken it: more than one means a server stopped while it ran."""
    seq: int = 0
    """Its place in the collection's order of uploads and deletes (set when it is accepted)."""
    progress: JobProgress | None = None
    """While it runs: the engine job's stage and how far it is (read from the engine's row, not kept here)."""

    @property
    def finished(self) -> bool:
        return self.status in TERMINAL_STATUSES

    def public(self) -> dict[str, Any]:
        return {
            "job_id": self.job_id, "filename": self.filename, "source": self.source, "owner": self.owner,
            "groups": self.groups, "status": self.status, "error_code": self.error_code, "error_detail": self.error_detail,
            "engine_job_id": self.engine_job_id, "doc_id": self.doc_id, "created_at": self.created_at,
            "updated_at": self.updated_at, "timings": self.timings, "attempts": self.attempts,
            "progress": None if self.progress is None else {**asdict(self.progress), "text": self.progress.describe()},
        }


def new_job_id() -> str:
    return uuid.uuid4().hex[:16]


class UploadJournal:
    """The upload jobs of one collection, in ``<collection>/server.db`` beside the keys."""

    def __init__(self, collection: Path) -> None:
        self.base = collection.resolve()
        self._lock = threading.Lock()
        path = collection / SERVER_DB
        new = not path.exists()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=30)
        if new:
            os.chmod(path, 0o600)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")  # a committed row survives a power cut, not only a killed process
        self._db.executescript(_SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _path(self, path: Path) -> str:
        try:
            return str(path.resolve().relative_to(self.base))
        except ValueError:
            return str(path)

    def _row(self, job: UploadJob) -> tuple[Any, ...]:
        return (
            job.job_id, job.filename, job.source, job.owner, _dump(job.groups), _dump(job.owner_groups), self._path(job.staged),
            self._path(job.target), job.status, job.error_code, job.error_detail, job.engine_job_id, job.doc_id, job.created_at,
            job.updated_at, json.dumps(job.timings), job.attempts,
        )

    def _job(self, row: tuple[Any, ...]) -> UploadJob:
        owner_groups = json.loads(row[6]) if row[6] is not None else None
        return UploadJob(
            job_id=row[1], filename=row[2], source=row[3], owner=row[4], groups=json.loads(row[5]) if row[5] is not None else None,
            staged=self.base / row[7], target=self.base / row[8], owner_groups=tuple(owner_groups) if owner_groups is not None else None,
            status=row[9], error_code=row[10], error_detail=row[11], engine_job_id=row[12], doc_id=row[13], created_at=row[14],
            updated_at=row[15], timings=json.loads(row[16] or "{}"), attempts=row[17], seq=row[0],
        )

    def add(self, jobs: Iterable[UploadJob]) -> None:
        """Commit new jobs in one transaction and give each its `seq`; when this returns they survive a crash."""
        jobs = list(jobs)
        if not jobs:
            return
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                for job in jobs:
                    cursor = self._db.execute(
                        "INSERT INTO upload_jobs (job_id, filename, source, owner, groups, owner_groups, staged, target, status, "
                        "error_code, error_detail, engine_job_id, doc_id, created_at, updated_at, timings, attempts) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        self._row(job),
                    )
                    job.seq = int(cursor.lastrowid or 0)
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def update(self, job: UploadJob) -> None:
        with self._lock:
            self._db.execute(
                "UPDATE upload_jobs SET status = ?, error_code = ?, error_detail = ?, engine_job_id = ?, doc_id = ?, updated_at = ?, "
                "timings = ?, attempts = ? WHERE job_id = ?",
                (job.status, job.error_code, job.error_detail, job.engine_job_id, job.doc_id, job.updated_at, json.dumps(job.timings),
                 job.attempts, job.job_id),
            )

    def get(self, job_id: str) -> UploadJob | None:
        with self._lock:
            row = self._db.execute(f"SELECT {_COLUMNS} FROM upload_jobs WHERE job_id = ?", (job_id,)).fetchone()
        return self._job(row) if row else None

    def recent(self, limit: int, owner: str | None = None) -> list[UploadJob]:
        """Newest first; only `owner`'s when given."""
        sql = f"SELECT {_COLUMNS} FROM upload_jobs" + (" WHERE owner = ?" if owner is not None else "") + " ORDER BY seq DESC LIMIT ?"
        with self._lock:
            rows = self._db.execute(sql, (owner, limit) if owner is not None else (limit,)).fetchall()
        return [self._job(r) for r in rows]

    def unfinished(self) -> list[UploadJob]:
        """Jobs a stopped (or killed) server left queued or running, oldest first."""
        marks = ",".join("?" * len(TERMINAL_STATUSES))
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_COLUMNS} FROM upload_jobs WHERE status NOT IN ({marks}) ORDER BY seq", tuple(s.value for s in TERMINAL_STATUSES)
            ).fetchall()
        return [self._job(r) for r in rows]

    def prune(self, keep: int = KEEP_FINISHED) -> None:
        """Forget the oldest finished jobs past `keep`."""
        marks = ",".join("?" * len(TERMINAL_STATUSES))
        with self._lock:
            self._db.execute(
                f"DELETE FROM upload_jobs WHERE status IN ({marks}) AND seq <= (SELECT MAX(seq) FROM upload_jobs) - ?",
                (*(s.value for s in TERMINAL_STATUSES), keep),
            )


def _dump(value: list[str] | tuple[str, ...] | None) -> str | None:
    return None if value is None else json.dumps(list(value), ensure_ascii=False)
