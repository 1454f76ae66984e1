"""Every source syncs additions, changes and deletions into the collection, against real files, repositories,
databases and servers: a folder, a Git repository (local and mirrored), SQLite tables, a website on a local
http.server (robots.txt obeyed, an incomplete crawl deleting nothing) and S3 on moto's server."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from bunko.errors import BunkoError
from bunko.schema import ErrorCode, JobStatus


def _chunk_ids(kb, source: str) -> list[str]:
    return [c.chunk_id for c in kb.chunks(source)]


# -- a folder -----------------------------------------------------------------------------------------------

def _write_folder(docs: Path) -> None:
    docs.mkdir()
    (docs / "alpha.md").write_text("# Alpha\n\nThe zebracorn protocol uses port 4711.\n", encoding="utf-8")
    (docs / "beta.md").write_text("# ベータ\n\n経費の精算期限は三十日以内です。\n", encoding="utf-8")
    (docs / "gamma.md").write_text("# 伽马\n\n年假申请需要在 leave-portal 上提前五天提交。\n", encoding="utf-8")


def test_folder_source_syncs_new_changed_and_deleted_files(make_kb, tmp_path: Path, present, gone) -> None:
    _write_folder(tmp_path / "docs")
    kb = make_kb()
    kb.sources.add("handbook", {"type": "folder", "path": "docs"})
    [first] = kb.sources.sync()
    assert first.ok and first.count(JobStatus.READY) == 3
    assert {d.source for d in kb.documents()} == {"docs/alpha.md", "docs/beta.md", "docs/gamma.md"}  # as `bunko ingest` names them
    assert kb.ingest(tmp_path / "docs").count(JobStatus.SKIPPED) == 3  # and the two agree

    answer = kb.ask("年假申请需要提前几天提交？")
    assert any(c.source == "docs/gamma.md" for s in answer.sentences for c in s.citations)
    trace_id = answer.trace_id

    [again] = kb.sources.sync()
    assert again.count(JobStatus.SKIPPED) == 3 and again.count(JobStatus.READY) == 0 and again.deleted == []

    gamma_chunks = _chunk_ids(kb, "docs/gamma.md")
    assert set(kb.store.search().entity_graph().passages_of("leave-portal")) == set(gamma_chunks)  # in the graph until it is deleted
    (tmp_path / "docs" / "alpha.md").write_text("# Alpha\n\nThe quokkaline protocol uses port 9000.\n", encoding="utf-8")
    (tmp_path / "docs" / "gamma.md").unlink()
    (tmp_path / "docs" / "delta.md").write_text("# Delta\n\nThe marmoset relay restarts nightly.\n", encoding="utf-8")
    [changed] = kb.sources.sync()
    assert changed.ok
    assert sorted(j.source for j in changed.jobs if j.status == JobStatus.READY) == ["docs/alpha.md", "docs/delta.md"]
    assert changed.count(JobStatus.SKIPPED) == 1
    assert changed.deleted == ["docs/gamma.md"]
    gone(kb, "docs/gamma.md", "leave-portal", gamma_chunks)
    present(kb, "docs/alpha.md", "quokkaline")
    present(kb, "docs/delta.md", "marmoset")
    assert all("zebracorn" not in h.chunk.text for h in kb.search("zebracorn protocol", mode="dense", k=10))
    # the answer given before the deletion keeps its history: trace, question and citations
    kept = kb.trace(trace_id)
    assert kept is not None and "docs/gamma.md" in str(kept)
    assert {j.source for j in kb.jobs()} == {"docs/alpha.md", "docs/beta.md", "docs/delta.md"}  # one run, the same job records as ingest


def test_folder_source_reports_what_it_cannot_read_as_ingest_does(make_kb, tmp_path: Path) -> None:
    _write_folder(tmp_path / "docs")
    os.mkfifo(tmp_path / "docs" / "pipe.md")
    (tmp_path / "docs" / "empty.md").write_text("", encoding="utf-8")
    kb = make_kb()
    kb.sources.add("handbook", {"type": "folder", "path": "docs"})
    [report] = kb.sources.sync()
    assert sorted((j.source, j.error_code) for j in report.failed) == [
        ("docs/empty.md", ErrorCode.EMPTY), ("docs/pipe.md", ErrorCode.NOT_A_FILE)]
    assert report.count(JobStatus.READY) == 3


def test_a_source_whose_listing_fails_deletes_nothing(make_kb, tmp_path: Path) -> None:
    _write_folder(tmp_path / "docs")
    kb = make_kb()
    kb.sources.add("handbook", {"type": "folder", "path": "docs"})
    kb.sources.sync()
    (tmp_path / "docs").rename(tmp_path / "moved")  # the folder is unreachable, not empty
    [report] = kb.sources.sync()
    assert not report.ok and "is not a folder" in (report.error or "")
    assert len(kb.documents()) == 3


def test_removing_a_source_deletes_its_documents_unless_kept(make_kb, tmp_path: Path) -> None:
    _write_folder(tmp_path / "docs")
    kb = make_kb()
    kb.sources.add("handbook", {"type": "folder", "path": "docs"})
    kb.sources.sync()
    assert sorted(kb.sources.remove("handbook")) == ["docs/alpha.md", "docs/beta.md", "docs/gamma.md"]
    assert kb.documents() == [] and kb.sources.book.load() == {}
    kb.sources.add("handbook", {"type": "folder", "path": "docs"})
    kb.sources.sync()
    assert kb.sources.remove("handbook", keep_documents=True) == []
    assert len(kb.documents()) == 3


def test_credentials_are_refused_in_the_collection(make_kb, tmp_path: Path) -> None:
    kb = make_kb()
    with pytest.raises(BunkoError, match="password"):
        kb.sources.add("db", {"type": "sql", "url": "postgresql://reader:hunter2@db.example/kb", "table": "articles"})
    with pytest.raises(BunkoError, match="credential"):
        kb.sources.add("bucket", {"type": "s3", "bucket": "b", "aws_secret_access_key": "x"})
    with pytest.raises(BunkoError, match="inside the collection"):
        kb.sources.add("bucket", {"type": "s3", "bucket": "b", "secrets": str(kb.path / "s3.toml")})
    with pytest.raises(BunkoError, match="ref"):
        kb.sources.add("repo", {"type": "git", "repo": "x", "ref": "--upload-pack=evil"})
    assert not (kb.path / "sources.toml").exists()


# -- a Git repository ---------------------------------------------------------------------------------------

GIT_ENV = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_NOSYSTEM": "1", "HOME": "/nonexistent"}


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=GIT_ENV).stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    if subprocess.run(["git", "--version"], capture_output=True).returncode != 0:
        pytest.skip("git is not installed")
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    (repo / "docs").mkdir()
    (repo / "docs" / "alpha.md").write_text("# Alpha\n\nThe zebracorn protocol uses port 4711.\n", encoding="utf-8")
    (repo / "docs" / "beta.md").write_text("# ベータ\n\n経費の精算期限は三十日以内です。\n", encoding="utf-8")
    (repo / "README.md").write_text("# Outside\n\nThe pelican notes are outside docs.\n", encoding="utf-8")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "first")
    _git(repo, "tag", "v1")
    return repo


def test_git_source_reads_the_commit_a_ref_names(make_kb, repo: Path, present, gone) -> None:
    kb = make_kb()
    kb.sources.add("wiki", {"type": "git", "repo": str(repo), "ref": "main", "under": "docs"})
    kb.sources.add("pinned", {"type": "git", "repo": str(repo), "ref": "v1", "under": "docs"})
    first = kb.sources.sync()
    assert all(r.ok for r in first) and [r.count(JobStatus.READY) for r in first] == [2, 2]
    assert first[0].detail["commit"] == _git(repo, "rev-parse", "main")
    assert {d.source for d in kb.documents()} == {"wiki:docs/alpha.md", "wiki:docs/beta.md", "pinned:docs/alpha.md", "pinned:docs/beta.md"}

    beta_chunks = _chunk_ids(kb, "wiki:docs/beta.md")
    (repo / "docs" / "alpha.md").write_text("# Alpha\n\nThe quokkaline protocol uses port 9000.\n", encoding="utf-8")
    _git(repo, "rm", "-q", "docs/beta.md")
    (repo / "docs" / "gamma.md").write_text("# 伽马\n\n年假申请需要提前五天提交。\n", encoding="utf-8")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "second")
    (repo / "docs" / "alpha.md").write_text("# Alpha\n\nThe uncommitted ocelot edit.\n", encoding="utf-8")  # not in any commit

    wiki, pinned = kb.sources.sync()
    assert wiki.ok and sorted(j.source for j in wiki.jobs if j.status == JobStatus.READY) == ["wiki:docs/alpha.md", "wiki:docs/gamma.md"]
    assert wiki.deleted == ["wiki:docs/beta.md"]
    gone(kb, "wiki:docs/beta.md", "精算期限", beta_chunks)
    present(kb, "wiki:docs/alpha.md", "quokkaline")
    present(kb, "wiki:docs/gamma.md", "年假申请")
    assert kb.search("ocelot", mode="keyword") == []
    assert pinned.count(JobStatus.SKIPPED) == 2 and pinned.deleted == []  # v1 did not move
    present(kb, "pinned:docs/beta.md", "精算期限")


def test_git_source_mirrors_a_repository_url(make_kb, repo: Path, present) -> None:
    kb = make_kb()
    kb.sources.add("remote", {"type": "git", "repo": f"file://{repo}", "ref": "main", "include": ["*.md"]})
    [first] = kb.sources.sync()
    assert first.ok and {d.source for d in kb.documents()} == {"remote:README.md", "remote:docs/alpha.md", "remote:docs/beta.md"}
    assert (kb.path / "cache" / "git" / "remote.git" / "HEAD").exists()
    (repo / "README.md").write_text("# Outside\n\nThe heron notes replaced the pelican.\n", encoding="utf-8")
    _git(repo, "commit", "-q", "-am", "third")
    [second] = kb.sources.sync()
    assert [j.source for j in second.jobs if j.status == JobStatus.READY] == ["remote:README.md"]
    present(kb, "remote:README.md", "heron")


def test_git_source_with_an_unknown_ref_fails_without_deleting(make_kb, repo: Path) -> None:
    kb = make_kb()
    kb.sources.add("wiki", {"type": "git", "repo": str(repo), "ref": "main", "under": "docs"})
    kb.sources.sync()
    kb.sources.add("wiki", {"type": "git", "repo": str(repo), "ref": "no-such-branch", "under": "docs"}, replace=True)
    [report] = kb.sources.sync()
    assert not report.ok and "names no commit" in (report.error or "")
    assert len(kb.documents()) == 2


# -- SQL ----------------------------------------------------------------------------------------------------

def _database(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE articles (id INTEGER PRIMARY KEY, title TEXT, body TEXT, team TEXT)")
        db.executemany("INSERT INTO articles VALUES (?, ?, ?, ?)", [
            (1, "Zebracorn", "The zebracorn protocol uses port 4711.", "infra"),
            (2, "経費", "経費の精算期限は三十日以内です。", "finance"),
            (3, "年假", "年假申请需要提前五天提交。", "hr"),
        ])


def test_sql_source_one_document_per_row(make_kb, tmp_path: Path, present, gone) -> None:
    _database(tmp_path / "kb.db")
    kb = make_kb()
    kb.sources.add("articles", {"type": "sql", "url": "sqlite:///kb.db", "table": "articles", "title_column": "title",
                               "field_columns": ["team"]})
    [first] = kb.sources.sync()
    assert first.ok and first.count(JobStatus.READY) == 3
    titles = {d.source: d.title for d in kb.documents()}
    assert titles == {"articles:1": "Zebracorn", "articles:2": "経費", "articles:3": "年假"}
    assert [h.chunk.source for h in kb.search("zebracorn", filters={"team": "infra"}, mode="keyword")] == ["articles:1"]
    assert kb.search("zebracorn", filters={"team": "hr"}, mode="keyword") == []

    hr_chunks = _chunk_ids(kb, "articles:3")
    with sqlite3.connect(tmp_path / "kb.db") as db:
        db.execute("UPDATE articles SET body = 'The quokkaline protocol uses port 9000.' WHERE id = 1")
        db.execute("DELETE FROM articles WHERE id = 3")
        db.execute("INSERT INTO articles VALUES (4, 'Marmoset', 'The marmoset relay restarts nightly.', 'infra')")
    [second] = kb.sources.sync()
    assert sorted(j.source for j in second.jobs if j.status == JobStatus.READY) == ["articles:1", "articles:4"]
    assert second.count(JobStatus.SKIPPED) == 1 and second.deleted == ["articles:3"]
    gone(kb, "articles:3", "年假申请", hr_chunks)
    present(kb, "articles:1", "quokkaline")
    assert kb.search("zebracorn", mode="keyword") == []


def test_sql_source_one_document_per_group_of_rows(make_kb, tmp_path: Path, present) -> None:
    _database(tmp_path / "kb.db")
    with sqlite3.connect(tmp_path / "kb.db") as db:
        db.execute("INSERT INTO articles VALUES (4, 'Marmoset', 'The marmoset relay restarts nightly.', 'infra')")
    kb = make_kb()
    kb.sources.add("teams", {"type": "sql", "url": f"sqlite:///{tmp_path / 'kb.db'}", "query": "SELECT team, title, body FROM articles ORDER BY id",
                            "group_by": "team", "title_column": "title"})
    [report] = kb.sources.sync()
    assert report.ok and {d.source for d in kb.documents()} == {"teams:infra", "teams:finance", "teams:hr"}
    present(kb, "teams:infra", "zebracorn")
    present(kb, "teams:infra", "marmoset")
    assert [e.section_path for e in kb.elements("teams:infra") if "marmoset" in e.text] == [["Marmoset"]]


def test_sql_source_refuses_a_duplicate_id(make_kb, tmp_path: Path) -> None:
    _database(tmp_path / "kb.db")
    kb = make_kb()
    kb.sources.add("teams", {"type": "sql", "url": "sqlite:///kb.db", "query": "SELECT team, body FROM articles UNION ALL SELECT 'hr', 'x'",
                            "id_column": "team"})
    [report] = kb.sources.sync()
    assert not report.ok and "2 rows have team = 'hr'" in (report.error or "")


# -- a website ----------------------------------------------------------------------------------------------

class Site:
    """A local http.server whose pages the test edits; it records every path requested."""

    def __init__(self) -> None:
        self.pages: dict[str, tuple[int, str, str]] = {}
        self.requested: list[str] = []
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                site.requested.append(self.path)
                status, kind, body = site.pages.get(self.path, (404, "text/plain", "not found"))
                data = body.encode("utf-8")
                self.send_response(status)
                if status in (301, 302):
                    self.send_header("Location", body)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def html(self, path: str, title: str, text: str, links: tuple[str, ...] = (), head: str = "") -> None:
        anchors = "".join(f'<a href="{link}">{link}</a> ' for link in links)
        body = f"<html><head><title>{title}</title>{head}</head><body><h1>{title}</h1><p>{text}</p><p>{anchors}</p></body></html>"
        self.pages[path] = (200, "text/html; charset=utf-8", body)


@pytest.fixture
def site() -> Iterator[Site]:
    site = Site()
    site.pages["/robots.txt"] = (200, "text/plain", "User-agent: *\nDisallow: /docs/private/\n")
    site.html("/docs/index.html", "Index", "The handbook index lists every page.",
              ("a.html", "b.html", "private/secret.html", "/outside.html", "noindex.html", "old.html#top"))
    site.html("/docs/a.html", "Alpha", "The zebracorn protocol uses port 4711.", ("notes.txt",))
    site.html("/docs/b.html", "ベータ", "経費の精算期限は三十日以内です。")
    site.pages["/docs/notes.txt"] = (200, "text/plain; charset=utf-8", "年假申请需要提前五天提交。")
    site.html("/docs/private/secret.html", "Secret", "The okapiword is private.")
    site.html("/outside.html", "Outside", "The outsideword page is outside the prefix.")
    site.html("/docs/noindex.html", "Hidden", "The lemurword page asks not to be indexed.", ("c.html",),
              head='<meta name="robots" content="noindex">')
    site.html("/docs/c.html", "Gamma", "The marmoset relay restarts nightly.")
    site.pages["/docs/old.html"] = (301, "text/html", "/docs/c.html")
    yield site
    site.server.shutdown()
    site.server.server_close()


def test_web_source_crawls_within_the_prefix_as_robots_txt_allows(make_kb, site: Site, present, gone) -> None:
    kb = make_kb()
    kb.sources.add("site", {"type": "web", "url": f"{site.url}/docs/index.html"})
    [first] = kb.sources.sync()
    assert first.ok and first.complete
    assert {d.source for d in kb.documents()} == {
        "site:/docs/index.html", "site:/docs/a.html", "site:/docs/b.html", "site:/docs/notes.txt", "site:/docs/c.html"}
    assert site.requested[0] == "/robots.txt"
    assert "/docs/private/secret.html" not in site.requested and "/outside.html" not in site.requested
    assert "/docs/noindex.html" in site.requested and kb.search("lemurword", mode="keyword") == []  # read for its links, not indexed
    assert site.requested.count("/docs/c.html") == 1  # reached by a link and by a redirect, read once
    present(kb, "site:/docs/notes.txt", "年假申请")

    b_chunks = _chunk_ids(kb, "site:/docs/b.html")
    site.html("/docs/a.html", "Alpha", "The quokkaline protocol uses port 9000.", ("notes.txt",))
    del site.pages["/docs/b.html"]
    [second] = kb.sources.sync()
    assert second.ok and second.complete
    assert [j.source for j in second.jobs if j.status == JobStatus.READY] == ["site:/docs/a.html"]
    assert second.deleted == ["site:/docs/b.html"]
    gone(kb, "site:/docs/b.html", "精算期限", b_chunks)
    present(kb, "site:/docs/a.html", "quokkaline")

    site.pages["/docs/c.html"] = (500, "text/plain", "down")
    del site.pages["/docs/a.html"]
    [third] = kb.sources.sync()
    assert not third.complete and any("HTTP 500" in p for p in third.problems)
    assert third.deleted == [] and "site:/docs/a.html" in {d.source for d in kb.documents()}


def test_web_source_stops_when_robots_txt_cannot_be_read(make_kb, site: Site) -> None:
    site.pages["/robots.txt"] = (503, "text/plain", "busy")
    kb = make_kb()
    kb.sources.add("site", {"type": "web", "url": f"{site.url}/docs/index.html"})
    [report] = kb.sources.sync()
    assert not report.ok and "robots.txt" in (report.error or "")
    assert site.requested == ["/robots.txt"]


def test_web_source_obeys_robots_txt_for_its_user_agent(make_kb, site: Site) -> None:
    site.pages["/robots.txt"] = (200, "text/plain", "User-agent: bunko\nDisallow: /docs/b.html\n\nUser-agent: *\nDisallow: /\n")
    kb = make_kb()
    kb.sources.add("site", {"type": "web", "url": f"{site.url}/docs/index.html", "max_pages": 3})
    [report] = kb.sources.sync()
    assert "/docs/b.html" not in site.requested
    assert not report.complete and any("max_pages" in p for p in report.problems)
    assert len([p for p in site.requested if p != "/robots.txt"]) == 3


def _link_index(site: Site, path: str, links: tuple[str, ...]) -> None:
    """A site index as generators write one: a title and a list of links, no text of its own."""
    items = "".join(f'<li><a href="{link}">{link}</a></li>' for link in links)
    site.pages[path] = (200, "text/html; charset=utf-8", f"<html><head><title>Site index</title></head><body><ul>{items}</ul></body></html>")


def test_a_start_page_of_links_only_is_a_crawl_node_not_a_failure(make_kb, site: Site, tmp_path: Path, monkeypatch) -> None:
    from typer.testing import CliRunner

    from bunko.cli import app

    _link_index(site, "/docs/index.html", ("a.html", "b.html", "zh.html"))
    site.html("/docs/zh.html", "休假", "员工每年享有年假十天。")
    kb = make_kb()
    kb.sources.add("site", {"type": "web", "url": f"{site.url}/docs/index.html"})
    [report] = kb.sources.sync()
    assert report.ok and report.complete and not report.failed, report.to_dict()
    assert {d.source for d in kb.documents()} == {"site:/docs/a.html", "site:/docs/b.html", "site:/docs/zh.html", "site:/docs/notes.txt"}
    assert report.detail["crawl_nodes"] == ["/docs/index.html"]
    path = kb.path
    kb.close()

    monkeypatch.chdir(tmp_path)
    site.html("/docs/b.html", "ベータ", "経費の精算期限は三十日以内です。", ("a.html",))  # unchanged text, a new link
    result = CliRunner().invoke(app, ["sync", "-c", str(path)])
    assert result.exit_code == 0, result.output
    assert "1 page(s) of links only followed, not indexed" in result.stdout

    _link_index(site, "/docs/a.html", ("b.html", "notes.txt"))  # a document that became a page of links: its document goes
    result = CliRunner().invoke(app, ["sync", "-c", str(path), "--json"])
    assert result.exit_code == 0, result.output
    [synced] = json.loads(result.stdout)
    assert synced["deleted"] == ["site:/docs/a.html"] and sorted(synced["detail"]["crawl_nodes"]) == ["/docs/a.html", "/docs/index.html"]


def test_an_empty_page_without_links_still_fails(make_kb, site: Site) -> None:
    """Only links make a page a crawl node: a page with nothing at all is a document that failed, as before."""
    site.html("/docs/index.html", "Index", "The handbook index lists every page.", ("blank.html",))
    site.pages["/docs/blank.html"] = (200, "text/html; charset=utf-8", "<html><head><title>Blank</title></head><body></body></html>")
    kb = make_kb()
    kb.sources.add("site", {"type": "web", "url": f"{site.url}/docs/index.html"})
    [report] = kb.sources.sync()
    assert [(j.source, j.error_code) for j in report.failed] == [("site:/docs/blank.html", "EMPTY")]


# -- S3 on moto's server ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    pytest.importorskip("boto3")
    server_module = pytest.importorskip("moto.server")
    server = server_module.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


@pytest.fixture
def s3(s3_endpoint: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    import uuid

    import boto3

    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_DEFAULT_REGION"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-credentials"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    client = boto3.client("s3", endpoint_url=s3_endpoint, region_name="us-east-1", aws_access_key_id="admin", aws_secret_access_key="admin")
    bucket = "team-" + uuid.uuid4().hex[:8]
    client.create_bucket(Bucket=bucket)
    client.put_object(Bucket=bucket, Key="handbook/alpha.md", Body=b"# Alpha\n\nThe zebracorn protocol uses port 4711.\n")
    client.put_object(Bucket=bucket, Key="handbook/ja/beta.md", Body="# ベータ\n\n経費の精算期限は三十日以内です。\n".encode())
    client.put_object(Bucket=bucket, Key="handbook/", Body=b"")
    client.put_object(Bucket=bucket, Key="other/gamma.md", Body=b"# Gamma\n\nThe okapiword lives elsewhere.\n")
    return client, bucket


def test_s3_source_syncs_a_prefix_with_credentials_from_the_environment(make_kb, s3, s3_endpoint, monkeypatch, present, gone) -> None:
    client, bucket = s3
    kb = make_kb()
    kb.sources.add("bucket", {"type": "s3", "bucket": bucket, "prefix": "handbook/", "endpoint_url": s3_endpoint})
    [unauthorised] = kb.sources.sync()  # no credentials anywhere: the listing fails, nothing happens
    assert not unauthorised.ok and "cannot list" in (unauthorised.error or "")

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "env-key")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "env-secret")
    [first] = kb.sources.sync()
    assert first.ok and {d.source for d in kb.documents()} == {"bucket:handbook/alpha.md", "bucket:handbook/ja/beta.md"}

    beta_chunks = _chunk_ids(kb, "bucket:handbook/ja/beta.md")
    client.put_object(Bucket=bucket, Key="handbook/alpha.md", Body=b"# Alpha\n\nThe quokkaline protocol uses port 9000.\n")
    client.delete_object(Bucket=bucket, Key="handbook/ja/beta.md")
    client.put_object(Bucket=bucket, Key="handbook/zh/gamma.txt", Body="年假申请需要提前五天提交。\n".encode())
    [second] = kb.sources.sync()
    assert sorted(j.source for j in second.jobs if j.status == JobStatus.READY) == ["bucket:handbook/alpha.md", "bucket:handbook/zh/gamma.txt"]
    assert second.deleted == ["bucket:handbook/ja/beta.md"]
    gone(kb, "bucket:handbook/ja/beta.md", "精算期限", beta_chunks)
    present(kb, "bucket:handbook/zh/gamma.txt", "年假申请")

    [third] = kb.sources.sync()
    assert third.count(JobStatus.SKIPPED) == 2 and third.count(JobStatus.READY) == 0


def test_s3_source_reads_credentials_from_its_secrets_file(make_kb, s3, s3_endpoint, tmp_path: Path) -> None:
    _, bucket = s3
    secrets = tmp_path / "secrets" / "s3.toml"
    secrets.parent.mkdir()
    secrets.write_text('aws_access_key_id = "file-key"\naws_secret_access_key = "file-secret"\n', encoding="utf-8")
    kb = make_kb()
    kb.sources.add("bucket", {"type": "s3", "bucket": bucket, "prefix": "handbook/", "endpoint_url": s3_endpoint, "secrets": str(secrets)})
    [report] = kb.sources.sync()
    assert report.ok and report.count(JobStatus.READY) == 2
    stored = (kb.path / "sources.toml").read_text(encoding="utf-8")
    assert "file-secret" not in stored and str(secrets) in stored


def test_s3_source_object_over_the_size_limit_fails_alone(make_kb, s3, s3_endpoint, monkeypatch) -> None:
    client, bucket = s3
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "k")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "s")
    client.put_object(Bucket=bucket, Key="handbook/big.txt", Body=b"word " * 300_000)
    kb = make_kb()
    kb.config.ingest.max_file_mb = 1.0
    kb.sources.add("bucket", {"type": "s3", "bucket": bucket, "prefix": "handbook/", "endpoint_url": s3_endpoint})
    [report] = kb.sources.sync()
    assert [(j.source, j.error_code) for j in report.failed] == [("bucket:handbook/big.txt", ErrorCode.TOO_LARGE)]
    assert report.count(JobStatus.READY) == 2
