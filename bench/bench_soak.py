"""Soak test of `bunko serve` (issue 48, item 7): 32 clients for 10 minutes, errors, tail latency, memory drift.

    python bench/bench_soak.py [--seconds 600] [--clients 32]

The server runs as its own process (`python -m bunko serve`) on a free loopback port over a fresh
collection in a temporary folder, seeded with the bundled samples (ja/zh/en), behind an editor API key.
After a warm-up (every golden question once through /ask and /search), `--clients` threads of this
process, each with its own keep-alive connection and no think time, loop until the deadline over a mix
of operations: ask (most), search, upload (one small generated .md/.txt in ja, zh or en carrying a unique
fact) and delete (of the oldest document that client uploaded and has not deleted yet). Every request
has a bounded timeout, every loop ends at the deadline, and the server is stopped at the end.

Recorded per operation: count, p50/p99/max latency of answered requests, answers by status (5xx
separately) and transport errors; the server's resident memory (VmRSS of its /proc status) right after
the warm-up, every `--sample-every` seconds, and at the end; the 1-minute load average before, during
and after. Writes bench/results/soak.json and soak.md, with whether the issue's targets hold:
no 5xx, ask p99 <= 3 s, end RSS within 15 % of the start RSS.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shlex
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter, deque
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from bunko import Bunko
from bunko.schema import doc_id_for
from bunko.server.auth import KeyStore

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "src" / "bunko" / "samples"
RESULTS = ROOT / "bench" / "results"
COLLECTION = "soak"
TIMEOUTS = {"ask": 60.0, "search": 30.0, "upload": 60.0, "delete": 60.0}
"""Per-request timeouts (s): a request still unanswered then counts as a transport error, not a latency."""
TARGET_ASK_P99_S = 3.0
TARGET_RSS_DRIFT = 0.15


def questions() -> list[str]:
    lines = (SAMPLES / "golden.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["question"] for line in lines if line.strip()]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def rss_kib(pid: int) -> int | None:
    """VmRSS of one process in KiB, None once it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def descendants(pid: int) -> list[int]:
    """Child processes (any depth) of `pid`, from /proc/*/stat."""
    parent: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                parent[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    out, frontier = [], [pid]
    while frontier:
        current = frontier.pop()
        children = [p for p, pp in parent.items() if pp == current]
        out += children
        frontier += children
    return out


def loadavg() -> list[float]:
    return [float(x) for x in Path("/proc/loadavg").read_text().split()[:3]]


def uptime_line() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "load average: " + ", ".join(f"{x:.2f}" for x in loadavg())


def start_server(collection: Path, port: int, log: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in [str(ROOT / "src"), os.environ.get("PYTHONPATH", "")] if p)}
    with log.open("wb") as handle:
        process = subprocess.Popen(
            [sys.executable, "-m", "bunko", "serve", "-c", f"{COLLECTION}={collection}", "--host", "127.0.0.1", "--port", str(port)],
            stdout=handle, stderr=subprocess.STDOUT, env=env,
        )
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited: {log.read_text(errors='replace')[-2000:]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                return process
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    process.kill()
    process.wait(30)
    raise RuntimeError("the server did not start in 180 s")


def stop_server(process: subprocess.Popen[bytes]) -> int | None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(30)
    return process.returncode


FACTS = {
    "ja": ("# 社内メモ {tag}\n\n倉庫 {tag} の保管コードは {code} である。担当者は第{n}営業部とする。\n",
           "倉庫 {tag} の保管コードは何ですか？"),
    "zh": ("# 内部备忘 {tag}\n\n仓库 {tag} 的保管代码是 {code}。负责部门是第{n}销售部。\n",
           "仓库 {tag} 的保管代码是什么？"),
    "en": ("# Internal memo {tag}\n\nThe storage code of warehouse {tag} is {code}. It is run by sales team {n}.\n",
           "What is the storage code of warehouse {tag}?"),
}


def generated_document(rng: random.Random, client: int, serial: int) -> tuple[str, bytes, str]:
    """A small .md or .txt in ja, zh or en with one fact found nowhere else; its file name and a question about it."""
    lang = rng.choice(sorted(FACTS))
    tag = f"W{client:02d}{serial:05d}"
    code = f"{uuid.uuid4().hex[:4].upper()}-{rng.randrange(1000, 9999)}"
    text, question = FACTS[lang]
    body = text.format(tag=tag, code=code, n=rng.randrange(1, 9))
    name = f"soak-c{client:02d}-{serial:05d}-{lang}.{rng.choice(['md', 'txt'])}"
    return name, body.encode("utf-8"), question.format(tag=tag)


class Recorder:
    """Per-operation latencies of answered requests, answers by status, transport errors; thread-safe."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.latencies: dict[str, list[float]] = {op: [] for op in TIMEOUTS}
        self.statuses: dict[str, Counter[int]] = {op: Counter() for op in TIMEOUTS}
        self.transport: dict[str, Counter[str]] = {op: Counter() for op in TIMEOUTS}
        self.samples_5xx: list[dict[str, Any]] = []

    def answered(self, op: str, status: int, seconds: float, body: str) -> None:
        with self.lock:
            self.latencies[op].append(seconds)
            self.statuses[op][status] += 1
            if status >= 500 and len(self.samples_5xx) < 20:
                self.samples_5xx.append({"op": op, "status": status, "body": body[:500]})

    def failed(self, op: str, exc: BaseException) -> None:
        with self.lock:
            self.transport[op][type(exc).__name__] += 1

    def table(self, seconds: float) -> list[dict[str, Any]]:
        rows = []
        for op in TIMEOUTS:
            done = np.asarray(self.latencies[op]) * 1000
            statuses = self.statuses[op]
            rows.append({
                "op": op, "count": int(sum(statuses.values()) + sum(self.transport[op].values())), "answered": int(done.size),
                "per_s": round(done.size / seconds, 2) if seconds else None,
                "p50_ms": round(float(np.percentile(done, 50)), 1) if done.size else None,
                "p99_ms": round(float(np.percentile(done, 99)), 1) if done.size else None,
                "max_ms": round(float(done.max()), 1) if done.size else None,
                "statuses": {str(k): v for k, v in sorted(statuses.items())},
                "errors_4xx": int(sum(v for k, v in statuses.items() if 400 <= k < 500)),
                "errors_5xx": int(sum(v for k, v in statuses.items() if k >= 500)),
                "transport_errors": dict(self.transport[op]),
            })
        return rows


def warm_up(url: str, key: str, pool: list[str], budget_s: float, pid: int) -> dict[str, Any]:
    """Every question once through /ask and /search (within `budget_s`): the index loaded and embeddings cached;
    then three uploads, each waited for and deleted, so the write path is loaded too."""
    began = time.monotonic()
    done = Counter()
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=120) as client:
        for question in pool:
            if time.monotonic() - began > budget_s:
                break
            for op, body in (("ask", {"question": question}), ("search", {"query": question})):
                response = client.post(f"/api/collections/{COLLECTION}/{op}", json=body)
                done[f"{op} {response.status_code}"] += 1
        rss_after_queries = round((rss_kib(pid) or 0) / 1024, 1)
        # the write path too: parse process, chunker and embedder of an upload loaded, and a delete done
        api = f"/api/collections/{COLLECTION}"
        rng = random.Random(0)
        for serial in range(1, 4):
            name, body, _ = generated_document(rng, 99, serial)
            response = client.post(f"{api}/documents", files=[("files", (name, body, "application/octet-stream"))])
            done[f"upload {response.status_code}"] += 1
            if response.status_code != 202:
                continue
            job = response.json()["jobs"][0]
            until = time.monotonic() + 120
            while time.monotonic() < until:
                state = client.get(f"{api}/jobs/{job['job_id']}").json()
                if state["status"] in {"READY", "SKIPPED", "FAILED"}:
                    break
                time.sleep(0.2)
            deleted = client.delete(f"{api}/documents/{doc_id_for(job['source'])}")
            done[f"delete {deleted.status_code}"] += 1
    return {"seconds": round(time.monotonic() - began, 1), "requests": dict(done), "rss_mib_after_queries": rss_after_queries}


def client_loop(n: int, url: str, key: str, pool: list[str], deadline: float, mix: dict[str, float], rec: Recorder,
                max_pending: int, seed: int) -> dict[str, int]:
    rng = random.Random(seed * 1000 + n)
    ops, weights = list(mix), list(mix.values())
    mine: deque[tuple[str, str]] = deque()  # (doc_id, question) of this client's uploads not yet deleted
    serial = 0
    counts = Counter()
    api = f"/api/collections/{COLLECTION}"
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}) as client:
        i = rng.randrange(len(pool))
        while time.monotonic() < deadline:
            op = rng.choices(ops, weights)[0]
            if op == "delete" and not mine:
                op = "upload"
            elif op == "upload" and len(mine) >= max_pending:
                op = "delete"
            timeout = min(TIMEOUTS[op], max(1.0, deadline - time.monotonic() + 5.0))
            try:
                began = time.perf_counter()
                if op == "ask":
                    # one ask in ten is about a fact this client uploaded (it may still be queued for ingest)
                    question = mine[-1][1] if mine and rng.random() < 0.1 else pool[i % len(pool)]
                    i += 1
                    response = client.post(f"{api}/ask", json={"question": question}, timeout=timeout)
                elif op == "search":
                    response = client.post(f"{api}/search", json={"query": pool[i % len(pool)]}, timeout=timeout)
                    i += 1
                elif op == "upload":
                    serial += 1
                    name, body, question = generated_document(rng, n, serial)
                    response = client.post(f"{api}/documents", files=[("files", (name, body, "application/octet-stream"))], timeout=timeout)
                    if response.status_code == 202:
                        source = response.json()["jobs"][0]["source"]
                        mine.append((doc_id_for(source), question))
                else:
                    doc_id, _ = mine.popleft()
                    response = client.delete(f"{api}/documents/{doc_id}", timeout=timeout)
                elapsed = time.perf_counter() - began
            except httpx.HTTPError as exc:
                rec.failed(op, exc)
                counts[op] += 1
                continue
            rec.answered(op, response.status_code, elapsed, response.text if response.status_code >= 500 else "")
            counts[op] += 1
    return dict(counts)


def sampler(pid: int, began: float, deadline: float, every: float, series: list[dict[str, Any]], stop: threading.Event) -> None:
    """RSS of the server (and its children) and the load average every `every` seconds until the deadline."""
    next_at = began + every
    while not stop.is_set() and time.monotonic() < deadline:
        stop.wait(max(0.0, min(next_at, deadline) - time.monotonic()))
        if stop.is_set() or time.monotonic() >= deadline:
            return
        series.append(sample(pid, began))
        next_at += every


def sample(pid: int, began: float) -> dict[str, Any]:
    kids = descendants(pid)
    return {
        "t_s": round(time.monotonic() - began, 1), "rss_mib": round((rss_kib(pid) or 0) / 1024, 1),
        "children_rss_mib": round(sum(rss_kib(k) or 0 for k in kids) / 1024, 1), "children": len(kids), "load1": loadavg()[0],
    }


def jobs_summary(url: str, key: str) -> dict[str, Any]:
    try:
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=30) as client:
            data = client.get(f"/api/collections/{COLLECTION}/jobs", params={"limit": 5000}).json()
            docs = client.get(f"/api/collections/{COLLECTION}/documents").json()["documents"]
    except (httpx.HTTPError, ValueError, KeyError) as exc:
        return {"error": repr(exc)}
    statuses = Counter(j["status"] for j in data.get("jobs", []))
    codes = Counter(j["error_code"] for j in data.get("jobs", []) if j.get("error_code"))
    return {"queued": data.get("queued"), "statuses": dict(statuses), "error_codes": dict(codes), "documents": len(docs)}


def bunko_frames(text: str) -> list[str]:
    """The frames of a traceback that are bunko's own, each with its source line."""
    body = text.splitlines()
    return [f"{line.strip()}  ->  {body[i + 1].strip() if i + 1 < len(body) else ''}" for i, line in enumerate(body)
            if line.strip().startswith("File") and "/bunko/" in line and "site-packages" not in line]


def log_errors(text: str) -> dict[str, Any]:
    """The server log's tracebacks, grouped by exception type and innermost bunko frame (a message such as a
    chunk id varies): how many, up to 5 example messages, and the first full traceback of each group."""
    groups: dict[str, dict[str, Any]] = {}
    for block in text.split("Traceback (most recent call last):")[1:]:
        body = block.strip().splitlines()
        last = next((line for line in body if line and not line.startswith((" ", "\t", "Traceback", "During handling", "The above"))
                     and ("Error" in line or "Exception" in line)), body[-1] if body else "?")[:200]
        frames = bunko_frames("\n".join(body))
        key = last.split(":")[0] + " at " + (frames[-1].split("  ->")[0] if frames else "?")
        group = groups.setdefault(key, {"count": 0, "examples": [], "first": "\n".join(body)[-12000:]})
        group["count"] += 1
        if len(group["examples"]) < 5 and last not in group["examples"]:
            group["examples"].append(last)
    return {"tracebacks": sum(g["count"] for g in groups.values()), "groups": groups}


def verdicts(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    rows = {r["op"]: r for r in result["operations"]}
    total_5xx = sum(r["errors_5xx"] for r in rows.values())
    ask_p99 = rows["ask"]["p99_ms"]
    start, end = result["rss"]["start_mib"], result["rss"]["end_mib"]
    drift = (end - start) / start if start else None
    return {
        "no_5xx": {"holds": total_5xx == 0, "value": total_5xx},
        "ask_p99_le_3s": {"holds": ask_p99 is not None and ask_p99 <= TARGET_ASK_P99_S * 1000, "value_ms": ask_p99},
        "rss_end_within_15pct": {"holds": drift is not None and abs(drift) <= TARGET_RSS_DRIFT, "change": None if drift is None else round(drift, 4)},
    }


def markdown(result: dict[str, Any]) -> str:
    rss = result["rss"]
    v = result["verdicts"]
    yes = {True: "**holds**", False: "**fails**"}
    lines = [
        "# Soak test of `bunko serve`",
        "",
        f"`{result['command']}` — {result['machine']}; started {result['started_utc']} UTC.",
        "",
        f"One `bunko serve` process (uvicorn, one worker) on 127.0.0.1 over a fresh collection seeded with the bundled samples "
        f"({result['seed']['documents']} documents, {result['seed']['chunks']} chunks; ja/zh/en), editor API key. Warm-up: "
        f"every golden question once through /ask and /search ({result['warm_up']['seconds']} s). Then {result['clients']} client "
        f"threads of the benchmark process (same machine: they share its {result['cores']} cores with the server), one keep-alive "
        f"connection each, no think time, for {result['measured_seconds']} s. Mix (weights): "
        + ", ".join(f"{k} {w}" for k, w in result["mix"].items())
        + f"; an upload is one generated .md/.txt (ja/zh/en, one unique fact), a delete removes the oldest document that "
        f"client uploaded (at most {result['max_pending']} of its uploads live at a time); one ask in ten (when the client has "
        "an upload) asks for its own fact. Timeouts: " + ", ".join(f"{k} {t:.0f} s" for k, t in TIMEOUTS.items()) + ".",
        "",
        "| operation | requests | answered/s | p50 ms | p99 ms | max ms | statuses | 4xx | 5xx | transport errors |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in result["operations"]:
        statuses = ", ".join(f"{k}: {c}" for k, c in r["statuses"].items()) or "—"
        transport = ", ".join(f"{k}: {c}" for k, c in r["transport_errors"].items()) or "0"
        lines.append(f"| {r['op']} | {r['count']} | {r['per_s']} | {r['p50_ms']} | {r['p99_ms']} | {r['max_ms']} | {statuses} "
                     f"| {r['errors_4xx']} | {r['errors_5xx']} | {transport} |")
    lines += [
        "",
        "## Server memory (VmRSS of the server process)",
        "",
        f"Start (after warm-up) {rss['start_mib']} MiB, end {rss['end_mib']} MiB: {rss['change_pct']:+.1f} %; "
        f"peak {rss['peak_mib']} MiB. Child processes of the server at the end: {rss['end_children']} "
        f"({rss['end_children_rss_mib']} MiB). After the query warm-up alone (before the warm-up uploads): "
        f"{result['warm_up']['rss_mib_after_queries']} MiB."
        + (f" Against the first sample under load (t = {rss['series'][1]['t_s']} s, {rss['series'][1]['rss_mib']} MiB) the end is "
           f"{100 * (rss['end_mib'] - rss['series'][1]['rss_mib']) / rss['series'][1]['rss_mib']:+.1f} %." if len(rss["series"]) > 2 else ""),
        "",
        "| t (s) | RSS MiB | children RSS MiB | load (1 min) |",
        "|---|---|---|---|",
    ]
    for s in rss["series"]:
        lines.append(f"| {s['t_s']} | {s['rss_mib']} | {s['children_rss_mib']} | {s['load1']} |")
    jobs = result["upload_jobs"]
    lines += [
        "",
        f"Upload jobs at the end: {jobs.get('statuses')} (queue {jobs.get('queued')}; error codes {jobs.get('error_codes') or 'none'}); "
        f"{jobs.get('documents')} documents stored. Server exit code after SIGTERM: {result['server_exit_code']}.",
        "",
        "## Targets (issue 48)",
        "",
        f"- No 5xx: {yes[v['no_5xx']['holds']]} ({v['no_5xx']['value']} 5xx answers).",
        f"- p99 of ask ≤ 3 s on {result['cores']} cores: {yes[v['ask_p99_le_3s']['holds']]} (p99 {v['ask_p99_le_3s']['value_ms']} ms).",
        f"- RSS at the end within 15 % of the start: {yes[v['rss_end_within_15pct']['holds']]} ({rss['change_pct']:+.1f} %).",
        "",
        "## Machine load",
        "",
        f"- Before: `{result['load']['before']}`",
        f"- After: `{result['load']['after']}`",
        f"- 1-minute load during the run: mean {result['load']['mean_during']}, max {result['load']['max_during']} "
        f"on {result['cores']} cores.",
    ]
    if result.get("shared_note"):
        lines += ["", result["shared_note"]]
    if result.get("samples_5xx"):
        lines += ["", "## 5xx answers (first ones)", ""]
        lines += [f"- {s['op']} {s['status']}: `{s['body'][:200]}`" for s in result["samples_5xx"]]
    errors = result["server_log_errors"]
    if errors["tracebacks"]:
        groups = errors["groups"]
        lines += ["", "## Tracebacks in the server log", ""]
        for key, group in groups.items():
            lines += [f"- {group['count']}× `{key}` (e.g. " + "; ".join(f"`{e}`" for e in group["examples"][:3]) + ")"]
        for key, group in list(groups.items())[:3]:
            lines += ["", f"Frames in bunko of `{key.split(' at ')[0]}` (full text in the JSON):", "", "```", *bunko_frames(group["first"])[-14:], "```"]
    if result.get("notes"):
        lines += ["", "## Notes", "", *result["notes"]]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=600.0, help="Measured seconds of the soak (after the warm-up).")
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--sample-every", type=float, default=30.0, help="Seconds between RSS samples.")
    parser.add_argument("--mix", default="ask=70,search=20,upload=5,delete=5", help="Operation weights, e.g. ask=70,search=20,upload=5,delete=5.")
    parser.add_argument("--max-pending", type=int, default=4, help="A client deletes instead of uploading when it has this many uploads live.")
    parser.add_argument("--warm-up-seconds", type=float, default=300.0, help="Upper bound of the warm-up.")
    parser.add_argument("--seed", type=int, default=48)
    parser.add_argument("--out", default="soak", help="Result file stem under bench/results/, or a path stem (with a /) elsewhere.")
    parser.add_argument("--render", metavar="JSON", help="Only write the .md of an earlier run's .json again (e.g. after adding notes).")
    args = parser.parse_args()
    if args.render:
        source = Path(args.render)
        result = json.loads(source.read_text(encoding="utf-8"))
        source.with_suffix(".md").write_text(markdown(result), encoding="utf-8")
        return
    mix = {k: float(v) for k, v in (part.split("=") for part in args.mix.split(","))}
    assert set(mix) <= set(TIMEOUTS) and mix.get("ask", 0) > 0, f"--mix names {sorted(TIMEOUTS)}"
    pool = questions()
    load_before = uptime_line()
    started_utc = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())
    print(f"load before: {load_before}", flush=True)
    with tempfile.TemporaryDirectory(prefix="bunko-soak-") as tmp:
        collection = Path(tmp) / COLLECTION
        kb = Bunko(collection)
        report = kb.ingest([SAMPLES / "docs"])
        seed = {"documents": len(kb.documents()), "chunks": kb.store.chunk_count()}
        kb.close()
        assert report.ok, [j.error_detail for j in report.failed]
        keys = KeyStore(collection)
        key = keys.create("soak", "editor")
        keys.close()
        port = free_port()
        log = Path(tmp) / "server.log"
        server = start_server(collection, port, log)
        url = f"http://127.0.0.1:{port}"
        rec = Recorder()
        series: list[dict[str, Any]] = []
        stop = threading.Event()
        counts: list[dict[str, int]] = [{} for _ in range(args.clients)]
        try:
            warm = warm_up(url, key, pool, args.warm_up_seconds, server.pid)
            print(f"warm-up: {warm}", flush=True)
            began = time.monotonic()
            deadline = began + args.seconds
            series.append(sample(server.pid, began))
            print(f"start: {series[0]}", flush=True)
            watcher = threading.Thread(target=sampler, args=(server.pid, began, deadline, args.sample_every, series, stop), daemon=True)
            watcher.start()

            def run(n: int) -> None:
                counts[n] = client_loop(n, url, key, pool, deadline, mix, rec, args.max_pending, args.seed)

            threads = [threading.Thread(target=run, args=(n,), daemon=True) for n in range(args.clients)]
            for thread in threads:
                thread.start()
            while time.monotonic() < deadline:
                time.sleep(min(30.0, max(0.0, deadline - time.monotonic())))
                if series:
                    print(f"t={time.monotonic() - began:.0f}s rss={series[-1]['rss_mib']} MiB load={loadavg()[0]}", flush=True)
            for thread in threads:  # each request is bounded by its timeout, so this ends
                thread.join(max(TIMEOUTS.values()) + 10)
            stuck = sum(t.is_alive() for t in threads)
            measured = time.monotonic() - began
            stop.set()
            watcher.join(10)
            end = sample(server.pid, began)
            series.append(end)
            print(f"end: {end}", flush=True)
            jobs = jobs_summary(url, key)
        finally:
            stop.set()
            exit_code = stop_server(server)
        log_text = log.read_text(errors="replace")
    load_after = uptime_line()
    print(f"load after: {load_after}", flush=True)
    during = [s["load1"] for s in series]
    start_mib, end_mib = series[0]["rss_mib"], series[-1]["rss_mib"]
    cores = os.cpu_count() or 1
    result: dict[str, Any] = {
        "command": "python " + " ".join(shlex.quote(a) for a in ["bench/bench_soak.py", *sys.argv[1:]]),
        "machine": f"{platform.machine()}, nproc {cores}, Python {platform.python_version()}, {platform.system()} {platform.release()}",
        "cores": cores, "started_utc": started_utc, "clients": args.clients, "mix": mix, "max_pending": args.max_pending,
        "seconds": args.seconds, "measured_seconds": round(measured, 1), "clients_still_running_at_end": stuck,
        "seed": seed, "warm_up": warm, "operations": rec.table(measured),
        "rss": {
            "start_mib": start_mib, "end_mib": end_mib, "change_pct": round(100 * (end_mib - start_mib) / start_mib, 1),
            "peak_mib": max(s["rss_mib"] for s in series), "end_children": series[-1]["children"],
            "end_children_rss_mib": series[-1]["children_rss_mib"], "series": series,
        },
        "upload_jobs": jobs, "server_exit_code": exit_code,
        "load": {"before": load_before, "after": load_after, "mean_during": round(float(np.mean(during)), 2), "max_during": max(during)},
        "samples_5xx": rec.samples_5xx,
        "server_log_errors": log_errors(log_text),
        "server_log_tail": log_text[-3000:],
        "client_op_counts": counts,
    }
    result["verdicts"] = verdicts(result)
    if result["load"]["max_during"] > cores or loadavg()[0] > cores:
        result["shared_note"] = (
            f"The 1-minute load during the run (mean {result['load']['mean_during']}, max {result['load']['max_during']}) counts this "
            f"benchmark's own server and {args.clients} client threads; the machine ({cores} cores) was also shared with other "
            f"work (load before the run: `{load_before}`), so latencies are those of a loaded machine."
        )
    stem = Path(args.out) if "/" in args.out else RESULTS / args.out
    stem.parent.mkdir(parents=True, exist_ok=True)
    stem.with_name(stem.name + ".json").write_text(json.dumps(result, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    stem.with_name(stem.name + ".md").write_text(markdown(result), encoding="utf-8")
    print(markdown(result))


if __name__ == "__main__":
    main()
