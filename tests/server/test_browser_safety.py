"""A local server web pages cannot use: foreign Host and Origin refused against the real server, stalled bodies cut.

The server of these tests runs uvicorn on a loopback socket (server_harness.running); the requests are real
HTTP, and one test drives headless Chromium on a page of another origin that tries to upload a file.
"""

from __future__ import annotations

import asyncio
import http.server
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from server_harness import CHROMIUM, Live, chromium_page, running, upload, wait_jobs

from bunko import Bunko, Config, ConfigError
from bunko.embed.use_m3 import UseM3Embedder
from bunko.server.browser import BrowserPolicy, normalize_origin, split_host
from bunko.server.collection import ServedCollection
from bunko.server.metrics import Metrics
from bunko.server.middleware import LimitAndMeasure
from bunko.server.serve import check_exposure, is_loopback
from system_packages import missing
from waiting import wait_until

NOTE = "# Note\n\nThe cafeteria opens at 8am.\n"


@pytest.fixture
def live(served_factory: Callable[..., ServedCollection]) -> Iterator[Live]:
    """One collection without keys (anonymous admin on loopback): the case a web page could abuse."""
    with running([served_factory("kb")]) as server:
        yield server


def _port(live: Live) -> int:
    return int(live.url.rsplit(":", 1)[1])


def _documents(live: Live) -> list[str]:
    with live.client() as client:
        return [d["source"] for d in client.get(live.api("kb", "/documents")).json()["documents"]]


def test_a_foreign_host_is_refused_whatever_the_method(live: Live) -> None:
    """DNS rebinding: attacker.example re-resolved to 127.0.0.1 reaches the port, naming itself in Host."""
    port = _port(live)
    with live.client() as client:
        for host in (f"attacker.example:{port}", "attacker.example", f"127.0.0.1.nip.io:{port}", f"localhost.attacker.example:{port}"):
            read = client.get(live.api("kb", "/documents"), headers={"Host": host})
            assert read.status_code == 400 and read.json()["error"]["code"] == "BAD_HOST", (host, read.text)
            search = client.post(live.api("kb", "/search"), json={"query": "cafeteria"}, headers={"Host": host})
            assert search.status_code == 400 and search.json()["error"]["code"] == "BAD_HOST"
        sent = client.post(live.api("kb", "/documents"), files=[("files", ("x.md", NOTE.encode()))], headers={"Host": f"attacker.example:{port}"})
        assert sent.status_code == 400 and "access-control-allow-origin" not in sent.headers
        for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"LOCALHOST.:{port}", f"[::1]:{port}", f"127.0.0.2:{port}", "localhost"):
            assert client.get(live.api("kb", "/documents"), headers={"Host": host}).status_code == 200, host
    assert _documents(live) == []


