"""Approximate nearest neighbours (HNSW, via faiss) for collections past the exact-search size.

Chosen by measurement (bench/bench_ann.py, 100k × 512 clustered vectors, 2 cores):
faiss HNSW built 3.5× faster than usearch at the same recall (0.999 vs 1.0 at
recall@10) and answered in 0.13 ms against 16.6 ms for exact search.

The graph is persisted beside the store and kept across generations: new chunks
are added, vanished ones become tombstones excluded at search time, and the
graph is rebuilt only when tombstones pass a share. Entries are keyed by chunk id
plus embedding hash, so a chunk whose text changed under the same id is a new
entry, never a stale vector.

ef_search is calibrated, not fixed: after a rebuild or a large add, queries made
from the collection's own rows (see `HnswIndex.calibrate`) are searched exactly
and through the graph at a ladder of ef values, and the smallest ef reaching the
target recall@10 is kept, with the recall it measured, in a meta file beside the
graph (a fixed ef 160 gave recall@10 0.995 at 10k, 0.967 at 100k and 0.861 at
1M on the bench's vectors, bench/results/retrieval.md). The estimate is a proxy:
on the bench's 1M collection it was pessimistic (ef 4096 chosen where 1536
already gave its questions 0.984), so the recall is met at a latency cost.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from bunko.index.atomic import replacing

REBUILD_TOMBSTONE_SHARE = 0.2
ADD_BLOCK_ROWS = 65_536
EXACT_SUBSET_ROWS = 20_000
"""A filter that leaves at most this many rows is searched exactly: cheaper than HNSW and exact."""

PRECISIONS = ("float32", "float16", "int8")

EF_LADDER = (160, 192, 256, 384, 512, 768, 1024, 1280, 1536, 1792, 2048, 3072, 4096)
"""Starts at the former fixed ef: calibration only ever raises it."""
CALIBRATION_QUERIES = 400
CALIBRATION_METHOD = "sum-of-3-held-out-rows, 95% lower bound"
"""Stored with the calibration; a graph calibrated by another method is calibrated again."""
CALIBRATION_K = 10
RECALIBRATE_ADDED_SHARE = 0.1
"""Adding more than this share of the entries counted at the last calibration calibrates again."""
CONFIDENCE_Z = 1.645
CALIBRATION_MIX = 3
"""A calibration query is the normalised sum of this many random rows."""


def _new_index(dimension: int, precision: str, connectivity: int, ef_construction: int) -> Any:
    import faiss

    index: faiss.IndexHNSW
    if precision == "float32":
        index = faiss.IndexHNSWFlat(dimension, connectivity, faiss.METRIC_INNER_PRODUCT)
    else:
        quantizer = faiss.ScalarQuantizer.QT_fp16 if precision == "float16" else faiss.ScalarQuantizer.QT_8bit
        # faiss's stubs type the second argument as a ScalarQuantizer; the SWIG constructor takes its QuantizerType (an int).
        index = faiss.IndexHNSWSQ(dimension, quantizer, connectivity, faiss.METRIC_INNER_PRODUCT)  # type: ignore[arg-type]
    index.hnsw.efConstruction = ef_construction
    return index


def _search_parameters(selector: Any, ef_search: int) -> Any:
    """Per-search ef and allow-list, so one graph serves every filter and calibration step without being rebuilt."""
    import faiss

    # SearchParametersHNSW exists in the SWIG module but is missing from faiss's bundled stubs (1.15).
    return faiss.SearchParametersHNSW(sel=selector, efSearch=ef_search)  # type: ignore[attr-defined]


class HnswIndex:
    def __init__(
        self, folder: Path, precision: str = "float32", connectivity: int = 32, ef_construction: int = 200,
        ef_search: int = 160, target_recall: float | None = 0.98, fixed_ef_search: int | None = None,
    ) -> None:
        """`target_recall` (recall@10 against exact search) calibrates ef_search; None keeps `ef_search` fixed.

        `fixed_ef_search` (the user's retrieve.ann_ef_search) overrides both: that ef is used and nothing is
        calibrated; a calibration persisted earlier stays on disk untouched, for when the override is removed.
        """
        if fixed_ef_search is not None and fixed_ef_search < 1:
            raise ValueError(f"ef_search must be positive, not {fixed_ef_search}")
        if precision not in PRECISIONS:
            raise ValueError(f"unknown vector precision {precision!r}; use one of {', '.join(PRECISIONS)}")
        self.folder = folder
        self.precision = precision
        self.connectivity = connectivity
        self.ef_construction = ef_construction
        self.fixed_ef_search = fixed_ef_search
        self.ef_search = fixed_ef_search if fixed_ef_search is not None else ef_search
        self.target_recall = target_recall
        self.calibration: dict[str, Any] | None = None
        self._index: Any = None
        self._keys: list[str] = []
        self.row_of_entry = np.zeros(0, dtype=np.int64)
        self._live_bitmap = np.zeros(0, dtype=np.uint8)
        self.rebuilt = False
        self.calibrated = False

    @property
    def _paths(self) -> tuple[Path, Path]:
        stem = f"hnsw-{self.precision}-m{self.connectivity}"
        return self.folder / f"{stem}.faiss", self.folder / f"{stem}.keys.json"

    @property
    def _meta_path(self) -> Path:
        return self.folder / f"hnsw-{self.precision}-m{self.connectivity}.meta.json"

    def sync(self, keys: list[str], vectors: np.ndarray) -> None:
        """Bring the graph in line with the current rows (keys[i] ↔ vectors[i])."""
        import faiss

        self.rebuilt = False
        self.calibrated = False
        if self._index is None:
            self._load()
        row_of_key = {key: row for row, key in enumerate(keys)}
        known = set(self._keys)
        missing = [row for row, key in enumerate(keys) if key not in known]
        tombstones = sum(1 for key in self._keys if key not in row_of_key)
        if self._index is None or tombstones > REBUILD_TOMBSTONE_SHARE * max(len(self._keys), 1):
            self._index = _new_index(vectors.shape[1], self.precision, self.connectivity, self.ef_construction)
            self._keys = []
            self.calibration = None
            self._meta_path.unlink(missing_ok=True)
            missing = list(range(len(keys)))
            self.rebuilt = True
        if missing:
            if self.precision != "float32" and not self._index.is_trained:
                everything = len(missing) == len(vectors)  # a rebuild trains on the matrix itself, not a copy
                self._index.train(np.ascontiguousarray(vectors if everything else vectors[missing], dtype=np.float32))
            faiss.omp_set_num_threads(max(os.cpu_count() or 1, 1))
            for start in range(0, len(missing), ADD_BLOCK_ROWS):  # a block at a time: no second copy of every vector
                self._index.add(np.ascontiguousarray(vectors[missing[start : start + ADD_BLOCK_ROWS]], dtype=np.float32))
            self._keys.extend(keys[row] for row in missing)
            self._save()
        self.row_of_entry = np.fromiter((row_of_key.get(key, -1) for key in self._keys), dtype=np.int64, count=len(self._keys))
        self._live_bitmap = np.packbits(self.row_of_entry >= 0, bitorder="little")
        if self._needs_calibration():
            self.calibrate(vectors)
        elif self.fixed_ef_search is None and self.target_recall is not None and self.calibration is not None:
            self.ef_search = int(self.calibration["ef_search"])

    def _needs_calibration(self) -> bool:
        if self.fixed_ef_search is not None or self.target_recall is None or not len(self._keys):
            return False
        meta = self.calibration
        if meta is None or meta.get("target_recall") != self.target_recall or meta.get("method") != CALIBRATION_METHOD:
            return True
        return len(self._keys) > (1 + RECALIBRATE_ADDED_SHARE) * int(meta.get("entries", 0))

    def calibrate(self, vectors: np.ndarray, queries: int = CALIBRATION_QUERIES, seed: int = 0) -> dict[str, Any]:
        """Pick the smallest ef_search on EF_LADDER whose recall@10 against exact search surely reaches the target.

        A query is the normalised sum of three random live rows, which are then held out of both the
        exact and the graph results: it lies between parts of the collection, as a real question
        does, and must find neighbours other than its sources. A row used as a query (even perturbed)
        finds its own cluster at once and flatters the graph: on the bench's 100k collection held-out
        rows gave recall 1.0 at ef 32 while its questions reached 0.962 at ef 160, 0.989 at 384; these
        sums gave 0.947 and 0.987 (at 1M they are pessimistic: 0.95-0.96 at ef 1536 where the questions
        got 0.984; bench/results/retrieval.notes.md). The exact top-10 is a matrix product per block of
        rows; an ef is taken when the 95 % lower bound of the sample's recall reaches the target (one
        ladder step higher than the mean alone at 100k). Without a reachable target the largest ef is
        kept, and the recall says so.
        """
        import faiss

        started = time.perf_counter()
        target = self.target_recall if self.target_recall is not None else 1.0
        live = self.row_of_entry >= 0
        live_entries = np.flatnonzero(live)
        if len(live_entries) <= EF_LADDER[0]:  # ef covers every entry: the graph search is exhaustive
            return self._calibrated(EF_LADDER[0], 1.0, 0, {}, started)
        rng = np.random.default_rng(seed)
        n_queries = max(min(queries, (len(live_entries) - CALIBRATION_K) // CALIBRATION_MIX), 1)
        sources = rng.choice(live_entries, size=(n_queries, min(CALIBRATION_MIX, len(live_entries))), replace=False)
        held_out = np.unique(sources)
        held_rows = self.row_of_entry[held_out]
        query = np.asarray(vectors[self.row_of_entry[sources].ravel()], dtype=np.float32).reshape(*sources.shape, -1).sum(axis=1)
        query /= np.maximum(np.linalg.norm(query, axis=1, keepdims=True), 1e-12)
        k = min(CALIBRATION_K, len(live_entries) - len(held_out))
        exact = _exact_top_k(vectors, query, k, exclude=held_rows)
        searchable = live.copy()
        searchable[held_out] = False
        bitmap = np.packbits(searchable, bitorder="little")
        selector = faiss.IDSelectorBitmap(len(searchable), faiss.swig_ptr(bitmap))
        chosen, recall = EF_LADDER[-1], 0.0
        measured: dict[str, float] = {}
        for ef in EF_LADDER:
            params = _search_parameters(selector, max(ef, k))
            _, entries = self._index.search(query, k, params=params)
            rows = np.where(entries >= 0, self.row_of_entry[np.maximum(entries, 0)], -1)
            per_query = np.array([len(set(r.tolist()) & set(e.tolist())) / k for r, e in zip(rows, exact, strict=True)])
            recall = float(per_query.mean())
            measured[str(ef)] = round(recall, 4)
            # the sample's one-sided 95 % lower bound must reach the target, not just its mean
            if recall - CONFIDENCE_Z * float(per_query.std()) / np.sqrt(len(per_query)) >= target:
                chosen = ef
                break
        return self._calibrated(chosen, recall, len(query), measured, started)

    def _calibrated(self, ef: int, recall: float, queries: int, measured: dict[str, float], started: float) -> dict[str, Any]:
        if self.fixed_ef_search is None:  # an explicit calibrate() under a fixed ef measures, but does not apply
            self.ef_search = ef
        self.calibration = {
            "ef_search": ef, "recall@10": round(recall, 4), "target_recall": self.target_recall, "queries": queries, "method": CALIBRATION_METHOD,
            "entries": len(self._keys), "live": int(np.count_nonzero(self.row_of_entry >= 0)), "ladder": measured,
            "seconds": round(time.perf_counter() - started, 2), "calibrated_at": time.strftime("%Y-%m-%dT%H:%M:%S"),
        }
        self.calibrated = True
        self._save_meta()
        return self.calibration

    def stats(self) -> dict[str, Any] | None:
        """The graph's calibration (ef_search, measured recall@10), from memory or the meta file beside the graph."""
        if self.calibration is not None:
            return dict(self.calibration)
        try:
            meta = json.loads(self._meta_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return meta if isinstance(meta, dict) else None

    def _load(self) -> None:
        import faiss

        graph, keys = self._paths
        if graph.exists() and keys.exists():
            try:
                self._index = faiss.read_index(str(graph))
                self._keys = json.loads(keys.read_text(encoding="utf-8"))
                if not isinstance(self._keys, list) or self._index.ntotal != len(self._keys):
                    raise ValueError("graph and keys disagree")
            except Exception:  # any unreadable graph (cut, garbage, another version) is missing: it is rebuilt
                self._index, self._keys = None, []
        self.calibration = None
        if self._index is not None:
            meta = self.stats()
            if meta is not None and meta.get("entries", -1) <= len(self._keys) and "ef_search" in meta:
                self.calibration = meta

    def _save(self) -> None:
        import faiss

        graph, keys = self._paths
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            with replacing(graph) as temporary:  # each file whole or not at all; a graph and keys that disagree are rebuilt
                faiss.write_index(self._index, str(temporary))
            with replacing(keys) as temporary:
                temporary.write_text(json.dumps(self._keys), encoding="utf-8")
        except (OSError, RuntimeError):
            pass  # read-only collection (faiss says so with a RuntimeError): the graph lives in memory for this process only

    def _save_meta(self) -> None:
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            with replacing(self._meta_path) as temporary:
                temporary.write_text(json.dumps(self.calibration), encoding="utf-8")
        except OSError:
            pass

    def search(self, query: np.ndarray, k: int, allowed_rows: np.ndarray | None) -> list[tuple[int, float]]:
        """Top-k rows by inner product; `allowed_rows` is a boolean mask over rows (None = all live rows)."""
        import faiss

        if allowed_rows is None:  # the live entries' bitmap, packed once per sync
            bitmap = self._live_bitmap
        else:
            live = (self.row_of_entry >= 0) & allowed_rows[np.maximum(self.row_of_entry, 0)]
            if not live.any():
                return []
            bitmap = np.packbits(live, bitorder="little")
        if not len(self.row_of_entry):
            return []
        selector = faiss.IDSelectorBitmap(len(self.row_of_entry), faiss.swig_ptr(bitmap))
        params = _search_parameters(selector, max(self.ef_search, 2 * k))
        distances, entries = self._index.search(np.asarray(query, dtype=np.float32).reshape(1, -1), k, params=params)
        return [(int(self.row_of_entry[e]), float(s)) for e, s in zip(entries[0], distances[0], strict=True) if e >= 0]


def _exact_top_k(vectors: np.ndarray, queries: np.ndarray, k: int, exclude: np.ndarray | None = None, block: int = 65_536) -> np.ndarray:
    """Rows of the k largest inner products per query, never a row in `exclude` (one block of rows at a time: bounded memory)."""
    best_scores = np.full((len(queries), 0), -np.inf, dtype=np.float32)
    best_rows = np.zeros((len(queries), 0), dtype=np.int64)
    for start in range(0, len(vectors), block):
        scores = queries @ np.asarray(vectors[start : start + block], dtype=np.float32).T
        rows = np.broadcast_to(np.arange(start, start + scores.shape[1]), scores.shape)
        if exclude is not None:
            hidden = exclude[(exclude >= start) & (exclude < start + scores.shape[1])]
            scores[:, hidden - start] = -np.inf
        scores = np.hstack([best_scores, scores])
        rows = np.hstack([best_rows, rows])
        keep = np.argpartition(-scores, min(k, scores.shape[1]) - 1, axis=1)[:, :k] if scores.shape[1] > k else np.argsort(-scores, axis=1)
        best_scores = np.take_along_axis(scores, keep, axis=1)
        best_rows = np.take_along_axis(rows, keep, axis=1)
    return best_rows
