"""Test harness: a real bunko server on a loopback port (uvicorn in a thread, or `bunko serve` as its own process
for kill -9), upload and job helpers, documents."""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from bunko.server.app import create_app
from bunko.server.collection import ServedCollection
from waiting import wait_until

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

    def started() -> bool:
        assert thread.is_alive(), "the server thread ended before it started serving"
        return bool(server.started)

    wait_until(started, timeout=60, message="the server did not start")
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
    seen: list[list[dict[str, Any]]] = [[]]

    def finished() -> bool:
        seen[0] = [client.get(f"/api/collections/{collection}/jobs/{j}").json() for j in job_ids]
        return all(j["status"] in TERMINAL for j in seen[0])

    wait_until(finished, timeout=timeout, message=lambda: f"jobs still running: {seen[0]}")
    return seen[0]


def upload(client: httpx.Client, collection: str, files: dict[str, bytes | str], groups: str | None = None) -> httpx.Response:
    parts = [("files", (name, body.encode() if isinstance(body, str) else body, "application/octet-stream")) for name, body in files.items()]
    return client.post(f"/api/collections/{collection}/documents", files=parts, data={"groups": groups} if groups else None)


CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"]


BROWSER_WAIT_MS = 45_000
"""How long a browser test waits for what the page should come to show."""


@contextmanager
def chromium_page(locale: str = "ja-JP") -> Iterator[Any]:
    """A Playwright page in Debian's chromium; a JavaScript error on the page fails the test that used it.

    Waits are long (Playwright's `expect` waits 5 s by default): on a loaded 2-core CI machine a page image rendered by
    the server, or an answer, can take longer than that while nothing is wrong. A check that is wrong still fails."""
    sync_api = pytest.importorskip("playwright.sync_api")
    sync_api.expect.set_options(timeout=BROWSER_WAIT_MS)
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(locale=locale)
        page.set_default_timeout(BROWSER_WAIT_MS)
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        yield page
        browser.close()
        assert not errors, errors


def sign_in(page: Any, live: Live, who: str = "web", role: str = "reader") -> None:
    """Open the web page of `live` and use `who`'s key, as a user does: the page then says whom it signed in."""
    from playwright.sync_api import expect

    page.goto(live.url + "/")
    page.get_by_label("API key").fill(live.keys[who])
    page.get_by_role("button", name="Use key").click()
    expect(page.locator("#whoami")).to_contain_text(f"Signed in as {who} ({role}")


