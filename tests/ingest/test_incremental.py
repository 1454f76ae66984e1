"""Re-ingest is incremental: unchanged files skipped, changed ones replaced, deleted ones pruned."""

from __future__ import annotations

from pathlib import Path

from bunko.schema import JobStatus


def _write(folder: Path) -> None:
    folder.mkdir()
    (folder / "alpha.md").write_text("# Alpha\n\nThe zebracorn protocol uses port 4711.\n", encoding="utf-8")
    (folder / "beta.md").write_text("# ベータ\n\n経費の精算期限は三十日以内です。\n", encoding="utf-8")
    (folder / "gamma.md").write_text("# 伽马\n\n年假申请需要提前五天提交。\n", encoding="utf-8")


def test_unchanged_files_are_skipped(make_kb, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    _write(docs)
    kb = make_kb()
    assert kb.ingest(docs).count(JobStatus.READY) == 3
    second = kb.ingest(docs)
    assert second.count(JobStatus.SKIPPED) == 3
    assert second.count(JobStatus.READY) == 0
    assert len(kb.documents()) == 3


def test_changed_file_replaces_its_old_chunks_everywhere(make_kb, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    _write(docs)
    kb = make_kb()
    kb.ingest(docs)
    assert kb.search("zebracorn", mode="keyword")
    (docs / "alpha.md").write_text("# Alpha\n\nThe quokkaline protocol uses port 9000.\n", encoding="utf-8")
    report = kb.ingest(docs)
    assert report.count(JobStatus.READY) == 1 and report.count(JobStatus.SKIPPED) == 2
    assert kb.search("zebracorn", mode="keyword") == []
    dense = kb.search("zebracorn protocol port 4711", mode="dense", k=10)
    assert all("zebracorn" not in h.chunk.text for h in dense)
    assert "quokkaline" in kb.search("quokkaline", mode="keyword")[0].chunk.text
    assert len(kb.chunks()) == len({c.chunk_id for c in kb.chunks()}) == 3


def test_prune_removes_documents_whose_files_are_gone(make_kb, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    _write(docs)
    kb = make_kb()
    kb.ingest(docs)
    (docs / "gamma.md").unlink()
    assert kb.ingest(docs).pruned == []  # without --prune nothing is removed
    assert len(kb.documents()) == 3
    report = kb.ingest(docs, prune=True)
    assert report.pruned == ["docs/gamma.md"]
    assert {d.source for d in kb.documents()} == {"docs/alpha.md", "docs/beta.md"}
    assert kb.search("年假申请", mode="keyword") == []


def test_delete_propagates_to_dense_and_keyword_search(make_kb, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    _write(docs)
    kb = make_kb()
    kb.ingest(docs)
    assert kb.delete("docs/beta.md")
    assert not kb.delete("docs/beta.md")
    assert kb.search("精算期限", mode="keyword") == []
    assert all(h.chunk.source != "docs/beta.md" for h in kb.search("精算期限", mode="dense", k=10))
