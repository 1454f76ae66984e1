"""Shared fixtures: one real USE model per test session, fresh collections per test."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bunko import Bunko, Config
from bunko.embed.use_m3 import UseM3Embedder
from system_packages import system_packages_note

SAMPLES = Path(__file__).resolve().parents[1] / "src" / "bunko" / "samples" / "docs"


@pytest.fixture(scope="session")
def embedder() -> UseM3Embedder:
    return UseM3Embedder(threads=1)


@pytest.fixture
def make_kb(tmp_path: Path, embedder: UseM3Embedder) -> Iterator[Callable[..., Bunko]]:
    """Open a collection under tmp_path with the shared embedder: make_kb(config=None, name=".bunko")."""
    opened: list[Bunko] = []

    def factory(config: Config | None = None, name: str = ".bunko") -> Bunko:
        kb = Bunko(tmp_path / name, config=config, embedder=embedder)
        opened.append(kb)
        return kb

    yield factory
    for kb in opened:
        kb.close()


@pytest.fixture(scope="session")
def samples_dir() -> Path:
    return SAMPLES



def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Say so when tests were skipped for lack of Tesseract, fonts or Chromium, and how to install them."""
    note = system_packages_note(terminalreporter.stats.get("skipped", []))
    if note:
        terminalreporter.write_line(note, yellow=True)
