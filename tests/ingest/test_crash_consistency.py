"""SIGKILL during ingest never leaves a half-indexed document; a rerun finishes the rest."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from bunko import Bunko
from bunko.schema import ErrorCode, JobStatus
from bunko.text.entities import entity_keys

N_FILES = 40

INGEST_SCRIPT = textwrap.dedent(
    """
    import sys
    from bunko import Bunko
    Bunko(sys.argv[1]).ingest(sys.argv[2])
    """
)


def _make_docs(folder: Path) -> None:
    folder.mkdir()
    for i in range(N_FILES):
        sections = "\n\n".join(
            f"## Section {j}\n\n" + f"Document {i} paragraph {j} explains rule {i * 100 + j}. " * 12
            + f"\n\n第{j}条：文書{i}の規則です。" * 3
            for j in range(6)
        )
        (folder / f"doc-{i:03d}.md").write_text(f"# Doc {i}\n\n{sections}\n", encoding="utf-8")


def _ready_count(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return conn.execute("SELECT COUNT(*) FROM jobs WHERE status = 'READY'").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def _assert_consistent(kb: Bunko) -> None:
    """Every visible document has all its chunks; no chunk exists without its document."""
    documents = kb.documents()
    chunks = kb.chunks()
    by_doc: dict[str, int] = {}
    for chunk in chunks:
        by_doc[chunk.source] = by_doc.get(chunk.source, 0) + 1
    assert set(by_doc) == {d.source for d in documents}
    for doc in documents:
        assert by_doc[doc.source] == doc.chunk_count
        expected = kb.chunker.chunk(kb.registry.parser_for(kb.root / doc.source, doc.source)[0].parse(kb.root / doc.source, doc.source, "text/markdown"), kb.config.chunk)
        assert len(expected) == doc.chunk_count
    hits = kb.search("rule", mode="keyword", k=1000)
    assert {h.chunk.source for h in hits} <= {d.source for d in documents}
    graph = kb.store.search().entity_graph()  # the graph holds exactly the visible documents' chunks, each with its own entities
    searchable = [c for c in chunks if c.searchable]
    assert sorted(graph.matrices.chunk_ids) == sorted(c.chunk_id for c in searchable)
    for chunk in searchable[:: max(1, len(searchable) // 20)]:
        assert sorted(graph.entities_of(chunk.chunk_id)) == sorted(entity_keys(chunk.text))


@pytest.mark.slow
@pytest.mark.parametrize("kill_after_ready", [0, 3, 12, 25])
def test_sigkill_mid_ingest_leaves_only_complete_documents(tmp_path: Path, embedder, kill_after_ready: int) -> None:
    docs = tmp_path / "docs"
    _make_docs(docs)
    collection = tmp_path / ".bunko"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen([sys.executable, "-c", INGEST_SCRIPT, str(collection), str(docs)], env=env)
    db = collection / "store" / "bunko.db"
    deadline = time.monotonic() + 120
    while _ready_count(db) < kill_after_ready and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    if kill_after_ready == 0:
        while not db.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    process.wait()

    kb = Bunko(collection, embedder=embedder)
    _assert_consistent(kb)
    visible = len(kb.documents())
    assert visible < N_FILES, "the kill came too late to test anything"

    report = kb.ingest(docs)
    assert report.ok
    assert report.count(JobStatus.SKIPPED) == visible
    assert report.count(JobStatus.READY) == N_FILES - visible
    _assert_consistent(kb)
    assert len(kb.documents()) == N_FILES
    interrupted = [j for j in kb.jobs(all_runs=True) if j.error_code == ErrorCode.INTERRUPTED]
    assert all(j.status == JobStatus.FAILED for j in interrupted)
    assert all(j.status in (JobStatus.READY, JobStatus.SKIPPED, JobStatus.FAILED) for j in kb.jobs(all_runs=True))
    kb.close()
