"""A folder keeps its boundary: a link inside it to a file outside it is refused as OUTSIDE_FOLDER (ingest, folder
sources, watch, retry), unless `[ingest] follow_links = "all"`; a link to a file inside it is that file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bunko import Config
from bunko.ingest.watch import FolderChanges
from bunko.schema import ErrorCode, JobStatus

SECRET_LINES = {
    "en": "PRIVATE KEY quartzmoth signing material, never to be indexed.",
    "ja": "秘密鍵の内容：水晶蛾の署名用資料。索引に入れてはならない。",
    "zh": "私钥内容：水晶蛾签名材料，不得编入索引。",
}
FOLDER_TEXT = {
    "en": "# Lending\n\nBooks are lent for three weeks and may be renewed twice.\n",
    "ja": "# 貸出\n\n図書の貸出期間は三週間で、二回まで延長できます。\n",
    "zh": "# 借阅\n\n图书借期为三周，可续借两次。\n",
}


def _folder_with_outward_links(tmp_path: Path) -> Path:
    """docs/ with one real note per language, a link to one of them, and a link per language to a secret outside."""
    outside = tmp_path / "home" / ".ssh"
    outside.mkdir(parents=True)
    folder = tmp_path / "docs"
    folder.mkdir()
    for lang, text in FOLDER_TEXT.items():
        (folder / f"lending-{lang}.md").write_text(text, encoding="utf-8")
        (outside / f"id-{lang}").write_text(SECRET_LINES[lang], encoding="utf-8")
        os.symlink(outside / f"id-{lang}", folder / f"notes-{lang}.md")
    os.symlink(folder / "lending-en.md", folder / "same-as-lending.md")
    return folder


def _no_secret_indexed(kb) -> None:
    for lang, words in {"en": "quartzmoth signing", "ja": "水晶蛾 署名", "zh": "水晶蛾 签名"}.items():
        hits = kb.search(words, mode="keyword", k=10)
        assert all(SECRET_LINES[lang][:12] not in hit.chunk.text for hit in hits), (lang, [h.chunk.source for h in hits])


def test_a_link_out_of_an_ingested_folder_is_refused_and_its_target_never_read(make_kb, tmp_path: Path) -> None:
    folder = _folder_with_outward_links(tmp_path)
    kb = make_kb()
    report = kb.ingest(folder)
    outcome = {j.source: (j.error_code, j.error_detail or "") for j in report.jobs}
    for lang in FOLDER_TEXT:
        code, detail = outcome[f"docs/notes-{lang}.md"]
        assert code == ErrorCode.OUTSIDE_FOLDER
        assert f"id-{lang}" in detail and "follow_links" in detail and str(folder) in detail
        assert outcome[f"docs/lending-{lang}.md"][0] is None
    assert len(report.failed) == 3
    assert "docs/same-as-lending.md" not in {d.source for d in kb.documents()}  # a link inside is the file it names
    _no_secret_indexed(kb)


def test_follow_links_all_follows_a_link_out_of_the_folder(make_kb, tmp_path: Path) -> None:
    folder = _folder_with_outward_links(tmp_path)
    config = Config()
    config.ingest.follow_links = "all"
    kb = make_kb(config=config)
    report = kb.ingest(folder)
    assert report.ok, [(j.source, j.error_detail) for j in report.failed]
    hits = kb.search("水晶蛾 签名", mode="keyword", k=3)
    assert hits and hits[0].chunk.source.endswith("id-zh")


def test_a_folder_source_refuses_a_link_out_of_its_folder(make_kb, tmp_path: Path) -> None:
    _folder_with_outward_links(tmp_path)
    kb = make_kb()
    kb.sources.add("handbook", {"type": "folder", "path": "docs"})
    [report] = kb.sources.sync()
    assert sorted((j.source, j.error_code) for j in report.failed) == [
        (f"docs/notes-{lang}.md", ErrorCode.OUTSIDE_FOLDER) for lang in ("en", "ja", "zh")]
    assert report.count(JobStatus.READY) == 3
    _no_secret_indexed(kb)


def test_a_watched_folder_refuses_a_link_created_in_it_to_a_file_outside(make_kb, tmp_path: Path) -> None:
    folder = _folder_with_outward_links(tmp_path)
    kb = make_kb()
    batch = kb.sources.apply_changes(FolderChanges(updated=sorted(folder.glob("notes-*.md")), removed=[]), folder=folder)
    assert sorted(j.error_code for j in batch.jobs) == [ErrorCode.OUTSIDE_FOLDER] * 3
    _no_secret_indexed(kb)


def test_a_retry_does_not_follow_a_link_that_now_leads_out_of_the_folder(
    make_kb, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """A retry knows the document's name, not the folder first given: the boundary is the root it is named from."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "guide-ja.md").write_bytes(b"")  # EMPTY: a failed job to retry
    kb = make_kb()
    [failed] = kb.ingest(folder).failed
    assert failed.error_code == ErrorCode.EMPTY
    secret = tmp_path_factory.mktemp("elsewhere") / "id-ja"
    secret.write_text(SECRET_LINES["ja"], encoding="utf-8")
    (folder / "guide-ja.md").unlink()
    os.symlink(secret, folder / "guide-ja.md")
    retried = kb.retry(failed=True)
    assert [j.error_code for j in retried.jobs] == [ErrorCode.OUTSIDE_FOLDER]
    _no_secret_indexed(kb)
