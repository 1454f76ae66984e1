"""What the entity graph costs: extraction per 1,000 chunks against plain ingest, and a one-document update at 100k chunks.

    python bench/bench_graph.py [--collection PATH] [--chunks 100000]

- **build**: `extract_entities` over the searchable chunks of a real collection (default: the Debian Reference
  collection the evalset's run.sh builds), in seconds and peak memory per 1,000 chunks, beside the ingest time the
  collection's jobs recorded for the same chunks (parse + chunk + embed + index).
- **update**: a local store of `--chunks` synthetic chunks (entities drawn from a Zipf vocabulary of 50k keys, 12 per
  chunk), the graph synced once; then one 20-chunk document is replaced and the graph synced again (the SQLite
  write, reading the changed rows), and the first walk after it (which reassembles the matrices from the
  document blocks); then a walk on the unchanged graph, and the graph's matrices' size per 1,000 chunks.
Results: bench/results/graph.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import resource
import tempfile
import time
from pathlib import Path

import numpy as np

from bunko import Bunko
from bunko.schema import Chunk, ParsedDocument, doc_id_for
from bunko.store.base import StoredChunk
from bunko.store.local import LocalStore
from bunko.text.entities import Mention, extract_entities

RESULTS = Path(__file__).parent / "results"
DEFAULT_COLLECTION = max(
    (Path.home() / ".cache" / "bunko-evalsets" / "debian-reference" / "runs").glob("*-all-html/.bunko"),
    key=lambda p: p.stat().st_mtime, default=None,
)


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def build_cost(collection: Path) -> dict[str, float]:
    with Bunko(collection, create=False) as kb:
        chunks = [c for c in kb.store.chunks() if c.searchable]
        ingest_seconds = sum(sum(job.timings.values()) for job in kb.jobs(all_runs=True) if job.status == "READY")
    before = peak_mb()
    started = time.perf_counter()
    mentions = sum(len(extract_entities(c.text)) for c in chunks)
    seconds = time.perf_counter() - started
    per_k = 1000 / max(len(chunks), 1)
    return {
        "chunks": len(chunks), "mentions_per_chunk": mentions / max(len(chunks), 1),
        "extract_s_per_1k_chunks": seconds * per_k, "ingest_s_per_1k_chunks": ingest_seconds * per_k,
        "extract_share_of_ingest": seconds / ingest_seconds if ingest_seconds else float("nan"),
        "peak_mb_growth": peak_mb() - before,
    }


def update_cost(chunks: int, per_document: int = 20) -> dict[str, float]:
    rng = np.random.default_rng(0)
    vocabulary = [f"entity{i}" for i in range(50_000)]
    vector = np.ones(8, dtype=np.float32) / np.sqrt(8)

    def document(n: int, version: str) -> tuple[ParsedDocument, list[StoredChunk]]:
        source = f"doc-{n}.md"
        doc = ParsedDocument(doc_id_for(source), source, source, "text/markdown", "bench", [], {})
        stored = []
        for i in range(per_document):
            keys = {vocabulary[min(int(z), len(vocabulary)) - 1] for z in rng.zipf(1.3, 12)}
            text = " ".join(sorted(keys))
            mentions = [Mention(k, k, text.index(k), text.index(k) + len(k)) for k in keys]
            stored.append(StoredChunk(Chunk(f"{source}#{i}-{version}", doc.doc_id, source, i, text, text), vector, [], "h", mentions))
        return doc, stored

    with tempfile.TemporaryDirectory() as folder:
        store = LocalStore(Path(folder))
        started = time.perf_counter()
        for n in range(chunks // per_document):
            doc, stored = document(n, "v1")
            store.replace_document(doc, "v1", stored)
        fill = time.perf_counter() - started
        started = time.perf_counter()
        graph = store.search().entity_graph()
        graph.walk({"entity1": 1.0}, {})
        first_sync = time.perf_counter() - started
        doc, stored = document(7, "v2")
        started = time.perf_counter()
        store.replace_document(doc, "v2", stored)
        write = time.perf_counter() - started
        started = time.perf_counter()
        graph = store.search().entity_graph()
        sync = time.perf_counter() - started
        started = time.perf_counter()
        graph.walk({"entity1": 1.0}, {})
        walk = time.perf_counter() - started
        started = time.perf_counter()
        graph.walk({"entity2": 1.0, "entity30": 1.0}, {})
        later_walk = time.perf_counter() - started
        m = graph.matrices
        matrix_bytes = sum(x.data.nbytes + x.indices.nbytes + x.indptr.nbytes
                           for x in (m.incidence, m.by_entity, m.into_entities, m.into_passages))
        assert graph.passage_count == chunks
        store.close()
    return {"chunks": chunks, "fill_s": fill, "first_sync_and_walk_s": first_sync, "one_document_write_s": write,
            "one_document_sync_s": sync, "first_walk_after_s": walk, "update_total_s": write + sync + walk,
            "walk_s": later_walk, "graph_matrices_mb_per_1k_chunks": matrix_bytes / 2**20 / (chunks / 1000)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--collection", type=Path, default=DEFAULT_COLLECTION)
    parser.add_argument("--chunks", type=int, default=100_000)
    args = parser.parse_args()
    report = {"build": build_cost(args.collection) if args.collection else None, "update": update_cost(args.chunks)}
    print(json.dumps(report, indent=1))
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "graph.json").write_text(json.dumps(report, indent=1), encoding="utf-8")
    lines = ["# Entity graph cost (bench/bench_graph.py)", "", __doc__.split("\n\n", 2)[2].split("Results:")[0].strip(), ""]
    for name, values in report.items():
        if values:
            lines += [f"## {name}", "", "| measure | value |", "|---|---|", *(f"| {k} | {v:.4g} |" for k, v in values.items()), ""]
    (RESULTS / "graph.md").write_text("\n".join(lines), encoding="utf-8")


if __name__ == "__main__":
    main()
