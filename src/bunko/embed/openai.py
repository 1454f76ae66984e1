"""Embeddings from an OpenAI-compatible ``/v1/embeddings`` endpoint (vLLM, Ollama, LM Studio, TEI, OpenAI…).

Opt-in, never the default: it needs a server and, for hosted APIs, a key and
the network. Everything that can go wrong with a remote server is turned into
one-line `EmbedderError`s that name the URL, because the user reading an
EMBED_FAILED job needs to know *which* server to look at and what it did:
unreachable, too slow, refused the key, answered something that is not an
embedding list, or vectors of a dimension the collection does not hold.

Transient failures (connection refused or reset, time-outs, HTTP 429 and 5xx)
are retried with exponential backoff, honouring ``Retry-After``: local servers
restart and hosted APIs rate-limit, and neither should fail a whole ingest.
Once a batch has failed every retry, the next requests within ``cooldown_s``
are tried once, without backoff: an ingest of a thousand documents against a
server that is down then fails each document in milliseconds instead of
sleeping through the whole backoff a thousand times, and recovers by itself
when the server is back.
"""

from __future__ import annotations

import base64
import binascii
import os
import random
import time
from collections.abc import Sequence
from typing import Any

import httpx
import numpy as np

from bunko.embed.base import EmbedderError, embed_in_batches
from bunko.openai_http import endpoint_url, retry_after, server_message, snippet

RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
"""Statuses a retry can cure: rate limits, overload, a server (re)starting behind a proxy."""


def embeddings_url(base_url: str) -> str:
    """The embeddings endpoint for a configured base URL (the forms `endpoint_url` accepts)."""
    try:
        return endpoint_url(base_url, "embeddings")
    except ValueError as exc:
        raise EmbedderError(f"[embed] {exc}") from None


