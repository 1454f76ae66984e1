"""`bunko watch`: a folder edited for real while it is watched — writes debounced into one ingest, new files
indexed, deletions and renames propagated, whole folders removed or moved in, editors' swap files and the
collection's own folder ignored; the CLI prints a JSON line per batch and stops cleanly on SIGTERM."""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bunko.ingest.watch import WatchBatch
from bunko.schema import JobStatus

pytest.importorskip("watchfiles")

DEBOUNCE = 0.3


class Watching:
    def __init__(self, kb, folder: Path) -> None:
        self.batches: queue.Queue[WatchBatch] = queue.Queue()
        self.stop = threading.Event()
        self.errors: list[BaseException] = []

        def target() -> None:
            try:
                kb.sources.watch(folder, debounce=DEBOUNCE, on_batch=self.batches.put, stop=self.stop)
            except BaseException as exc:  # surfaced by the test, not lost in the thread
                self.errors.append(exc)

        self.thread = threading.Thread(target=target, daemon=True)
        self.thread.start()

    def until(self, done: Callable[[list[WatchBatch]], bool], timeout: float = 30.0) -> list[WatchBatch]:
        """Batches until `done` holds of all received so far."""
        seen: list[WatchBatch] = []
        deadline = time.monotonic() + timeout
        while not done(seen):
            assert not self.errors, self.errors
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"timed out; batches so far: {[(b.jobs, b.deleted) for b in seen]}"
            try:
                seen.append(self.batches.get(timeout=remaining))
            except queue.Empty:
                continue
        return seen

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=10)
        assert not self.thread.is_alive(), "the watcher did not stop"
        assert not self.errors, self.errors


def _ready(batches: list[WatchBatch]) -> list[str]:
    return [j.source for b in batches for j in b.jobs if j.status == JobStatus.READY]


def _deleted(batches: list[WatchBatch]) -> list[str]:
    return [d for b in batches for d in b.deleted]


def _sources(batches: list[WatchBatch]) -> list[tuple[list[str], list[str]]]:
    """Per batch: the sources of its jobs and the documents it deleted."""
    return [([j.source for j in b.jobs], list(b.deleted)) for b in batches]


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "alpha.md").write_text("# Alpha\n\nThe zebracorn protocol uses port 4711.\n", encoding="utf-8")
    (docs / "beta.md").write_text("# ベータ\n\n経費の精算期限は三十日以内です。\n", encoding="utf-8")
    return docs


@pytest.fixture
def watching(make_kb, docs: Path) -> Iterator[tuple[object, Watching]]:
    kb = make_kb()
    kb.ingest(docs)
    (docs / "stale.md").write_text("# Stale\n\nWritten while nobody watched: the okapi rota.\n", encoding="utf-8")
    kb.delete("docs/beta.md")  # and beta's document lost while nobody watched
    watcher = Watching(kb, docs)
    yield kb, watcher
    watcher.close()


def test_watch_catches_up_then_ingests_edits_debounced(watching, docs: Path, present) -> None:
    kb, watcher = watching
    [catch_up] = watcher.until(lambda seen: len(seen) >= 1)
    assert sorted(_ready([catch_up])) == ["docs/beta.md", "docs/stale.md"]  # alpha unchanged: skipped

    for i in range(5):  # an editor saving again and again, quicker than the debounce
        (docs / "alpha.md").write_text(f"# Alpha\n\nThe quokkaline protocol uses port {9000 + i}.\n", encoding="utf-8")
        time.sleep(0.05)  # the behaviour under test: separate saves, each well inside the 0.3 s debounce window
    edits = watcher.until(lambda seen: "docs/alpha.md" in _ready(seen))
    assert next(c.text for c in kb.chunks("docs/alpha.md") if "quokkaline" in c.text).endswith("9004.")
    present(kb, "docs/alpha.md", "quokkaline")
    assert kb.search("zebracorn", mode="keyword") == []

    (docs / "gamma.md").write_text("# 伽马\n\n年假申请需要在 leave-portal 上提前五天提交。\n", encoding="utf-8")
    (docs / ".gamma.md.swp").write_bytes(b"\x00vim swap")
    (docs / "gamma.md~").write_text("backup", encoding="utf-8")
    batches = watcher.until(lambda seen: "docs/gamma.md" in _ready(seen))
    # gamma was written after the five saves of alpha, so a second ingest of alpha would have come by now
    assert _ready(edits + batches).count("docs/alpha.md") == 1  # one ingest for five writes
    assert {j.source for b in batches for j in b.jobs} - {"docs/alpha.md"} == {"docs/gamma.md"}  # swap and backup files never reach ingest
    present(kb, "docs/gamma.md", "年假申请")


