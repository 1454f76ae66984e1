"""In CI a skipped test is a failure, unless `tests/allowed_skips.toml` lists it with its reason.

A skip hides an integration that ships untested: the `[test]` extra once lacked what eleven tests needed and
nothing noticed. Locally a skip stays a skip (a developer may lack Chromium); with `CI=true`, the environment
`.ci/run` runs under, each skip must be on the allow-list, matched by test id (`fnmatch` pattern) and, when the
entry gives one, by a fragment of the skip's reason.
"""

from __future__ import annotations

import fnmatch
import os
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ALLOW_LIST = Path(os.environ.get("BUNKO_ALLOWED_SKIPS") or Path(__file__).with_name("allowed_skips.toml"))
"""The allow-list; BUNKO_ALLOWED_SKIPS names another (the policy's own test runs pytest on one it writes)."""


@dataclass(frozen=True)
class AllowedSkip:
    test: str
    """A pytest node id pattern (fnmatch), e.g. "tests/store/test_postgres_ray.py::*"."""
    reason: str
    """Why this skip is acceptable in CI: written for the reader of the allow-list."""
    when: str = ""
    """A fragment the skip's own reason must contain (empty: any reason)."""

    def allows(self, nodeid: str, skip_reason: str) -> bool:
        return fnmatch.fnmatchcase(nodeid, self.test) and self.when in skip_reason


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in {"true", "1", "yes"}


def load_allowed(path: Path = ALLOW_LIST) -> list[AllowedSkip]:
    """The allow-list; every entry must give a test pattern and a reason."""
    data = tomllib.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    entries = []
    for number, entry in enumerate(data.get("skip", []), start=1):
        if not entry.get("test") or not entry.get("reason"):
            raise ValueError(f"{path}: skip entry {number} needs both `test` and `reason`")
        entries.append(AllowedSkip(entry["test"], entry["reason"], entry.get("when", "")))
    return entries


def skip_reason(longrepr: object) -> str:
    """The reason text of a skipped report (pytest keeps (file, line, "Skipped: reason"))."""
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr or "")


def unallowed(nodeid: str, reason: str, allowed: list[AllowedSkip]) -> str | None:
    """The failure text for a skip no entry allows, else None."""
    if any(entry.allows(nodeid, reason) for entry in allowed):
        return None
    return (f"skipped in CI: {reason}\nIn CI a skip is a failure: install what the test needs in .ci/run, or list it in "
            f"{ALLOW_LIST.name} with the reason it cannot run there.")


_allowed: list[AllowedSkip] | None = None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """In CI a skip outside the allow-list is reported as a failure, with the skip's reason and what to do."""
    global _allowed
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if not in_ci() or not report.skipped or hasattr(report, "wasxfail"):
        return
    if _allowed is None:
        _allowed = load_allowed()
    failure = unallowed(report.nodeid, skip_reason(report.longrepr), _allowed)
    if failure is not None:
        report.outcome = "failed"
        report.longrepr = failure
