"""Test harness: a real bunko server on a loopback port (uvicorn in a thread), upload and job helpers, documents."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from bunko.server.app import create_app
from bunko.server.collection import ServedCollection

TERMINAL = {"READY", "SKIPPED", "FAILED"}

SALARY_HR = """# 役員報酬規程

役員報酬の上限は月額300万円とする。合言葉は ZEBRA-7731 である。

## Executive pay

The executive pay cap is 3 million yen per month. The passphrase is ZEBRA-7731.
"""

BUDGET_FINANCE = """# 予算計画

来期の研究開発予算は8億円である。予算コードは PELICAN-4410 である。

## R&D budget

The research and development budget for next year is 800 million yen. The budget code is PELICAN-4410.
"""

PARTY_SHARED = """# 社内行事

忘年会は12月20日に開催する。受付の合言葉は OTTER-2288 である。
"""


@dataclass
class Live:
    url: str
    collections: dict[str, ServedCollection]
    keys: dict[str, str] = field(default_factory=dict)

    def client(self, key: str | None = None, timeout: float = 60.0) -> httpx.Client:
        headers = {"Authorization": f"Bearer {self.keys.get(key, key)}"} if key else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=timeout)

    def api(self, collection: str, path: str = "") -> str:
        return f"/api/collections/{collection}{path}"


@contextmanager
def running(collections: list[ServedCollection], **options: Any) -> Iterator[Live]:
    """Serve these collections on 127.0.0.1:<free port> until the block ends; close them afterwards."""
    app = create_app(collections, **options)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=10))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    try:
        yield Live(f"http://127.0.0.1:{sock.getsockname()[1]}", {c.name: c for c in collections})
    finally:
        server.should_exit = True
        thread.join(30)
        sock.close()
        for served in collections:
            served.kb.close()


def wait_jobs(client: httpx.Client, collection: str, job_ids: list[str], timeout: float = 120.0) -> list[dict[str, Any]]:
    """Poll upload jobs until every one is READY, SKIPPED or FAILED."""
    deadline = time.monotonic() + timeout
    while True:
        jobs = [client.get(f"/api/collections/{collection}/jobs/{j}").json() for j in job_ids]
        if all(j["status"] in TERMINAL for j in jobs):
            return jobs
        assert time.monotonic() < deadline, f"jobs still running: {jobs}"
        time.sleep(0.1)


def upload(client: httpx.Client, collection: str, files: dict[str, bytes | str], groups: str | None = None) -> httpx.Response:
    parts = [("files", (name, body.encode() if isinstance(body, str) else body, "application/octet-stream")) for name, body in files.items()]
    return client.post(f"/api/collections/{collection}/documents", files=parts, data={"groups": groups} if groups else None)


CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"]


@contextmanager
def chromium_page(locale: str = "ja-JP") -> Iterator[Any]:
    """A Playwright page in Debian's chromium; a JavaScript error on the page fails the test that used it."""
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(locale=locale)
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        yield page
        browser.close()
        assert not errors, errors
