"""Waiting in tests: on a condition, with a deadline, never for a fixed time.

A fixed sleep is either too short on a loaded machine (the test fails) or too long everywhere (the suite
crawls), and a negative check after one ("nothing happened within 2 s") passes as readily when the machine was
too slow for the thing to happen at all. Wait for what the sleep stood for instead; the deadline only turns a
hang into a failure, so it is generous and says what was awaited.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

POLL_S = 0.01


def wait_until(predicate: Callable[[], T], timeout: float = 60.0, message: str | Callable[[], str] = "") -> T:
    """Poll `predicate` until it returns something truthy and return that; past `timeout` seconds, fail the test
    with `message` (a string, or a function giving one, called then, so it can show the state that was seen)."""
    deadline = time.monotonic() + timeout
    delay = POLL_S
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            said = message() if callable(message) else message
            raise AssertionError(f"not so after {timeout:g} s: {said or getattr(predicate, '__name__', 'the condition')}")
        time.sleep(delay)  # a poll interval, not a wait for anything: the predicate decides
        delay = min(delay * 2, 0.1)
