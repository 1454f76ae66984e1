"""A small OpenAI-compatible chat server for tests: a real HTTP server on 127.0.0.1, in a thread.

Each test scripts it with ``server.reply = callable(messages, body) -> str`` (the
assistant's text) or switches it to misbehave: ``server.mode`` = "ok",
"error" (HTTP 500), "garbage" (200 with a body that is not a completion),
"garbage_stream" (an event stream of non-JSON), "unauthorized" (401), "slow" (no answer until the test
sets ``server.release``, or ``server.slow_s`` seconds at most: a client's time-out is then the only way on).
Every request body is recorded in ``server.requests``. Completions report
``server.usage``; streams do too, in a last chunk without choices, when
``server.stream_usage`` is set (as OpenAI does when asked, llama.cpp's server always).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = Callable[[list[dict[str, str]], dict[str, Any]], str]


class FakeChatServer:
    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.reply: Reply = lambda messages, body: "OK [1]"
        self.mode = "ok"
        self.failures_before_ok = 0
        self.slow_s = 60.0
        self.release = threading.Event()
        self.usage = {"prompt_tokens": 321, "completion_tokens": 45, "total_tokens": 366}
        self.stream_usage = False
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                server.requests.append({"path": self.path, "body": body, "auth": self.headers.get("authorization")})
                if not self.path.endswith("/chat/completions"):
                    return self._send(404, {"error": {"message": f"no route {self.path}"}})
                if server.failures_before_ok > 0:
                    server.failures_before_ok -= 1
                    return self._send(503, {"error": {"message": "model is loading"}})
                mode = server.mode
                if mode == "error":
                    return self._send(500, {"error": {"message": "CUDA out of memory"}})
                if mode == "unauthorized":
                    return self._send(401, {"error": {"message": "invalid api key"}})
                if mode == "garbage":
                    return self._raw(200, b"<html>Welcome to nginx</html>", "text/html")
                if mode == "slow":
                    server.release.wait(server.slow_s)
                text = server.reply(body["messages"], body)
                if body.get("stream"):
                    return self._stream(text, garbage=mode == "garbage_stream")
                return self._send(200, {
                    "id": "chatcmpl-1", "object": "chat.completion", "model": body.get("model"),
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                    "usage": server.usage,
                })

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                self._raw(status, json.dumps(payload).encode(), "application/json")

            def _raw(self, status: int, data: bytes, content_type: str) -> None:
                self.send_response(status)
                self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, text: str, garbage: bool) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.end_headers()
                if garbage:
                    self.wfile.write(b"data: {not json\n\n")
                    self.wfile.flush()
                    return
                pieces = [text[i : i + 5] for i in range(0, len(text), 5)]
                for piece in pieces:
                    event = {"choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}
                    self.wfile.write(f"data: {json.dumps(event, ensure_ascii=False)}\n\n".encode())
                    self.wfile.flush()
                if server.stream_usage:
                    self.wfile.write(f"data: {json.dumps({'choices': [], 'usage': server.usage})}\n\n".encode())
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> FakeChatServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release.set()  # a "slow" reply still held goes out, to a client long gone
        self.httpd.shutdown()
        self.httpd.server_close()
