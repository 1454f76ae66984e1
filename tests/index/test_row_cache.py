"""The index rows cached per generation: a new process reads them from the cache files, finds exactly what a read
from SQLite finds, and treats any damaged cache file as absent."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bunko import Bunko
from bunko.index import row_cache
from bunko.index.memory import MemoryIndex

QUESTIONS = ["宿泊費の上限", "年假有几天", "API rate limit"]
FILTERS = [None, {"source": {"$glob": "*.md"}}]


def _results(kb: Bunko) -> list[list[tuple[str, float]]]:
    return [
        [(h.chunk.chunk_id, round(h.score, 6)) for h in kb.search(q, k=5, filters=where)]
        for q in QUESTIONS for where in FILTERS
    ]


def _row_files(collection: Path) -> list[Path]:
    return sorted(collection.rglob(f"{row_cache.PREFIX}*"))


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory, embedder, samples_dir: Path) -> tuple[Path, list[list[tuple[str, float]]]]:
    """The samples (ja/zh/en) ingested and searched once: the first search writes the row cache."""
    collection = tmp_path_factory.mktemp("rows") / ".bunko"
    kb = Bunko(collection, embedder=embedder)
    kb.ingest(samples_dir)
    before = _results(kb)
    kb.close()
    return collection, before


@pytest.fixture
def ingested(written, tmp_path: Path) -> tuple[Path, list[list[tuple[str, float]]]]:
    """A copy of the written collection for one test to change."""
    collection, before = written
    copy = tmp_path / ".bunko"
    shutil.copytree(collection, copy)
    return copy, before


def test_a_new_process_reads_the_rows_from_the_cache_and_finds_the_same(ingested, embedder, monkeypatch) -> None:
    collection, before = ingested
    assert {"vectors.npy", "cells.npy", "json"} <= {p.name.split(".", 1)[1] for p in _row_files(collection)}

    def no_sqlite_read(*_: object) -> None:
        raise AssertionError("rows read from SQLite although the cache holds them")

    reopened = Bunko(collection, embedder=embedder)
    monkeypatch.setattr(reopened.store, "_read_rows", no_sqlite_read)
    assert _results(reopened) == before
    reopened.close()


def test_the_cache_is_rewritten_for_a_new_generation_and_the_old_one_removed(ingested, embedder, tmp_path: Path) -> None:
    collection, _ = ingested
    old = {p.name for p in _row_files(collection)}
    docs = tmp_path / "more"
    docs.mkdir()
    (docs / "extra.md").write_text("# Parking\n\nThe parking fee is refunded up to 1,500 yen a day.\n", encoding="utf-8")
    kb = Bunko(collection, embedder=embedder)
    kb.ingest(docs)
    assert any(h.chunk.source.endswith("extra.md") for h in kb.search("parking fee refunded", k=3))
    kb.close()
    new = {p.name for p in _row_files(collection)}
    assert new and not new & old


@pytest.mark.parametrize("damage", ["cut-vectors", "cut-cells", "cut-table", "garbage-table", "other-generation", "missing-cells",
                                    "cells-out-of-range"])
def test_a_damaged_row_cache_is_read_again_from_the_store(ingested, embedder, damage: str) -> None:
    collection, before = ingested
    files = {p.name.split(".", 1)[1]: p for p in _row_files(collection)}
    if damage == "cut-vectors":
        files["vectors.npy"].write_bytes(files["vectors.npy"].read_bytes()[:1000])
    elif damage == "cut-cells":
        files["cells.npy"].write_bytes(files["cells.npy"].read_bytes()[:200])
    elif damage == "cut-table":
        files["json"].write_bytes(files["json"].read_bytes()[:100])
    elif damage == "garbage-table":
        files["json"].write_text('{"format": 1, "ids": 5}', encoding="utf-8")
    elif damage == "other-generation":
        text = files["json"].read_text(encoding="utf-8")
        files["json"].write_text(text.replace('"generation": ', '"generation": 9'), encoding="utf-8")
    elif damage == "missing-cells":
        files["cells.npy"].unlink()
    else:
        cells = np.load(files["cells.npy"])
        cells[0, 0] = 10_000_000
        np.save(files["cells.npy"], cells)
    reopened = Bunko(collection, embedder=embedder)
    assert _results(reopened) == before
    reopened.close()
    assert row_cache.load(next(iter(_row_files(collection))).parent, reopened_generation(collection)) is not None


def reopened_generation(collection: Path) -> int:
    names = [p.name for p in _row_files(collection)]
    return int(names[0].split(".", 1)[0].removeprefix(row_cache.PREFIX))


def test_records_are_built_only_when_a_search_filters(ingested, embedder) -> None:
    collection, _ = ingested
    reopened = Bunko(collection, embedder=embedder)
    reopened.search(QUESTIONS[0], k=3)
    index = reopened.store._current_index()
    assert index._raw_records._records is None  # type: ignore[attr-defined]
    assert reopened.search(QUESTIONS[2], k=3, filters={"source": {"$glob": "*.md"}})
    assert index._raw_records._records is not None  # type: ignore[attr-defined]
    reopened.close()


def test_row_languages_and_document_centroids_are_kept_and_a_damaged_one_recomputed(ingested, embedder) -> None:
    collection, before = ingested
    index_dir = next(iter(_row_files(collection))).parent
    kept = {p.name.split(".")[1] for p in index_dir.glob(f"{row_cache.PREFIX}*") if p.name.count(".") == 2}
    assert {"languages", "centroids"} <= kept  # the samples are ja/zh/en: the first searches judged languages
    languages = next(index_dir.glob(f"{row_cache.PREFIX}*.languages.npy"))
    expected = np.load(languages)
    languages.write_bytes(b"garbage")
    reopened = Bunko(collection, embedder=embedder)
    assert _results(reopened) == before
    assert np.array_equal(reopened.store._current_index()._languages_of_rows(), expected)
    reopened.close()
    assert np.array_equal(np.load(languages), expected)  # written again


NEW_PAGES = {
    "ja": ("parking-ja.md", "# 駐車場\n\n駐車場の利用料は一日千五百円まで精算できます。領収書を添えて申請してください。\n", "駐車場の利用料の精算"),
    "zh": ("parking-zh.md", "# 停车\n\n停车费每天最多报销一百元，须附停车票据。\n", "停车费报销上限"),
    "en": ("parking-en.md", "# Parking\n\nThe parking fee is refunded up to 1,500 yen a day with a receipt.\n", "parking fee refunded"),
}


def test_a_write_writes_the_cache_and_a_search_after_it_writes_none(ingested, embedder, tmp_path: Path, monkeypatch) -> None:
    collection, _ = ingested
    index_dir = next(iter(_row_files(collection))).parent
    docs = tmp_path / "parking"
    docs.mkdir()
    for name, text, _ in NEW_PAGES.values():
        (docs / name).write_text(text, encoding="utf-8")
    kb = Bunko(collection, embedder=embedder)
    kb.ingest(docs)
    generation = kb.store.generation()
    assert row_cache.load(index_dir, generation) is not None  # written by the ingest, before any search
    assert (index_dir / f"bm25-{generation}.npz").exists()

    def no_write(*_: object) -> None:
        raise AssertionError("a search wrote an index cache file")

    def no_sqlite_read(*_: object) -> None:
        raise AssertionError("a search read the rows although the write had loaded them")

    monkeypatch.setattr(row_cache, "save", no_write)
    monkeypatch.setattr(MemoryIndex, "_save_bm25", no_write)
    monkeypatch.setattr(kb.store, "_read_rows", no_sqlite_read)
    for lang, (name, _, question) in NEW_PAGES.items():
        assert kb.search(question, k=3)[0].chunk.source.endswith(name), lang
        assert kb.search(question, k=3, mode="keyword")[0].chunk.source.endswith(name), lang
    kb.close()  # waits for any write handed to the index's writer thread: none was a cache of rows or BM25


def test_a_search_on_a_generation_without_cache_files_does_not_wait_for_them(ingested, embedder, monkeypatch) -> None:
    collection, before = ingested
    index_dir = next(iter(_row_files(collection))).parent
    generation = reopened_generation(collection)
    for path in _row_files(collection):
        path.unlink()
    started, release = threading.Event(), threading.Event()
    save = row_cache.save

    def held_save(*args: Any) -> None:
        started.set()
        assert release.wait(60)
        save(*args)

    monkeypatch.setattr(row_cache, "save", held_save)
    reopened = Bunko(collection, embedder=embedder)
    assert _results(reopened) == before  # read from SQLite, and answered while the cache write is held
    assert started.wait(30)
    assert row_cache.load(index_dir, generation) is None
    release.set()
    reopened.close()  # waits for the writer thread
    assert row_cache.load(index_dir, generation) is not None