def test_watch_propagates_deletes_renames_and_folders(watching, docs: Path, tmp_path: Path, gone, present) -> None:
    kb, watcher = watching
    watcher.until(lambda seen: len(seen) >= 1)

    beta_chunks = [c.chunk_id for c in kb.chunks("docs/beta.md")]
    (docs / "beta.md").unlink()
    watcher.until(lambda seen: "docs/beta.md" in _deleted(seen))
    gone(kb, "docs/beta.md", "精算期限", beta_chunks)

    (docs / "alpha.md").rename(docs / "renamed.md")
    watcher.until(lambda seen: "docs/alpha.md" in _deleted(seen) and "docs/renamed.md" in _ready(seen))
    assert {d.source for d in kb.documents()} == {"docs/renamed.md", "docs/stale.md"}

    outside = tmp_path / "incoming"
    (outside / "deep").mkdir(parents=True)
    (outside / "one.md").write_text("# One\n\nThe marmoset relay restarts nightly.\n", encoding="utf-8")
    (outside / "deep" / "two.md").write_text("# Two\n\nThe heron queue drains hourly.\n", encoding="utf-8")
    shutil.move(outside, docs / "moved")  # a folder moved in: one event for the folder, none for its files
    watcher.until(lambda seen: {"docs/moved/one.md", "docs/moved/deep/two.md"} <= set(_ready(seen)))
    present(kb, "docs/moved/deep/two.md", "heron")

    shutil.move(docs / "moved", tmp_path / "away")  # and moved out again: everything under it goes
    watcher.until(lambda seen: {"docs/moved/one.md", "docs/moved/deep/two.md"} <= set(_deleted(seen)))
    assert {d.source for d in kb.documents()} == {"docs/renamed.md", "docs/stale.md"}


def test_watching_the_folder_that_holds_the_collection_ignores_the_collection(make_kb, tmp_path: Path, docs: Path) -> None:
    kb = make_kb()  # tmp_path/.bunko: inside the watched folder
    watcher = Watching(kb, tmp_path)
    try:
        [catch_up] = watcher.until(lambda seen: len(seen) >= 1)
        assert sorted(_ready([catch_up])) == ["docs/alpha.md", "docs/beta.md"]
        # The store's own writes start no batch. Each check is an edit made after those writes: their events come
        # before its own, so a batch they started would arrive first, or join the edit's batch.
        (docs / "alpha.md").write_text("# Alpha\n\nThe quokkaline protocol uses port 9000.\n", encoding="utf-8")
        batches = watcher.until(lambda seen: "docs/alpha.md" in _ready(seen))
        assert _sources(batches) == [(["docs/alpha.md"], [])]  # the catch-up ingest's writes started none
        (docs / "beta.md").write_text("# ベータ\n\n経費の精算期限は六十日以内です。\n", encoding="utf-8")
        batches = watcher.until(lambda seen: "docs/beta.md" in _ready(seen))
        assert _sources(batches) == [(["docs/beta.md"], [])]  # alpha's ingest's writes started none
    finally:
        watcher.close()


def test_watch_cli_prints_a_json_line_per_batch_and_stops_on_sigterm(tmp_path: Path, docs: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).resolve().parents[2] / "src"), os.environ.get("PYTHONPATH", "")])}
    process = subprocess.Popen(
        [sys.executable, "-m", "bunko", "watch", "docs", "--debounce", str(DEBOUNCE), "--json"],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in process.stdout], daemon=True).start()  # type: ignore[union-attr]
    try:
        first = json.loads(lines.get(timeout=120))
        assert sorted(j["source"] for j in first["jobs"] if j["status"] == "READY") == ["docs/alpha.md", "docs/beta.md"]
        (docs / "beta.md").unlink()
        (docs / "gamma.md").write_text("# Gamma\n\nThe marmoset relay restarts nightly.\n", encoding="utf-8")
        ready: set[str] = set()
        deleted: set[str] = set()
        while not ("docs/gamma.md" in ready and "docs/beta.md" in deleted):
            batch = json.loads(lines.get(timeout=30))
            ready |= {j["source"] for j in batch["jobs"] if j["status"] == "READY"}
            deleted |= set(batch["deleted"])
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=30)
    assert process.returncode == 0, stderr
    assert "stopped watching" in stderr
