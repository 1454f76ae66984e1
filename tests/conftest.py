"""Shared fixtures: one real USE model per test session, fresh collections per test."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bunko import Bunko, Config
from bunko.embed.use_m3 import UseM3Embedder
from bunko.text.entities import entity_key
from skip_policy import pytest_runtest_makereport  # noqa: F401 - the CI skip policy's hook, registered here
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


# -- what the sync tests share: a document present in, or gone from, every index --

def _present(kb: Bunko, source: str, word: str) -> None:
    assert source in {d.source for d in kb.documents()}, f"{source} is not stored"
    assert any(h.chunk.source == source for h in kb.search(word, mode="keyword", k=10)), f"{word} not found in {source}"


def _gone(kb: Bunko, source: str, word: str, chunk_ids: list[str]) -> None:
    """`source` is deleted from every index: its row, its chunks, dense and keyword search, the entity graph."""
    assert source not in {d.source for d in kb.documents()}
    assert kb.chunks(source) == []
    assert kb.store.get_chunks(chunk_ids) == []
    assert all(h.chunk.source != source for h in kb.search(word, mode="keyword", k=20))
    assert all(h.chunk.source != source for h in kb.search(word, mode="dense", k=50))
    graph = kb.store.search().entity_graph()
    assert not set(graph.passages_of(entity_key(word))) & set(chunk_ids)
    assert all(not graph.entities_of(chunk_id) for chunk_id in chunk_ids)


@pytest.fixture
def present() -> Callable[[Bunko, str, str], None]:
    """present(kb, source, word): the document is stored and a keyword search for `word` finds it."""
    return _present


@pytest.fixture
def gone() -> Callable[[Bunko, str, str, list[str]], None]:
    """gone(kb, source, word, chunk_ids): the document and its chunks are in no index any more."""
    return _gone

def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Say so when tests were skipped for lack of Tesseract, fonts or Chromium, and how to install them."""
    note = system_packages_note(terminalreporter.stats.get("skipped", []))
    if note:
        terminalreporter.write_line(note, yellow=True)
