"""Fixtures: fresh served collections, and one session server with access groups and keys for the ACL tests."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from server_harness import BUDGET_FINANCE, PARTY_SHARED, SALARY_HR, Get, Live, chromium_page, running, upload, wait_jobs

from bunko import Bunko
from bunko.embed.use_m3 import UseM3Embedder
from bunko.server.app import create_app
from bunko.server.collection import ServedCollection


@pytest.fixture
def served_factory(tmp_path: Path, embedder: UseM3Embedder) -> Callable[..., ServedCollection]:
    """A fresh served collection under tmp_path sharing the session's embedder: served_factory(name, **options)."""

    def factory(name: str = "kb", max_upload_mb: float | None = None) -> ServedCollection:
        return ServedCollection(name, Bunko(tmp_path / name, embedder=embedder), max_upload_mb)

    return factory


@pytest.fixture(scope="session")
def acl_live(tmp_path_factory: pytest.TempPathFactory, embedder: UseM3Embedder, samples_dir: Path) -> Iterator[Live]:
    """Collection "corp": the samples (no groups), an hr document, a finance one (uploaded), one for both; plus "other".

    Keys on corp: admin, hr_editor, hr_reader, fin_reader, all_reader (unrestricted reader), multi (hr+finance).
    """
    root = tmp_path_factory.mktemp("acl")
    docs = root / "group-docs"  # not "docs": the samples folder, from outside the root, is named docs/…
    docs.mkdir()
    (docs / "salary-hr.md").write_text(SALARY_HR, encoding="utf-8")
    (docs / "party-shared.md").write_text(PARTY_SHARED, encoding="utf-8")
    corp = Bunko(root / "corp", embedder=embedder)
    assert corp.ingest([samples_dir]).ok
    assert corp.ingest([docs / "salary-hr.md"], fields={"groups": ["hr"]}).ok
    assert corp.ingest([docs / "party-shared.md"], fields={"groups": ["hr", "finance"]}).ok
    other = Bunko(root / "other", embedder=embedder)
    assert other.ingest([docs / "party-shared.md"]).ok
    served = [ServedCollection("corp", corp), ServedCollection("other", other)]
    keys = {
        "admin": served[0].keys.create("admin", "admin"),
        "hr_editor": served[0].keys.create("hr_editor", "editor", ("hr",)),
        "hr_reader": served[0].keys.create("hr_reader", "reader", ("hr",)),
        "fin_reader": served[0].keys.create("fin_reader", "reader", ("finance",)),
        "all_reader": served[0].keys.create("all_reader", "reader", None),
        "multi": served[0].keys.create("multi", "reader", ("finance", "hr")),
        "other_admin": served[1].keys.create("other_admin", "admin"),
    }
    with running(served) as live:
        live.keys = keys
        with live.client("admin") as admin:
            response = upload(admin, "corp", {"budget-fin.md": BUDGET_FINANCE}, groups="finance")
            assert response.status_code == 202, response.text
            jobs = wait_jobs(admin, "corp", [j["job_id"] for j in response.json()["jobs"]])
            assert jobs[0]["status"] == "READY", jobs
        yield live


@pytest.fixture
def reader_live(served_factory: Callable[..., ServedCollection], tmp_path: Path) -> Iterator[Callable[..., Live]]:
    """A real server of a fresh collection with one reader key, "web": reader_live(name, documents), where documents
    are files to ingest or {file name: text} written to tmp_path/docs and ingested as that folder. The browser tests'
    `live` is one of these; the server stops when the test ends."""
    with ExitStack() as stack:

        def serve(name: str, documents: Mapping[str, str] | Sequence[Path]) -> Live:
            served = served_factory(name)
            if isinstance(documents, Mapping):
                folder = tmp_path / "docs"
                folder.mkdir(exist_ok=True)
                for file_name, text in documents.items():
                    (folder / file_name).write_text(text, encoding="utf-8")
                documents = [folder]
            assert served.kb.ingest(list(documents)).ok
            key = served.keys.create("web", "reader")
            server = stack.enter_context(running([served]))
            server.keys = {"web": key}
            return server

        yield serve


@pytest.fixture
def page(live: Live) -> Iterator[object]:
    """A chromium page for the browser tests; `live` is each test module's own running server."""
    with chromium_page() as opened:
        yield opened


@pytest.fixture(scope="module")
def app_client(served: tuple[ServedCollection, dict[str, str]]) -> TestClient:
    """An in-process client of the module's `served` collection (its own fixture: documents, groups, keys)."""
    # TestClient's default host, "testserver", is no name this server answers to (see server/browser.py)
    return TestClient(create_app([served[0]], start_workers=False), base_url="http://localhost")


@pytest.fixture
def get(app_client: TestClient, served: tuple[ServedCollection, dict[str, str]]) -> Get:
    def request(who: str | None, path: str, **params: object) -> httpx.Response:
        headers = {"Authorization": f"Bearer {served[1][who]}"} if who else {}
        return app_client.get("/api/collections/kb" + path, params=params, headers=headers)

    return request


@pytest.fixture(scope="session")
def samples_live(tmp_path_factory: pytest.TempPathFactory, embedder: UseM3Embedder, samples_dir: Path) -> Iterator[Live]:
    """The samples served as "handbook" by a real server, with one reader key, "app"."""
    kb = Bunko(tmp_path_factory.mktemp("handbook") / "handbook", embedder=embedder)
    assert kb.ingest([samples_dir]).ok
    served = ServedCollection("handbook", kb)
    key = served.keys.create("app", "reader")
    with running([served]) as live:
        live.keys = {"app": key}
        yield live