def test_a_foreign_origin_may_not_change_anything_with_or_without_keys(
    served_factory: Callable[..., ServedCollection],
) -> None:
    open_kb = served_factory("open")
    keyed = served_factory("keyed")
    key = keyed.keys.create("editor", "editor")
    with running([open_kb, keyed]) as live:
        own = live.url
        port = _port(live)
        foreign = ["http://evil.example", f"http://localhost:{port + 1}", f"http://127.0.0.1:{port + 1}", "null", f"https://evil.example:{port}"]
        for name, token in (("open", None), ("keyed", key)):
            with live.client(token) as client:
                for origin in foreign:
                    sent = client.post(live.api(name, "/documents"), files=[("files", ("planted.md", NOTE.encode()))], headers={"Origin": origin})
                    assert sent.status_code == 403 and sent.json()["error"]["code"] == "FORBIDDEN_ORIGIN", (name, origin, sent.text)
                    asked = client.post(live.api(name, "/search"), json={"query": "x"}, headers={"Origin": origin})
                    assert asked.status_code == 403, (name, origin)
                # a browser that sends no Origin still says where the request comes from
                cross = client.post(live.api(name, "/search"), json={"query": "x"}, headers={"Sec-Fetch-Site": "cross-site"})
                assert cross.status_code == 403
                # the server's own page (same origin) and programs (no Origin: curl, the CLI, SDKs) may
                for extra in ({"Origin": own}, {"Origin": f"http://localhost:{port}", "Host": f"localhost:{port}"}, {}, {"Sec-Fetch-Site": "same-origin"}):
                    response = client.post(live.api(name, "/documents"), files=[("files", ("own.md", NOTE.encode()))], headers=extra)
                    assert response.status_code == 202, (name, extra, response.text)
                    wait_jobs(client, name, [j["job_id"] for j in response.json()["jobs"]])
                jobs = client.get(live.api(name, "/jobs")).json()["jobs"]
                assert {j["filename"] for j in jobs} == {"own.md"} and len(jobs) == 4
                doc_id = next(j["doc_id"] for j in jobs if j["doc_id"])
                refused = client.delete(live.api(name, f"/documents/{doc_id}"), headers={"Origin": "http://evil.example"})
                assert refused.status_code == 403
                assert (live.collections[name].kb.path / "uploads" / "own.md").exists()
            assert not (live.collections[name].kb.path / "uploads" / "planted.md").exists()
            assert not list((live.collections[name].kb.path / "uploads" / ".incoming").iterdir())


def test_configured_hosts_and_origins_are_allowed(tmp_path: Path, embedder: UseM3Embedder) -> None:
    config = Config()
    config.server.allowed_hosts = ["kb.internal"]
    config.server.allowed_origins = ["https://intranet.example"]
    served = ServedCollection("kb", Bunko(tmp_path / "kb", config=config, embedder=embedder))
    with running([served]) as live, live.client() as client:
        assert client.get(live.api("kb", "/documents"), headers={"Host": "kb.internal:8765"}).status_code == 200
        assert client.get(live.api("kb", "/documents"), headers={"Host": "kb.other"}).status_code == 400
        ok = client.post(live.api("kb", "/search"), json={"query": "x"}, headers={"Origin": "https://intranet.example"})
        assert ok.status_code == 200
        assert client.post(live.api("kb", "/search"), json={"query": "x"}, headers={"Origin": "http://intranet.example"}).status_code == 403
        # an allowed origin may send, but no origin is ever given CORS: no script elsewhere reads a response
        assert "access-control-allow-origin" not in ok.headers


