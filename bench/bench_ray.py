"""Ingest on Ray against the local engine, on this machine: throughput, where the time goes, Ray's overhead.

    python bench/bench_ray.py [--docs 48] [--workers 1,2] [--rounds 2] [--tiny 300]

Builds `--docs` distinct ja/zh/en Markdown documents from the bundled samples' sentences (every paragraph
tagged with its document, so no chunk text repeats and the vector cache never helps), then ingests them into
fresh collections: with the local engine, and with `--engine ray` and each pool size in `--workers` (Ray inside
`unshare -n` with loopback up, as this sandbox needs; each run in a new process). Per run: wall time of the
ingest call, the phases Ray reports (`RayIngestor.phases`: starting Ray, workers loading the embedder, processing,
the single writer's own time, stopping), the jobs' stage times summed, documents and chunks. Then `--tiny`
one-chunk documents through each engine once: with next to no work per document, the difference is overhead. Writes
bench/results/scale-out.json; bench/results/scale-out.md is written by hand from it (the estimate needs prose).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "src" / "bunko" / "samples" / "docs"


def corpus(folder: Path, count: int) -> None:
    lines = []
    for path in sorted(SAMPLES.glob("*.md")):
        for line in path.read_text(encoding="utf-8").splitlines():
            line = line.strip()
            if len(line) > 20 and not line.startswith(("#", "|", "-", ">", "`")):
                lines.append(line)
    folder.mkdir(parents=True)
    for i in range(count):
        rng = random.Random(i)
        parts = [f"# Document {i}", ""]
        for section in range(4):
            parts += [f"## Section {i}.{section + 1}", ""]
            for k in range(6):
                parts += [f"{' '.join(rng.sample(lines, 2))} (ref D{i}-{section}-{k})", ""]
        (folder / f"doc-{i:04d}.md").write_text("\n".join(parts), encoding="utf-8")


def tiny_corpus(folder: Path, count: int) -> None:
    """Documents of one short sentence (one chunk each): the work is almost nothing, so what is left is overhead."""
    folder.mkdir(parents=True)
    for i in range(count):
        (folder / f"tiny-{i:04d}.md").write_text(f"# Note {i}\n\nThe relay number {i} restarts at {i % 24} o'clock.\n", encoding="utf-8")


def inner(engine: str, folder: Path, collection: Path, workers: int | None) -> dict[str, Any]:
    """One ingest in this process; the result as JSON on stdout."""
    sys.path.insert(0, str(ROOT / "src"))
    from bunko import Bunko

    kb = Bunko(collection)
    timer = time.perf_counter()
    if engine == "local":  # loaded before the clock starts, as Ray's workers load theirs in workers_ready
        kb.embedder.embed(["warm-up"])
    load = time.perf_counter() - timer
    with kb._lock:
        ingestor = kb._ingestor(engine, None, workers)
        timer = time.perf_counter()
        report = ingestor.run([folder])
        wall = time.perf_counter() - timer
    stages: dict[str, float] = {}
    for job in report.jobs:
        for key in ("parse", "chunk", "embed", "index", "total"):
            stages[key] = stages.get(key, 0.0) + job.timings.get(key, 0.0)
    result = {
        "engine": engine, "workers": workers, "wall": round(wall, 3), "model_load": round(load, 3),
        "documents": len(kb.documents()), "chunks": kb.store.chunk_count(), "failed": len(report.failed),
        "stages": {k: round(v, 3) for k, v in stages.items()},
        "phases": {k: round(v, 3) for k, v in getattr(ingestor, "phases", {}).items()},
        "worker_pids": [w["pid"] for w in getattr(ingestor, "worker_info", [])],
    }
    kb.close()
    return result


def run(engine: str, folder: Path, workers: int | None) -> dict[str, Any]:
    collection = Path(tempfile.mkdtemp(prefix="bunko-bench-ray-")) / ".bunko"
    args = [sys.executable, __file__, "--inner", engine, "--folder", str(folder), "--collection", str(collection)]
    if workers:
        args += ["--workers", str(workers)]
    if engine == "ray":
        args = ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$@"', "sh", *args]
    done = subprocess.run(args, capture_output=True, text=True, start_new_session=True, timeout=3600)
    shutil.rmtree(collection.parent, ignore_errors=True)
    if done.returncode != 0:
        raise SystemExit(f"{engine} {workers}: exit {done.returncode}\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=int, default=48)
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--tiny", type=int, default=300, help="one-chunk documents for the per-document overhead (0: skip)")
    parser.add_argument("--inner", choices=["local", "ray"])
    parser.add_argument("--folder", type=Path)
    parser.add_argument("--collection", type=Path)
    args = parser.parse_args()
    if args.inner:
        print(json.dumps(inner(args.inner, args.folder, args.collection, int(args.workers) if args.workers.isdigit() else None)))
        return

    work = Path(tempfile.mkdtemp(prefix="bunko-bench-ray-corpus-"))
    folder = work / "docs"
    corpus(folder, args.docs)
    runs: list[dict[str, Any]] = []
    plan: list[tuple[str, int | None]] = [("local", None)] + [("ray", int(w)) for w in args.workers.split(",")]
    for round_no in range(args.rounds):
        for engine, workers in plan:
            result = run(engine, folder, workers)
            result["round"] = round_no
            runs.append(result)
            print(json.dumps(result), flush=True)
    tiny_runs: list[dict[str, Any]] = []
    if args.tiny:
        tiny = work / "tiny"
        tiny_corpus(tiny, args.tiny)
        for engine, workers in plan:
            result = run(engine, tiny, workers)
            tiny_runs.append(result)
            print(json.dumps({"tiny": True, **result}), flush=True)
    shutil.rmtree(work, ignore_errors=True)

    summary = {}
    for engine, workers in plan:
        mine = [r for r in runs if r["engine"] == engine and r["workers"] == workers]
        summary[f"{engine}{'' if workers is None else f'-{workers}'}"] = {
            "wall_median": statistics.median(r["wall"] for r in mine),
            "docs_per_s": round(mine[0]["documents"] / statistics.median(r["wall"] for r in mine), 3),
            "chunks": mine[0]["chunks"],
        }
    cpu = re.sub(r"\s+", " ", next((line.split(":", 1)[1] for line in Path("/proc/cpuinfo").read_text().splitlines()
                                    if line.startswith("model name")), platform.processor())).strip()
    out = {"machine": {"cpus": os.cpu_count(), "cpu": cpu, "python": platform.python_version()},
           "docs": args.docs, "runs": runs, "summary": summary, "tiny_docs": args.tiny, "tiny_runs": tiny_runs}
    (ROOT / "bench" / "results" / "scale-out.json").write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
