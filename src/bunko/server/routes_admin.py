"""Health, metrics, the list of collections, who-am-I, key management, and re-embedding with another model."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import PlainTextResponse

import bunko
from bunko.errors import BunkoError
from bunko.server.auth import KeyAdminError, bearer_token, parse_groups
from bunko.server.deps import ApiError, Caller, ServerState, caller, state
from bunko.server.models import KeyRequest, ReembedRequest

router = APIRouter(tags=["server"])
StateDep = Annotated[ServerState, Depends(state)]
Reader = Annotated[Caller, Depends(caller("reader"))]
Admin = Annotated[Caller, Depends(caller("admin"))]


@router.get("/health", summary="Liveness: each collection's store answers")
def health(srv: StateDep) -> dict[str, Any]:
    checks: dict[str, str] = {}
    for name, served in srv.collections.items():
        try:
            served.kb.store.chunk_count()
            checks[name] = "ok"
        except Exception as exc:
            checks[name] = f"error: {type(exc).__name__}"
    ok = all(v == "ok" for v in checks.values())
    if not ok:
        raise ApiError(503, "UNHEALTHY", "a collection's store does not answer", collections=checks)
    return {"status": "ok", "version": bunko.__version__, "collections": checks}


@router.get("/metrics", response_class=PlainTextResponse, summary="Prometheus metrics (an admin key when keys exist)")
def metrics(request: Request, srv: StateDep) -> PlainTextResponse:
    if not all(c.open_access for c in srv.collections.values()):
        key = bearer_token(request.headers.items())
        admins = [c for c in srv.collections.values() if not c.open_access and (w := c.authenticate(key)) and w.role == "admin"]
        if not admins:
            raise ApiError(401 if not key else 403, "FORBIDDEN", "metrics need an admin key of one of this server's collections")
    return PlainTextResponse(srv.metrics.render(), media_type="text/plain; version=0.0.4; charset=utf-8")


def collection_gauges(srv: ServerState) -> Any:
    """Documents, chunks and queued uploads per collection, read at scrape time."""

    def collect() -> Any:
        for name, served in srv.collections.items():
            labels = (("collection", name),)
            yield "bunko_documents", "Documents in the collection.", labels, float(len(served.documents_by_id()))
            yield "bunko_chunks", "Chunks in the collection.", labels, float(served.kb.store.chunk_count())
            yield "bunko_ingest_queue", "Uploads waiting for the ingest worker.", labels, float(served.worker.queued)

    return collect


@router.get("/api/collections", summary="Collections on this server and whether they need a key")
def list_collections(srv: StateDep) -> dict[str, Any]:
    return {"collections": [{"name": n, "auth": not c.open_access} for n, c in srv.collections.items()]}


@router.get("/api/collections/{name}", summary="Counts and settings of one collection")
def collection_status(c: Reader) -> dict[str, Any]:
    info = c.served.status()
    if not c.who.unrestricted:
        info["documents"] = len(c.served.visible_documents(c.who))
        info.pop("chunks")
    return {**info, "max_upload_mb": c.served.max_upload_bytes / 1048576, "extensions": sorted(c.served.allowed_extensions)}


@router.get("/api/collections/{name}/me", summary="The caller's key name, role and groups")
def me(c: Reader) -> dict[str, Any]:
    return c.who.public()


@router.get("/api/collections/{name}/keys", tags=["keys"], summary="API keys (never the keys themselves)")
def list_keys(c: Admin) -> dict[str, Any]:
    return {"keys": c.served.keys.list()}


@router.post("/api/collections/{name}/keys", tags=["keys"], status_code=201, summary="Create a key; the response is the only copy")
def create_key(c: Admin, request: KeyRequest) -> dict[str, Any]:
    try:
        groups = parse_groups(request.groups)
        key = c.served.keys.create(request.name, request.role, groups)
    except KeyAdminError as exc:
        raise ApiError(400, "BAD_KEY", str(exc)) from None
    return {"name": request.name, "role": request.role, "groups": list(groups) if groups is not None else None, "key": key}


@router.delete("/api/collections/{name}/keys/{key_name}", tags=["keys"], summary="Revoke a key")
def revoke_key(c: Admin, key_name: str) -> dict[str, Any]:
    if not c.served.keys.revoke(key_name):
        raise ApiError(404, "KEY_NOT_FOUND", f"no key named {key_name!r}")
    return {"name": key_name, "revoked": True}


@router.post(
    "/api/collections/{name}/reembed", tags=["reembed"], status_code=202,
    summary="Re-embed with another model in the background; searches keep the current one until the switch",
)
def start_reembed(c: Admin, request: ReembedRequest) -> dict[str, Any]:
    try:
        return c.served.reembed.start(request.model, request.batch)
    except BunkoError as exc:
        raise ApiError(409, "REEMBED_REFUSED", str(exc)) from None


@router.get("/api/collections/{name}/reembed", tags=["reembed"], summary="The re-embed's progress (chunks embedded of all) and state")
def reembed_status(c: Admin) -> dict[str, Any]:
    return c.served.reembed.status()


@router.delete("/api/collections/{name}/reembed", tags=["reembed"], summary="Abort the re-embed; the current model stays")
def abort_reembed(c: Admin) -> dict[str, Any]:
    try:
        aborted = c.served.reembed.abort()
    except BunkoError as exc:
        raise ApiError(409, "REEMBED_REFUSED", str(exc)) from None
    c.served.reembed.wait(30.0)
    return {"aborted": aborted, **c.served.reembed.status()}
