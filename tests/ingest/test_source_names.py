"""Document names (`source`) relative to the folder given or a declared root: filters by folder, a moved folder is
the same collection, colliding names are refused, collections written with absolute names are taken over."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from bunko import Bunko, BunkoError, Config
from bunko.cli.app import app
from bunko.ingest.sources import SourceFile, SourceNames
from bunko.ingest.watch import FolderChanges
from bunko.schema import JobStatus, doc_id_for

FILES = {
    "zh/说明.md": "# 安装说明\n\n安装前请备份配置文件。备份代码是 HERON-5521。\n",
    "ja/規程.md": "# 出張規程\n\n出張の申請は三日前までに行う。承認コードは OSPREY-3307 である。\n",
    "en/guide.md": "# Setup guide\n\nBack up the configuration before installing. The setup code is KESTREL-8140.\n",
}


def _corpus(folder: Path) -> Path:
    for name, text in FILES.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    return folder


@pytest.fixture
def kb(tmp_path: Path, embedder) -> Bunko:
    """A collection in tmp_path/project (its root), with the corpus outside it."""
    with Bunko(tmp_path / "project" / ".bunko", embedder=embedder) as opened:
        yield opened


def _sources(kb: Bunko) -> set[str]:
    return {d.source for d in kb.documents()}


def test_a_folder_from_outside_the_root_is_named_from_its_own_name_down_and_filters_by_folder(kb: Bunko, tmp_path: Path) -> None:
    corpus = _corpus(tmp_path / "corpus")
    report = kb.ingest(tmp_path / "project" / ".." / "corpus")  # as `bunko ingest ../corpus` gives it
    assert report.ok
    assert _sources(kb) == {"corpus/zh/说明.md", "corpus/ja/規程.md", "corpus/en/guide.md"}
    for code, lang in (("HERON-5521", "zh"), ("OSPREY-3307", "ja"), ("KESTREL-8140", "en")):
        hits = kb.search(code, k=5, filters={"source": {"$glob": f"corpus/{lang}/*"}})
        assert hits and {h.chunk.source.split("/")[1] for h in hits} == {lang}
        assert kb.search(code, k=5, filters={"source": {"$glob": "corpus/xx/*"}}) == []
    # a file given alone under that folder gets the same name as when its folder was given
    assert kb.ingest(corpus / "zh" / "说明.md").jobs[0].source == "corpus/zh/说明.md"


def test_a_declared_root_names_files_relative_to_it(tmp_path: Path, embedder) -> None:
    corpus = _corpus(tmp_path / "corpus")
    config = Config()
    config.ingest.root = "../corpus"  # relative to the folder holding the collection
    with Bunko(tmp_path / "project" / ".bunko", config=config, embedder=embedder) as kb:
        kb.ingest(corpus)
        assert _sources(kb) == set(FILES)
        hits = kb.search("HERON-5521", k=5, filters={"source": {"$glob": "zh/*"}})
        assert hits and all(h.chunk.source == "zh/说明.md" for h in hits)
    with Bunko(tmp_path / "other" / ".bunko", embedder=embedder) as kb:  # the same names from a root given for the run
        kb.ingest(corpus / "ja", root=corpus)
        assert _sources(kb) == {"ja/規程.md"}
        with pytest.raises(BunkoError, match="not inside the root"):
            kb.ingest(tmp_path / "project", root=corpus)


def test_a_moved_folder_is_the_same_collection(kb: Bunko, tmp_path: Path) -> None:
    corpus = _corpus(tmp_path / "corpus")
    kb.ingest(corpus)
    before = {d.source: d.doc_id for d in kb.documents()}
    moved = tmp_path / "archive" / "corpus"
    moved.parent.mkdir()
    shutil.move(corpus, moved)
    report = kb.ingest(moved, prune=True)
    assert {j.status for j in report.jobs} == {JobStatus.SKIPPED} and report.pruned == []
    assert {d.source: d.doc_id for d in kb.documents()} == before
    assert all(doc_id == doc_id_for(source) for source, doc_id in before.items())
    (moved / "en" / "guide.md").unlink()  # prune finds the files at the folder's new place
    assert kb.ingest(moved, prune=True).pruned == ["corpus/en/guide.md"]


def test_two_folders_that_would_give_the_same_names_are_refused_until_a_root_tells_them_apart(kb: Bunko, tmp_path: Path) -> None:
    first = _corpus(tmp_path / "a" / "corpus")
    second = _corpus(tmp_path / "b" / "corpus")
    kb.ingest(first)
    with pytest.raises(BunkoError, match=r"named corpus/…, as those from .*a/corpus are"):
        kb.ingest(second)
    assert len(kb.documents()) == 3  # nothing of the second folder replaced the first's documents
    with Bunko(tmp_path / "both" / ".bunko", embedder=kb.embedder) as other:
        other.ingest([first, second], root=tmp_path)
        assert _sources(other) == {f"{side}/corpus/{name}" for side in ("a", "b") for name in FILES}


def test_a_single_file_from_outside_is_named_by_its_file_name_and_two_of_one_name_are_refused(kb: Bunko, tmp_path: Path) -> None:
    for side in ("x", "y"):
        (tmp_path / side).mkdir()
        (tmp_path / side / "規程.md").write_text(FILES["ja/規程.md"], encoding="utf-8")
    assert kb.ingest(tmp_path / "x" / "規程.md").jobs[0].source == "規程.md"
    with pytest.raises(BunkoError, match=r"規程\.md"):
        kb.ingest(tmp_path / "y" / "規程.md")


def test_a_collection_with_absolute_names_is_taken_over_not_duplicated(kb: Bunko, tmp_path: Path) -> None:
    corpus = _corpus(tmp_path / "corpus")
    files = sorted(p for p in corpus.rglob("*.md"))
    legacy = kb._ingestor().run_files([SourceFile(p, p.resolve().as_posix()) for p in files])  # as bunko named them before
    assert legacy.ok and _sources(kb) == {p.resolve().as_posix() for p in files}
    assert kb.delete("ja/規程.md")  # the relative form finds the one absolute name that ends with it
    assert len(kb.documents()) == 2
    report = kb.ingest(corpus)  # the same absolute files again
    assert report.ok
    assert _sources(kb) == {"corpus/zh/说明.md", "corpus/ja/規程.md", "corpus/en/guide.md"}
    assert len(kb.chunks()) == len({c.chunk_id for c in kb.chunks()})
    hits = kb.search("KESTREL-8140", k=10, mode="keyword")
    assert [h.chunk.source for h in hits] == ["corpus/en/guide.md"]  # one document, not two
    # unchanged files stored under both names (a run stopped between the two writes): the old one still goes
    kb._ingestor().run_files([SourceFile(files[0], files[0].resolve().as_posix())])
    assert {j.status for j in kb.ingest(corpus).jobs} == {JobStatus.SKIPPED}
    assert len(kb.documents()) == 3


def test_delete_takes_the_relative_name_or_a_path_and_retry_finds_the_file(kb: Bunko, tmp_path: Path) -> None:
    corpus = _corpus(tmp_path / "corpus")
    (corpus / "en" / "empty.md").write_bytes(b"")
    report = kb.ingest(corpus)
    assert [j.source for j in report.failed] == ["corpus/en/empty.md"]
    (corpus / "en" / "empty.md").write_text("# Later\n\nFilled in later; code PLOVER-1200.\n", encoding="utf-8")
    retried = kb.retry(failed=True)
    assert [(j.source, j.status) for j in retried.jobs] == [("corpus/en/empty.md", JobStatus.READY)]
    assert kb.delete("corpus/zh/说明.md")
    assert kb.delete(str(corpus / "ja" / "規程.md"))  # the file's path names it as ingest did
    assert not kb.delete("corpus/ja/規程.md")
    assert _sources(kb) == {"corpus/en/guide.md", "corpus/en/empty.md"}


def test_watched_changes_are_named_as_the_folder_s_files(kb: Bunko, tmp_path: Path) -> None:
    corpus = _corpus(tmp_path / "corpus")
    kb.ingest(corpus)
    (corpus / "zh" / "新.md").write_text("# 新文件\n\n新增的说明，代码 EGRET-4410。\n", encoding="utf-8")
    (corpus / "ja" / "規程.md").unlink()
    batch = kb.sources.apply_changes(FolderChanges(updated=[corpus / "zh" / "新.md"], removed=[corpus / "ja"]), corpus)
    assert [j.source for j in batch.jobs] == ["corpus/zh/新.md"] and batch.deleted == ["corpus/ja/規程.md"]


def test_a_folder_source_names_files_as_ingest_does(kb: Bunko, tmp_path: Path) -> None:
    corpus = _corpus(tmp_path / "corpus")
    kb.ingest(corpus)
    kb.sources.add("shared", {"type": "folder", "path": str(corpus)})
    report = kb.sources.sync()[0]
    assert report.error is None
    assert {(j.source, j.status) for j in report.jobs} == {(f"corpus/{name}", JobStatus.SKIPPED) for name in FILES}


def test_cli_root_docs_wrap_whole_names_and_delete_by_relative_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = _corpus(tmp_path / "corpus")
    deep = corpus / "zh" / "产品手册" / "第二版" / "附录"
    deep.mkdir(parents=True)
    for n in (1, 2):
        (deep / f"安装与配置说明-{n}.md").write_text(f"# 附录 {n}\n\n第{n}个附录的内容，代码 IBIS-90{n}。\n", encoding="utf-8")
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    runner = CliRunner()
    result = runner.invoke(app, ["ingest", "../corpus", "--root", "../corpus", "--json"])
    assert result.exit_code == 0, result.output
    shown = runner.invoke(app, ["docs"], env={"COLUMNS": "80", "TTY_COMPATIBLE": "1"})  # a terminal: the table
    assert shown.exit_code == 0, shown.output
    first_column = "".join(line.split("│")[1].strip() for line in shown.output.splitlines() if line.startswith("│"))
    for n in (1, 2):  # wrapped, never cut in the middle: each name is there whole
        assert f"zh/产品手册/第二版/附录/安装与配置说明-{n}.md" in first_column
    assert "…" not in first_column
    deleted = runner.invoke(app, ["rm", "ja/規程.md"])
    assert deleted.exit_code == 0, deleted.output
    listed = runner.invoke(app, ["docs", "--json"])
    assert "ja/規程.md" not in listed.output and "zh/说明.md" in listed.output


def test_the_http_api_lists_the_names_the_python_api_stored(kb: Bunko, tmp_path: Path) -> None:
    from bunko.server.app import create_app
    from bunko.server.collection import ServedCollection

    kb.ingest(_corpus(tmp_path / "corpus"))
    client = TestClient(create_app([ServedCollection("kb", kb)], start_workers=False), base_url="http://localhost")
    listed = client.get("/api/collections/kb/documents").json()
    assert "documents" in listed, listed
    names = {d["source"] for d in (listed["documents"] if isinstance(listed, dict) else listed)}
    assert names == {"corpus/zh/说明.md", "corpus/ja/規程.md", "corpus/en/guide.md"}
    hits = client.post("/api/collections/kb/search", json={"query": "OSPREY-3307", "filters": {"source": {"$glob": "corpus/ja/*"}}}).json()
    assert hits["hits"] and all(h["source"] == "corpus/ja/規程.md" for h in hits["hits"])


def test_a_folder_moved_into_the_root_keeps_its_names(kb: Bunko, tmp_path: Path) -> None:
    corpus = _corpus(tmp_path / "corpus")
    kb.ingest(corpus)
    before = {d.source: d.doc_id for d in kb.documents()}
    inside = tmp_path / "project" / "corpus"
    shutil.move(corpus, inside)
    assert {j.status for j in kb.ingest(inside).jobs} == {JobStatus.SKIPPED}
    assert {d.source: d.doc_id for d in kb.documents()} == before
    (inside / "zh" / "说明.md").write_text(FILES["zh/说明.md"] + "\n更新。\n", encoding="utf-8")
    (inside / "ja" / "規程.md").write_bytes(b"")
    failed = kb.ingest(inside).failed
    assert [j.source for j in failed] == ["corpus/ja/規程.md"]
    (inside / "ja" / "規程.md").write_text(FILES["ja/規程.md"], encoding="utf-8")
    assert [j.status for j in kb.retry(failed=True).jobs] == [JobStatus.SKIPPED]  # found at its new place


def test_a_second_folder_of_the_same_name_inside_the_root_is_refused_while_the_first_exists(kb: Bunko, tmp_path: Path) -> None:
    kb.ingest(_corpus(tmp_path / "corpus"))
    inside = _corpus(tmp_path / "project" / "corpus")
    with pytest.raises(BunkoError, match="corpus"):
        kb.ingest(inside)


def test_a_typed_name_resolves_from_the_names_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`SourceNames.resolve` (what `rm`, `tree` and `chunks` take) needs no open collection: a stored name as is, a
    path to a file as ingest names it, else the one stored name that ends with what was typed; an ending two names
    share, or none, comes back unchanged."""
    corpus = _corpus(tmp_path / "corpus")
    monkeypatch.chdir(tmp_path)
    names = SourceNames(tmp_path.resolve())
    stored = {"corpus/zh/说明.md", "/data/old/ja/規程.md", "corpus/en/guide.md", "other/en/guide.md"}
    assert names.resolve("corpus/zh/说明.md", stored) == "corpus/zh/说明.md"
    assert names.resolve(str(corpus / "zh" / "说明.md"), stored) == "corpus/zh/说明.md"
    assert names.resolve("ja/規程.md", stored) == "/data/old/ja/規程.md"
    assert names.resolve("en/guide.md", stored) == "en/guide.md"
    assert names.resolve("nowhere.md", stored) == "nowhere.md"
