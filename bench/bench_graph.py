"""What the entity graph costs: extraction per 1,000 chunks against plain ingest, and a one-document update at 100k chunks;
and (--answers) how questions about a whole collection are answered.

    python bench/bench_graph.py [--collection PATH] [--chunks 100000]
    python bench/bench_graph.py --answers LABEL --collection PATH [--collection PATH ...]

- **build**: `extract_entities` over the searchable chunks of a real collection (default: the Debian Reference
  collection the evalset's run.sh builds), in seconds and peak memory per 1,000 chunks, beside the ingest time the
  collection's jobs recorded for the same chunks (parse + chunk + embed + index).
- **update**: a local store of `--chunks` synthetic chunks (entities drawn from a Zipf vocabulary of 50k keys, 12 per
  chunk), the graph synced once; then one 20-chunk document is replaced and the graph synced again (the SQLite
  write, reading the changed rows), and the first walk after it (which reassembles the matrices from the
  document blocks); then a walk on the unchanged graph, and the graph's matrices' size per 1,000 chunks.
- **answers** (`--answers LABEL`): the global questions of bench/graph/global.jsonl (several phrasings of "what are
  these documents about?" in en, ja and zh) asked of each collection (copy a collection before: asking writes
  traces): answered or abstained, the confidence, the sentences and whether each is cited, a prose sentence (no
  table row, no code line, ends as a sentence) and in the question's language, and how many distinct topics
  (communities of the cited passages) and documents the sentences come from. Results of each LABEL (e.g. the code
  before and after a change) go to bench/results/graph-global-LABEL.json; bench/results/graph-global.md tabulates
  every label found.
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
from bunko.text.languages import text_language

RESULTS = Path(__file__).parent / "results"
GLOBAL_QUESTIONS = Path(__file__).parent / "graph" / "global.jsonl"
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


def is_prose_sentence(text: str) -> bool:
    """No table cell, no code fence or prompt line, and it ends as a sentence (the last character is a stop)."""
    stripped = text.strip()
    return "|" not in stripped and "```" not in stripped and not stripped.startswith(("$ ", "# ")) and bool(
        stripped) and stripped[-1] in ".!?。！？」』）)\"'”"


def global_answers(collection: Path, questions: list[dict[str, str]]) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    with Bunko(collection, create=False) as kb:
        for item in questions:
            started = time.perf_counter()
            answer = kb.ask(item["question"])
            seconds = time.perf_counter() - started
            trace = answer.trace
            community = {h.chunk_id: h.signals.get("path", {}).get("community") for h in trace.evidence.hits} if trace else {}
            cited = [c for s in answer.sentences for c in s.citations]
            rows.append({
                "collection": collection.parent.name if collection.name == ".bunko" else collection.name,
                "lang": item["lang"], "question": item["question"],
                "route": (trace.evidence.route.get("retriever") or trace.evidence.route.get("mode")) if trace else None,
                "answered": not answer.abstained, "confidence": answer.confidence,
                "reason": trace.abstain_reason if trace else None,
                "sentences": len(answer.sentences),
                "cited": sum(1 for s in answer.sentences if s.citations),
                "prose": sum(1 for s in answer.sentences if is_prose_sentence(s.text)),
                "same_language": sum(1 for s in answer.sentences if text_language(s.text) == item["lang"]),
                "topics": len({community.get(c.chunk_id) for c in cited} - {None}),
                "documents": len({c.source for c in cited}),
                "features": trace.grade.features if trace else {},
                "seconds": round(seconds, 2),
                "text": answer.text[:600],
            })
            print(json.dumps({k: v for k, v in rows[-1].items() if k != "text"}, ensure_ascii=False), flush=True)
    return rows


def global_table() -> str:
    """Every label's results, one row per label, collection and language."""
    lines = ["# Questions about the whole collection (bench/bench_graph.py --answers)", "",
             "Questions: bench/graph/global.jsonl (4 phrasings per language). Per label (the code measured), collection and "
             "language: answered share, mean confidence (min-max), mean sentences per answer, the share of those cited, "
             "prose (no table row or code line, ending as a sentence) and in the question's language, and the mean "
             "number of distinct topics and documents the cited passages come from.", "",
             "| label | collection | lang | answered | confidence mean (min-max) | sentences | cited | prose | same language | topics | documents | s/ask (median) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for path in sorted(RESULTS.glob("graph-global-*.json")):
        label = path.stem.removeprefix("graph-global-")
        rows = json.loads(path.read_text(encoding="utf-8"))
        for collection in dict.fromkeys(r["collection"] for r in rows):
            for lang in ("en", "ja", "zh"):
                group = [r for r in rows if r["collection"] == collection and r["lang"] == lang]
                if not group:
                    continue
                sentences = sum(r["sentences"] for r in group)
                conf = [r["confidence"] for r in group]

                def share(key: str, group: list[dict[str, object]] = group, sentences: int = sentences) -> str:
                    return f"{sum(int(r[key]) for r in group) / sentences:.2f}" if sentences else "–"  # type: ignore[call-overload]

                answered = [r for r in group if r["answered"]]
                lines.append(
                    f"| {label} | {collection} | {lang} | {len(answered)}/{len(group)} | {float(np.mean(conf)):.3f} "
                    f"({min(conf):.3f}-{max(conf):.3f}) | {sentences / len(group):.1f} | {share('cited')} | {share('prose')} | "
                    f"{share('same_language')} | "
                    + (f"{np.mean([r['topics'] for r in answered]):.1f} | {np.mean([r['documents'] for r in answered]):.1f}" if answered else "– | –")
                    + f" | {float(np.median([r['seconds'] for r in group])):.2f} |"
                )
    for path in sorted(RESULTS.glob("graph-global-*.json")):
        rows = json.loads(path.read_text(encoding="utf-8"))
        shown = {}
        for row in rows:
            shown.setdefault((row["collection"], row["lang"]), row)
        answered = [row for row in shown.values() if row["answered"]]
        if answered:
            lines += ["", f"## {path.stem.removeprefix('graph-global-')}: the first phrasing's answer", ""]
            lines += [f"- {r['collection']} {r['lang']} ({r['confidence']:.3f}, {r['features']}): {r['text'][:400]}" for r in answered]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--collection", type=Path, action="append")
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--answers", metavar="LABEL", help="ask the global questions of each --collection, results under LABEL")
    args = parser.parse_args()
    if args.answers:
        questions = [json.loads(line) for line in GLOBAL_QUESTIONS.read_text(encoding="utf-8").splitlines() if line.strip()]
        rows = [row for collection in args.collection or [] for row in global_answers(collection, questions)]
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / f"graph-global-{args.answers}.json").write_text(json.dumps(rows, indent=1, ensure_ascii=False), encoding="utf-8")
        (RESULTS / "graph-global.md").write_text(global_table(), encoding="utf-8")
        print(global_table())
        return
    args.collection = args.collection[0] if args.collection else DEFAULT_COLLECTION
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
