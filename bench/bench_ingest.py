"""Ingest against the embedder's own speed, on the same texts in the same process.

    PYTHONPATH=src python bench/bench_ingest.py [--corpus reference] [--pages 30] [--rounds 2]
        [--variant after=src --variant before=/path/to/other/checkout/src] [--name ingest]

Pages: the first `--pages` files of each language (en, ja, zh; python is English only) of a page corpus of
bench/page_corpora.py (handbook, reference or python, built if missing), or the bundled samples
(`--corpus samples`), copied to a scratch folder. Each measurement runs in a fresh subprocess with the
variant's `src` first on its path, so two checkouts (before and after a change) are measured on the same pages,
round-robin, under the same background load. Inside it, with the default embedder ([embed] defaults) loaded
and warmed up first:

1. ingest the folder into a new collection with the default config: CPU seconds of this process plus the parse
   child's (read from /proc before the collection closes), wall seconds, texts the embedder was handed, and
   how long the last progress callback came before `ingest` returned (what a bar shows nothing for);
2. raw: the same embedder called once on the searched chunks' embedded texts the ingest stored (distinct), CPU
   seconds; then once on those plus the distinct unit texts (sentences and rows with their heading) of every
   stored chunk (parents too: an answer quotes a parent's), which ingest also embeds for the reranker
   (`[rerank] unit_vectors = "ingest"`).

`--reembed`: after the ingest, the collection is re-embedded to the same model under another name (the work of a
model switch at the same cost per text): CPU seconds, texts embedded, and seconds from the switch to the return.

Figures: raw chunks per CPU-second, ingest's searched chunks per CPU-second and their ratio; the same for all the
texts ingest must embed (chunks + units), which is the ratio ingest's own overhead leaves; the per-stage sums of
the jobs' timings. Ingest's overhead is its CPU seconds less those spent inside the embedder's calls (parse child
included); `ratio_*_overhead` put that overhead on top of raw's CPU (raw / (raw all + overhead)), the same ratios
without the embedding's run-to-run noise (±0.5 CPU-s on a loaded machine). Best (min CPU) and median of `--rounds`.
Writes bench/results/<name>.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
SAMPLES = ROOT / "src" / "bunko" / "samples" / "docs"
CORPORA = ("handbook", "reference", "python", "samples")
STAGES = ("parse", "chunk", "embed", "embed_units", "index")


def pages(corpus: str, per_language: int, into: Path) -> int:
    """Copy the first `per_language` pages of each language into `into`; returns how many."""
    if corpus == "samples":
        files = sorted(SAMPLES.glob("*.md"))
        for path in files:
            shutil.copy(path, into / path.name)
        return len(files)
    sys.path.insert(0, str(ROOT / "bench"))
    import page_corpora

    folder = page_corpora.build(corpus)
    count = 0
    for lang in page_corpora.LANGS:
        chosen = sorted((folder / lang).glob("*.html"))[:per_language]
        (into / lang).mkdir(parents=True, exist_ok=True)
        for path in chosen:
            shutil.copy(path, into / lang / path.name)
        count += len(chosen)
    return count


def child_cpu(pid: int) -> float:
    """CPU seconds (user + system) a live process has used, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Counting:
    """The embedder, counting the texts handed to it (what ingest embedded, whatever the code version) and the CPU
    seconds spent inside its calls (so ingest's own overhead is told apart from the embedding's noise)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.texts = 0
        self.cpu = 0.0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def embed(self, texts: Any) -> Any:
        self.texts += len(texts)
        started = time.process_time()
        try:
            return self.inner.embed(texts)
        finally:
            self.cpu += time.process_time() - started


def measure(folder: Path) -> dict[str, Any]:
    """One ingest and the raw embedding of its texts, in this process (the child side)."""
    from bunko import Bunko, Config
    from bunko.embed.registry import build_embedder
    from bunko.rerank.unit_vectors import chunk_unit_texts

    config = Config()
    embedder = build_embedder(config.embed)
    embedder.embed(["warm up", "準備", "预热"])
    counting = Counting(embedder)
    scratch = Path(tempfile.mkdtemp(prefix="bench-ingest-"))
    calls: list[float] = []
    try:
        kb = Bunko(scratch / ".bunko", config=config, embedder=counting)  # type: ignore[arg-type]
        cpu, started = time.process_time(), time.perf_counter()
        report = kb.ingest(folder, progress=lambda done, total, job: calls.append(time.perf_counter()))
        ended = time.perf_counter()
        cpu = time.process_time() - cpu
        parser = getattr(kb, "_parser", None)
        proc = getattr(parser, "_proc", None)
        parse_cpu = child_cpu(proc.pid) if proc is not None and proc.poll() is None else 0.0
        stored = kb.chunks()
        searched = [c for c in stored if c.searchable]
        stages = {stage: round(sum(job.timings.get(stage, 0.0) for job in report.jobs), 3) for stage in STAGES}
        jobs_total = sum(job.timings.get("total", 0.0) for job in report.jobs)
        unit_count = kb.units.file.count()
        reembed = reembed_figures(kb, counting) if os.environ.get("BENCH_REEMBED") else {}
        kb.close()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    chunk_texts = list(dict.fromkeys(c.embed_text for c in searched))
    unit_texts = list(dict.fromkeys(t for c in stored for t in chunk_unit_texts(c)))  # a parent's too: asks quote parents
    every = list(dict.fromkeys([*chunk_texts, *unit_texts]))
    raw_chunks = time.process_time()
    embedder.embed(chunk_texts)
    raw_chunks = time.process_time() - raw_chunks
    raw_all = time.process_time()
    embedder.embed(every)
    raw_all = time.process_time() - raw_all
    ingest_cpu = cpu + parse_cpu
    return {
        "files": len(report.jobs), "failed": len(report.failed), "chunks": len(searched), "parents": len(stored) - len(searched),
        "distinct_chunk_texts": len(chunk_texts),
        "distinct_units": len(unit_texts), "distinct_texts": len(every), "units_stored": unit_count,
        "texts_embedded_by_ingest": counting.texts,
        "ingest_cpu_s": round(ingest_cpu, 3), "ingest_main_cpu_s": round(cpu, 3), "parse_child_cpu_s": round(parse_cpu, 3),
        "ingest_wall_s": round(ended - started, 3),
        "ingest_embed_cpu_s": round(counting.cpu, 3), "overhead_cpu_s": round(ingest_cpu - counting.cpu, 3),
        "jobs_wall_s": round(jobs_total, 3), "stages_wall_s": stages,
        "raw_chunks_cpu_s": round(raw_chunks, 3), "raw_all_cpu_s": round(raw_all, 3),
        "progress_calls": len(calls), "last_progress_to_return_s": round(ended - (calls[-1] if calls else started), 3),
        **reembed,
    }


class Renamed(Counting):
    """The same model under another name: a re-embed to it does the work a switch of model does, at the same cost."""

    name = "use-m3-renamed"


def reembed_figures(kb: Any, counting: Counting) -> dict[str, Any]:
    """A re-embed of the collection to the same model renamed: CPU seconds, texts embedded, and the seconds from
    the switch (the last progress call) to the return, which is what is left after the switch."""
    target = Renamed(counting.inner)
    calls: list[float] = []
    cpu, started = time.process_time(), time.perf_counter()
    report = kb.reembedder.run(embedder=target, progress=lambda done, total: calls.append(time.perf_counter()))
    ended = time.perf_counter()
    return {"reembed_cpu_s": round(time.process_time() - cpu, 3), "reembed_wall_s": round(ended - started, 3),
            "reembed_chunks": report.chunks, "reembed_texts_embedded": target.texts,
            "reembed_after_switch_s": round(ended - calls[-1], 3)}


def child(args: argparse.Namespace) -> None:
    print(json.dumps(measure(Path(args.folder))), flush=True)


def summarise(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Best (min ingest CPU) and median of each figure; the throughputs from CPU seconds."""
    def rate(run: dict[str, Any]) -> dict[str, float]:
        return {
            "raw_chunks_per_cpu_s": run["chunks"] / run["raw_chunks_cpu_s"],
            "ingest_chunks_per_cpu_s": run["chunks"] / run["ingest_cpu_s"],
            "ratio_chunks": run["raw_chunks_cpu_s"] / run["ingest_cpu_s"],
            "raw_texts_per_cpu_s": run["distinct_texts"] / run["raw_all_cpu_s"],
            "ratio_all_texts": run["raw_all_cpu_s"] / run["ingest_cpu_s"],
            # raw's CPU with ingest's own overhead on top: the ratio without the embedding's run-to-run noise
            "ratio_all_texts_overhead": run["raw_all_cpu_s"] / (run["raw_all_cpu_s"] + run["overhead_cpu_s"]),
            "ratio_chunks_overhead": run["raw_chunks_cpu_s"] / (run["raw_all_cpu_s"] + run["overhead_cpu_s"]),
        }
    rates = [rate(run) for run in runs]
    best = min(range(len(runs)), key=lambda i: runs[i]["ingest_cpu_s"])
    medians = {key: round(statistics.median(r[key] for r in rates), 3) for key in rates[0]}
    medians.update({key: statistics.median(run[key] for run in runs) for key in
                    ("ingest_cpu_s", "ingest_wall_s", "raw_chunks_cpu_s", "raw_all_cpu_s", "last_progress_to_return_s",
                     "ingest_embed_cpu_s", "overhead_cpu_s", "parse_child_cpu_s")})
    return {"best": {**runs[best], **{k: round(v, 3) for k, v in rates[best].items()}}, "median": medians, "runs": runs}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", choices=CORPORA, default="reference")
    parser.add_argument("--pages", type=int, default=30, help="pages per language")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--variant", action="append", default=[], help="label=path/to/src (default: after=this checkout's src)")
    parser.add_argument("--name", default="ingest")
    parser.add_argument("--reembed", action="store_true", help="also re-embed each collection to the model renamed")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    variants = dict(v.split("=", 1) for v in args.variant) or {"after": str(ROOT / "src")}
    work = Path(tempfile.mkdtemp(prefix="bench-ingest-pages-"))
    try:
        count = pages(args.corpus, args.pages, work)
        runs: dict[str, list[dict[str, Any]]] = {label: [] for label in variants}
        loads = []
        for round_no in range(args.rounds):
            order = list(variants) if round_no % 2 == 0 else list(reversed(variants))
            for label in order:
                env = {**os.environ, "PYTHONPATH": os.pathsep.join([variants[label], str(ROOT / "bench")]),
                       "BENCH_REEMBED": "1" if args.reembed else ""}
                done = subprocess.run([sys.executable, __file__, "--child", "--folder", str(work)], env=env,
                                      capture_output=True, text=True, check=False)
                if done.returncode != 0:
                    raise SystemExit(f"{label}: the measuring process failed:\n{done.stderr[-3000:]}")
                run = json.loads(done.stdout.strip().splitlines()[-1])
                run["load_1min"] = os.getloadavg()[0]
                loads.append(run["load_1min"])
                runs[label].append(run)
                print(f"round {round_no + 1} {label}: ingest {run['ingest_cpu_s']} CPU-s ({run['ingest_wall_s']} s wall), "
                      f"{run['ingest_embed_cpu_s']} of it in the embedder, overhead {run['overhead_cpu_s']} CPU-s, "
                      f"raw chunks {run['raw_chunks_cpu_s']} CPU-s, raw chunks+units {run['raw_all_cpu_s']} CPU-s, "
                      f"{run['chunks']} chunks, {run['texts_embedded_by_ingest']} texts embedded"
                      + (f"; reembed {run['reembed_cpu_s']} CPU-s, {run['reembed_texts_embedded']} texts, "
                         f"{run['reembed_after_switch_s']} s after the switch" if args.reembed else ""), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    result = {
        "command": " ".join(["python", "bench/bench_ingest.py", *sys.argv[1:]]),
        "corpus": args.corpus, "pages": count, "rounds": args.rounds, "variants": variants,
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "load_1min": loads},
        "results": {label: summarise(found) for label, found in runs.items()},
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{args.name}.json").write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps({label: r["median"] for label, r in result["results"].items()}, indent=2))


if __name__ == "__main__":
    main()
