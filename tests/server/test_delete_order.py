"""Uploads and deletes of one document happen in the order the server accepted them, against a real server.

A DELETE cancels the queued uploads of that name accepted before it (the document does not come back), waits for
the upload in hand, and never removes a file the worker moved in for an upload accepted after it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from server_harness import Live, running, upload, wait_jobs

from bunko.schema import doc_id_for
from bunko.server.collection import ServedCollection
from waiting import wait_until

V1 = "# 規程\n\n旧版: 申請は三日前までに行う。The old rule: three days ahead.\n"
V2 = "# 規程\n\n新版: 申請は五日前までに行う。The new rule: five days ahead.\n"
SOURCE = "kb/uploads/policy.md"


@pytest.fixture
def live(served_factory: Callable[..., ServedCollection]) -> Iterator[Live]:
    with running([served_factory("kb")]) as server:
        yield server


def _accept(client: Any, name: str, text: str) -> str:
    response = upload(client, "kb", {name: text})
    assert response.status_code == 202, response.text
    return str(response.json()["jobs"][0]["job_id"])


def _other_name(served: ServedCollection, source: str) -> str:
    """A file name whose lock stripe is not `source`'s, so holding it does not hold `source`."""
    worker = served.worker
    for i in range(100):
        name = f"blocker-{i}.md"
        if worker._name_lock(f"kb/uploads/{name}") is not worker._name_lock(source):
            return name
    raise AssertionError("every name shares the lock stripe")


def _uploads(live: Live) -> dict[str, str]:
    folder = live.collections["kb"].kb.path / "uploads"
    return {p.name: p.read_text("utf-8") for p in folder.iterdir() if p.is_file()}


def _sources(client: Any) -> list[str]:
    return sorted(d["source"] for d in client.get("/api/collections/kb/documents").json()["documents"])


def test_a_delete_cancels_the_queued_upload_of_its_document(live: Live) -> None:
    served = live.collections["kb"]
    with live.client() as client:
        wait_jobs(client, "kb", [_accept(client, "policy.md", V1)])
        blocker = _other_name(served, SOURCE)
        with served.worker.holding(f"kb/uploads/{blocker}"):  # the worker stops at the blocker: what follows stays queued
            blocked = _accept(client, blocker, "# Blocker\n\nHolds the queue.\n")
            queued = _accept(client, "policy.md", V2)
            deleted = client.delete(f"/api/collections/kb/documents/{doc_id_for(SOURCE)}").json()
            later = _accept(client, "policy.md", V2)  # accepted after the DELETE: it stays
        assert deleted["removed"] is True and deleted["cancelled_jobs"] == [queued]
        jobs = {j["job_id"]: j for j in wait_jobs(client, "kb", [blocked, queued, later])}
        assert (jobs[queued]["status"], jobs[queued]["error_code"]) == ("FAILED", "CANCELLED")
        assert jobs[blocked]["status"] == "READY" and jobs[later]["status"] == "READY"
        assert _uploads(live)["policy.md"] == V2 and SOURCE in _sources(client)

        # and once more without the later upload: the document stays gone
        with served.worker.holding(f"kb/uploads/{blocker}"):
            again = _accept(client, blocker, "# Blocker\n\nHolds the queue again.\n")
            queued = _accept(client, "policy.md", V1)
            deleted = client.delete(f"/api/collections/kb/documents/{doc_id_for(SOURCE)}").json()
        assert deleted["removed"] is True and deleted["cancelled_jobs"] == [queued]
        wait_jobs(client, "kb", [again, queued])
        assert SOURCE not in _sources(client) and "policy.md" not in _uploads(live)
        assert not list((served.kb.path / "uploads" / ".incoming").iterdir())


def test_a_delete_of_a_document_still_queued_cancels_it(live: Live) -> None:
    served = live.collections["kb"]
    with live.client() as client:
        blocker = _other_name(served, SOURCE)
        with served.worker.holding(f"kb/uploads/{blocker}"):
            first = _accept(client, blocker, "# Blocker\n\nHolds the queue.\n")
            queued = _accept(client, "policy.md", V1)
            deleted = client.delete(f"/api/collections/kb/documents/{doc_id_for(SOURCE)}")
        assert deleted.status_code == 200 and deleted.json()["removed"] is False and deleted.json()["cancelled_jobs"] == [queued]
        assert client.delete(f"/api/collections/kb/documents/{doc_id_for(SOURCE)}").status_code == 404
        wait_jobs(client, "kb", [first, queued])
        assert SOURCE not in _sources(client)


