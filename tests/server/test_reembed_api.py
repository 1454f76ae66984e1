"""Re-embedding over HTTP: POST starts it as a background job, GET shows its progress, searches answer throughout."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from server_harness import running

from bunko import Bunko
from bunko.config import EmbedConfig
from bunko.ingest.maintenance import ReembedReport
from bunko.server.collection import ServedCollection
from bunko.server.reembed import ReembedRunner
from hash_embedder import HashEmbedder
from reembed_corpus import line, small_chunk_config, write_corpus
from waiting import wait_until


class Held(HashEmbedder):
    """hash-b, whose batch of passages number n first waits until `ready(n)` (queries go at hashing speed): what a
    slow model's batches gave a client time to see or do, waited for instead of slept through."""

    def __init__(self, ready: Callable[[int], bool]) -> None:
        super().__init__("hash-b", 96, seed=7)
        self.ready = ready

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        batch = self.calls + 1
        wait_until(lambda: self.ready(batch), timeout=60, message=f"batch {batch} of the re-embed was never let go")
        return super().embed(texts)

    def embed_query(self, texts: Sequence[str]) -> np.ndarray:
        return super().embed(texts)


def served(tmp_path: Path, ready: Callable[[int], bool]) -> ServedCollection:
    def factory(config: EmbedConfig) -> HashEmbedder:
        return {"use-m3": HashEmbedder("hash-a", 64, seed=1), "hash-b": Held(ready)}[config.model]

    write_corpus(tmp_path / "docs", files_per_language=4, lines_per_file=100)
    kb = Bunko(tmp_path / "kb", config=small_chunk_config(), embedder_factory=factory)
    assert kb.ingest(tmp_path / "docs").ok
    return ServedCollection("kb", kb)


def test_post_reembed_runs_in_the_background_while_search_answers_and_get_shows_progress(tmp_path: Path) -> None:
    seen = [0]  # batches the client has seen staged (then searched past) while the re-embed ran
    # batches 2 and 3 wait until the client has seen the one before staged and searched: it sees the count grow
    # mid-way and its searches are answered while vectors are being staged, whatever the speed of either; the
    # later batches run free
    collection = served(tmp_path, ready=lambda batch: not 2 <= batch <= 3 or seen[0] >= batch - 1)
    total = collection.kb.store.chunk_count()
    queries = [line("ja", 2, 7), line("zh", 1, 3), line("en", 3, 9)]
    with running([collection]) as live, live.client() as http:
        assert http.get(live.api("kb", "/reembed")).json()["state"] == "idle"
        started = http.post(live.api("kb", "/reembed"), json={"model": "hash-b", "batch": 32})
        assert started.status_code == 202, started.text
        assert http.post(live.api("kb", "/reembed"), json={"model": "hash-b"}).status_code == 409  # one at a time
        progress: list[tuple[str, int]] = []
        searches = 0
        deadline = time.monotonic() + 120  # only a hang: nothing here depends on how long it takes
        while True:
            status = http.get(live.api("kb", "/reembed")).json()
            progress.append((status["state"], (status["reembed"] or {}).get("chunks_embedded", -1)))
            if status["state"] != "running":
                break
            for query in queries:
                found = http.post(live.api("kb", "/search"), json={"query": query, "k": 3, "mode": "dense"})
                assert found.status_code == 200, found.text
                assert found.json()["hits"][0]["text"] == query
                searches += 1
            seen[0] = max(0, progress[-1][1]) // 32
            assert time.monotonic() < deadline, progress[-3:]
        assert status["state"] == "done", status
        assert status["embedder"] == "hash-b" and status["last_run"]["chunks"] == total
        embedded = [n for state, n in progress if state == "running"]
        assert any(0 < n < total for n in embedded) and embedded == sorted(embedded)
        assert searches >= 6
        found = http.post(live.api("kb", "/search"), json={"query": queries[0], "k": 3, "mode": "dense"}).json()
        assert found["hits"][0]["text"] == queries[0]
        assert http.get(live.api("kb")).json()["embedder"] == "hash-b"
        refused = http.post(live.api("kb", "/reembed"), json={"model": "hash-b"})
        assert refused.status_code == 409 and "already" in refused.json()["error"]["message"]


def test_delete_reembed_stops_the_job_and_discards_what_it_staged(tmp_path: Path) -> None:
    holder: list[ServedCollection] = []
    # two batches go through, the third waits for the abort: the DELETE always finds a re-embed under way
    collection = served(tmp_path, ready=lambda batch: batch <= 2 or holder[0].kb.reembedder._stop.is_set())
    holder.append(collection)
    with running([collection]) as live, live.client() as http:
        assert http.delete(live.api("kb", "/reembed")).status_code == 409  # nothing to abort
        assert http.post(live.api("kb", "/reembed"), json={"model": "hash-b", "batch": 16}).status_code == 202

        def staged() -> int:
            return int((http.get(live.api("kb", "/reembed")).json()["reembed"] or {}).get("chunks_embedded") or 0)

        wait_until(lambda: staged() >= 32, timeout=60, message=lambda: f"{staged()} chunks staged")
        assert staged() == 32  # and no more: the third batch waits
        aborted = http.delete(live.api("kb", "/reembed"))
        assert aborted.status_code == 200, aborted.text
        body = aborted.json()
        assert body["aborted"] == "hash-b" and body["reembed"] is None and body["embedder"] == "hash-a"
        assert "aborted" in body["last_run"]["error"]
        found = http.post(live.api("kb", "/search"), json={"query": line("zh", 0, 4), "k": 1, "mode": "dense"}).json()
        assert found["hits"][0]["text"] == line("zh", 0, 4)


def test_status_keeps_reporting_progress_after_the_swap_until_the_thread_ends() -> None:
    """Between the swap (the store's staged plan is gone) and the thread's end, GET must not report a running
    re-embed without its count: a client polling for progress saw -1 after 896 chunks."""
    swapped, finish = threading.Event(), threading.Event()

    class SwappedCollection:
        embedder_name = "hash-a"

        def __init__(self) -> None:
            self.store = self.reembedder = self

        def get_meta(self, key: str) -> str:
            return "hash-b"

        def status(self) -> None:
            return None  # the plan is gone: the swap has committed

        def run(self, model: str | None, batch: int, progress) -> ReembedReport:
            progress(40, 40)
            swapped.set()
            finish.wait(10)
            return ReembedReport("hash-b", "hash-a", 40, 40, 0.1)

    runner = ReembedRunner(SwappedCollection())  # type: ignore[arg-type]
    runner._thread = threading.Thread(target=runner._run, args=("hash-b", 8), daemon=True)
    runner._thread.start()
    assert swapped.wait(10)
    status = runner.status()
    finish.set()
    runner.wait(10)
    assert status["state"] == "running" and status["reembed"]["chunks_embedded"] == 40
    assert runner.status()["state"] == "done"
