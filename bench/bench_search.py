"""Ingest throughput and search latency of the local store.

    python bench/bench_search.py [--sizes 10000 100000] [--queries 200]

Ingest: the bundled samples copied N times, real USE embeddings, chunks/s.
Search: synthetic ja/zh/en chunks (sentences recombined from the samples) with
random unit vectors at each size; p50/p95 of dense, keyword and hybrid search
with the query vector given (embedding excluded) and, separately, the query
embedding time. Writes bench/results/search.json and search.md.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from bunko import Bunko
from bunko.config import RetrieveConfig
from bunko.embed.use_m3 import UseM3Embedder
from bunko.retrieve.searcher import Searcher
from bunko.schema import Chunk, ParsedDocument, doc_id_for
from bunko.store.base import StoredChunk
from bunko.store.local import LocalStore
from bunko.text.analyzers import multilingual
from bunko.text.sentences import split_sentences

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "src" / "bunko" / "samples" / "docs"
RESULTS = ROOT / "bench" / "results"
CHUNKS_PER_DOC = 100


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values) * 1000, q))


def sample_sentences() -> list[str]:
    sentences = []
    for path in sorted(SAMPLES.glob("*.md")):
        sentences += [s for s in split_sentences(path.read_text(encoding="utf-8")) if len(s) > 10 and not s.startswith("|")]
    return sentences


def bench_ingest(embedder: UseM3Embedder, copies: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        docs = Path(tmp) / "docs"
        for i in range(copies):
            shutil.copytree(SAMPLES, docs / f"copy{i}")
            for path in (docs / f"copy{i}").glob("*.md"):
                # a copy tag in every heading makes every embed_text unique: no embedding cache hits
                text = "\n".join(f"{line} (copy {i})" if line.startswith("#") else line for line in path.read_text(encoding="utf-8").splitlines())
                path.write_text(text, encoding="utf-8")
        kb = Bunko(Path(tmp) / ".bunko", embedder=embedder)
        started = time.perf_counter()
        report = kb.ingest(docs)
        elapsed = time.perf_counter() - started
        chunks = kb.store.chunk_count()
        kb.close()
    return {"files": len(report.jobs), "chunks": chunks, "seconds": round(elapsed, 2), "chunks_per_s": round(chunks / elapsed, 1)}


def synthetic_docs(first_doc: int, chunks: int, sentences: list[str], seed: int, dimension: int = 512) -> Iterator[tuple[ParsedDocument, list[StoredChunk]]]:
    """Deterministic documents: the same seed gives both stores the same data."""
    rng = random.Random(seed)
    vectors = np.random.default_rng(seed).standard_normal((chunks, dimension)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    for start in range(0, chunks, CHUNKS_PER_DOC):
        source = f"synthetic/doc-{first_doc + start // CHUNKS_PER_DOC:06d}.md"
        doc = ParsedDocument(doc_id_for(source), source, source, "text/markdown", "bench", [], {})
        stored = []
        for row in range(start, min(start + CHUNKS_PER_DOC, chunks)):
            text = " ".join(rng.sample(sentences, 3))
            chunk = Chunk(f"{source}#{row - start}", doc.doc_id, source, row - start, text, text, section_path=[f"S{row % 17}"])
            stored.append(StoredChunk(chunk, vectors[row], multilingual(text), f"h{seed}-{row}"))
        yield doc, stored


def build_store(folder: Path, size: int, sentences: list[str], dim: int, seed: int) -> tuple[LocalStore, float]:
    store = LocalStore(folder)
    started = time.perf_counter()
    for doc, stored in synthetic_docs(0, size, sentences, seed, dim):
        store.replace_document(doc, f"hash-{doc.source}", stored)
    return store, time.perf_counter() - started


def bench_size(size: int, sentences: list[str], embedder: UseM3Embedder, n_queries: int) -> dict:
    rng = random.Random(size)
    with tempfile.TemporaryDirectory() as tmp:
        store, write_s = build_store(Path(tmp) / "store", size, sentences, embedder.dimension, size)
        started = time.perf_counter()
        store.dense_search(np.ones(embedder.dimension, dtype=np.float32), 1)
        load_s = time.perf_counter() - started
        queries = [rng.choice(sentences)[:40] for _ in range(n_queries)]
        query_vectors = embedder.embed(queries)
        searcher = Searcher(store, embedder, multilingual, RetrieveConfig(max_distance=None))
        out: dict = {"chunks": size, "write_s": round(write_s, 1), "index_build_s": round(load_s, 2)}
        for mode in ("dense", "keyword", "hybrid"):
            times = []
            for query, vector in zip(queries, query_vectors, strict=True):
                started = time.perf_counter()
                searcher.search(query, k=10, mode=mode, query_vector=vector)
                times.append(time.perf_counter() - started)
            out[mode] = {"p50_ms": round(percentile(times, 50), 2), "p95_ms": round(percentile(times, 95), 2)}
        times = []
        for query in queries[:50]:
            started = time.perf_counter()
            embedder.embed([query])
            times.append(time.perf_counter() - started)
        out["embed_query"] = {"p50_ms": round(percentile(times, 50), 2), "p95_ms": round(percentile(times, 95), 2)}
        store.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--ingest-copies", type=int, default=10)
    args = parser.parse_args()
    embedder = UseM3Embedder(threads=1)
    sentences = sample_sentences()
    results = {"ingest": bench_ingest(embedder, args.ingest_copies), "search": [bench_size(s, sentences, embedder, args.queries) for s in args.sizes]}
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "search.json").write_text(json.dumps(results, indent=1), encoding="utf-8")
    lines = [
        "# Local store: ingest and search", "",
        f"Ingest (real USE embeddings): {results['ingest']['chunks']} chunks from {results['ingest']['files']} files "
        f"in {results['ingest']['seconds']} s = **{results['ingest']['chunks_per_s']} chunks/s**", "",
        "| chunks | dense p50 / p95 ms | keyword p50 / p95 ms | hybrid p50 / p95 ms | query embedding p50 ms | index load s |",
        "|---|---|---|---|---|---|",
    ]
    for row in results["search"]:
        lines.append(
            f"| {row['chunks']:,} | {row['dense']['p50_ms']} / {row['dense']['p95_ms']} | {row['keyword']['p50_ms']} / {row['keyword']['p95_ms']} "
            f"| {row['hybrid']['p50_ms']} / {row['hybrid']['p95_ms']} | {row['embed_query']['p50_ms']} | {row['index_build_s']} |"
        )
    (RESULTS / "search.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
