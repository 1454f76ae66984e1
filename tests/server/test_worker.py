"""The ingest worker: uploads in order, live stages, and a clean stop with uploads still queued."""

from __future__ import annotations

import threading
from collections.abc import Callable

from bunko import Bunko
from bunko.server.uploads import sanitize_filename, upload_target
from bunko.server.worker import IngestWorker, UploadJob, new_job_id
from waiting import wait_until


def _job(kb: Bunko, name: str, text: str) -> UploadJob:
    staged = kb.path / "uploads" / ".incoming" / new_job_id()
    staged.parent.mkdir(parents=True, exist_ok=True)
    staged.write_text(text, encoding="utf-8")
    target = upload_target(kb.path, sanitize_filename(name))
    return UploadJob(new_job_id(), name, f"kb/uploads/{name}", "tester", ["hr"], staged, target)


def test_stop_finishes_the_job_in_hand_and_leaves_the_queue_for_the_next_start(make_kb: Callable[..., Bunko]) -> None:
    kb = make_kb(name="kb")
    release = threading.Event()
    in_hand = threading.Event()
    finished: list[str] = []

    def gate(job: UploadJob) -> None:
        in_hand.set()
        assert release.wait(60), "the test never let the upload in hand go"  # "in hand" until the test lets it go

    worker = IngestWorker(kb, gate, on_finished=lambda job: finished.append(f"{job.filename}:{job.status}"))
    stale = kb.path / "uploads" / ".incoming" / "left-by-a-killed-server"
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"x")
    worker.start(stale.parent)
    assert not stale.exists()  # no job row names it: its request was never answered 202
    jobs = [_job(kb, f"r{i}.md", f"# R{i}\n\n規程{i}の本文。\n") for i in range(3)]
    worker.submit(jobs)
    assert in_hand.wait(60)  # the first job has left the queue and waits in the gate
    stopping = threading.Thread(target=worker.stop)
    stopping.start()
    wait_until(worker._stopping.is_set, timeout=30, message="stop() was not asked for")  # while the first is in hand
    release.set()
    stopping.join(30)

    assert [j.status for j in jobs] == ["READY", "PENDING", "PENDING"]
    assert jobs[0].doc_id and kb.documents()[0].meta["fields"]["groups"] == ["hr"]
    assert finished == ["r0.md:READY"]
    assert not jobs[0].staged.exists() and all(j.staged.exists() for j in jobs[1:])
    assert [p.name for p in (kb.path / "uploads").iterdir() if p.is_file()] == ["r0.md"]

    resumed = IngestWorker(kb, lambda job: None, on_finished=lambda job: finished.append(f"{job.filename}:{job.status}"))
    assert [j.status for j in (resumed.get(j.job_id) for j in jobs) if j] == ["READY", "PENDING", "PENDING"]
    resumed.start(stale.parent)
    wait_until(lambda: not resumed.queued and all(j.finished for j in (resumed.get(j.job_id) for j in jobs) if j), timeout=60,
               message=lambda: f"resumed jobs not finished: {[(j.filename, j.status) for j in jobs]}")
    resumed.stop()
    assert finished == ["r0.md:READY", "r1.md:READY", "r2.md:READY"]
    assert sorted(d.source for d in kb.documents()) == ["kb/uploads/r0.md", "kb/uploads/r1.md", "kb/uploads/r2.md"]
    assert not list(stale.parent.iterdir())
