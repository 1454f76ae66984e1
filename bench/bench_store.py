"""Local store vs PostgreSQL + pgvector: ingest throughput, search latency, concurrent writers.

    python bench/bench_store.py [--size 100000] [--queries 200] [--writer-chunks 10000] [--stores local postgres] [--out store]

Both stores get the same synthetic collection: ja/zh/en chunks recombined from
the bundled samples' sentences with random 512-d unit vectors, 100 chunks per
document, written one document per transaction (as ingest does; no parsing
or embedding is timed). Search runs through `Searcher` with the query vector
given, so only the store is measured; dense recall@10 of PostgreSQL's HNSW
index is measured against the local store's exact search. Two concurrent
writer processes each write half of `--writer-chunks` into a fresh store (0: none).
Hybrid is also timed as a collection being written to searches: one small
document written before each query, so every query meets a new generation
(what a store keeps per generation is read again).

PostgreSQL is the `pgserver` package's bundled server (16 + pgvector) with its
default settings, on the same 2 cores, unless BUNKO_BENCH_PG_DSN names one.
Writes bench/results/store.json and store.md (`--out`: another stem).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_search import CHUNKS_PER_DOC, percentile, sample_sentences, synthetic_docs

from bunko.config import RetrieveConfig
from bunko.retrieve.searcher import Searcher
from bunko.schema import ParsedDocument
from bunko.store.base import StoredChunk
from bunko.store.local import LocalStore
from bunko.text.analyzers import multilingual

RESULTS = Path(__file__).resolve().parent / "results"
DIM = 512
FILTER = {"section": {"$in": ["S1", "S2"]}}


class NoEmbedder:
    """Query vectors are given; an embedder that is called would be a bench bug."""

    name = "none"
    dimension = DIM

    def embed(self, texts):  # pragma: no cover
        raise AssertionError("the benchmark embeds nothing")


def open_store(kind: str, location: str):
    if kind == "local":
        return LocalStore(Path(location))
    from bunko.store.postgres import PostgresStore
    from bunko.store.registry import split_dsn

    dsn, schema = split_dsn(location)
    return PostgresStore(dsn, schema)


def write(store, docs: Iterator[tuple[ParsedDocument, list[StoredChunk]]]) -> tuple[int, float]:
    written = 0
    started = time.perf_counter()
    for doc, stored in docs:
        store.replace_document(doc, "bench", stored)
        written += len(stored)
    return written, time.perf_counter() - started


def timed(fn, runs: list) -> dict:
    times = []
    for args in runs:
        started = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - started)
    return {"p50_ms": round(percentile(times, 50), 2), "p95_ms": round(percentile(times, 95), 2), "p99_ms": round(percentile(times, 99), 2)}


AFTER_WRITE_CHUNKS = 10
"""The size of the document written before each query of `hybrid_after_write`."""


def bench_search(store, queries: list[str], vectors: np.ndarray, sentences: list[str], first_doc: int) -> dict:
    searcher = Searcher(store.search(), NoEmbedder(), multilingual, RetrieveConfig(max_distance=None))  # type: ignore[arg-type]
    searcher.search(queries[0], k=10, mode="hybrid", query_vector=vectors[0])  # warm (local: builds its index)
    out = {}
    for mode in ("dense", "keyword", "hybrid"):
        out[mode] = timed(lambda q, v, m=mode: searcher.search(q, k=10, mode=m, query_vector=v), list(zip(queries, vectors, strict=True)))
    out["hybrid_filtered"] = timed(
        lambda q, v: searcher.search(q, k=10, mode="hybrid", where=FILTER, query_vector=v), list(zip(queries, vectors, strict=True))
    )
    rounds = list(zip(queries[:50], vectors[:50], strict=True))
    writes = (synthetic_docs(first_doc + n, AFTER_WRITE_CHUNKS, sentences, seed=50 + n) for n in range(len(rounds)))

    def after_write(q: str, v: np.ndarray) -> None:
        for doc, stored in next(writes):
            store.replace_document(doc, "bench", stored)
        started = time.perf_counter()
        searcher.search(q, k=10, mode="hybrid", query_vector=v)
        times.append(time.perf_counter() - started)

    times: list[float] = []
    for q, v in rounds:
        after_write(q, v)
    out["hybrid_after_write"] = {"p50_ms": round(percentile(times, 50), 2), "p95_ms": round(percentile(times, 95), 2),
                                 "p99_ms": round(percentile(times, 99), 2), "queries": len(times)}
    return out


def writer_main(kind: str, location: str, first_doc: int, chunks: int, seed: int) -> None:
    """One writer process: print chunks written and seconds."""
    store = open_store(kind, location)
    written, seconds = write(store, synthetic_docs(first_doc, chunks, sample_sentences(), seed))
    store.close()
    print(json.dumps({"chunks": written, "seconds": seconds}))


def run_writers(kind: str, location: str, processes: int, chunks: int) -> dict:
    open_store(kind, location).close()  # create the schema / file before the race
    per = chunks // processes
    started = time.perf_counter()
    procs = [
        subprocess.Popen([sys.executable, __file__, "--writer", kind, location, str(i * per // CHUNKS_PER_DOC), str(per), str(100 + i)],
                         stdout=subprocess.PIPE, text=True)
        for i in range(processes)
    ]
    outputs = [json.loads(p.communicate()[0]) for p in procs]
    wall = time.perf_counter() - started
    assert all(p.returncode == 0 for p in procs)
    store = open_store(kind, location)
    stored = store.chunk_count()
    store.close()
    assert stored == sum(o["chunks"] for o in outputs), (stored, outputs)
    return {"processes": processes, "chunks": stored, "wall_s": round(wall, 1), "chunks_per_s": round(stored / wall, 1)}


def pg_location() -> tuple[str, object | None]:
    dsn = os.environ.get("BUNKO_BENCH_PG_DSN")
    if dsn:
        return dsn, None
    import pgserver

    server = pgserver.get_server(Path(tempfile.mkdtemp(prefix="bunko-bench-pg-")) / "data", cleanup_mode="delete")
    return server.get_uri(), server


def with_schema(dsn: str, schema: str) -> str:
    return dsn + ("&" if "?" in dsn else "?") + f"schema={schema}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--writer-chunks", type=int, default=10_000)
    parser.add_argument("--add-chunks", type=int, default=1_000, help="Chunks added to the full collection afterwards.")
    parser.add_argument("--stores", nargs="+", default=["local", "postgres"], choices=["local", "postgres"])
    parser.add_argument("--out", default="store", help="results file stem under bench/results/")
    args = parser.parse_args()
    sentences = sample_sentences()
    rng = random.Random(1)
    queries = [rng.choice(sentences)[:40] for _ in range(args.queries)]
    query_vectors = np.random.default_rng(2).standard_normal((args.queries, DIM)).astype(np.float32)
    query_vectors /= np.linalg.norm(query_vectors, axis=1, keepdims=True)
    dsn, server = pg_location()
    results: dict = {"chunks": args.size, "dimension": DIM, "queries": args.queries, "filter": FILTER, "stores": {}}
    with tempfile.TemporaryDirectory() as tmp:
        locations = {"local": str(Path(tmp) / "local"), "postgres": with_schema(dsn, "bench_" + uuid.uuid4().hex[:8])}
        locations = {kind: location for kind, location in locations.items() if kind in args.stores}
        stores = {}
        for kind, location in locations.items():
            store = open_store(kind, location)
            started = time.perf_counter()
            if kind == "postgres":
                with store.bulk_load():  # as `bunko migrate` does: one HNSW build at the end
                    written, _ = write(store, synthetic_docs(0, args.size, sentences, seed=7))
                    build_started = time.perf_counter()
            else:
                written, _ = write(store, synthetic_docs(0, args.size, sentences, seed=7))
                build_started = time.perf_counter()
                store.search().dense_search(query_vectors[0], 1)  # the local store builds its BM25 index on first search
            seconds = time.perf_counter() - started
            print(f"{kind}: wrote {written} chunks in {seconds:.1f} s", flush=True)
            entry = {"ingest": {"chunks": written, "seconds": round(seconds, 1), "chunks_per_s": round(written / seconds, 1),
                                "index_build_s": round(time.perf_counter() - build_started, 1)}}
            entry["search"] = bench_search(store, queries, query_vectors, sentences, 10 * (args.size + args.add_chunks))
            # steady state: documents added one transaction each to the full collection, until searchable
            added, add_s = write(store, synthetic_docs(args.size // CHUNKS_PER_DOC, args.add_chunks, sentences, seed=8))
            started = time.perf_counter()
            store.search().dense_search(query_vectors[0], 1)
            first_search = time.perf_counter() - started
            entry["add"] = {"chunks": added, "write_s": round(add_s, 1), "first_search_s": round(first_search, 2),
                            "chunks_per_s": round(added / (add_s + first_search), 1)}
            print(kind, entry, flush=True)
            results["stores"][kind] = entry
            stores[kind] = store
        if len(stores) == 2:
            exact = [[cid for cid, _ in stores["local"].search().dense_search(v, 10)] for v in query_vectors]
            approx = [[cid for cid, _ in stores["postgres"].search().dense_search(v, 10)] for v in query_vectors]
            results["stores"]["postgres"]["dense_recall_at_10"] = round(
                float(np.mean([len(set(a) & set(e)) / 10 for a, e in zip(approx, exact, strict=True)])), 4
            )
        for store in stores.values():
            store.close()
        for kind in stores if args.writer_chunks else ():
            runs = []
            for processes in (1, 2):
                location = str(Path(tmp) / f"writers-{processes}") if kind == "local" else with_schema(dsn, f"bench_w{processes}_" + uuid.uuid4().hex[:6])
                runs.append(run_writers(kind, location, processes, args.writer_chunks))
                print(kind, runs[-1], flush=True)
            results["stores"][kind]["writers"] = runs
    if server is not None:
        server.cleanup()  # type: ignore[attr-defined]
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{args.out}.json").write_text(json.dumps(results, indent=1), encoding="utf-8")
    (RESULTS / f"{args.out}.md").write_text(render(results), encoding="utf-8")
    print(render(results))


def render(results: dict) -> str:
    s = results["stores"]
    kinds = [kind for kind in ("local", "postgres") if kind in s]

    def cell(q: dict) -> str:
        return f"{q['p50_ms']} / {q['p95_ms']} / {q['p99_ms']}" if "p99_ms" in q else f"{q['p50_ms']} / {q['p95_ms']}"

    lines = [
        f"# Local store vs PostgreSQL + pgvector at {results['chunks']:,} chunks", "",
        f"Synthetic ja/zh/en chunks, {results['dimension']}-d random unit vectors, 100 chunks per document, "
        f"{results['queries']} queries, k = 10, query vector given (embedding excluded). "
        f"Filtered: `{json.dumps(results['filter'])}` (~12% of chunks). Command: `python bench/bench_store.py`.", "",
        "| | bulk ingest chunks/s (index build s) | add to full collection chunks/s | dense p50 / p95 / p99 ms | keyword p50 / p95 / p99 ms "
        "| hybrid p50 / p95 / p99 ms | hybrid filtered p50 / p95 / p99 ms | hybrid after a write p50 / p95 / p99 ms |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for kind in kinds:
        e, q = s[kind], s[kind]["search"]
        after = cell(q["hybrid_after_write"]) if "hybrid_after_write" in q else "–"
        lines.append(
            f"| {kind} | {e['ingest']['chunks_per_s']} ({e['ingest']['index_build_s']}) | {e['add']['chunks_per_s']} "
            f"| {cell(q['dense'])} | {cell(q['keyword'])} | {cell(q['hybrid'])} | {cell(q['hybrid_filtered'])} | {after} |"
        )
    lines += ["", "Bulk ingest: every chunk written one document per transaction, then the index built once "
              "(PostgreSQL: HNSW after `bulk_load`, as `bunko migrate` does; local: the BM25 matrix on first search). "
              "Add: documents written one transaction each into the full collection, until the first search sees them "
              "(PostgreSQL inserts into the live HNSW index; the local store rebuilds its BM25 matrix). Hybrid after a "
              f"write: a {AFTER_WRITE_CHUNKS}-chunk document written before each of 50 queries (not timed), so each "
              "query meets a new generation."]
    if "dense_recall_at_10" in s.get("postgres", {}):
        lines += ["", f"PostgreSQL dense recall@10 against exact search: {s['postgres']['dense_recall_at_10']}"]
    if any("writers" in s[kind] for kind in kinds):
        lines += ["", "Concurrent writers (each process writes its own documents into one fresh store):", "",
                  "| store | processes | chunks | wall s | chunks/s |", "|---|---|---|---|---|"]
        for kind in kinds:
            for run in s[kind].get("writers", []):
                lines.append(f"| {kind} | {run['processes']} | {run['chunks']:,} | {run['wall_s']} | {run['chunks_per_s']} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--writer":
        writer_main(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]))
    else:
        main()