def test_a_delete_waits_for_the_upload_in_hand_and_spares_a_newer_file(live: Live, monkeypatch: pytest.MonkeyPatch) -> None:
    served = live.collections["kb"]
    kb = served.kb
    in_ingest = threading.Event()
    go_on = threading.Event()
    real_ingest, real_delete = kb.ingest, kb.delete

    def slow_ingest(*args: Any, **kwargs: Any) -> Any:
        in_ingest.set()
        go_on.wait(30)
        return real_ingest(*args, **kwargs)

    worker = served.worker
    asked: list[str] = []  # who asked for policy.md's name, in order: "worker" (to move in and ingest) or "delete"
    real_name_lock = worker._name_lock

    def name_lock(source: str) -> Any:
        if source == SOURCE:
            asked.append("worker" if threading.current_thread() is worker._thread else "delete")
        return real_name_lock(source)

    monkeypatch.setattr(worker, "_name_lock", name_lock)

    with live.client() as client:
        wait_jobs(client, "kb", [_accept(client, "policy.md", V1)])

        # 1. the worker has moved v2 in and is ingesting it when the DELETE comes: the DELETE waits, then removes v2
        monkeypatch.setattr(kb, "ingest", slow_ingest)
        v2 = _accept(client, "policy.md", V2)
        assert in_ingest.wait(30)
        assert _uploads(live)["policy.md"] == V2
        outcome: dict[str, Any] = {}
        deleting = threading.Thread(target=lambda: outcome.update(client.delete(f"/api/collections/kb/documents/{doc_id_for(SOURCE)}").json()))
        deleting.start()
        wait_until(lambda: asked[-1:] == ["delete"], timeout=30, message=lambda: f"the DELETE never asked for the name: {asked}")
        # the DELETE has asked for the name the worker holds until its ingest goes on: it can only be waiting
        assert deleting.is_alive() and _uploads(live)["policy.md"] == V2  # the moved-in file is not touched
        go_on.set()
        deleting.join(30)
        monkeypatch.setattr(kb, "ingest", real_ingest)
        assert wait_jobs(client, "kb", [v2])[0]["status"] == "READY"  # not NOT_FOUND: its file was there to ingest
        assert outcome["removed"] is True and SOURCE not in _sources(client) and "policy.md" not in _uploads(live)

        # 2. a DELETE under way when a newer upload is accepted: it removes the old file, never the newer one
        wait_jobs(client, "kb", [_accept(client, "policy.md", V1)])
        in_delete = threading.Event()
        finish_delete = threading.Event()

        def slow_delete(source: str) -> bool:
            in_delete.set()
            finish_delete.wait(30)
            return real_delete(source)

        monkeypatch.setattr(kb, "delete", slow_delete)
        deleting = threading.Thread(target=lambda: outcome.update(client.delete(f"/api/collections/kb/documents/{doc_id_for(SOURCE)}").json()))
        deleting.start()
        assert in_delete.wait(30)
        with live.client() as other:
            asked.clear()
            newer = _accept(other, "policy.md", V2)
        # the worker has taken the newer upload and asks for its name while the DELETE holds it: the newer file
        # would be moved in now if the name did not keep it out until the DELETE is done
        wait_until(lambda: "worker" in asked, timeout=30, message=lambda: f"the worker never took the newer upload: {asked}")
        assert "policy.md" not in _uploads(live) or _uploads(live)["policy.md"] == V1
        finish_delete.set()
        deleting.join(30)
        assert outcome["removed"] is True and outcome["cancelled_jobs"] == []
        assert wait_jobs(client, "kb", [newer])[0]["status"] == "READY"
        assert _uploads(live)["policy.md"] == V2 and SOURCE in _sources(client)
        found = client.post("/api/collections/kb/search", json={"query": "five days ahead", "k": 1}).json()["hits"]
        assert found and "五日前" in found[0]["text"]


def test_upload_then_delete_in_a_tight_loop_leaves_no_document(live: Live) -> None:
    """The probe's race (the document came back in 5 of 86): each DELETE right after its upload, never waiting."""
    with live.client() as client:
        job_ids = []
        for round_ in range(12):
            job_ids.append(_accept(client, "policy.md", V1 if round_ % 2 else V2))
            response = client.delete(f"/api/collections/kb/documents/{doc_id_for(SOURCE)}")
            assert response.status_code == 200, response.text
        jobs = wait_jobs(client, "kb", job_ids)
        assert all(j["status"] == "READY" or j["error_code"] == "CANCELLED" for j in jobs), jobs
        assert SOURCE not in _sources(client) and "policy.md" not in _uploads(live)
