"""Module-level patterns compile on first use and then behave as `re.compile`'s; importing the engine and the answerer
compiles none of bunko's."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import bunko
from bunko.text.lazy_regex import LazyPattern, lazy_compile

SRC = Path(bunko.__file__).resolve().parents[1]


def test_a_lazy_pattern_compiles_on_first_use_and_matches_like_re() -> None:
    pattern = lazy_compile(r"(?P<num>\d+)\s*(円|元|yen)", re.IGNORECASE)
    assert isinstance(pattern, LazyPattern) and "_compiled" not in pattern.__dict__
    assert pattern.pattern == r"(?P<num>\d+)\s*(円|元|yen)"
    eager = re.compile(pattern.pattern, re.IGNORECASE)
    for text in ("宿泊費は12,000円まで", "婚假3天，补贴500元", "It costs 300 YEN a night", "no number"):
        assert [m.span() for m in pattern.finditer(text)] == [m.span() for m in eager.finditer(text)]
        assert pattern.sub("#", text) == eager.sub("#", text)
        assert pattern.findall(text) == eager.findall(text)
    assert "_compiled" in pattern.__dict__ and pattern.groupindex == eager.groupindex and pattern.groups == 2
    assert pattern.flags == eager.flags


def test_a_bytes_pattern_stays_bytes() -> None:
    pattern = lazy_compile(rb"<meta[^>]+charset=[\"']?([\w-]+)", re.IGNORECASE)
    match = pattern.search(b'<html><META charset="shift_jis">')
    assert match is not None and match.group(1) == b"shift_jis"


_PROBE = """
import re, sys
compiled = []
original = re._compile
def counting(pattern, flags):
    frame = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__", "") in ("re", "re._compiler", "re._parser"):
        frame = frame.f_back
    if frame is not None and frame.f_globals.get("__name__", "").startswith("bunko"):
        compiled.append(frame.f_globals["__name__"])
    return original(pattern, flags)
re._compile = counting
import bunko.engine, bunko.generate.answerer
print(sorted(set(compiled)))
"""


def test_importing_the_engine_compiles_no_bunko_pattern() -> None:
    env = {**os.environ, "PYTHONPATH": str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, env=env, timeout=180)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", f"compiled at import: {done.stdout.strip()}"
