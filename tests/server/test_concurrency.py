"""Parallel asks and searches while uploads are ingested: no request fails, no document or chunk is lost.

The local store rebuilds its in-memory index after every committed document,
so each upload below forces a reload while readers are mid-search: the case
the server's index read guard exists for.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from server_harness import running, upload, wait_jobs

from bunko import Bunko
from bunko.embed.use_m3 import UseM3Embedder
from bunko.index.memory import MemoryIndex
from bunko.server.collection import ServedCollection

DOCS = 16
READERS = 6


def _doc(i: int) -> str:
    return f"# 規程{i}\n\n規程{i}の管理番号は QX-{4000 + i} である。担当部署は第{i}課とする。\n\n## Scope {i}\n\nPolicy {i} covers the unit number {i}.\n"


def test_parallel_asks_during_ingest_lose_nothing(tmp_path: Path, embedder: UseM3Embedder, samples_dir: Path) -> None:
    kb = Bunko(tmp_path / "kb", embedder=embedder)
    assert kb.ingest([samples_dir]).ok
    base_docs = len(kb.documents())
    served = ServedCollection("kb", kb)
    failures: list[str] = []
    answered = [0]
    stop = threading.Event()

    with running([served]) as live:

        def reader(n: int) -> None:
            with live.client(timeout=120) as client:
                while not stop.is_set():
                    if n % 2:
                        response = client.post(live.api("kb", "/ask"), json={"question": "東京23区の宿泊費の上限はいくら？", "stream": n % 4 == 1})
                        ok = response.status_code == 200 and "12,000円" in response.text and "event: error" not in response.text
                    else:
                        response = client.post(live.api("kb", "/search"), json={"query": f"QX-{4000 + answered[0] % DOCS}", "k": 3})
                        ok = response.status_code == 200
                    if not ok:
                        failures.append(f"{response.status_code} {response.text[:300]}")
                    answered[0] += 1

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
                time.sleep(0.3)
            jobs = wait_jobs(writer, "kb", job_ids, timeout=300)
            time.sleep(1.0)  # readers keep going over the final generation too
        stop.set()
        for thread in threads:
            thread.join(120)

        assert not failures, failures[:3]
        assert answered[0] >= READERS * 2
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
    """A search slowed to 0.5 s must see one index generation throughout, though a write and a reload request come meanwhile."""
    served = served_factory("kb")
    kb, store = served.kb, served.kb.store
    (tmp_path / "a.md").write_text("# A\n\nalpha beta gamma.\n", encoding="utf-8")
    (tmp_path / "b.md").write_text("# B\n\nbeta delta.\n", encoding="utf-8")
    kb.ingest([tmp_path / "a.md"])
    vector = kb.embedder.embed(["alpha"])[0]
    store.dense_search(vector, 1)  # the index of generation 1 is loaded
    original = MemoryIndex.dense
    swapped: list[bool] = []

    def slow_dense(self: MemoryIndex, *args: object) -> list[tuple[str, float]]:
        ids = self.ids
        time.sleep(0.5)
        swapped.append(self.ids is not ids)
        return original(self, *args)

    monkeypatch.setattr(MemoryIndex, "dense", slow_dense)
    searching = threading.Thread(target=store.dense_search, args=(vector, 1))
    searching.start()
    time.sleep(0.1)
    kb.ingest([tmp_path / "b.md"])  # the writer commits; it never touches the index
    assert store.documents() and kb.trace("none") is None  # plain store reads still answer (after the search, on the shared connection)
    assert store.keyword_search(["beta"], 5)  # a second reader: this is what reloads the index
    searching.join(10)
    assert swapped == [False]
    assert len(store.keyword_search(["beta"], 5)) == 2
    kb.close()
