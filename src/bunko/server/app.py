"""The FastAPI application: routes, error handlers, middleware, the web page, worker lifetimes.

`create_app` takes already opened collections, so tests and the CLI decide how
collections are opened (shared embedder, missing/locked checks) and the app
only serves them. OpenAPI is at ``/openapi.json`` and interactive docs at ``/docs``.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

import bunko
from bunko.errors import BunkoError, FilterError
from bunko.server import routes_admin, routes_documents, routes_figures, routes_graph, routes_openai, routes_query, routes_tree
from bunko.server.browser import BrowserPolicy
from bunko.server.collection import ServedCollection
from bunko.server.deps import ApiError, ServerState, error_response
from bunko.server.middleware import LimitAndMeasure

STATIC = Path(__file__).resolve().parent / "static"
# img-src blob: lets the page show figures and page images it fetched itself with the key (an <img src> sends none)
PAGE_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data: blob:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
log = logging.getLogger("bunko.server")


def _validation_message(exc: RequestValidationError) -> tuple[str, list[dict[str, str]]]:
    details = [
        {"field": ".".join(str(p) for p in err.get("loc", ()) if p != "body") or "body", "message": str(err.get("msg", ""))}
        for err in exc.errors()
    ]
    return "; ".join(f"{d['field']}: {d['message']}" for d in details) or "invalid request", details


def _install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def api_error(_: Request, exc: ApiError) -> JSONResponse:
        return error_response(exc.status, exc.code, exc.message, **exc.extra)

    @app.exception_handler(FilterError)
    async def filter_error(_: Request, exc: FilterError) -> JSONResponse:
        return error_response(400, "BAD_FILTER", str(exc))

    @app.exception_handler(BunkoError)
    async def bunko_error(_: Request, exc: BunkoError) -> JSONResponse:
        return error_response(400, "BAD_REQUEST", str(exc))

    @app.exception_handler(RequestValidationError)
    async def validation_error(_: Request, exc: RequestValidationError) -> JSONResponse:
        message, details = _validation_message(exc)
        return error_response(422, "VALIDATION_ERROR", message, details=details)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED"}.get(exc.status_code, "HTTP_ERROR")
        return error_response(exc.status_code, code, str(exc.detail))

    @app.exception_handler(Exception)
    async def internal_error(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error in %s %s", request.method, request.url.path)
        return error_response(500, "INTERNAL", f"internal error ({type(exc).__name__}); see the server log")


def create_app(
    collections: Sequence[ServedCollection], *, max_request_mb: float = 200.0, start_workers: bool = True,
    policy: BrowserPolicy | None = None, body_timeout: float | None = None,
) -> FastAPI:
    """Serve these collections. Workers start with the app and stop (finishing the upload in hand) with it.

    `policy` decides which Host names and web origins are answered (default: loopback and the collections'
    ``[server]`` settings); `body_timeout` bounds each wait for a request body (default: the shortest
    ``[server] body_timeout_s``).
    """
    names = [c.name for c in collections]
    if len(set(names)) != len(names):
        raise ValueError(f"two collections share a name: {names}; name them with NAME=PATH")
    srv = ServerState({c.name: c for c in collections}, max_request_bytes=int(max_request_mb * 1024 * 1024))
    srv.metrics.gauges(routes_admin.collection_gauges(srv))
    for served in collections:
        served.worker.on_finished = lambda job, name=served.name: srv.metrics.ingest(name, job.status, job.error_code)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        if start_workers:
            for served in collections:
                served.start()
        yield
        for served in collections:
            served.stop()

    app = FastAPI(
        title="bunko", version=bunko.__version__, lifespan=lifespan,
        description="Ask your own documents, with every answer cited. Collections, documents, search, ask, "
        "and an OpenAI-compatible /v1/chat/completions whose models are the collections.",
    )
    app.state.bunko = srv
    _install_error_handlers(app)
    for module in (routes_admin, routes_documents, routes_tree, routes_figures, routes_query, routes_graph, routes_openai):
        app.include_router(module.router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        # Documents are untrusted text: the page inserts them as text only, and the policy forbids any other script.
        return FileResponse(STATIC / "index.html", media_type="text/html; charset=utf-8", headers=PAGE_HEADERS)

    settings = [c.kb.config.server for c in collections]
    app.add_middleware(
        LimitAndMeasure, metrics=srv.metrics, upload_limit=srv.max_request_bytes,
        policy=policy or BrowserPolicy.for_collections(settings),
        body_timeout=body_timeout if body_timeout is not None else min((s.body_timeout_s for s in settings), default=5.0),
    )
    return app
