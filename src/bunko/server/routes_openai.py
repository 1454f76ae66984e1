"""OpenAI-compatible chat: a collection is a "model" whose replies are grounded, cited answers.

Any OpenAI client (the official `openai` package, LangChain, chat UIs) can
point its base URL at ``http://host:port/v1`` and its API key at a bunko key.
The last user message is the question; the user and assistant messages
before it are the conversation's history, so a follow-up ("それの上限は？",
"那年假呢？", "and its config file?") is searched as the standalone question made
from them (system messages are not used: answers come from documents). The
reply's text carries ``[n]`` markers and a numbered source list; the same
citations are in an extra ``citations`` field (``completion.model_extra``), with
``bunko.trace_id`` for the trace.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Iterator
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import StreamingResponse

from bunko.generate.conversation import Turn
from bunko.server.auth import bearer_token
from bunko.server.collection import AskOutcome
from bunko.server.deps import ApiError, Caller, ServerState, authenticate, state
from bunko.server.models import ChatRequest
from bunko.server.views import numbered_citations, with_sources
from bunko.text.injection import escape_control
from bunko.text.scripts import count_cjk

router = APIRouter(prefix="/v1", tags=["openai"])
log = logging.getLogger("bunko.server")
StateDep = Annotated[ServerState, Depends(state)]


def _model(served_name: str, created: float) -> dict[str, Any]:
    return {"id": served_name, "object": "model", "created": int(created), "owned_by": "bunko"}


def _models_for(request: Request, srv: ServerState) -> list[str]:
    key = bearer_token(request.headers.items())
    names = [name for name, served in srv.collections.items() if served.authenticate(key) is not None]
    if not names:
        raise ApiError(401, "UNAUTHORIZED", "invalid API key" if key else "send 'Authorization: Bearer <key>'")
    return names


@router.get("/models", summary="Collections this key may ask, as OpenAI models")
def list_models(request: Request, srv: StateDep) -> dict[str, Any]:
    names = _models_for(request, srv)
    return {"object": "list", "data": [_model(n, srv.collections[n].kb.path.stat().st_ctime) for n in names]}


@router.get("/models/{model}", summary="One collection as an OpenAI model")
def get_model(model: str, request: Request, srv: StateDep) -> dict[str, Any]:
    if model not in _models_for(request, srv):
        raise ApiError(404, "model_not_found", f"the model {model!r} does not exist or your key may not use it")
    return _model(model, srv.collections[model].kb.path.stat().st_ctime)


def _extras(outcome: AskOutcome) -> dict[str, Any]:
    answer = outcome.answer
    return {
        "citations": numbered_citations(answer),
        "bunko": {"trace_id": answer.trace_id, "confidence": answer.confidence, "abstained": answer.abstained, "language": answer.language},
    }


def _tokens(text: str) -> int:
    """A rough count (a word or a CJK character each): clients expect a `usage` object."""
    return count_cjk(text) + len([w for w in text.split() if w.isascii()])


def _caller(body: ChatRequest, request: Request, srv: ServerState) -> tuple[Caller, str, list[Turn]]:
    """The caller, the question (the last user message) and the user and assistant turns before it."""
    served = srv.collections.get(body.model)
    if served is None:
        raise ApiError(404, "model_not_found", f"no model {body.model!r}; GET /v1/models lists this server's collections")
    c = authenticate(served, request, "reader")
    users = [i for i, m in enumerate(body.messages) if m.role == "user"]
    question = body.messages[users[-1]].text().strip() if users else ""
    if not question:
        raise ApiError(400, "NO_QUESTION", "the messages have no user message with text")
    earlier = [m for m in body.messages[: users[-1]] if m.role in ("user", "assistant") and m.text().strip()]
    return c, question, [Turn("user" if m.role == "user" else "assistant", m.text()) for m in earlier]


@router.post("/chat/completions", summary="Chat completion answered from a collection, with citations")
def chat_completions(body: ChatRequest, request: Request, srv: StateDep) -> Any:
    c, question, history = _caller(body, request, srv)
    if body.stream:
        c.served.check_filters(c.who, body.filters)
        return StreamingResponse(
            _stream(c, body, question, history, srv), media_type="text/event-stream", headers={"Cache-Control": "no-cache"}
        )
    outcome = c.served.ask(c.who, question, body.k, body.filters, history=history)
    srv.metrics.stages(c.served.name, "chat", outcome.timings)
    content = escape_control(with_sources(outcome.answer))
    prompt, completion = _tokens(question), _tokens(content)
    return {
        "id": f"chatcmpl-{outcome.answer.trace_id}", "object": "chat.completion", "created": int(time.time()), "model": body.model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop", "logprobs": None}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
        **_extras(outcome),
    }


def _chunk(ident: str, model: str, delta: dict[str, Any], finish: str | None = None, **extra: Any) -> str:
    payload = {
        "id": ident, "object": "chat.completion.chunk", "created": int(time.time()), "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}], **extra,
    }
    return f"data: {json.dumps(payload, ensure_ascii=False)}\n\n"


def _stream(c: Caller, body: ChatRequest, question: str, history: list[Turn], srv: ServerState) -> Iterator[str]:
    """OpenAI chunks: the role, a content delta per checked sentence, the numbered sources, a stop chunk with citations."""
    ident = f"chatcmpl-{uuid.uuid4().hex[:16]}"
    yield _chunk(ident, body.model, {"role": "assistant", "content": ""})
    try:
        for item in c.served.ask_stream(c.who, question, body.k, body.filters, history=history):
            if isinstance(item, str):
                yield _chunk(ident, body.model, {"content": escape_control(item)})
                continue
            srv.metrics.stages(c.served.name, "chat", item.timings)
            if item.withheld:
                raise PermissionError("the answer cited documents this key may not see; discard it")
            sources = with_sources(item.answer)[len(item.answer.text):]
            if sources:
                yield _chunk(ident, body.model, {"content": escape_control(sources)})
            yield _chunk(ident, body.model, {}, "stop", **_extras(item))
    except Exception as exc:  # headers are sent: report in-band, as OpenAI does
        log.exception("chat stream failed")
        error = {"error": {"message": f"{type(exc).__name__}: {exc}", "type": "server_error", "code": "INTERNAL"}}
        yield f"data: {json.dumps(error, ensure_ascii=False)}\n\n"
        return
    yield "data: [DONE]\n\n"
