"""Ingest throughput and search latency of the local store.

    python bench/bench_search.py [--sizes 10000 100000] [--queries 200]

Ingest: the bundled samples copied N times, real USE embeddings, chunks/s.
Search: synthetic ja/zh/en chunks (three sentences of the samples each), each
vector the mean of its sentences' USE vectors plus a little noise, at each size, in a local store opened with the default
`[retrieve]` settings (so HNSW from `ann_threshold` chunks on, as a collection of
that size would search); p50/p95 of dense, keyword and hybrid search with the
query vector given (embedding excluded), each returning its top 10 as `Hit`s with
their chunks, and, separately, the query embedding time. The chunks' units are embedded and each document's
matrix written as ingest does, so hybrid judges its best documents by their best sentence; hybrid without them is
timed beside it. Peers in the same run,
over the same chunks: bm25s (Lucene BM25, the same analyzer tokens) returning its
top 10 ids, and numpy exact search (one product, argpartition) returning its top
10 rows. Writes bench/results/search.json and search.md (with bench/results/search.notes.md, the hand-written
reading, appended when it exists).
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from bunko import Bunko
from bunko.config import RetrieveConfig
from bunko.embed.use_m3 import UseM3Embedder
from bunko.rerank.unit_vectors import FILE_NAME, UnitVectorFile, chunk_unit_texts
from bunko.retrieve.document_sentences import DocumentSentences
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


SENTENCE_NOISE = 0.05
"""Noise added to a synthetic chunk's vector (the mean of its sentences' vectors), so no two chunks coincide."""


def synthetic_docs(
    first_doc: int, chunks: int, sentences: list[str], seed: int, dimension: int = 512, sentence_vectors: np.ndarray | None = None,
) -> Iterator[tuple[ParsedDocument, list[StoredChunk]]]:
    """Deterministic documents: the same seed gives both stores the same data.

    Each chunk is three sample sentences. With `sentence_vectors` (the sentences embedded), its vector is the
    mean of theirs plus a little noise: vectors with the neighbourhoods real text has, which an HNSW graph is
    built for; without, a random unit vector (the worst case for a graph, fine for exact search and stores).
    """
    rng = random.Random(seed)
    noise = np.random.default_rng(seed)
    vectors = noise.standard_normal((chunks, dimension)).astype(np.float32)
    if sentence_vectors is None:
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    for start in range(0, chunks, CHUNKS_PER_DOC):
        source = f"synthetic/doc-{first_doc + start // CHUNKS_PER_DOC:06d}.md"
        doc = ParsedDocument(doc_id_for(source), source, source, "text/markdown", "bench", [], {})
        stored = []
        for row in range(start, min(start + CHUNKS_PER_DOC, chunks)):
            picked = rng.sample(range(len(sentences)), 3)
            text = " ".join(sentences[i] for i in picked)
            vector = vectors[row]
            if sentence_vectors is not None:
                vector = sentence_vectors[picked].mean(axis=0) + SENTENCE_NOISE * vector / np.sqrt(dimension)
                vector = (vector / np.linalg.norm(vector)).astype(np.float32)
            chunk = Chunk(f"{source}#{row - start}", doc.doc_id, source, row - start, text, text, section_path=[f"S{row % 17}"])
            stored.append(StoredChunk(chunk, vector, multilingual(text), f"h{seed}-{row}"))
        yield doc, stored


def build_store(
    folder: Path, size: int, sentences: list[str], dim: int, seed: int, config: RetrieveConfig | None = None,
    sentence_vectors: np.ndarray | None = None,
) -> tuple[LocalStore, float, list[list[str]], np.ndarray]:
    """The store (ANN settings from `config`, the defaults when None), its write time, and every chunk's
    tokens and vector in row order, for the peers."""
    config = config or RetrieveConfig()
    store = LocalStore(
        folder, ann_threshold=config.ann_threshold, vector_precision=config.vector_precision,
        ann_target_recall=config.ann_target_recall, ann_ef_search=config.ann_ef_search,
    )
    tokens: list[list[str]] = []
    vectors: list[np.ndarray] = []
    started = time.perf_counter()
    for doc, stored in synthetic_docs(0, size, sentences, seed, dim, sentence_vectors):
        store.replace_document(doc, f"hash-{doc.source}", stored)
        tokens += [s.tokens for s in stored]
        vectors += [s.vector for s in stored]
    return store, time.perf_counter() - started, tokens, np.stack(vectors)


def build_unit_vectors(path: Path, store: LocalStore, embedder: UseM3Embedder) -> UnitVectorFile:
    """The units' vectors and each document's matrix, as ingest writes them (`[rerank] unit_vectors = "ingest"`), so
    hybrid search judges its best documents by their best sentence as a collection's does. The synthetic chunks
    repeat a few hundred sample sentences under 17 headings: each distinct unit is embedded once."""
    unit_file = UnitVectorFile(path)
    chunks = store.chunks()
    texts = list(dict.fromkeys(text for chunk in chunks for text in chunk_unit_texts(chunk)))
    unit_file.put(embedder.name, dict(zip(texts, embedder.embed(texts), strict=True)))
    unit_file.build(embedder, chunks, versions=store.document_versions(list(dict.fromkeys(c.doc_id for c in chunks))))
    return unit_file


def timed(run: Callable[[int], object], count: int) -> dict[str, float]:
    for i in range(min(10, count)):
        run(i)
    times = []
    for i in range(count):
        started = time.perf_counter()
        run(i)
        times.append(time.perf_counter() - started)
    return {"p50_ms": round(percentile(times, 50), 3), "p95_ms": round(percentile(times, 95), 3)}


def peers(tokens: list[list[str]], vectors: np.ndarray, queries: list[str], query_vectors: np.ndarray) -> dict[str, dict[str, float]]:
    """bm25s over the same tokens and numpy exact search over the same vectors, each returning its top 10."""
    import bm25s

    keyword = bm25s.BM25(method="lucene", k1=1.5, b=0.75)
    keyword.index(tokens, show_progress=False)
    query_tokens = [multilingual(query) for query in queries]

    def bm25s_top10(i: int) -> list[int]:
        documents, _ = keyword.retrieve([query_tokens[i]], k=10, show_progress=False, n_threads=0)
        return documents[0].tolist()

    def numpy_top10(i: int) -> list[int]:
        scores = vectors @ query_vectors[i]
        top = np.argpartition(-scores, 10)[:10]
        return top[np.argsort(-scores[top])].tolist()

    with threadpool_limits(limits=1, user_api="blas"):  # one BLAS thread, as bunko's exact search takes
        numpy_exact = timed(numpy_top10, len(queries))
    return {"bm25s": timed(bm25s_top10, len(queries)), "numpy_exact": numpy_exact}


def bench_size(size: int, sentences: list[str], embedder: UseM3Embedder, n_queries: int) -> dict:
    rng = random.Random(size)
    with tempfile.TemporaryDirectory() as tmp:
        config = RetrieveConfig(max_distance=None)
        sentence_vectors = embedder.embed(sentences)
        store, write_s, tokens, vectors = build_store(
            Path(tmp) / "store", size, sentences, embedder.dimension, size, config, sentence_vectors
        )
        started = time.perf_counter()
        store.search().dense_search(np.ones(embedder.dimension, dtype=np.float32), 1)
        load_s = time.perf_counter() - started
        queries = [rng.choice(sentences)[:40] for _ in range(n_queries)]
        query_vectors = embedder.embed(queries)
        started = time.perf_counter()
        unit_file = build_unit_vectors(Path(tmp) / FILE_NAME, store, embedder)
        units_s = time.perf_counter() - started
        sentences_read = DocumentSentences(store.search(), unit_file, embedder.name, embedder.dimension)
        searcher = Searcher(store.search(), embedder, multilingual, config, sentences=sentences_read)
        out: dict = {"chunks": size, "write_s": round(write_s, 1), "index_build_s": round(load_s, 2),
                     "unit_vectors_s": round(units_s, 1), "dense_index": store.search().index_stats().get("dense_index")}
        for mode in ("dense", "keyword", "hybrid"):
            out[mode] = timed(lambda i, mode=mode: searcher.search(queries[i], k=10, mode=mode, query_vector=query_vectors[i]), len(queries))
        without = Searcher(store.search(), embedder, multilingual, config)
        out["hybrid_without_sentences"] = timed(
            lambda i: without.search(queries[i], k=10, mode="hybrid", query_vector=query_vectors[i]), len(queries))
        unit_file.close()
        out |= peers(tokens, vectors, queries, query_vectors)
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
        "Search with the query vector given, top 10 returned as hits; peers measured in the same run over the same chunks. "
        "Ratios are bunko's p50 over the peer's (keyword over bm25s, dense over numpy exact).", "",
        "| chunks | dense index | dense p50 / p95 ms | keyword p50 / p95 ms | hybrid p50 / p95 ms | hybrid without best sentences "
        "p50 / p95 ms | bm25s p50 ms | numpy exact p50 ms | keyword / bm25s | dense / numpy | query embedding p50 ms | index load s |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in results["search"]:
        lines.append(
            f"| {row['chunks']:,} | {row['dense_index']} | {row['dense']['p50_ms']} / {row['dense']['p95_ms']} "
            f"| {row['keyword']['p50_ms']} / {row['keyword']['p95_ms']} | {row['hybrid']['p50_ms']} / {row['hybrid']['p95_ms']} "
            f"| {row['hybrid_without_sentences']['p50_ms']} / {row['hybrid_without_sentences']['p95_ms']} "
            f"| {row['bm25s']['p50_ms']} | {row['numpy_exact']['p50_ms']} "
            f"| {row['keyword']['p50_ms'] / row['bm25s']['p50_ms']:.1f}× | {row['dense']['p50_ms'] / row['numpy_exact']['p50_ms']:.1f}× "
            f"| {row['embed_query']['p50_ms']} | {row['index_build_s']} |"
        )
    notes = RESULTS / "search.notes.md"
    if notes.exists():  # the hand-written reading, kept beside the generated table
        lines += ["", notes.read_text(encoding="utf-8").rstrip()]
    (RESULTS / "search.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
