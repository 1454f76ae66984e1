"""The user's cache folder: files bunko derives once per installed package and reuses in every later process.

What goes there is rebuilt from an installed package when missing or damaged (the parsed embedder, the word
frequency table), never the only copy of anything.
"""

from __future__ import annotations

import os
from pathlib import Path

CACHE_ENV = "BUNKO_CACHE_DIR"
"""Overrides the cache root (default: $XDG_CACHE_HOME/bunko, else ~/.cache/bunko)."""


def cache_root() -> Path:
    given = os.environ.get(CACHE_ENV)
    if given:
        return Path(given)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "bunko"
