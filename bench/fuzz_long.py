"""The long fuzz run: each parser target fed random mutated seeds until it has used a CPU budget (default one hour).

Hypothesis stops at a count of examples, not at a time, so the run is a loop of batches: one pytest process per batch
(`BUNKO_FUZZ_PROFILE=long`, random inputs, `BUNKO_FUZZ_SAVE=1`), its CPU seconds (user + system of the child, from
`os.wait4`) summed until the target's budget is spent. A batch that fails stops its target: the shrunk input is under
tests/fuzz/found/ and the pytest output is kept in the results. Results are merged into bench/results/fuzz-long.json
(one entry per target and parser code, `_code`, so runs in several sittings add up while the code is the same) and written out as
bench/results/fuzz-long.md.

    nice -n 19 .venv/bin/python bench/fuzz_long.py --targets pdf docx --cpu-seconds 3600
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
TEST = "tests/fuzz/test_fuzz_parsers.py::test_a_mutated_seed_parses_or_fails_with_a_code"
TARGETS = ("markdown", "text", "html", "csv", "json", "eml", "msg", "pdf", "docx", "pptx", "xlsx", "image", "roff")


@dataclass
class Batch:
    examples: int
    cpu_seconds: float
    wall_seconds: float
    passed: bool
    tail: str = ""


@dataclass
class TargetRun:
    target: str
    commit: str
    batches: list[Batch] = field(default_factory=list)

    @property
    def cpu_seconds(self) -> float:
        return sum(b.cpu_seconds for b in self.batches)

    @property
    def examples(self) -> int:
        return sum(b.examples for b in self.batches)

    @property
    def failed(self) -> bool:
        return any(not b.passed for b in self.batches)


def _code() -> str:
    """Which parser code is fuzzed: git's tree hashes of src/bunko/parse and tests/fuzz at HEAD (short), so runs in
    several sittings add up for as long as neither changes, and a change to either starts the count again."""
    trees = []
    for folder in ("src/bunko/parse", "tests/fuzz"):
        out = subprocess.run(["git", "rev-parse", "--short", f"HEAD:{folder}"], cwd=ROOT, capture_output=True, text=True,
                             check=True)
        trees.append(out.stdout.strip())
    dirty = subprocess.run(["git", "status", "--porcelain", "src/bunko/parse", "tests/fuzz"], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.strip()
    return "+".join(trees) + ("+dirty" if dirty else "")


def run_batch(target: str, examples: int) -> Batch:
    """One pytest process over `examples` random inputs of `target`; CPU is the child's own user + system time."""
    env = dict(os.environ, BUNKO_FUZZ_PROFILE="long", BUNKO_FUZZ_EXAMPLES=str(examples), BUNKO_FUZZ_SAVE="1",
               PYTHONPATH=str(ROOT / "src"))
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:timeout", "-p", "no:cacheprovider", f"{TEST}[{target}]"]
    started = time.monotonic()
    with subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT) as process:
        output = process.stdout.read() if process.stdout else b""
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
    wall = time.monotonic() - started
    text = output.decode("utf-8", "replace")
    return Batch(examples, usage.ru_utime + usage.ru_stime, wall, process.returncode == 0,
                 "" if process.returncode == 0 else text[-4000:])


def _load() -> list[TargetRun]:
    path = RESULTS / "fuzz-long.json"
    if not path.exists():
        return []
    runs = []
    for raw in json.loads(path.read_text(encoding="utf-8")):
        runs.append(TargetRun(raw["target"], raw["commit"], [Batch(**b) for b in raw["batches"]]))
    return runs


def _save(runs: list[TargetRun]) -> None:
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "fuzz-long.json").write_text(json.dumps([asdict(r) for r in runs], indent=1) + "\n", encoding="utf-8")
    lines = [
        "# The long fuzz run, per parser (issue 48)",
        "",
        "`nice -n 19 .venv/bin/python bench/fuzz_long.py --targets T … --cpu-seconds 3600`: batches of random mutated",
        "seeds (tests/fuzz/, `BUNKO_FUZZ_PROFILE=long`), one pytest process each, until the target has used the CPU",
        "budget (the child's user + system seconds). Every input must end as a document or a coded DocumentError within",
        "the harness's limits and its 15 s time guard; a batch that fails stops its target. Machine: 2 shared cores.",
        "",
        "The code column is git's tree hashes of src/bunko/parse and tests/fuzz: runs on the same trees add up.",
        "",
        "| target | code (parse + fuzz trees) | examples | CPU seconds | wall seconds | batches | result |",
        "|---|---|---|---|---|---|---|",
    ]
    for run in sorted(runs, key=lambda r: (r.target, r.commit)):
        wall = sum(b.wall_seconds for b in run.batches)
        result = "FAILED (see fuzz-long.json and tests/fuzz/found/)" if run.failed else "0 uncoded failures, 0 hangs"
        lines.append(f"| {run.target} | {run.commit} | {run.examples:,} | {run.cpu_seconds:,.0f} | {wall:,.0f} | "
                     f"{len(run.batches)} | {result} |")
    (RESULTS / "fuzz-long.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--targets", nargs="+", choices=TARGETS, default=list(TARGETS))
    parser.add_argument("--cpu-seconds", type=float, default=3600.0, help="CPU budget per target (default one hour)")
    parser.add_argument("--batch", type=int, default=4000, help="examples per pytest process")
    args = parser.parse_args()
    commit = _code()
    runs = _load()
    failures = 0
    for target in args.targets:
        run = next((r for r in runs if r.target == target and r.commit == commit), None)
        if run is None:
            run = TargetRun(target, commit)
            runs.append(run)
        while run.cpu_seconds < args.cpu_seconds and not run.failed:
            batch = run_batch(target, args.batch)
            run.batches.append(batch)
            _save(runs)
            stamp = datetime.now(UTC).strftime("%H:%M:%S")
            print(f"{stamp} {target}: {run.examples:,} examples, {run.cpu_seconds:,.0f} CPU-s"
                  f"{'' if batch.passed else ' FAILED'}", flush=True)
        failures += run.failed
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