class OpenAIEmbedder:
    """An OpenAI-compatible embeddings endpoint behind the `Embedder` interface.

    ``model`` is the server's model name; it is part of ``name`` so a collection
    built with one remote model refuses to be searched with another.
    ``query_prefix`` / ``passage_prefix`` are prepended to the texts for
    asymmetric models (e5: "query: " / "passage: ") that a server does not
    prefix itself. When ``dimension`` is not given it is learned from the
    server with one probe request the first time it is needed.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        dimension: int | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        timeout_s: float = 60.0,
        batch_size: int = 32,
        max_retries: int = 4,
        backoff_s: float = 0.5,
        max_backoff_s: float = 30.0,
        cooldown_s: float = 30.0,
        query_prefix: str = "",
        passage_prefix: str = "",
    ) -> None:
        if not model.strip():
            raise EmbedderError("the openai embedder needs the remote model name, e.g. text-embedding-3-small")
        if batch_size < 1:
            raise EmbedderError(f"batch_size must be at least 1, not {batch_size}")
        self.url = embeddings_url(base_url)
        self.model = model
        self.name = f"openai:{model}"
        self._dimension = dimension
        self.api_key_env = api_key_env
        self.timeout_s = timeout_s
        self.batch_size = batch_size
        self.max_retries = max(0, max_retries)
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self.cooldown_s = cooldown_s
        self._failing_until = 0.0
        self.query_prefix = query_prefix
        self.passage_prefix = passage_prefix
        self._client = httpx.Client(timeout=httpx.Timeout(timeout_s), headers={"User-Agent": "bunko"})

    # -- Embedder -----------------------------------------------------------
    @property
    def dimension(self) -> int:
        if self._dimension is None:
            self._dimension = int(self._request(["dimension probe"]).shape[1])
        return self._dimension

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed([self.passage_prefix + t for t in texts])

    def embed_query(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed([self.query_prefix + t for t in texts])

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> OpenAIEmbedder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- HTTP ---------------------------------------------------------------
    def _embed(self, texts: list[str]) -> np.ndarray:
        # OpenAI refuses empty strings; a blank chunk still needs a row.
        texts = [t if t.strip() else " " for t in texts]
        return embed_in_batches(texts, self.batch_size, self._request, self.dimension)

    def _headers(self) -> dict[str, str]:
        key = os.environ.get(self.api_key_env, "").strip()
        return {"Authorization": f"Bearer {key}"} if key else {}

    def _request(self, inputs: list[str]) -> np.ndarray:
        """POST one batch, retrying transient failures; a (len(inputs), dim) float32 matrix or an EmbedderError."""
        payload = {"model": self.model, "input": inputs}
        recently_failed = time.monotonic() < self._failing_until
        attempts = 1 if recently_failed else self.max_retries + 1
        problem = ""
        for attempt in range(attempts):
            delay: float | None = None
            try:
                response = self._client.post(self.url, json=payload, headers=self._headers())
            except httpx.TimeoutException:
                problem = f"no answer within {self.timeout_s:g} s (timeout_s)"
            except httpx.TransportError as exc:
                problem = f"cannot connect ({type(exc).__name__}: {snippet(str(exc), 100)}); is the server running and base_url right?"
            else:
                if response.status_code == 200:
                    self._failing_until = 0.0
                    return self._parse(response, len(inputs))
                if response.status_code not in RETRY_STATUS:
                    raise self._refused(response)
                problem = f"HTTP {response.status_code}: {server_message(response)}"
                delay = retry_after(response)
            if attempt + 1 < attempts:
                backoff = self.backoff_s * 2**attempt * (1 + 0.25 * random.random())
                time.sleep(min(self.max_backoff_s, backoff if delay is None else delay))
        self._failing_until = time.monotonic() + self.cooldown_s
        retried = " (no retries: it also failed moments ago)" if recently_failed else ""
        raise EmbedderError(f"embedding server {self.url} failed {attempts} time(s){retried}: {problem}")

    def _refused(self, response: httpx.Response) -> EmbedderError:
        """A status no retry can cure, explained with what the user should check."""
        status = response.status_code
        message = server_message(response)
        if status in (401, 403):
            if os.environ.get(self.api_key_env, "").strip():
                hint = f"the key in ${self.api_key_env} was refused"
            else:
                hint = f"no API key sent: set the environment variable {self.api_key_env} (api_key_env)"
            return EmbedderError(f"embedding server {self.url} answered HTTP {status} ({message}); {hint}")
        if status == 404:
            return EmbedderError(
                f"embedding server {self.url} answered HTTP 404 ({message}); "
                f"check base_url (it should end in /v1) and that model {self.model!r} is served there"
            )
        return EmbedderError(f"embedding server {self.url} refused the request with HTTP {status}: {message}")

    def _parse(self, response: httpx.Response, count: int) -> np.ndarray:
        """Validate an OpenAI embeddings response; anything else is an error naming the URL, not a crash later."""
        where = f"embedding server {self.url}"
        try:
            body: Any = response.json()
        except ValueError:
            raise EmbedderError(f"{where} answered HTTP 200 with a body that is not JSON: {snippet(response.text)!r}") from None
        data = body.get("data") if isinstance(body, dict) else None
        if not isinstance(data, list):
            raise EmbedderError(
                f"{where} answered JSON without a 'data' list (is it an OpenAI-compatible embeddings endpoint?): "
                f"{snippet(response.text)!r}"
            )
        if len(data) != count:
            raise EmbedderError(f"{where} returned {len(data)} embeddings for {count} inputs")
        rows: list[np.ndarray | None] = [None] * count
        for position, item in enumerate(data):
            if not isinstance(item, dict) or "embedding" not in item:
                raise EmbedderError(f"{where}: item {position} of 'data' has no 'embedding'")
            index = item.get("index", position)
            if not isinstance(index, int) or not 0 <= index < count or rows[index] is not None:
                raise EmbedderError(f"{where}: item {position} of 'data' has a bad or repeated index {index!r}")
            rows[index] = self._vector(item["embedding"], where, index)
        dimensions = {len(row) for row in rows if row is not None}
        if len(dimensions) != 1:
            raise EmbedderError(f"{where} returned vectors of different lengths {sorted(dimensions)}")
        got = dimensions.pop()
        expected = self._dimension
        if expected is not None and got != expected:
            raise EmbedderError(
                f"{where} returned {got}-dimensional vectors for model {self.model!r}, "
                f"but {expected} are expected (dimension); the model behind the URL is not the one configured"
            )
        matrix = np.stack([row for row in rows if row is not None])
        if not np.isfinite(matrix).all():
            raise EmbedderError(f"{where} returned vectors containing NaN or infinity")
        return matrix

    @staticmethod
    def _vector(raw: Any, where: str, index: int) -> np.ndarray:
        """A list of floats, or the base64 float32 form some servers send."""
        if isinstance(raw, str):
            try:
                packed = base64.b64decode(raw, validate=True)
            except (binascii.Error, ValueError):
                raise EmbedderError(f"{where}: embedding {index} is a string but not base64") from None
            if not packed or len(packed) % 4:
                raise EmbedderError(f"{where}: embedding {index} is base64 of {len(packed)} bytes, not float32 values")
            return np.frombuffer(packed, dtype="<f4").astype(np.float32)
        if not isinstance(raw, list) or not raw or not all(isinstance(x, int | float) and not isinstance(x, bool) for x in raw):
            raise EmbedderError(f"{where}: embedding {index} is not a non-empty list of numbers: {snippet(repr(raw), 80)}")
        return np.asarray(raw, dtype=np.float32)
