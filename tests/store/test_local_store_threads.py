"""Readers in threads during writes never see a half-reloaded index."""

from __future__ import annotations

import threading
from pathlib import Path


def test_parallel_searches_during_ingest_see_consistent_generations(make_kb, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    kb = make_kb()
    (docs / "seed.md").write_text("# 種\n\n宿泊費の上限は一万二千円です。\n", encoding="utf-8")
    kb.ingest(docs)
    errors: list[BaseException] = []
    stop = threading.Event()

    def reader() -> None:
        while not stop.is_set():
            try:
                for hit in kb.search("宿泊費の上限", k=5) + kb.search("宿泊費", k=5, mode="keyword"):
                    assert hit.chunk.text  # a hit always resolves to a stored chunk
            except BaseException as exc:
                errors.append(exc)
                return

    threads = [threading.Thread(target=reader) for _ in range(4)]
    for thread in threads:
        thread.start()
    for i in range(15):
        (docs / f"doc-{i}.md").write_text(f"# 規程{i}\n\n第{i}条：宿泊費の上限は{i}万円です。\n", encoding="utf-8")
        kb.ingest(docs)
    stop.set()
    for thread in threads:
        thread.join()
    assert not errors, errors[0]
    assert len(kb.documents()) == 16
