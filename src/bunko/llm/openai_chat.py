"""Chat completions from any OpenAI-compatible server: vLLM, Ollama, LM Studio, llama.cpp server, OpenAI.

Opt-in, never the default. What can go wrong with a remote model — nobody
listening, too slow, a refused key, a 5xx while it loads, a reply that is not
a chat completion at all — becomes one `LLMError` line naming the URL and
what happened, after bounded retries for what a retry can cure (connection
errors, time-outs, 429, 5xx, honouring ``Retry-After``). Streaming retries
only until the first delta: after that a retry would repeat text the user has
already seen.
"""

from __future__ import annotations

import base64
import json
import os
import random
import time
from collections.abc import Iterator, Sequence
from typing import Any

import httpx

from bunko.config import LLMConfig
from bunko.llm.base import LLMError, Message
from bunko.openai_http import endpoint_url, retry_after, server_message, snippet
from bunko.trace import Usage

RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
MAX_RETRY_AFTER_S = 30.0


def chat_url(base_url: str) -> str:
    """The chat endpoint for a configured base URL (the forms `endpoint_url` accepts)."""
    try:
        return endpoint_url(base_url, "chat/completions")
    except ValueError as exc:
        raise LLMError(f"[llm] {exc}") from None


class OpenAIChatModel:
    """`ChatModel` over HTTP. ``model`` is the server's model name; the key comes from ``api_key_env``."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key_env: str = "OPENAI_API_KEY",
        context_tokens: int = 8192,
        max_tokens: int = 512,
        temperature: float = 0.0,
        timeout_s: float = 60.0,
        retries: int = 2,
        backoff_s: float = 0.5,
    ) -> None:
        if not model or not model.strip():
            raise LLMError("the openai generator needs [llm] model, the server's model name (e.g. qwen2.5-7b-instruct)")
        self.url = chat_url(base_url)
        self.model = model
        self.name = f"openai:{model}"
        self.context_tokens = context_tokens
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.timeout_s = timeout_s
        self.retries = retries
        self.backoff_s = backoff_s
        self.api_key_env = api_key_env
        self.last_usage: Usage | None = None
        """Token counts the server reported for the last completion, or in the last events of a stream (OpenAI's "usage")."""
        self._client = httpx.Client(timeout=httpx.Timeout(timeout_s), headers={"User-Agent": "bunko"})

    @classmethod
    def from_config(cls, config: LLMConfig) -> OpenAIChatModel:
        if not config.base_url:
            raise LLMError("the openai generator needs [llm] base_url, e.g. http://127.0.0.1:8000/v1")
        return cls(
            config.base_url, config.model or "", api_key_env=config.api_key_env, context_tokens=config.context_tokens,
            max_tokens=config.max_tokens, temperature=config.temperature, timeout_s=config.timeout_s, retries=config.retries,
        )

    def close(self) -> None:
        self._client.close()

    # -- ChatModel ----------------------------------------------------------
    def complete(self, messages: Sequence[Message], max_tokens: int | None = None) -> str:
        self.last_usage = None
        response = self._post(self._payload(messages, max_tokens, stream=False), stream=False)
        return self._content(response)

    def stream(self, messages: Sequence[Message], max_tokens: int | None = None) -> Iterator[str]:
        self.last_usage = None
        payload = self._payload(messages, max_tokens, stream=True)
        response = self._post(payload, stream=True)
        try:
            if "text/event-stream" not in response.headers.get("content-type", ""):
                # Some servers ignore "stream": a whole completion is still an answer.
                response.read()
                yield self._content(response)
                return
            yield from self._events(response)
        except httpx.TransportError as exc:
            raise LLMError(f"{self.url}: the stream broke off ({type(exc).__name__}: {snippet(str(exc), 100)})") from None
        finally:
            response.close()

    def complete_with_image(self, prompt: str, image: bytes, mime: str = "image/png", max_tokens: int | None = None) -> str:
        """One user turn of text and a picture (a base64 data URL in an ``image_url`` part, as OpenAI's vision
        models and vLLM, Ollama and LM Studio read it); the reply's text."""
        self.last_usage = None
        url = f"data:{mime};base64,{base64.b64encode(image).decode('ascii')}"
        content = [{"type": "text", "text": prompt}, {"type": "image_url", "image_url": {"url": url}}]
        payload = {
            "model": self.model, "messages": [{"role": "user", "content": content}], "temperature": self.temperature,
            "max_tokens": max_tokens or self.max_tokens, "stream": False,
        }
        return self._content(self._post(payload, stream=False))

    # -- HTTP ---------------------------------------------------------------
    def _payload(self, messages: Sequence[Message], max_tokens: int | None, stream: bool) -> dict[str, Any]:
        return {
            "model": self.model, "messages": list(messages), "temperature": self.temperature,
            "max_tokens": max_tokens or self.max_tokens, "stream": stream,
        }

    def _headers(self) -> dict[str, str]:
        key = os.environ.get(self.api_key_env, "").strip()
        return {"Authorization": f"Bearer {key}"} if key else {}

    def _post(self, payload: dict[str, Any], stream: bool) -> httpx.Response:
        """A 200 response (open, when streaming), or an LLMError after the retries are spent."""
        problem = ""
        for attempt in range(self.retries + 1):
            delay: float | None = None
            try:
                request = self._client.build_request("POST", self.url, json=payload, headers=self._headers())
                response = self._client.send(request, stream=stream)
            except httpx.TimeoutException:
                problem = f"no answer within {self.timeout_s:g} s ([llm] timeout_s)"
            except httpx.TransportError as exc:
                problem = f"cannot connect ({type(exc).__name__}); is the server running and [llm] base_url right?"
            else:
                if response.status_code == 200:
                    return response
                if stream:
                    response.read()
                    response.close()
                if response.status_code in (401, 403):
                    raise LLMError(f"{self.url} refused the request (HTTP {response.status_code}: {server_message(response)}); "
                                   f"check the key in ${self.api_key_env}")
                if response.status_code not in RETRY_STATUS:
                    raise LLMError(f"{self.url} refused the request (HTTP {response.status_code}: {server_message(response)})")
                problem = f"HTTP {response.status_code}: {server_message(response)}"
                delay = retry_after(response, MAX_RETRY_AFTER_S)
            if attempt < self.retries:
                backoff = self.backoff_s * 2**attempt * (1 + 0.25 * random.random())
                time.sleep(backoff if delay is None else delay)
        tries = self.retries + 1
        raise LLMError(f"chat model at {self.url} failed after {tries} attempt{'s' if tries > 1 else ''}: {problem}")

    def _content(self, response: httpx.Response) -> str:
        try:
            body = response.json()
            content = body["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise LLMError(f"{self.url} answered something that is not a chat completion: {snippet(response.text)!r}") from None
        if not isinstance(content, str):
            raise LLMError(f"{self.url} answered a chat completion without text content: {snippet(response.text)!r}")
        self.last_usage = _usage(body)
        return content

    def _events(self, response: httpx.Response) -> Iterator[str]:
        """Server-sent events: ``data: {json}`` lines until ``data: [DONE]``; anything else is refused."""
        for line in response.iter_lines():
            line = line.strip()
            if not line or line.startswith(":") or line.startswith(("event:", "id:", "retry:")):
                continue
            if not line.startswith("data:"):
                raise LLMError(f"{self.url} streamed something that is not server-sent events: {snippet(line)!r}")
            data = line[5:].strip()
            if data == "[DONE]":
                return
            try:
                event = json.loads(data)
            except json.JSONDecodeError:
                raise LLMError(f"{self.url} streamed an event that is not JSON: {snippet(data)!r}") from None
            if isinstance(event, dict) and (usage := _usage(event)) is not None:
                self.last_usage = usage  # in a last chunk: llama.cpp's server always, OpenAI when asked (stream_options)
                if not event.get("choices"):
                    continue
            if isinstance(event, dict) and "error" in event:
                error = event["error"]
                message = error.get("message") if isinstance(error, dict) else error
                raise LLMError(f"{self.url} reported an error mid-stream: {snippet(str(message))}")
            try:
                choice = event["choices"][0] if event["choices"] else {}
                delta = choice.get("delta") or {}
                content = delta.get("content")
            except (KeyError, IndexError, TypeError, AttributeError):
                raise LLMError(f"{self.url} streamed an event that is not a chat completion chunk: {snippet(data)!r}") from None
            if isinstance(content, str) and content:
                yield content


def _usage(body: Any) -> Usage | None:
    """A completion's or chunk's ``usage``; None when absent or without both token counts."""
    usage = body.get("usage") if isinstance(body, dict) else None
    return Usage.from_dict(usage) if isinstance(usage, dict) else None
