"""HNSW against exact search on random clustered data; filters, updates and persistence."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bunko.index.hnsw import EF_LADDER, HnswIndex

DIM = 64


def _data(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centers = rng.standard_normal((40, DIM))
    x = centers[rng.integers(0, 40, n)] + 0.7 * rng.standard_normal((n, DIM))
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def _recall(index: HnswIndex, vectors: np.ndarray, queries: np.ndarray, allowed: np.ndarray | None = None) -> float:
    total = 0.0
    for q in queries:
        scores = vectors @ q
        if allowed is not None:
            scores = np.where(allowed, scores, -np.inf)
        exact = set(np.argsort(-scores)[:10].tolist())
        total += len(exact & {row for row, _ in index.search(q, 10, allowed)}) / 10
    return total / len(queries)


@pytest.mark.parametrize(("precision", "minimum"), [("float32", 0.98), ("float16", 0.98), ("int8", 0.90)])
def test_hnsw_recall_at_10_against_exact(tmp_path: Path, precision: str, minimum: float) -> None:
    vectors = _data(5000)
    index = HnswIndex(tmp_path, precision=precision)
    index.sync([f"c{i}" for i in range(len(vectors))], vectors)
    assert _recall(index, vectors, _data(50, seed=1)) >= minimum


def test_filtered_hnsw_returns_only_allowed_rows_and_k_of_them(tmp_path: Path) -> None:
    vectors = _data(4000)
    index = HnswIndex(tmp_path)
    index.sync([f"c{i}" for i in range(len(vectors))], vectors)
    allowed = np.zeros(len(vectors), dtype=bool)
    allowed[::3] = True
    for q in _data(10, seed=2):
        rows = [row for row, _ in index.search(q, 10, allowed)]
        assert len(rows) == 10 and all(allowed[r] for r in rows)
    assert _recall(index, vectors, _data(30, seed=3), allowed) >= 0.95


def test_sync_adds_new_rows_tombstones_removed_ones_and_persists(tmp_path: Path) -> None:
    vectors = _data(3000)
    keys = [f"c{i}" for i in range(len(vectors))]
    index = HnswIndex(tmp_path)
    index.sync(keys, vectors)
    assert index.rebuilt
    kept_keys, kept = keys[100:], vectors[100:]
    extra = _data(200, seed=9)
    reopened = HnswIndex(tmp_path)
    reopened.sync(kept_keys + [f"n{i}" for i in range(200)], np.vstack([kept, extra]))
    assert not reopened.rebuilt, "a small change updates the persisted graph instead of rebuilding it"
    hit_row, score = reopened.search(extra[5], 1, None)[0]
    assert hit_row == len(kept) + 5 and score == pytest.approx(1.0, abs=1e-4)
    removed_query = vectors[10]
    assert all(row < len(kept) + 200 for row, _ in reopened.search(removed_query, 10, None))
    assert np.count_nonzero(reopened.row_of_entry < 0) == 100


def test_many_tombstones_trigger_a_rebuild(tmp_path: Path) -> None:
    vectors = _data(2000)
    index = HnswIndex(tmp_path)
    index.sync([f"c{i}" for i in range(2000)], vectors)
    index.sync([f"c{i}" for i in range(1000)], vectors[:1000])
    assert index.rebuilt and len(index.row_of_entry) == 1000


def _uniform(n: int, dim: int, seed: int) -> np.ndarray:
    x = np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def test_calibrated_ef_reaches_the_target_where_the_fixed_ef_does_not(tmp_path: Path) -> None:
    # uniformly random vectors and a sparse graph: the hard case, where ef 160 misses a fifth of the neighbours
    vectors = _uniform(10_000, DIM, seed=0)
    queries = _uniform(100, DIM, seed=1)
    fixed = HnswIndex(tmp_path / "fixed", connectivity=8, ef_construction=40, target_recall=None)
    fixed.sync([f"c{i}" for i in range(len(vectors))], vectors)
    assert fixed.ef_search == 160 and fixed.calibration is None
    assert _recall(fixed, vectors, queries) < 0.9
    index = HnswIndex(tmp_path / "calibrated", connectivity=8, ef_construction=40, target_recall=0.98)
    index.sync([f"c{i}" for i in range(len(vectors))], vectors)
    assert index.calibrated and index.ef_search > 160
    assert index.calibration is not None and index.calibration["recall@10"] >= 0.98
    assert index.calibration["ef_search"] == index.ef_search
    # the calibration's own sample stands in for unseen queries: these reach the target within noise
    assert _recall(index, vectors, queries) >= 0.97


def test_easy_data_gets_the_smallest_ef_and_a_reopen_keeps_the_calibration(tmp_path: Path) -> None:
    vectors = _data(3000)
    keys = [f"c{i}" for i in range(len(vectors))]
    index = HnswIndex(tmp_path)
    index.sync(keys, vectors)
    assert index.calibrated and index.ef_search == EF_LADDER[0] and index.calibration["recall@10"] >= 0.98
    stats = index.stats()
    assert stats is not None and stats["ef_search"] == EF_LADDER[0] and stats["entries"] == 3000

    reopened = HnswIndex(tmp_path)
    reopened.ef_search = 999  # whatever the constructor said: the persisted calibration wins
    reopened.sync(keys, vectors)
    assert not reopened.rebuilt and not reopened.calibrated and reopened.ef_search == EF_LADDER[0]
    assert reopened.stats() == stats

    small_add = np.vstack([vectors, _data(100, seed=7)])
    reopened.sync(keys + [f"n{i}" for i in range(100)], small_add)
    assert not reopened.calibrated, "a small add keeps the calibration"
    large_add = np.vstack([small_add, _data(600, seed=8)])
    reopened.sync(keys + [f"n{i}" for i in range(100)] + [f"m{i}" for i in range(600)], large_add)
    assert reopened.calibrated and reopened.stats()["entries"] == 3700, "a large add calibrates again"

    other_target = HnswIndex(tmp_path, target_recall=0.999)
    other_target.sync(keys + [f"n{i}" for i in range(100)] + [f"m{i}" for i in range(600)], large_add)
    assert other_target.calibrated and other_target.stats()["target_recall"] == 0.999


def test_a_rebuild_discards_the_old_calibration(tmp_path: Path) -> None:
    vectors = _data(2000)
    index = HnswIndex(tmp_path)
    index.sync([f"c{i}" for i in range(2000)], vectors)
    first = index.stats()["calibrated_at"]
    index.sync([f"c{i}" for i in range(1000)], vectors[:1000])
    assert index.rebuilt and index.calibrated and index.stats()["entries"] == 1000
    assert HnswIndex(tmp_path).stats()["entries"] == 1000 and first is not None


def test_a_fixed_ef_search_skips_calibration_and_leaves_the_persisted_one(tmp_path: Path) -> None:
    vectors = _uniform(4000, DIM, seed=0)
    keys = [f"c{i}" for i in range(len(vectors))]
    calibrated = HnswIndex(tmp_path, connectivity=8, ef_construction=40)
    calibrated.sync(keys, vectors)
    assert calibrated.calibrated
    stats = calibrated.stats()

    fixed = HnswIndex(tmp_path, connectivity=8, ef_construction=40, fixed_ef_search=20)
    fixed.sync(keys, vectors)
    assert not fixed.rebuilt and not fixed.calibrated and fixed.ef_search == 20
    assert fixed.stats() == stats, "the calibration on disk is neither applied nor replaced"
    queries = _uniform(50, DIM, seed=1)
    assert _recall(fixed, vectors, queries) < _recall(calibrated, vectors, queries), "a smaller ef trades recall for speed"

    fresh = HnswIndex(tmp_path / "fresh", connectivity=8, ef_construction=40, fixed_ef_search=300)
    fresh.sync(keys, vectors)
    assert fresh.rebuilt and not fresh.calibrated and fresh.ef_search == 300 and fresh.stats() is None
    with pytest.raises(ValueError):
        HnswIndex(tmp_path, fixed_ef_search=0)


@pytest.mark.parametrize("damage", ["truncate-graph", "garbage-graph", "truncate-keys", "keys-not-a-list"])
def test_an_unreadable_graph_is_rebuilt_not_fatal(tmp_path: Path, damage: str) -> None:
    vectors = _data(1500)
    keys = [f"c{i}" for i in range(len(vectors))]
    HnswIndex(tmp_path).sync(keys, vectors)
    graph = next(tmp_path.glob("*.faiss"))
    key_file = next(tmp_path.glob("*.keys.json"))
    assert not list(tmp_path.glob("*.tmp")), "written under a temporary name, then renamed"
    if damage == "truncate-graph":
        graph.write_bytes(graph.read_bytes()[: graph.stat().st_size // 2])
    elif damage == "garbage-graph":
        graph.write_bytes(b"\x00not a faiss index" * 10)
    elif damage == "truncate-keys":
        key_file.write_text(key_file.read_text(encoding="utf-8")[:100], encoding="utf-8")
    else:
        key_file.write_text('{"c0": 0}', encoding="utf-8")
    reopened = HnswIndex(tmp_path)
    reopened.sync(keys, vectors)
    assert reopened.rebuilt
    assert reopened.search(vectors[7], 1, None)[0][0] == 7
