"""What every route needs: the server state, the caller, and errors as one JSON shape.

Every error body is ``{"error": {"code", "message", "type"}}``: the code is for
programs, the message for people, and the shape is OpenAI's, so the official
`openai` client raises its usual exceptions with bunko's message in them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse

from bunko.server.auth import Principal, bearer_token
from bunko.server.collection import ServedCollection
from bunko.server.metrics import Metrics

_TYPES = {
    400: "invalid_request_error", 401: "authentication_error", 403: "permission_error", 404: "not_found_error",
    409: "conflict_error", 413: "invalid_request_error", 415: "invalid_request_error", 422: "invalid_request_error",
}


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.extra = extra


def error_response(status: int, code: str, message: str, **extra: Any) -> JSONResponse:
    body = {"error": {"code": code, "message": message, "type": _TYPES.get(status, "server_error"), **extra}}
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    return JSONResponse(body, status_code=status, headers=headers)


@dataclass
class ServerState:
    collections: dict[str, ServedCollection]
    metrics: Metrics = field(default_factory=Metrics)
    max_request_bytes: int = 200 * 1024 * 1024

    def collection(self, name: str) -> ServedCollection:
        served = self.collections.get(name)
        if served is None:
            raise ApiError(404, "COLLECTION_NOT_FOUND", f"no collection {name!r}; this server has: {', '.join(self.collections)}")
        return served

    @property
    def open_access(self) -> bool:
        return any(c.open_access for c in self.collections.values())


def state(request: Request) -> ServerState:
    return request.app.state.bunko


@dataclass
class Caller:
    served: ServedCollection
    who: Principal


def authenticate(served: ServedCollection, request: Request, role: str) -> Caller:
    key = bearer_token(request.headers.items())
    who = served.authenticate(key)
    if who is None:
        message = "invalid API key" if key else "this collection needs an API key: send 'Authorization: Bearer <key>'"
        raise ApiError(401, "UNAUTHORIZED", message)
    if not who.has_role(role):
        raise ApiError(403, "FORBIDDEN", f"this needs the {role} role; key {who.name!r} has the {who.role} role")
    return Caller(served, who)


def caller(role: str) -> Callable[[str, Request], Caller]:
    """A dependency: the collection named in the path, and a caller holding at least `role` on it."""

    def dependency(name: str, request: Request) -> Caller:
        return authenticate(state(request).collection(name), request, role)

    return dependency
