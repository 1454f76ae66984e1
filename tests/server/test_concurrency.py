"""Parallel asks and searches while uploads are ingested: no request fails, no document or chunk is lost.

The local store rebuilds its in-memory index after every committed document,
so each upload below forces a reload while readers are mid-search: the case
the server's index read guard exists for.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from server_harness import running, upload, wait_jobs

from bunko import Bunko
from bunko.embed.use_m3 import UseM3Embedder
from bunko.index.memory import MemoryIndex
from bunko.server.collection import ServedCollection
from waiting import wait_until

DOCS = 16
READERS = 6


class _WatchedLock:
    """The store's lock, noting whether a thread other than `owner` found it held and had to wait for it."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.owner: threading.Thread | None = None
        self.made_others_wait = False

    def __enter__(self) -> _WatchedLock:
        other = self.owner is not None and threading.current_thread() is not self.owner
        if other and self.inner.acquire(blocking=False):
            return self
        if other:
            self.made_others_wait = True
        self.inner.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.inner.release()


def _doc(i: int) -> str:
    return f"# 規程{i}\n\n規程{i}の管理番号は QX-{4000 + i} である。担当部署は第{i}課とする。\n\n## Scope {i}\n\nPolicy {i} covers the unit number {i}.\n"


def test_parallel_asks_during_ingest_lose_nothing(tmp_path: Path, embedder: UseM3Embedder, samples_dir: Path) -> None:
    kb = Bunko(tmp_path / "kb", embedder=embedder)
    assert kb.ingest([samples_dir]).ok
    base_docs = len(kb.documents())
    served = ServedCollection("kb", kb)
    failures: list[str] = []
    answered = [0] * READERS
    """Requests each reader has had answered (each reader counts its own: no increment is lost between threads)."""
    stop = threading.Event()

    def every_reader_answered_twice_since(marks: list[int]) -> bool:
        """Each reader's second request after `marks` was sent after them: it read what was committed by then."""
        return all(now >= mark + 2 for now, mark in zip(answered, marks, strict=True))

    with running([served]) as live:

        def reader(n: int) -> None:
            with live.client(timeout=120) as client:
                while not stop.is_set():
                    if n % 2:
                        response = client.post(live.api("kb", "/ask"), json={"question": "東京23区の宿泊費の上限はいくら？", "stream": n % 4 == 1})
                        ok = response.status_code == 200 and "12,000円" in response.text and "event: error" not in response.text
                    else:
                        response = client.post(live.api("kb", "/search"), json={"query": f"QX-{4000 + answered[n] % DOCS}", "k": 3})
                        ok = response.status_code == 200
                    if not ok:
                        failures.append(f"{response.status_code} {response.text[:300]}")
                    answered[n] += 1

        threads = [threading.Thread(target=reader, args=(n,)) for n in range(READERS)]
        for thread in threads:
            thread.start()
        with live.client(timeout=120) as writer:
            job_ids: list[str] = []
            for start in range(0, DOCS, 4):  # four uploads of four files, while the readers run
                batch = {f"rule-{i:02d}.md": _doc(i) for i in range(start, start + 4)}
                response = upload(writer, "kb", batch)
                assert response.status_code == 202, response.text
                job_ids += [j["job_id"] for j in response.json()["jobs"]]
                marks = list(answered)  # every reader goes on over this upload's ingest before the next comes
                wait_until(lambda marks=marks: every_reader_answered_twice_since(marks), timeout=300,
                           message=lambda: f"readers stalled during an ingest: {answered}")
            jobs = wait_jobs(writer, "kb", job_ids, timeout=300)
            final = list(answered)  # and every reader reads the final generation too
            wait_until(lambda: every_reader_answered_twice_since(final), timeout=300,
                       message=lambda: f"readers stalled after the last ingest: {answered}")
        stop.set()
        for thread in threads:
            thread.join(120)

        assert not failures, failures[:3]
        assert sum(answered) >= READERS * 2 * (DOCS // 4 + 1)
        assert [j["status"] for j in jobs] == ["READY"] * DOCS, jobs
        documents = kb.documents()
        assert len(documents) == base_docs + DOCS
        assert kb.store.chunk_count() == sum(d.chunk_count for d in documents)
        with live.client() as client:
            for i in range(DOCS):
                hits = client.post(live.api("kb", "/search"), json={"query": f"QX-{4000 + i}", "k": 1, "mode": "keyword"}).json()["hits"]
                assert hits and hits[0]["source"].endswith(f"rule-{i:02d}.md"), i
    with sqlite3.connect(tmp_path / "kb" / "store" / "bunko.db") as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_an_index_reload_never_happens_under_a_running_search(
    served_factory: Callable[..., ServedCollection], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A search held mid-way must see one index generation throughout, though a write comes meanwhile (it waits for
    the search, and the reload request after it too)."""
    served = served_factory("kb")
    kb, store = served.kb, served.kb.store
    (tmp_path / "a.md").write_text("# A\n\nalpha beta gamma.\n", encoding="utf-8")
    (tmp_path / "b.md").write_text("# B\n\nbeta delta.\n", encoding="utf-8")
    kb.ingest([tmp_path / "a.md"])
    vector = kb.embedder.embed(["alpha"])[0]
    store.search().dense_search(vector, 1)  # the index of generation 1 is loaded
    original = MemoryIndex.dense
    swapped: list[bool] = []
    in_search = threading.Event()
    lock = _WatchedLock(store._lock)
    monkeypatch.setattr(store, "_lock", lock)

    def slow_dense(self: MemoryIndex, *args: object) -> list[tuple[str, float]]:
        ids = self.ids
        in_search.set()
        # held until the write has come and found the store busy: the search is under way when it arrives, and the
        # write has to wait for it (a write that went through would not be recorded, and this would time out)
        wait_until(lambda: lock.made_others_wait, timeout=60, message="no write came, or it did not wait for the search")
        swapped.append(self.ids is not ids)
        return original(self, *args)

    monkeypatch.setattr(MemoryIndex, "dense", slow_dense)
    searching = threading.Thread(target=store.search().dense_search, args=(vector, 1))
    searching.start()
    assert in_search.wait(60)
    lock.owner = searching
    kb.ingest([tmp_path / "b.md"])  # the writer commits; it never touches the index
    assert store.documents() and kb.trace("none") is None  # plain store reads still answer (after the search, on the shared connection)
    assert store.search().keyword_search(["beta"], 5)  # a second reader: this is what reloads the index
    searching.join(60)
    assert swapped == [False] and lock.made_others_wait
    assert len(store.search().keyword_search(["beta"], 5)) == 2
    kb.close()
