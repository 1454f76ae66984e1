"""Approximate nearest neighbours (HNSW, via faiss) for collections past the exact-search size.

Chosen by measurement (bench/bench_ann.py, 100k × 512 clustered vectors, 2 cores):
faiss HNSW built 3.5× faster than usearch at the same recall (0.999 vs 1.0 at
recall@10) and answered in 0.13 ms against 16.6 ms for exact search.

The graph is persisted beside the store and kept across generations: new chunks
are added, vanished ones become tombstones excluded at search time, and the
graph is rebuilt only when tombstones pass a share. Entries are keyed by chunk id
plus embedding hash, so a chunk whose text changed under the same id is a new
entry, never a stale vector.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np

REBUILD_TOMBSTONE_SHARE = 0.2
EXACT_SUBSET_ROWS = 20_000
"""A filter that leaves at most this many rows is searched exactly: cheaper than HNSW and exact."""

PRECISIONS = ("float32", "float16", "int8")


def _new_index(dimension: int, precision: str, connectivity: int, ef_construction: int) -> Any:
    import faiss

    if precision == "float32":
        index = faiss.IndexHNSWFlat(dimension, connectivity, faiss.METRIC_INNER_PRODUCT)
    else:
        quantizer = faiss.ScalarQuantizer.QT_fp16 if precision == "float16" else faiss.ScalarQuantizer.QT_8bit
        index = faiss.IndexHNSWSQ(dimension, quantizer, connectivity, faiss.METRIC_INNER_PRODUCT)
    index.hnsw.efConstruction = ef_construction
    return index


class HnswIndex:
    def __init__(self, folder: Path, precision: str = "float32", connectivity: int = 32, ef_construction: int = 200, ef_search: int = 160) -> None:
        if precision not in PRECISIONS:
            raise ValueError(f"unknown vector precision {precision!r}; use one of {', '.join(PRECISIONS)}")
        self.folder = folder
        self.precision = precision
        self.connectivity = connectivity
        self.ef_construction = ef_construction
        self.ef_search = ef_search
        self._index: Any = None
        self._keys: list[str] = []
        self.row_of_entry = np.zeros(0, dtype=np.int64)
        self.rebuilt = False

    @property
    def _paths(self) -> tuple[Path, Path]:
        stem = f"hnsw-{self.precision}-m{self.connectivity}"
        return self.folder / f"{stem}.faiss", self.folder / f"{stem}.keys.json"

    def sync(self, keys: list[str], vectors: np.ndarray) -> None:
        """Bring the graph in line with the current rows (keys[i] ↔ vectors[i])."""
        import faiss

        self.rebuilt = False
        if self._index is None:
            self._load()
        row_of_key = {key: row for row, key in enumerate(keys)}
        known = set(self._keys)
        missing = [row for row, key in enumerate(keys) if key not in known]
        tombstones = sum(1 for key in self._keys if key not in row_of_key)
        if self._index is None or tombstones > REBUILD_TOMBSTONE_SHARE * max(len(self._keys), 1):
            self._index = _new_index(vectors.shape[1], self.precision, self.connectivity, self.ef_construction)
            self._keys = []
            missing = list(range(len(keys)))
            self.rebuilt = True
        if missing:
            batch = np.ascontiguousarray(vectors[missing], dtype=np.float32)
            if self.precision != "float32" and not self._index.is_trained:
                self._index.train(batch)
            faiss.omp_set_num_threads(max(os.cpu_count() or 1, 1))
            self._index.add(batch)
            self._keys.extend(keys[row] for row in missing)
            self._save()
        self.row_of_entry = np.fromiter((row_of_key.get(key, -1) for key in self._keys), dtype=np.int64, count=len(self._keys))

    def _load(self) -> None:
        import faiss

        graph, keys = self._paths
        if graph.exists() and keys.exists():
            try:
                self._index = faiss.read_index(str(graph))
                self._keys = json.loads(keys.read_text(encoding="utf-8"))
                if self._index.ntotal != len(self._keys):
                    raise ValueError("graph and keys disagree")
            except (RuntimeError, ValueError, OSError):
                self._index, self._keys = None, []

    def _save(self) -> None:
        import faiss

        graph, keys = self._paths
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            faiss.write_index(self._index, str(graph) + ".tmp")
            keys.with_suffix(".tmp").write_text(json.dumps(self._keys), encoding="utf-8")
            os.replace(str(graph) + ".tmp", graph)
            os.replace(keys.with_suffix(".tmp"), keys)
        except OSError:
            pass  # read-only collection: the graph lives in memory for this process only

    def search(self, query: np.ndarray, k: int, allowed_rows: np.ndarray | None) -> list[tuple[int, float]]:
        """Top-k rows by inner product; `allowed_rows` is a boolean mask over rows (None = all live rows)."""
        import faiss

        live = self.row_of_entry >= 0
        if allowed_rows is not None:
            live &= allowed_rows[np.maximum(self.row_of_entry, 0)]
        if not live.any():
            return []
        bitmap = np.packbits(live, bitorder="little")
        selector = faiss.IDSelectorBitmap(len(live), faiss.swig_ptr(bitmap))
        params = faiss.SearchParametersHNSW(sel=selector, efSearch=max(self.ef_search, 2 * k))
        distances, entries = self._index.search(np.asarray(query, dtype=np.float32).reshape(1, -1), k, params=params)
        return [(int(self.row_of_entry[e]), float(s)) for e, s in zip(entries[0], distances[0], strict=True) if e >= 0]
