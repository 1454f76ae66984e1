"""How far a parser is through the file in hand, told to whoever ingests it.

A parser of a paged format (PDF pages, image frames, slides) calls `report(done, total)` after each page; the
pipeline listens with `listening(callback)`. In the parse child process (`ingest/isolation.py`) the callback sends
a small message over the pipe to the ingesting process, so the page count crosses the process boundary. Outside
`listening` a report goes nowhere, so parsers never need to know whether anyone is listening.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

PageCallback = Callable[[int, int, str], None]
"""(done, total, unit): `done` of `total` pages (or frames, slides) read."""

_LISTENER: ContextVar[PageCallback | None] = ContextVar("bunko_parse_progress", default=None)


def report(done: int, total: int, unit: str = "page") -> None:
    """`done` of `total` units of the file in hand are parsed."""
    listener = _LISTENER.get()
    if listener is not None:
        listener(done, total, unit)


@contextmanager
def listening(callback: PageCallback | None) -> Iterator[None]:
    """Reports made by parsers inside the block go to `callback` (None: nowhere)."""
    token = _LISTENER.set(callback)
    try:
        yield
    finally:
        _LISTENER.reset(token)
