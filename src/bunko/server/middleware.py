"""ASGI middleware: which browsers may call, request size limits before any body is read, body time-outs, metrics.

In order, before the app sees a request: its ``Host`` and ``Origin`` are checked (`browser.BrowserPolicy`);
the size check runs on ``Content-Length``, because the multipart parser spools a
whole upload to disk before a route could refuse it (a body of undeclared length,
chunked, is refused); and every wait for the next piece of the body is bounded
(`body_timeout` seconds): a client that declares 1 MB and sends 10 bytes gets 408
and its connection closed instead of holding it open.
Pure ASGI (not ``BaseHTTPMiddleware``), so Server-Sent Events pass through
unbuffered and their latency is measured to the last byte.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from bunko.server.browser import BrowserPolicy
from bunko.server.metrics import Metrics

JSON_BODY_LIMIT = 2 * 1024 * 1024


async def _refuse(send: Send, status: int, code: str, message: str, *, close: bool = False) -> None:
    kind = "permission_error" if status == 403 else "invalid_request_error"
    body = json.dumps({"error": {"code": code, "message": message, "type": kind}}).encode()
    headers = [(b"content-type", b"application/json")] + ([(b"connection", b"close")] if close else [])
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class LimitAndMeasure:
    def __init__(
        self, app: ASGIApp, metrics: Metrics, upload_limit: int, policy: BrowserPolicy | None = None, body_timeout: float = 5.0
    ) -> None:
        self.app = app
        self.metrics = metrics
        self.upload_limit = upload_limit
        self.policy = policy or BrowserPolicy.build()
        self.body_timeout = body_timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status: dict[str, Any] = {"code": 500}

        async def observed_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
            await send(message)

        try:
            refusal = self.policy.refusal(scope["method"], scope["headers"])
            if refusal is not None:
                await _refuse(observed_send, *refusal)
                return
            if scope["method"] in ("POST", "PUT", "PATCH") and await self._too_large(scope, observed_send):
                return
            await self._with_body_timeout(scope, receive, observed_send, status)
        finally:
            route = getattr(scope.get("route"), "path", None) or ("/static" if scope["path"].startswith("/static/") else "unmatched")
            self.metrics.request(scope["method"], route, status["code"], time.perf_counter() - started)

    async def _with_body_timeout(self, scope: Scope, receive: Receive, send: Send, status: dict[str, Any]) -> None:
        """Run the app; a body whose next piece takes longer than `body_timeout` is answered 408 and the connection closed.

        Only reads of the body are timed: once it is complete, `receive` waits for a disconnect
        (Starlette's streaming responses listen for one) and must wait as long as the response lasts.
        """
        state = {"body_done": False, "timed_out": False}

        async def timed_receive() -> Message:
            if state["body_done"] or state["timed_out"]:
                return await receive()
            try:
                message = await asyncio.wait_for(receive(), self.body_timeout)
            except TimeoutError:
                if "started" in status:  # the app answers without waiting for the rest: it is a disconnect to it
                    state["body_done"] = True
                    return {"type": "http.disconnect"}
                state["timed_out"] = True
                await _refuse(send, 408, "BODY_TIMEOUT", f"no part of the request body arrived for {self.body_timeout:g} s", close=True)
                return {"type": "http.disconnect"}
            if message["type"] != "http.request" or not message.get("more_body", False):
                state["body_done"] = True
            return message

        async def guarded_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                status["started"] = True
            if not state["timed_out"]:  # after a 408 the app's own answer (to the "disconnect") is dropped
                await send(message)

        try:
            await self.app(scope, timed_receive, guarded_send)
        except Exception:
            if not state["timed_out"]:
                raise

    async def _too_large(self, scope: Scope, send: Send) -> bool:
        headers = dict(scope["headers"])
        upload = scope["path"].rstrip("/").endswith("/documents")
        limit = self.upload_limit if upload else JSON_BODY_LIMIT
        declared = headers.get(b"content-length")
        if declared is None:
            if b"transfer-encoding" in headers:  # a body of undeclared size: refuse rather than read without bound
                await _refuse(send, 411, "LENGTH_REQUIRED", "send the request body with a Content-Length header")
                return True
            return False
        try:
            length = int(declared)
        except ValueError:
            await _refuse(send, 400, "BAD_REQUEST", "Content-Length is not a number")
            return True
        if length > limit:
            await _refuse(send, 413, "TOO_LARGE", f"the request body is {length / 1048576:.1f} MB; the limit is {limit / 1048576:g} MB")
            return True
        return False