def test_reads_from_a_foreign_origin_get_no_cors(live: Live) -> None:
    with live.client() as client:
        for path in ("/documents", "/jobs"):
            response = client.get(live.api("kb", path), headers={"Origin": "http://evil.example"})
            assert response.status_code == 200
            assert not any(h.lower().startswith("access-control-") for h in response.headers), response.headers
        preflight = client.options(
            live.api("kb", "/documents"),
            headers={"Origin": "http://evil.example", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization"},
        )
        assert preflight.status_code >= 400 and "access-control-allow-origin" not in preflight.headers


class _AttackerPage(http.server.BaseHTTPRequestHandler):
    page = b""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.end_headers()
        self.wfile.write(self.page)

    def log_message(self, *args: Any) -> None:
        pass


UPLOAD_SCRIPT = """async (target) => {
    const form = new FormData();
    form.append("files", new File(["# Planted\\n\\nWire the money to account 4242.\\n"], "planted.md", {type: "text/markdown"}));
    let sent = "sent";
    try { await fetch(target + "/api/collections/kb/documents", {method: "POST", body: form, mode: "no-cors"}); }
    catch (e) { sent = "network error"; }
    let read;
    try { read = (await (await fetch(target + "/api/collections/kb/documents")).json()).documents.length; }
    catch (e) { read = "blocked"; }
    return {sent, read};
}"""


@pytest.mark.skipif(not CHROMIUM.exists(), reason=missing("Chromium (the chromium package)"))
def test_a_page_of_another_origin_cannot_upload_in_a_real_browser(live: Live) -> None:
    """Chromium on http://127.0.0.1:<other port> posts a multipart upload to the keyless server (no preflight is
    needed for that): refused, nothing ingested, and its read of the document list is blocked. The same script on
    the server's own page is the control: it does upload."""
    attacker = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _AttackerPage)
    _AttackerPage.page = b"<!doctype html><title>cat pictures</title><p>cats</p>"
    threading.Thread(target=attacker.serve_forever, daemon=True).start()
    try:
        with chromium_page() as page:
            page.goto(f"http://127.0.0.1:{attacker.server_address[1]}/")
            outcome = page.evaluate(UPLOAD_SCRIPT, live.url)
            assert outcome["read"] == "blocked"
            # the upload reached the server and was refused (counted once its answer went out): only then is "no job"
            # a finding rather than a look taken before the request arrived
            refused = 'bunko_http_requests_total{method="POST",route="unmatched",status="403"} 1'
            with live.client() as client:
                wait_until(lambda: refused in client.get("/metrics").text, timeout=30,
                           message=lambda: f"no refused upload in /metrics:\n{client.get('/metrics').text}")
                assert client.get(live.api("kb", "/jobs")).json()["jobs"] == []
            assert _documents(live) == []

            page.goto(live.url + "/")
            control = page.evaluate(UPLOAD_SCRIPT, live.url)
            assert control["sent"] == "sent"
            with live.client() as client:
                jobs = client.get(live.api("kb", "/jobs")).json()["jobs"]
                assert [j["filename"] for j in jobs] == ["planted.md"]
                wait_jobs(client, "kb", [jobs[0]["job_id"]])
            assert _documents(live) == ["kb/uploads/planted.md"]
    finally:
        attacker.shutdown()