class ServerProcess:
    """`python -m bunko serve` over one collection, as its own process: started, killed with SIGKILL, restarted."""

    def __init__(self, collection: Path, name: str = "kb", log: Path | None = None, port: int | None = None) -> None:
        self.collection = collection
        self.name = name
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log or collection.parent / f"serve-{name}.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 180.0) -> None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in [str(Path(__file__).resolve().parents[2] / "src"), os.environ.get("PYTHONPATH", "")] if p)}
        with self.log.open("ab") as handle:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "bunko", "serve", "-c", f"{self.name}={self.collection}", "--port", str(self.port)],
                stdout=handle, stderr=subprocess.STDOUT, env=env,
            )
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited: {self.log.read_text(errors='replace')[-3000:]}")
            try:
                if httpx.get(f"{self.url}/health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                self.kill()
                raise RuntimeError(f"the server did not answer in {timeout:.0f} s")
            time.sleep(0.1)

    def kill(self) -> None:
        """SIGKILL: no shutdown handler runs, as when the machine or the OOM killer stops it."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(30)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                self.kill()

    def client(self, timeout: float = 60.0) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=timeout)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


HOSTILE = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
"""A binary file named .md: its job must end FAILED with UNSUPPORTED_FORMAT, also after a restart."""


@dataclass
class CrashRound:
    uploads: int = 0
    accepted: dict[str, str] = field(default_factory=dict)
    """job id → file name, for every upload answered 202 before the kill."""
    outcomes: dict[str, dict[str, Any]] = field(default_factory=dict)
    kill_delay: float = 0.0
    """Seconds between the kill_after-th 202 and the SIGKILL."""
    accepted_at_kill: int = 0
    in_flight_at_kill: str = ""
    recovery_s: float = 0.0

    def problems(self) -> list[str]:
        """Every accepted upload that did not end READY, or FAILED with a code."""
        bad = []
        for job_id, name in self.accepted.items():
            job = self.outcomes.get(job_id)
            if job is None:
                bad.append(f"{name}: job {job_id} is gone")
            elif job["status"] == "FAILED" and not job.get("error_code"):
                bad.append(f"{name}: FAILED without a code")
            elif job["status"] not in ("READY", "FAILED"):
                bad.append(f"{name}: {job['status']}")
            elif name.startswith("hostile") and job.get("error_code") != "UNSUPPORTED_FORMAT":
                bad.append(f"{name}: {job['status']} {job.get('error_code')} (expected FAILED UNSUPPORTED_FORMAT)")
        return bad


def crash_round(server: ServerProcess, label: str, rng: random.Random, uploads: int = 30, clients: int = 3) -> CrashRound:
    """Start the server, send `uploads` one-file uploads from `clients` threads, SIGKILL it after a random number of
    them were answered 202 (and a random moment later, often mid-ingest), restart it, and wait for every accepted job."""
    result = CrashRound(uploads=uploads)
    server.start()
    kill_after = rng.randint(uploads // 6, uploads - uploads // 6)
    kill_delay = rng.choice([0.0, rng.uniform(0.0, 1.5)])  # at once: uploads still arriving; later: often mid-ingest
    result.kill_delay = kill_delay
    files = []
    for i in range(uploads):
        if i % 15 == 7:
            files.append((f"hostile-{label}-{i}.md", HOSTILE))
        else:
            section = (
                f"# 規程 {label}-{i}\n\n第{i}条 申請は{i + 3}日前までに行う。合言葉は CODE-{label}-{i} である。\n\n"
                f"## Rule {i}\n\nRequests are filed {i + 3} days ahead; the passphrase is CODE-{label}-{i}.\n\n"
            )
            text = section * (1 + i % 3)
            files.append((f"rule-{label}-{i}.md", text.encode()))
    lock = threading.Lock()
    enough = threading.Event()
    dead = threading.Event()
    queue = list(files)

    def client() -> None:
        with server.client(timeout=30) as http:
            while not dead.is_set():
                with lock:
                    if not queue:
                        return
                    name, body = queue.pop(0)
                try:
                    response = http.post(f"/api/collections/{server.name}/documents", files=[("files", (name, body, "text/markdown"))])
                except httpx.HTTPError:
                    return  # the server is gone
                time.sleep(0.02)  # a client's pace: the kill often lands while uploads still arrive
                if response.status_code == 202:
                    with lock:
                        for job in response.json()["jobs"]:
                            result.accepted[job["job_id"]] = name
                        if len(result.accepted) >= kill_after:
                            enough.set()

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for thread in threads:
        thread.start()
    enough.wait(120)
    time.sleep(kill_delay)  # the behaviour under test: a random moment after the kill_after-th 202, often mid-ingest
    with contextlib.suppress(Exception):  # a best-effort look: the server may be too busy to answer in time
        jobs = httpx.get(f"{server.url}/api/collections/{server.name}/jobs", params={"limit": 200}, timeout=2).json()["jobs"]
        result.in_flight_at_kill = ",".join(j["status"] for j in jobs if j["status"] not in ("READY", "FAILED", "SKIPPED", "PENDING"))
    server.kill()
    dead.set()
    for thread in threads:
        thread.join(60)
    with lock:
        result.accepted_at_kill = len(result.accepted)
    started = time.monotonic()
    server.start()
    with server.client() as http:
        deadline = time.monotonic() + 300
        pending = dict(result.accepted)
        while pending and time.monotonic() < deadline:
            for job_id in list(pending):
                response = http.get(f"/api/collections/{server.name}/jobs/{job_id}")
                if response.status_code == 404:
                    pending.pop(job_id)  # reported as gone by problems()
                    continue
                job = response.json()
                if job["status"] in TERMINAL:
                    result.outcomes[job_id] = job
                    pending.pop(job_id)
            time.sleep(0.2)
        for job_id in pending:
            result.outcomes[job_id] = http.get(f"/api/collections/{server.name}/jobs/{job_id}").json()
    result.recovery_s = time.monotonic() - started
    server.stop()
    return result


Get = Callable[..., httpx.Response]
"""get(key name or None, path under /api/collections/kb, **query parameters): what the `get` fixture returns."""
GroupKeys = dict[str, str]
"""Key name → secret: "reader" (unrestricted), "hr" and "finance" (readers restricted to their group)."""


@contextmanager
def served_with_group_keys(kb: Any) -> Iterator[tuple[ServedCollection, GroupKeys]]:
    """The collection served as "kb" with a reader key and one reader key per group; closes both after."""
    collection = ServedCollection("kb", kb)
    keys = {
        "reader": collection.keys.create("reader", "reader"),
        "hr": collection.keys.create("hr", "reader", ("hr",)),
        "finance": collection.keys.create("finance", "reader", ("finance",)),
    }
    try:
        yield collection, keys
    finally:
        collection.keys.close()
        kb.close()


def sse_events(text: str) -> list[tuple[str, Any]]:
    """A server-sent event stream's (event, data) pairs, in order."""
    events = []
    for frame in text.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in frame.splitlines())
        events.append((lines["event"], json.loads(lines["data"])))
    return events
