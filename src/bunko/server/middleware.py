"""ASGI middleware: request size limits before any body is read, and request metrics.

The size check runs on ``Content-Length`` before the app sees the request,
because the multipart parser spools a whole upload to disk before a route could
refuse it. A body of undeclared length (chunked) is refused.
Pure ASGI (not ``BaseHTTPMiddleware``), so Server-Sent Events pass through
unbuffered and their latency is measured to the last byte.
"""

from __future__ import annotations

import json
import time
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from bunko.server.metrics import Metrics

JSON_BODY_LIMIT = 2 * 1024 * 1024


async def _refuse(send: Send, status: int, code: str, message: str) -> None:
    body = json.dumps({"error": {"code": code, "message": message, "type": "invalid_request_error"}}).encode()
    await send({"type": "http.response.start", "status": status, "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": body})


class LimitAndMeasure:
    def __init__(self, app: ASGIApp, metrics: Metrics, upload_limit: int) -> None:
        self.app = app
        self.metrics = metrics
        self.upload_limit = upload_limit

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
            if scope["method"] in ("POST", "PUT", "PATCH") and await self._too_large(scope, observed_send):
                return
            await self.app(scope, receive, observed_send)
        finally:
            route = getattr(scope.get("route"), "path", None) or ("/static" if scope["path"].startswith("/static/") else "unmatched")
            self.metrics.request(scope["method"], route, status["code"], time.perf_counter() - started)

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
