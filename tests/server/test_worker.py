"""The ingest worker: uploads in order, live stages, and a clean stop with uploads still queued."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from bunko import Bunko
from bunko.server.uploads import sanitize_filename, upload_target
from bunko.server.worker import IngestWorker, UploadJob, new_job_id


def _job(kb: Bunko, name: str, text: str) -> UploadJob:
    staged = kb.path / "uploads" / ".incoming" / new_job_id()
    staged.parent.mkdir(parents=True, exist_ok=True)
    staged.write_text(text, encoding="utf-8")
    target = upload_target(kb.path, sanitize_filename(name))
    return UploadJob(new_job_id(), name, f"kb/uploads/{name}", "tester", ["hr"], staged, target)


def test_stop_finishes_the_job_in_hand_and_interrupts_the_queue(make_kb: Callable[..., Bunko]) -> None:
    kb = make_kb(name="kb")
    release = threading.Event()
    finished: list[str] = []

    def gate(job: UploadJob) -> None:
        release.wait(10)  # the first upload is "in hand" until the test lets it go

    worker = IngestWorker(kb, gate, on_finished=lambda job: finished.append(f"{job.filename}:{job.status}"))
    stale = kb.path / "uploads" / ".incoming" / "left-by-a-killed-server"
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"x")
    worker.start(stale.parent)
    assert not stale.exists()
    jobs = [_job(kb, f"r{i}.md", f"# R{i}\n\n規程{i}の本文。\n") for i in range(3)]
    worker.submit(jobs)
    while worker.queued > 2:  # the first job has left the queue and waits in the gate
        threading.Event().wait(0.01)
    stopping = threading.Thread(target=worker.stop)
    stopping.start()
    threading.Event().wait(0.2)
    release.set()
    stopping.join(30)

    assert [j.status for j in jobs] == ["READY", "FAILED", "FAILED"]
    assert [j.error_code for j in jobs[1:]] == ["INTERRUPTED", "INTERRUPTED"]
    assert jobs[0].doc_id and kb.documents()[0].meta["fields"]["groups"] == ["hr"]
    assert sorted(finished) == ["r0.md:READY", "r1.md:FAILED", "r2.md:FAILED"]
    assert not any(Path(j.staged).exists() for j in jobs)
    assert [p.name for p in (kb.path / "uploads").iterdir() if p.is_file()] == ["r0.md"]
