"""The note pytest's summary ends with when tests were skipped for missing system packages (tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

INSTALL_SYSTEM_PACKAGES = "xargs -a deps/apt.txt apt-get install -y"
"""The one command (as root) that installs every system package the tests use (Debian/Ubuntu; CI runs the same)."""
SYSTEM_PACKAGES_HINT = ("apt-get install", "deps/apt.txt")
"""What the skip reason of a test that needs a system package (Tesseract, its language data, CJK fonts, Chromium) says."""


def missing(tool: str) -> str:
    """The skip reason of a test that needs `tool`: what is missing, and the command that installs it."""
    return f"{tool} is not installed; install the system packages with: {INSTALL_SYSTEM_PACKAGES}"


def skipped_for_system_packages(reports: Iterable[Any]) -> list[str]:
    """The skip reasons, among `reports`, of tests skipped for a missing system package."""
    reasons = []
    for report in reports:
        longrepr = getattr(report, "longrepr", None)
        reason = str(longrepr[2]) if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr or "")
        if any(hint in reason for hint in SYSTEM_PACKAGES_HINT):
            reasons.append(reason.removeprefix("Skipped: ").split("; install the system packages with:")[0])
    return reasons


def system_packages_note(reports: Iterable[Any]) -> str | None:
    reasons = skipped_for_system_packages(reports)
    if not reasons:
        return None
    return (f"{len(reasons)} tests skipped for missing system packages ({'; '.join(sorted(set(reasons)))}); "
            f"install them all with: {INSTALL_SYSTEM_PACKAGES}")
