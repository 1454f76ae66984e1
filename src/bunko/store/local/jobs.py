"""The local store's ingest jobs and ask traces."""

from __future__ import annotations

import json
import time
from typing import Any

from bunko.schema import (
    TERMINAL_STATUSES,
    ErrorCode,
    IngestJob,
    JobStatus,
)
from bunko.store.local.schema import LocalBase, _dumps
from bunko.store.rows import JOB_COLUMNS, job_from_row, progress_column


class LocalJobs(LocalBase):
    """`JobLog` and `TraceLog` over SQLite."""

    # -- jobs ---------------------------------------------------------------
    def save_job(self, job: IngestJob, run_id: str) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO jobs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (job.job_id, run_id, job.source, str(job.status), job.error_code, job.error_detail, job.created_at,
                 job.updated_at, _dumps(job.timings), None if job.fields is None else _dumps(job.fields), progress_column(job)),
            )

    def jobs(self, run_id: str | None = None, limit: int = 1000) -> list[IngestJob]:
        sql = f"SELECT {JOB_COLUMNS} FROM jobs"
        params: tuple[Any, ...] = ()
        if run_id is not None:
            sql += " WHERE run_id = ?"
            params = (run_id,)
        with self._lock:
            rows = self._db.execute(sql + " ORDER BY created_at DESC, rowid DESC LIMIT ?", (*params, limit)).fetchall()
        return [job_from_row(r) for r in rows]

    def last_run_id(self) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT run_id FROM jobs ORDER BY created_at DESC, rowid DESC LIMIT 1").fetchone()
        return row[0] if row else None

    def get_job(self, job_id: str) -> IngestJob | None:
        with self._lock:
            row = self._db.execute(f"SELECT {JOB_COLUMNS} FROM jobs WHERE job_id = ?", (job_id,)).fetchone()
        return job_from_row(row) if row else None

    def failed_jobs(self) -> list[IngestJob]:
        with self._lock:
            rows = self._db.execute(
                f"SELECT {JOB_COLUMNS} FROM (SELECT *, row_number() OVER (PARTITION BY source ORDER BY created_at DESC, rowid DESC) "
                "AS place, rowid AS r FROM jobs) WHERE place = 1 AND status = ? ORDER BY created_at DESC, r DESC",
                (JobStatus.FAILED.value,),
            ).fetchall()
        return [job_from_row(r) for r in rows]

    def fail_unfinished_jobs(self, detail: str) -> int:
        """Mark jobs left mid-flight by a killed process; their documents were never committed."""
        marks = ",".join("?" * len(TERMINAL_STATUSES))
        with self._lock:
            cursor = self._db.execute(
                f"UPDATE jobs SET status = ?, error_code = ?, error_detail = ?, updated_at = ? WHERE status NOT IN ({marks})",
                (JobStatus.FAILED.value, ErrorCode.INTERRUPTED.value, detail, time.time(), *[s.value for s in TERMINAL_STATUSES]),
            )
        return cursor.rowcount

    # -- traces -------------------------------------------------------------
    def save_trace(self, trace_id: str, question: str, payload: dict[str, Any], *, created_at: float | None = None) -> None:
        created_at = time.time() if created_at is None else created_at
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO traces VALUES (?, ?, ?, ?)", (trace_id, created_at, question, _dumps(payload)))

    def get_trace(self, trace_id: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._db.execute("SELECT payload FROM traces WHERE trace_id = ?", (trace_id,)).fetchone()
        return json.loads(row[0]) if row else None

