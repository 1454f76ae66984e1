"""Durable uploads: a job answered 202 survives a server killed with SIGKILL, and start-up resumes what it left.

bench/bench_durable_uploads.py runs the kill -9 round ten times; here it runs twice, plus the resume rules one by one.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from server_harness import ServerProcess, crash_round

from bunko import Bunko
from bunko.embed.use_m3 import UseM3Embedder
from bunko.schema import IngestJob, JobStatus
from bunko.server.jobs import UploadJournal
from bunko.server.uploads import sanitize_filename, upload_target
from bunko.server.worker import MAX_ATTEMPTS, IngestWorker, UploadJob, new_job_id


def _staged_job(kb: Bunko, name: str, text: str | None, **fields: object) -> UploadJob:
    staged = kb.path / "uploads" / ".incoming" / new_job_id()
    staged.parent.mkdir(parents=True, exist_ok=True)
    if text is not None:
        staged.write_text(text, encoding="utf-8")
    target = upload_target(kb.path, sanitize_filename(name))
    return UploadJob(new_job_id(), name, f"kb/uploads/{name}", "tester", None, staged, target, **fields)  # type: ignore[arg-type]


def _wait(worker: IngestWorker, job_ids: list[str], timeout: float = 120) -> dict[str, UploadJob]:
    deadline = time.monotonic() + timeout
    while True:
        jobs = {j: worker.get(j) for j in job_ids}
        if all(job is not None and job.finished for job in jobs.values()):
            return {j: job for j, job in jobs.items() if job is not None}
        assert time.monotonic() < deadline, jobs
        time.sleep(0.05)


def test_start_up_resumes_what_a_killed_server_left(make_kb: Callable[..., Bunko]) -> None:
    """The rows and files a SIGKILL leaves at each moment of a job's life, and what start-up makes of them."""
    kb = make_kb(name="kb")
    journal = UploadJournal(kb.path)
    queued = _staged_job(kb, "queued.md", "# 待機\n\n申請は三日前までに行う。\n")
    moved = _staged_job(kb, "moved.md", None, attempts=1, status=JobStatus.EMBEDDING.value)
    moved.target.parent.mkdir(parents=True, exist_ok=True)
    moved.target.write_text("# Moved in\n\nThe worker had moved this file in when the server died.\n", encoding="utf-8")
    crashing = _staged_job(kb, "crashing.md", "# Crash\n\nKills every server that reads it.\n", attempts=MAX_ATTEMPTS, status="PARSING")
    lost = _staged_job(kb, "lost.md", None, attempts=1, status="PARSING")
    journal.add([queued, moved, crashing, lost])
    journal.close()
    orphan = kb.path / "uploads" / ".incoming" / "never-answered"
    orphan.write_bytes(b"a request killed before its 202")
    kb.store.save_job(IngestJob("e1", "kb/uploads/moved.md", JobStatus.EMBEDDING, created_at=time.time(), updated_at=time.time()), "run1")

    worker = IngestWorker(kb, lambda job: None)
    worker.start(orphan.parent)
    jobs = _wait(worker, [queued.job_id, moved.job_id, crashing.job_id, lost.job_id])
    worker.stop()

    assert (jobs[queued.job_id].status, jobs[queued.job_id].attempts) == ("READY", 1)
    assert (jobs[moved.job_id].status, jobs[moved.job_id].attempts) == ("READY", 2)
    assert (jobs[crashing.job_id].status, jobs[crashing.job_id].error_code) == ("FAILED", "INTERRUPTED")
    assert "stopped 3 times" in (jobs[crashing.job_id].error_detail or "")
    assert (jobs[lost.job_id].status, jobs[lost.job_id].error_code) == ("FAILED", "INTERRUPTED")
    assert sorted(d.source for d in kb.documents()) == ["kb/uploads/moved.md", "kb/uploads/queued.md"]
    assert not orphan.exists() and not list(orphan.parent.iterdir())
    engine = {j.job_id: j for j in kb.jobs(all_runs=True)}
    assert (engine["e1"].status, engine["e1"].error_code) == ("FAILED", "INTERRUPTED")


@pytest.mark.slow
def test_every_upload_answered_202_survives_kill_9(tmp_path: Path, embedder: UseM3Embedder) -> None:
    """Two rounds of 30 uploads, the server SIGKILLed after a random share of them was accepted: after each restart
    every accepted upload ends READY (and is a document) or FAILED with a code; GET /jobs/{id} knows all of them."""
    Bunko(tmp_path / "kb", embedder=embedder).close()
    server = ServerProcess(tmp_path / "kb")
    rng = random.Random(22)
    try:
        for label in ("a", "b"):
            result = crash_round(server, label, rng)
            assert result.accepted, "no upload was accepted before the kill"
            assert not result.problems(), result.problems()
            assert any(j["status"] == "READY" for j in result.outcomes.values())
            server.start()
            with server.client() as http:
                documents = {d["doc_id"] for d in http.get("/api/collections/kb/documents").json()["documents"]}
                engine = http.get("/api/collections/kb/jobs", params={"engine": True, "limit": 5000}).json()["engine_jobs"]
            server.stop()
            ready = [j for j in result.outcomes.values() if j["status"] == "READY"]
            assert all(j["doc_id"] in documents for j in ready)
            assert all(j["status"] in ("READY", "SKIPPED", "FAILED") for j in engine)
            assert not list((tmp_path / "kb" / "uploads" / ".incoming").iterdir())
    finally:
        server.kill()
