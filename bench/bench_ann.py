"""Which HNSW library, and what float16 / int8 storage costs in recall.

    python bench/bench_ann.py [--n 100000] [--dim 512]

Clustered unit vectors (closer to sentence embeddings than uniform noise),
200 queries; recall@10 against exact search, build time, query p50, index
size. Compares faiss HNSW and usearch at equal graph settings, then bunko's
own HnswIndex at each vector precision. Writes bench/results/ann.json and .md.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np

from bunko.index.hnsw import HnswIndex

RESULTS = Path(__file__).resolve().parents[1] / "bench" / "results"


def clustered(n: int, dim: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centers = np.random.default_rng(0).standard_normal((500, dim))
    x = centers[rng.integers(0, 500, n)] + 0.6 * rng.standard_normal((n, dim))
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def evaluate(search, queries: np.ndarray, exact: list[set[int]]) -> tuple[float, float]:
    times, recall = [], 0.0
    for q, truth in zip(queries, exact, strict=True):
        started = time.perf_counter()
        found = search(q)
        times.append(time.perf_counter() - started)
        recall += len(truth & set(found)) / 10
    return recall / len(queries), float(np.median(times) * 1000)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--dim", type=int, default=512)
    args = parser.parse_args()
    data, queries = clustered(args.n, args.dim, 1), clustered(200, args.dim, 2)
    exact = [set(np.argpartition(-(data @ q), 10)[:10].tolist()) for q in queries]
    rows = []

    exact_recall, exact_ms = evaluate(lambda q: np.argpartition(-(data @ q), 10)[:10].tolist(), queries, exact)
    rows.append({"system": "exact (numpy matmul)", "build_s": 0.0, "recall@10": exact_recall, "p50_ms": exact_ms})

    import faiss

    started = time.perf_counter()
    index = faiss.IndexHNSWFlat(args.dim, 32, faiss.METRIC_INNER_PRODUCT)
    index.hnsw.efConstruction = 200
    index.add(data)
    build = time.perf_counter() - started
    index.hnsw.efSearch = 160
    recall, p50 = evaluate(lambda q: index.search(q[None], 10)[1][0].tolist(), queries, exact)
    rows.append({"system": "faiss HNSW (M=32, efC=200, efS=160)", "build_s": round(build, 1), "recall@10": recall, "p50_ms": p50})

    try:
        from usearch.index import Index

        started = time.perf_counter()
        uindex = Index(ndim=args.dim, metric="cos", dtype="f32", connectivity=32, expansion_add=200, expansion_search=160)
        uindex.add(np.arange(args.n), data, threads=2)
        build = time.perf_counter() - started
        recall, p50 = evaluate(lambda q: uindex.search(q, 10).keys.tolist(), queries, exact)
        rows.append({"system": "usearch HNSW (M=32, efC=200, efS=160)", "build_s": round(build, 1), "recall@10": recall, "p50_ms": p50})
    except ImportError:
        rows.append({"system": "usearch (not installed)", "build_s": None, "recall@10": None, "p50_ms": None})

    keys = [f"c{i}" for i in range(args.n)]
    for precision in ("float32", "float16", "int8"):
        with tempfile.TemporaryDirectory() as tmp:
            hnsw = HnswIndex(Path(tmp), precision=precision)
            started = time.perf_counter()
            hnsw.sync(keys, data)
            build = time.perf_counter() - started
            size = sum(p.stat().st_size for p in Path(tmp).iterdir())
            recall, p50 = evaluate(lambda q, h=hnsw: [row for row, _ in h.search(q, 10, None)], queries, exact)
        rows.append({"system": f"bunko HnswIndex {precision}", "build_s": round(build, 1), "recall@10": recall, "p50_ms": p50, "index_mb": round(size / 2**20, 1)})

    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "ann.json").write_text(json.dumps({"n": args.n, "dim": args.dim, "rows": rows}, indent=1), encoding="utf-8")
    lines = [f"# HNSW at {args.n:,} × {args.dim} (clustered unit vectors, 200 queries)", "", "| system | build s | recall@10 | p50 ms | index MB |", "|---|---|---|---|---|"]
    for r in rows:
        recall = "-" if r["recall@10"] is None else f"{r['recall@10']:.4f}"
        p50 = "-" if r["p50_ms"] is None else f"{r['p50_ms']:.3f}"
        lines.append(f"| {r['system']} | {r['build_s']} | {recall} | {p50} | {r.get('index_mb', '-')} |")
    (RESULTS / "ann.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
