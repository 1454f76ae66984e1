"""HNSW ef_search: recall@10 against latency on a kept bench store, calibrated ef beside fixed ones.

    python bench/bench_retrieval.py --parts speed --sizes 1000000 --speed-systems bunko-exact bunko-hnsw --keep-stores
    python bench/bench_ef_tradeoff.py --size 1000000 --ef 512 1024 1536 2048

bunko calibrates ef_search so that recall@10 against exact search reaches
`retrieve.ann_target_recall`; `retrieve.ann_ef_search` fixes it instead. This measures what each
choice costs on the store bench_retrieval.py left under bench/data/speed (its graph is reused):
the labelled questions' recall@10 against exact search, and Searcher dense / hybrid p50 with the
query vectors given (embedding excluded). Writes bench/results/ef_tradeoff.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_retrieval as br

from bunko.config import RetrieveConfig
from bunko.retrieve.searcher import Searcher
from bunko.store.local import LocalStore
from bunko.text.analyzers import multilingual

RESULTS = Path(__file__).resolve().parent / "results"


def measure(folder: Path, ef: int | None, queries: list[str], vectors: np.ndarray, budget_s: float) -> dict[str, Any]:
    store = LocalStore(folder, ann_threshold=1, ann_ef_search=ef)
    started = time.perf_counter()
    store.search().dense_search(np.ones(vectors.shape[1], dtype=np.float32), 1)
    row: dict[str, Any] = {"ef": ef, "load_s": round(time.perf_counter() - started, 1), "index": store.search().index_stats()}
    searcher = Searcher(store.search(), None, multilingual, RetrieveConfig())  # type: ignore[arg-type]  # vectors are given
    for mode in ("dense", "hybrid"):
        stats, answers = br.timed_queries(
            lambda q, v, mode=mode: [h.chunk.chunk_id for h in searcher.search(q, k=br.K, mode=mode, query_vector=v).hits], queries, vectors, budget_s)
        row[mode] = stats
        if mode == "dense":
            index = store._index
            found = sum(len({index.ids[i] for i in br.top_rows(index.vectors @ v)} & set(got[: br.K])) for v, got in zip(vectors, answers, strict=False))
            row["recall@10"] = round(found / (br.K * len(answers)), 4)
    store.close()
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--ef", type=int, nargs="+", default=[512, 1024, 1536, 2048], help="fixed ef_search values beside the calibrated one")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--budget-s", type=float, default=30.0, help="time per mode and ef; at least 10 queries are run")
    parser.add_argument("--vectors", choices=["random", "perturbed"], default="perturbed", help="which kept store (bench_retrieval's --vectors)")
    args = parser.parse_args()
    br.VECTORS["kind"] = args.vectors
    folder = br.bunko_store_folder(args.size)
    if not (folder / "bench-written.json").exists():
        raise SystemExit(f"no kept store at {folder}: run bench_retrieval.py --parts speed --sizes {args.size} --keep-stores first")
    data = br.rd.load_or_build()
    _, qvec, _ = br.vectors_for(data)
    queries, vectors = br.speed_queries(data, qvec, args.queries)
    rows = []
    for ef in [None, *args.ef]:
        row = measure(folder, ef, queries, vectors, args.budget_s)
        rows.append(row)
        hnsw = row["index"].get("hnsw", {})
        print(f"ef {hnsw.get('ef_search')} ({hnsw.get('ef_search_source')}): recall@10 {row['recall@10']:.3f}, "
              f"dense p50 {row['dense']['p50_ms']:.2f} ms, hybrid p50 {row['hybrid']['p50_ms']:.2f} ms", flush=True)
    results = {"size": args.size, "date": time.strftime("%Y-%m-%d %H:%M"), "rows": rows}
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "ef_tradeoff.json").write_text(json.dumps(results, indent=1), encoding="utf-8")
    lines = [f"# HNSW ef_search trade-off at {args.size:,} chunks", "",
             f"`python bench/bench_ef_tradeoff.py --size {args.size} --ef {' '.join(map(str, args.ef))}` on {results['date']} "
             "(2 cores, shared machine). Recall@10 of the labelled questions against exact search on the same rows; Searcher p50 "
             "with the query vector given.", "",
             "| ef_search | source | recall@10 | dense p50 / p95 ms | hybrid p50 / p95 ms |", "|---|---|---|---|---|"]
    for row in rows:
        hnsw = row["index"].get("hnsw", {})
        lines.append(f"| {hnsw.get('ef_search')} | {hnsw.get('ef_search_source')} | {row['recall@10']:.3f} | "
                     f"{row['dense']['p50_ms']:.2f} / {row['dense']['p95_ms']:.2f} | {row['hybrid']['p50_ms']:.2f} / {row['hybrid']['p95_ms']:.2f} |")
    (RESULTS / "ef_tradeoff.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {RESULTS / 'ef_tradeoff.md'}")


if __name__ == "__main__":
    main()
