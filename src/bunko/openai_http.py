"""What the OpenAI-compatible embedder and chat model share: URLs, error text, Retry-After.

Servers that speak the protocol (vLLM, Ollama, LM Studio, llama.cpp, OpenAI)
differ in how they phrase errors and in which base URL users paste; both
adapters accept the same forms and report failures the same way.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import httpx


def endpoint_url(base_url: str, endpoint: str) -> str:
    """``…/v1`` (what OpenAI clients take), the full ``…/<endpoint>``, or a bare ``http://host:port``.

    Raises ValueError with a user-facing message when it is not an http(s) URL.
    """
    url = base_url.strip().rstrip("/")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"base_url {base_url!r} is not an http(s) URL, e.g. http://127.0.0.1:8000/v1")
    if url.endswith("/" + endpoint):
        return url
    if parts.path in ("", "/"):
        return f"{url}/v1/{endpoint}"
    return f"{url}/{endpoint}"


def snippet(text: str, limit: int = 160) -> str:
    """One line of a response body for an error message (job errors keep only the first line)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit] + "…"


def server_message(response: httpx.Response) -> str:
    """The server's own explanation: OpenAI's ``error.message``, FastAPI's ``detail``, or the raw body."""
    try:
        body = response.json()
    except ValueError:
        return snippet(response.text) or response.reason_phrase
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and error.get("message"):
            return snippet(str(error["message"]))
        for key in ("error", "detail", "message"):
            if body.get(key) and not isinstance(body[key], dict):
                return snippet(str(body[key]))
    return snippet(response.text)


def retry_after(response: httpx.Response, cap_s: float | None = None) -> float | None:
    """Seconds from a ``Retry-After`` header (the HTTP-date form is rare for APIs and ignored)."""
    try:
        seconds = float(response.headers.get("retry-after", ""))
    except ValueError:
        return None
    if seconds < 0:
        return None
    return seconds if cap_s is None else min(seconds, cap_s)
