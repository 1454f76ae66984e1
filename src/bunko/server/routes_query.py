"""Search, ask (JSON or Server-Sent Events) and traces, all through the caller's access filter."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from dataclasses import asdict
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import StreamingResponse

from bunko.errors import BunkoError
from bunko.retrieve.explain import thresholds
from bunko.server.deps import ApiError, Caller, caller, state
from bunko.server.models import AskRequest, SearchRequest
from bunko.server.views import answer_view, hit_view

router = APIRouter(prefix="/api/collections/{name}", tags=["query"])
Reader = Annotated[Caller, Depends(caller("reader"))]

log = logging.getLogger("bunko.server")
SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def sse(event: str, data: Any) -> str:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


@router.post("/search", summary="Ranked evidence; `explain` adds each retriever's rank and score")
def search(c: Reader, body: SearchRequest, request: Request) -> dict[str, Any]:
    result = c.served.search(c.who, body.query, body.k, body.mode, body.filters, body.group_by, body.language)
    state(request).metrics.stages(c.served.name, "search", result.timings)
    limits = thresholds(c.served.kb.config.retrieve)
    out: dict[str, Any] = {
        "query": body.query, "filters": body.filters, "mode": result.mode,
        "hits": [hit_view(h, c.served.kb.explain(h, result.mode, filtered=bool(body.filters)) if body.explain else None) for h in result.hits],
    }
    if body.explain:
        out["thresholds"] = limits
        out["route"] = asdict(result.route) if result.route else None
        out["query_tokens"] = result.query_tokens
        out["timings"] = result.timings
    return out


def _ask_events(c: Caller, body: AskRequest, request: Request) -> Iterator[str]:
    """start, then a delta per checked sentence as the engine produces it, then done (the full answer)."""
    yield sse("start", {"question": body.question})
    try:
        for item in c.served.ask_stream(c.who, body.question, body.k, body.filters, body.mode, body.turns()):
            if isinstance(item, str):
                yield sse("delta", {"text": item})
                continue
            state(request).metrics.stages(c.served.name, "ask", item.timings)
            if item.withheld:
                yield sse("error", {"code": "WITHHELD", "message": "the answer cited documents you may not see; discard it"})
                return
            yield sse("done", {**answer_view(item.answer), "timings": item.timings})
    except BunkoError as exc:
        yield sse("error", {"code": "BAD_REQUEST", "message": str(exc)})
    except Exception as exc:  # the stream has started: report in-band, a status code can no longer change
        log.exception("ask stream failed")
        yield sse("error", {"code": "INTERNAL", "message": f"internal error ({type(exc).__name__})"})


@router.post("/ask", summary="A cited answer, or an abstention; `stream: true` answers as Server-Sent Events")
def ask(c: Reader, body: AskRequest, request: Request) -> Any:
    if body.stream:
        c.served.check_filters(c.who, body.filters)  # a bad filter is a 400 before the stream starts
        return StreamingResponse(_ask_events(c, body, request), media_type="text/event-stream", headers=SSE_HEADERS)
    outcome = c.served.ask(c.who, body.question, body.k, body.filters, body.mode, body.turns())
    state(request).metrics.stages(c.served.name, "ask", outcome.timings)
    return {**answer_view(outcome.answer), "timings": outcome.timings}


@router.get("/traces/{trace_id}", summary="What happened in one ask: route, hits and scores, grade, answer, timings")
def trace(c: Reader, trace_id: str) -> dict[str, Any]:
    payload = c.served.trace(c.who, trace_id)
    if payload is None:
        raise ApiError(404, "TRACE_NOT_FOUND", f"no trace {trace_id} of yours")
    return payload
