"""The PostgreSQL store's ingest jobs (each writer's liveness held as a session advisory lock) and ask traces."""


from __future__ import annotations

import json
import time
from typing import Any

import psycopg

from bunko.schema import ErrorCode, IngestJob, JobStatus
from bunko.store.postgres.base import (
    _TERMINAL,
    OWNER_NAMESPACE,
    PostgresBase,
    _dumps,
    _text,
)
from bunko.store.rows import JOB_COLUMNS, job_from_row, progress_column


class PostgresJobs(PostgresBase):
    """`JobLog` and `TraceLog` in PostgreSQL."""

    # -- jobs ---------------------------------------------------------------
    def _hold_writer_lock(self) -> None:
        """Hold this writer's liveness lock for as long as the store is open (first job saved)."""
        with self._owner_lock:
            if self._owner_conn is None:
                conn = psycopg.connect(self.dsn, autocommit=True)
                conn.execute("SELECT pg_advisory_lock(%s, %s)", (OWNER_NAMESPACE, self._writer_id))
                self._owner_conn = conn

    def save_job(self, job: IngestJob, run_id: str) -> None:
        self._hold_writer_lock()
        with self._pool.connection() as conn:
            conn.execute(
                "INSERT INTO jobs (job_id, run_id, source, status, error_code, error_detail, created_at, updated_at, timings, owner, "
                "fields, progress) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (job_id) DO UPDATE SET "
                "run_id = EXCLUDED.run_id, source = EXCLUDED.source, status = EXCLUDED.status, error_code = EXCLUDED.error_code, "
                "error_detail = EXCLUDED.error_detail, created_at = EXCLUDED.created_at, updated_at = EXCLUDED.updated_at, "
                "timings = EXCLUDED.timings, owner = EXCLUDED.owner, fields = EXCLUDED.fields, progress = EXCLUDED.progress, "
                "seq = nextval('jobs_seq')",
                (job.job_id, run_id, _text(job.source), str(job.status), job.error_code, _text(job.error_detail), job.created_at,
                 job.updated_at, _dumps(job.timings), self._writer_id, None if job.fields is None else _dumps(job.fields),
                 progress_column(job)),
            )

    def jobs(self, run_id: str | None = None, limit: int = 1000) -> list[IngestJob]:
        query = f"SELECT {JOB_COLUMNS} FROM jobs"
        params: tuple[Any, ...] = ()
        if run_id is not None:
            query += " WHERE run_id = %s"
            params = (run_id,)
        with self._pool.connection() as conn:
            rows = conn.execute(query + " ORDER BY created_at DESC, seq DESC LIMIT %s", (*params, limit)).fetchall()
        return [job_from_row(r) for r in rows]

    def last_run_id(self) -> str | None:
        with self._pool.connection() as conn:
            row = conn.execute("SELECT run_id FROM jobs ORDER BY created_at DESC, seq DESC LIMIT 1").fetchone()
        return row[0] if row else None

    def get_job(self, job_id: str) -> IngestJob | None:
        with self._pool.connection() as conn:
            row = conn.execute(f"SELECT {JOB_COLUMNS} FROM jobs WHERE job_id = %s", (job_id,)).fetchone()
        return job_from_row(row) if row else None

    def failed_jobs(self) -> list[IngestJob]:
        with self._pool.connection() as conn:
            rows = conn.execute(
                f"SELECT {JOB_COLUMNS} FROM (SELECT *, row_number() OVER (PARTITION BY source ORDER BY created_at DESC, seq DESC) "
                "AS place FROM jobs) latest WHERE place = 1 AND status = %s ORDER BY created_at DESC, seq DESC",
                (JobStatus.FAILED.value,),
            ).fetchall()
        return [job_from_row(r) for r in rows]

    def fail_unfinished_jobs(self, detail: str) -> int:
        """Mark jobs left mid-flight by a writer that is gone (or by this one); their documents were never committed.

        A writer that is alive holds its liveness lock, so the try-lock below fails for it
        and its in-flight jobs are left alone.
        """
        with self._pool.connection() as conn, conn.transaction():
            owners = [r[0] for r in conn.execute(
                "SELECT DISTINCT owner FROM jobs WHERE status <> ALL(%s)", (_TERMINAL,)
            ).fetchall()]
            gone = []
            for owner in owners:
                if owner is None or owner == self._writer_id:
                    gone.append(owner)
                    continue
                row = conn.execute("SELECT pg_try_advisory_xact_lock(%s, %s)", (OWNER_NAMESPACE, owner)).fetchone()
                if row and row[0]:
                    gone.append(owner)
            if not gone:
                return 0
            cursor = conn.execute(
                "UPDATE jobs SET status = %s, error_code = %s, error_detail = %s, updated_at = %s "
                "WHERE status <> ALL(%s) AND (owner IS NULL AND %s OR owner = ANY(%s))",
                (JobStatus.FAILED.value, ErrorCode.INTERRUPTED.value, _text(detail), time.time(), _TERMINAL,
                 None in gone, [o for o in gone if o is not None]),
            )
            return cursor.rowcount

    # -- traces -------------------------------------------------------------
    def save_trace(self, trace_id: str, question: str, payload: dict[str, Any], *, created_at: float | None = None) -> None:
        with self._pool.connection() as conn:
            conn.execute(
                "INSERT INTO traces VALUES (%s, %s, %s, %s) ON CONFLICT (trace_id) DO UPDATE SET "
                "created_at = EXCLUDED.created_at, question = EXCLUDED.question, payload = EXCLUDED.payload",
                (trace_id, time.time() if created_at is None else created_at, _text(question), _dumps(payload)),
            )

    def get_trace(self, trace_id: str) -> dict[str, Any] | None:
        with self._pool.connection() as conn:
            row = conn.execute("SELECT payload FROM traces WHERE trace_id = %s", (trace_id,)).fetchone()
        return json.loads(row[0]) if row else None

