"""Durable uploads under kill -9: `bunko serve` SIGKILLed during 30 uploads, restarted, ten times.

    python bench/bench_durable_uploads.py [--rounds 10] [--uploads 30] [--seed 22]

Each round starts `python -m bunko serve` (its own process) on one collection, sends 30 one-file uploads from
3 client threads (2 of them binary files named .md, which must fail UNSUPPORTED_FORMAT), SIGKILLs the server
after a random number of them were answered 202, at once (uploads still arriving) or a random 0-1.5 s later (the
worker often mid-ingest),
restarts it, and polls `GET /jobs/{id}` of every accepted upload until it ends. An upload is lost if its job is
gone (404) or does not end READY, or FAILED with a code. The collection is kept from round to round, so later
rounds restart over more documents. The round itself is tests/server/server_harness.py's `crash_round`, the
one test_durable_uploads.py runs twice. Writes bench/results/durable-uploads.json and .md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
sys.path.insert(0, str(ROOT / "tests" / "server"))

from server_harness import ServerProcess, crash_round  # noqa: E402

from bunko import Bunko  # noqa: E402


def run(rounds: int, uploads: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    load = os.getloadavg()[0]
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="bunko-durable-") as tmp:
        collection = Path(tmp) / "kb"
        Bunko(collection).close()
        server = ServerProcess(collection)
        try:
            for number in range(1, rounds + 1):
                started = time.monotonic()
                result = crash_round(server, f"r{number}", rng, uploads=uploads)
                outcomes = list(result.outcomes.values())
                codes = Counter(j.get("error_code") for j in outcomes if j["status"] == "FAILED")
                rows.append({
                    "round": number, "uploads": uploads, "accepted": len(result.accepted), "kill_delay_s": round(result.kill_delay, 2),
                    "running_at_kill": result.in_flight_at_kill or "-",
                    "ready": sum(1 for j in outcomes if j["status"] == "READY"),
                    "failed": dict(codes),
                    "resumed": sum(1 for j in outcomes if j.get("attempts", 0) > 1),
                    "lost": len(result.problems()), "problems": result.problems(),
                    "recovery_s": round(result.recovery_s, 1), "round_s": round(time.monotonic() - started, 1),
                })
                print(json.dumps(rows[-1], ensure_ascii=False), flush=True)
        finally:
            server.kill()
    return {
        "command": f"python bench/bench_durable_uploads.py --rounds {rounds} --uploads {uploads} --seed {seed}",
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
                   f"load average {load:.1f} at the start (shared machine: the seconds are indicative)",
        "rounds": rows,
        "accepted": sum(r["accepted"] for r in rows), "lost": sum(r["lost"] for r in rows),
    }


def markdown(result: dict[str, Any]) -> str:
    lines = [
        "# Durable uploads under kill -9",
        "",
        f"`{result['command']}` — {result['machine']}. Each round: `bunko serve` as its own process, 30 one-file uploads "
        "from 3 client threads (2 binary files named .md among them), SIGKILL after a random number were answered 202, "
        "at once or a random 0-1.5 s later, restart, then every accepted upload's `GET /jobs/{id}` polled until it ends. "
        "One collection for all rounds.",
        "",
        "| round | kill, s after the chosen 202 | accepted (202) before the kill | stage running at the kill | READY | FAILED (code) "
        "| resumed (attempts > 1) | lost | restart to all done, s |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in result["rounds"]:
        failed = ", ".join(f"{n} {c}" for c, n in sorted(r["failed"].items(), key=lambda kv: str(kv[0]))) or "0"
        lines.append(
            f"| {r['round']} | {r['kill_delay_s']} | {r['accepted']} | {r['running_at_kill']} | {r['ready']} | {failed} | {r['resumed']} | {r['lost']} | {r['recovery_s']} |"
        )
    lines += [
        "",
        f"- {result['accepted']} uploads were answered 202 before a kill; {result['lost']} of them were lost "
        "(gone, or not ended READY or FAILED with a code).",
        "- Uploads sent after the kill got no 202 (connection refused) and are not counted: the client knows they failed.",
        "- \"resumed\" are jobs the killed server had taken (the file moved into uploads/, ingest under way): start-up "
        "ingested them again; the others were still staged in uploads/.incoming and queued again as they were.",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--uploads", type=int, default=30)
    parser.add_argument("--seed", type=int, default=22)
    args = parser.parse_args()
    result = run(args.rounds, args.uploads, args.seed)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "durable-uploads.json").write_text(json.dumps(result, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    (RESULTS / "durable-uploads.md").write_text(markdown(result), encoding="utf-8")
    print(markdown(result))


if __name__ == "__main__":
    main()
