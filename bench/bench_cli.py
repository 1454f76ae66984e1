"""Cold-process times of the `bunko` command: --version, --help, search and ask, each a new Python process.

    python bench/bench_cli.py [--runs 7] [--baseline main] [--collection PATH]

The collection is the page corpora of bench/page_corpora.py (the Debian Administrator's Handbook and the Debian
Reference in en/ja/zh, the Python library reference in en: about 1,000 pages), ingested once into
``~/.cache/bunko-bench/cli/collection`` with the tree under test. "Cold" means a new process each run, which imports
everything and loads the model: the operating system's file cache stays warm (the files were read by the warm-up),
as for a person who runs `bunko` a second time, and the use-m3 cache (bunko.embed.use_m3_cache) is built by the warm-up.

With ``--baseline REF`` the same commands are timed against ``git archive REF src`` (unpacked into a temporary
folder, run with the same interpreter and collection), alternating A B A B so a drift in the machine's speed
falls on both. Reported per command: wall seconds min and median, CPU (user+sys) median, and the ratio of the
medians. Writes bench/results/cli.json and cli.md, with the machine's load (``/proc/loadavg``) before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
COLLECTION = Path.home() / ".cache" / "bunko-bench" / "cli" / "collection"
CORPORA = ("handbook", "reference", "python")
TARGETS = {"version": 0.15, "search": 1.0, "ask": 1.2}
"""Median wall seconds the cold start is meant to stay under (issue 47)."""

COMMANDS: dict[str, list[str]] = {
    "version": ["--version"],
    "help": ["--help"],
    "search": ["search", "apt proxy", "-k", "10"],
    "ask": ["ask", "How do I make apt use a proxy?"],
}


@dataclass
class Timing:
    command: str
    tree: str
    wall_s: list[float]
    cpu_s: list[float]

    @property
    def wall_min(self) -> float:
        return min(self.wall_s)

    @property
    def wall_median(self) -> float:
        return statistics.median(self.wall_s)

    @property
    def cpu_median(self) -> float:
        return statistics.median(self.cpu_s)


def bunko_argv(args: list[str]) -> list[str]:
    return [sys.executable, "-c", "from bunko.cli import main; main()", *args]


def environment(src: Path) -> dict[str, str]:
    """The command's environment as a user's shell has it: Python writes the modules' bytecode (the warm-up run writes
    it; an installed package has it from its install), so a timed run does not compile bunko's sources again."""
    env = {**os.environ, "PYTHONPATH": str(src), "COLUMNS": "120"}
    env.pop("BUNKO_COLLECTION", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def build_collection(collection: Path) -> None:
    """Ingest the page corpora into `collection` with the tree under test, unless it is there."""
    if (collection / "bunko.toml").exists():
        return
    sys.path.insert(0, str(ROOT / "bench"))
    from page_corpora import build

    folders = [build(corpus) for corpus in CORPORA]
    collection.parent.mkdir(parents=True, exist_ok=True)
    root = folders[0].parent
    subprocess.run(bunko_argv(["ingest", *map(str, folders), "--root", str(root), "-c", str(collection), "--json"]),
                   env=environment(ROOT / "src"), check=True, stdout=subprocess.DEVNULL)


def baseline_tree(ref: str, into: Path) -> Path:
    """`src/` of `ref`, unpacked under `into`."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "src"], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into / "src"


def run_once(args: list[str], src: Path, collection: Path) -> tuple[float, float]:
    """Wall and CPU (user+sys of the child) seconds of one `bunko ARGS` process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(bunko_argv([*args[:1], *(["-c", str(collection)] if args[0] in ("search", "ask") else []), *args[1:]]),
                          env=environment(src), capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"bunko {' '.join(args)} (src {src}) exited {done.returncode}: {done.stderr.strip()[-400:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text(encoding="utf-8").split()[:3])
    except OSError:
        return "unknown"


def measure(trees: dict[str, Path], collection: Path, runs: int) -> list[Timing]:
    timings = {(c, t): Timing(c, t, [], []) for c in COMMANDS for t in trees}
    for command, args in COMMANDS.items():
        for src in trees.values():  # warm-up: file cache, and the use-m3 cache of the tree under test
            run_once(args, src, collection)
        for _ in range(runs):
            for tree, src in trees.items():  # A B A B: drift falls on both
                wall, cpu = run_once(args, src, collection)
                timings[command, tree].wall_s.append(wall)
                timings[command, tree].cpu_s.append(cpu)
    return list(timings.values())


def write(timings: list[Timing], trees: dict[str, Path], args: argparse.Namespace, loads: tuple[str, str]) -> None:
    rerun = "nice -n 5 python bench/bench_cli.py" + (f" --baseline {args.baseline}" if args.baseline else "") + f" --runs {args.runs}"
    if args.collection != COLLECTION:
        rerun += f" --collection {args.collection}"
    by = {(t.command, t.tree): t for t in timings}
    lines = [
        "# Cold start of the `bunko` command",
        "",
        f"Each figure is a new Python process (`python -c 'from bunko.cli import main; main()' ARGS`), {args.runs} runs after "
        "one warm-up, the trees alternated run by run. Collection: the page corpora (handbook, reference, python; "
        f"{args.pages} pages) at `{args.collection}`. Machine: {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"load average {loads[0]} before and {loads[1]} after (the machine is shared: quote medians and ratios).",
        "",
        f"Rerun: `{rerun}`",
        "",
        "| command | tree | wall min (s) | wall median (s) | CPU median (s) | target (s) |" + (" median vs baseline |" if args.baseline else ""),
        "| --- | --- | ---: | ---: | ---: | ---: |" + (" ---: |" if args.baseline else ""),
    ]
    for command in COMMANDS:
        for tree in trees:
            t = by[command, tree]
            target = f"{TARGETS[command]:.2f}" if command in TARGETS and tree == "this" else ""
            row = f"| `bunko {' '.join(COMMANDS[command])}` | {tree} | {t.wall_min:.3f} | {t.wall_median:.3f} | {t.cpu_median:.3f} | {target} |"
            if args.baseline:
                ratio = t.wall_median / by[command, "baseline"].wall_median if tree == "this" else 1.0
                row += f" {ratio:.2f}× |" if tree == "this" else " |"
            lines.append(row)
    notes = RESULTS / "cli.notes.md"
    if notes.exists():
        lines += ["", notes.read_text(encoding="utf-8").rstrip()]
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "cli.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    payload = {
        "runs": args.runs, "baseline": args.baseline, "collection": str(args.collection), "pages": args.pages,
        "load_before": loads[0], "load_after": loads[1], "cores": os.cpu_count(), "python": platform.python_version(),
        "commands": COMMANDS, "targets": TARGETS, "rerun": rerun,
        "timings": [asdict(t) | {"wall_min": t.wall_min, "wall_median": t.wall_median, "cpu_median": t.cpu_median} for t in timings],
    }
    (RESULTS / "cli.json").write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--baseline", default=None, help="a git ref to time against (e.g. main)")
    parser.add_argument("--collection", type=Path, default=COLLECTION)
    args = parser.parse_args()
    build_collection(args.collection)
    args.pages = sum(1 for corpus in CORPORA for _ in (Path.home() / ".cache" / "bunko-bench" / "pages" / corpus).glob("*/*.html"))
    with tempfile.TemporaryDirectory(prefix="bunko-baseline-") as tmp:
        trees = {"this": ROOT / "src"}
        if args.baseline:
            trees["baseline"] = baseline_tree(args.baseline, Path(tmp))
        before = loadavg()
        timings = measure(trees, args.collection, args.runs)
        loads = (before, loadavg())
    write(timings, trees, args, loads)
    for t in timings:
        print(f"{t.command:8} {t.tree:9} wall min {t.wall_min:.3f} median {t.wall_median:.3f} cpu {t.cpu_median:.3f}")


if __name__ == "__main__":
    main()