def _stall(port: int, path: str, content_type: bytes, start: bytes, declared: int = 1024 * 1024) -> tuple[float, bytes]:
    """Declare `declared` bytes, send `start`, and wait: seconds until the server answered and closed, and what it said."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        started = time.monotonic()
        sock.sendall(
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: ".encode() + content_type
            + f"\r\nContent-Length: {declared}\r\n\r\n".encode() + start
        )
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
        return time.monotonic() - started, received


def test_a_stalled_request_body_times_out_in_seconds(live: Live) -> None:
    """A request declaring 1 MB and sending 10 bytes (or a file part's first line) gets 408 and a closed connection after body_timeout_s (5 s);
    a slow body that keeps coming is not cut."""
    port = _port(live)
    results: dict[str, tuple[float, bytes]] = {}
    probes = {
        "search": (live.api("kb", "/search"), b"application/json", b'{"query": '),
        "upload": (  # a valid start of a file part, so the multipart parser waits for the rest
            live.api("kb", "/documents"), b"multipart/form-data; boundary=xyz",
            b'--xyz\r\nContent-Disposition: form-data; name="files"; filename="a.md"\r\nContent-Type: text/markdown\r\n\r\n# Ti',
        ),
    }
    threads = [threading.Thread(target=lambda n=n, p=p: results.__setitem__(n, _stall(port, *p))) for n, p in probes.items()]

    def slow_but_steady() -> None:
        body = b'{"query": "cafeteria opening hours", "k": 3}'
        with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
            sock.sendall(
                f"POST {live.api('kb', '/search')} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
            )
            for start in range(0, len(body), 12):  # 4 pieces, 2.5 s apart: 7.5 s in all, never 5 s without data
                sock.sendall(body[start:start + 12])
                time.sleep(2.5)  # the behaviour under test: a client's pace, half the body time-out between pieces
            received = b""
            while chunk := sock.recv(65536):
                received += chunk
            results["steady"] = (0.0, received)

    threads.append(threading.Thread(target=slow_but_steady))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    for name in ("search", "upload"):
        seconds, answer = results[name]
        assert answer.startswith(b"HTTP/1.1 408"), (name, answer[:200])  # the time-out fired: its status and code
        assert b"BODY_TIMEOUT" in answer and b"no part of the request body arrived for 5 s" in answer
        assert b"connection: close" in answer.lower()
        assert seconds < 10 * 5, (name, seconds)  # only a hang: ten times body_timeout_s
    assert results["steady"][1].startswith(b"HTTP/1.1 200"), results["steady"][1][:300]
    with live.client() as client:  # the server still serves, and nothing half-sent was queued
        assert client.get(live.api("kb", "/jobs")).json()["jobs"] == []
        assert upload(client, "kb", {"after.md": NOTE}).status_code == 202


def test_a_streaming_response_is_not_cut_by_the_body_timeout() -> None:
    """Once the body is in, `receive` waits for a disconnect as long as the response lasts (SSE listens for one)."""
    sent: list[dict[str, Any]] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        assert (await receive())["type"] == "http.request"
        await send({"type": "http.response.start", "status": 200, "headers": []})
        assert (await receive())["type"] == "http.disconnect"  # the client's real disconnect, 0.3 s later
        await send({"type": "http.response.body", "body": b"done"})

    async def main() -> None:
        messages = [{"type": "http.request", "body": b"{}", "more_body": False}]

        async def receive() -> dict[str, Any]:
            if messages:
                return messages.pop()
            await asyncio.sleep(0.3)  # the behaviour under test: a disconnect later than the 0.1 s body time-out
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        middleware = LimitAndMeasure(app, Metrics(), upload_limit=1 << 20, body_timeout=0.1)
        scope = {"type": "http", "method": "POST", "path": "/x", "headers": [(b"host", b"localhost"), (b"content-length", b"2")]}
        await middleware(scope, receive, send)

    asyncio.run(main())
    assert [m.get("status") for m in sent if m["type"] == "http.response.start"] == [200]
    assert sent[-1]["body"] == b"done"


def test_browser_policy_rules() -> None:
    policy = BrowserPolicy.build("127.0.0.1")
    assert split_host("[::1]:8765") == ("::1", "8765") and split_host("Example.COM.:80") == ("example.com", "80")
    assert normalize_origin("HTTP://Example.com:80/") == "http://example.com" and normalize_origin("null") is None
    assert policy.host_allowed("localhost:1") and policy.host_allowed("127.9.9.9") and not policy.host_allowed("10.0.0.1")
    assert not policy.host_allowed("evil.example") and not policy.host_allowed("localhost.evil.example")
    wildcard = BrowserPolicy.build("0.0.0.0", ["kb.example.com"])
    assert wildcard.host_allowed("10.0.0.1:8765") and wildcard.host_allowed("KB.example.com") and not wildcard.host_allowed("evil.example")
    assert BrowserPolicy.build("127.0.0.1", ["*"]).host_allowed("anything.example")
    own = [(b"host", b"127.0.0.1:8765")]
    assert policy.refusal("GET", [*own, (b"origin", b"http://evil.example")]) is None
    assert policy.refusal("POST", [*own, (b"origin", b"http://127.0.0.1:8765")]) is None
    assert policy.refusal("POST", [*own, (b"origin", b"https://127.0.0.1:8765")]) is None  # TLS in front
    assert policy.refusal("DELETE", [*own, (b"origin", b"http://127.0.0.1:8766")]) is not None
    assert policy.refusal("PUT", [*own, (b"origin", b"http://127.0.0.1:8765"), (b"origin", b"http://evil.example")]) is not None
    assert policy.refusal("POST", [(b"origin", b"http://127.0.0.1:8765")]) is not None  # no Host: only configured origins
    with pytest.raises(ConfigError, match="not a web origin"):
        BrowserPolicy.build(None, (), ["intranet.example"])


def test_is_loopback_knows_ipv6(tmp_path: Path, embedder: UseM3Embedder) -> None:
    assert is_loopback("::1") and is_loopback("[::1]") and is_loopback("127.0.0.1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("::") and not is_loopback("no-such-host.invalid")
    served = ServedCollection("kb", Bunko(tmp_path / "kb", embedder=embedder))
    check_exposure([served], "::1")
    served.kb.close()
