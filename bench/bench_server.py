"""HTTP throughput and latency of `bunko serve`: /search and /ask under 1, 8 and 32 concurrent clients.

    python bench/bench_server.py [--seconds 10] [--clients 1 8 32]

The server runs as its own process (`python -m bunko serve`) over the bundled
samples, behind a reader API key, on a loopback port; the clients are threads of
this process, each with its own keep-alive connection, cycling through the 63
golden questions. Each (endpoint, clients) cell runs for `--seconds` after a
warm-up, so the whole run is bounded in time. Writes bench/results/server.json and .md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from bunko import Bunko
from bunko.server.auth import KeyStore

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "src" / "bunko" / "samples"
RESULTS = ROOT / "bench" / "results"


def questions() -> list[str]:
    lines = (SAMPLES / "golden.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["question"] for line in lines if line.strip()]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(collection: Path, port: int, log: Path) -> subprocess.Popen[bytes]:
    handle = log.open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "bunko", "serve", "-c", f"bench={collection}", "--port", str(port)],
        stdout=handle, stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited: {log.read_text(errors='replace')[-2000:]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                return process
        except httpx.HTTPError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError("the server did not start in 180 s")


def warm_up(url: str, key: str, endpoint: str, pool: list[str]) -> None:
    """Every question once: a long-running server has loaded its index and cached the corpus's sentence embeddings."""
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=120) as client:
        for question in pool:
            body = {"query": question} if endpoint == "search" else {"question": question}
            client.post(f"/api/collections/bench/{endpoint}", json=body).raise_for_status()


def run_cell(url: str, key: str, endpoint: str, clients: int, seconds: float, pool: list[str]) -> dict[str, Any]:
    """`clients` threads hammer one endpoint for `seconds`; latencies of completed requests only."""
    latencies: list[list[float]] = [[] for _ in range(clients)]
    errors = [0] * clients
    start = threading.Barrier(clients + 1)
    stop = threading.Event()

    def worker(n: int) -> None:
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=120) as client:
            i = n
            start.wait()
            while not stop.is_set():
                question = pool[i % len(pool)]
                body = {"query": question} if endpoint == "search" else {"question": question}
                began = time.perf_counter()
                try:
                    ok = client.post(f"/api/collections/bench/{endpoint}", json=body).status_code == 200
                except httpx.HTTPError:
                    ok = False
                if ok:
                    latencies[n].append(time.perf_counter() - began)
                else:
                    errors[n] += 1
                i += clients

    threads = [threading.Thread(target=worker, args=(n,), daemon=True) for n in range(clients)]
    for thread in threads:
        thread.start()
    start.wait()
    began = time.perf_counter()
    time.sleep(seconds)
    stop.set()
    for thread in threads:
        thread.join(150)
    elapsed = time.perf_counter() - began
    done = np.asarray([x for part in latencies for x in part]) * 1000
    return {
        "endpoint": f"/{endpoint}", "clients": clients, "seconds": round(elapsed, 2), "requests": int(done.size),
        "errors": int(sum(errors)), "rps": round(done.size / elapsed, 2),
        "p50_ms": round(float(np.percentile(done, 50)), 1) if done.size else None,
        "p95_ms": round(float(np.percentile(done, 95)), 1) if done.size else None,
        "max_ms": round(float(done.max()), 1) if done.size else None,
    }


def scaling_notes(cells: list[dict[str, Any]]) -> list[str]:
    """One line per endpoint: how throughput and tail latency move from the fewest to the most clients."""
    notes = []
    for endpoint in dict.fromkeys(c["endpoint"] for c in cells):
        rows = sorted((c for c in cells if c["endpoint"] == endpoint and c["requests"]), key=lambda c: c["clients"])
        if len(rows) < 2:
            continue
        low, high = rows[0], rows[-1]
        notes.append(
            f"- `{endpoint}`: {high['clients']} clients reach {high['rps'] / low['rps']:.1f}× the requests/s of {low['clients']} "
            f"({low['rps']} → {high['rps']}); p95 goes {low['p95_ms']} → {high['p95_ms']} ms; {sum(c['errors'] for c in rows)} errors."
        )
    return notes


def markdown(result: dict[str, Any]) -> str:
    lines = [
        "# HTTP server benchmark",
        "",
        f"`{result['command']}` — {result['machine']}. Server: one `bunko serve` process (uvicorn, one worker) over the bundled "
        f"samples ({result['documents']} documents, {result['chunks']} chunks), reader API key, loopback. Clients: threads of the "
        f"benchmark process (same machine, so they share its {result['cores']} cores), one keep-alive connection each, cycling "
        f"through the {result['questions']} golden questions; {result['seconds_per_cell']} s per cell, after one warm-up pass over "
        "every question per endpoint (a running server's state: index loaded, corpus sentence embeddings cached).",
        "",
        "| endpoint | clients | requests/s | p50 ms | p95 ms | max ms | requests | errors |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for cell in result["cells"]:
        lines.append(
            f"| {cell['endpoint']} | {cell['clients']} | {cell['rps']} | {cell['p50_ms']} | {cell['p95_ms']} | {cell['max_ms']} "
            f"| {cell['requests']} | {cell['errors']} |"
        )
    lines += ["", *result.get("notes", []), ""]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="Measured seconds per (endpoint, clients) cell.")
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--endpoints", nargs="+", default=["search", "ask"], choices=["search", "ask"])
    args = parser.parse_args()
    pool = questions()
    with tempfile.TemporaryDirectory() as tmp:
        collection = Path(tmp) / "bench"
        kb = Bunko(collection)
        report = kb.ingest([SAMPLES / "docs"])
        documents, chunks = len(kb.documents()), kb.store.chunk_count()
        kb.close()
        assert report.ok, [j.error_detail for j in report.failed]
        keys = KeyStore(collection)
        key = keys.create("bench", "reader")
        keys.close()
        port = free_port()
        server = start_server(collection, port, Path(tmp) / "server.log")
        url = f"http://127.0.0.1:{port}"
        cells = []
        try:
            for endpoint in args.endpoints:
                warm_up(url, key, endpoint, pool)
                for clients in args.clients:
                    cell = run_cell(url, key, endpoint, clients, args.seconds, pool)
                    print(json.dumps(cell), flush=True)
                    cells.append(cell)
        finally:
            server.terminate()
            server.wait(60)
    result = {
        "command": "python bench/bench_server.py " + " ".join(sys.argv[1:]),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "cores": os.cpu_count(), "documents": documents, "chunks": chunks, "questions": len(pool),
        "seconds_per_cell": args.seconds, "cells": cells, "notes": scaling_notes(cells),
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "server.json").write_text(json.dumps(result, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    (RESULTS / "server.md").write_text(markdown(result), encoding="utf-8")
    print(markdown(result))


if __name__ == "__main__":
    main()
