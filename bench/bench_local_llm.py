"""The local model as a user meets it: `bunko ask --generator llamacpp` in a cold process, first answer to last line.

A fresh collection of the bundled English samples (SmolLM2 is an English model), then each question asked in its own
`bunko ask --json` process: wall and CPU seconds of the whole process (model start included), the threads llama.cpp
was given, the load when it started, the tokens the model wrote and why it stopped, and whether any sentence that no
source backs was shown without the unverified mark.

    python bench/bench_local_llm.py            # writes bench/results/local-llm.{json,md}
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "src" / "bunko" / "samples" / "docs"
DOCS = ("api-quickstart-en.md", "data-retention-policy-en.md", "release-process-en.md")
QUESTIONS = (
    # the bench's own wording, not an evaluation set's
    "How long are security audit logs kept?",
    "What header carries the access token on each request?",
    "Who signs off a release before it ships?",
    "What does the policy say about records under a legal hold?",
)
UNVERIFIED = "[unverified]"


@dataclass
class Run:
    question: str
    wall_seconds: float
    cpu_seconds: float
    load_at_start: float
    threads: str
    abstained: bool
    confidence: float
    completion_tokens: int | None
    stopped: str | None
    sentences: int
    shown_unmarked_uncited: int
    answer: str


def bunko() -> list[str]:
    """The `bunko` command of this interpreter's environment, as a user runs it."""
    return [str(Path(sys.executable).with_name("bunko"))]


def ask(collection: Path, question: str) -> Run:
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    done = subprocess.run([*bunko(), "ask", question, "-c", str(collection), "--generator", "llamacpp", "--json"],
                          capture_output=True, text=True, check=True)
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    answer = json.loads(done.stdout)
    trace = subprocess.run([*bunko(), "trace", answer["trace_id"], "-c", str(collection), "--json"],
                           capture_output=True, text=True, check=True)
    record = json.loads(trace.stdout)
    verdicts = record.get("sentences") or []
    unbacked = sum(1 for s in answer.get("sentences", []) if s.get("verdict") != "supported")
    unmarked = max(0, unbacked - answer["text"].count(UNVERIFIED))
    usage = record.get("usage") or {}
    notice = next((line for line in done.stderr.splitlines() if line.startswith("llama.cpp uses")), "")
    return Run(
        question, round(wall, 2), round((after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime), 2),
        round(load, 2), notice.split(" (")[0].removeprefix("llama.cpp uses "), bool(answer["abstained"]),
        float(answer["confidence"]), usage.get("completion_tokens"), record.get("stopped"),
        len([v for v in verdicts if v.get("verdict") != "repeated"]), unmarked, answer["text"][:240],
    )


def main() -> int:
    folder = Path(tempfile.mkdtemp(prefix="bench-local-llm-"))
    try:
        for name in DOCS:
            shutil.copy(SAMPLES / name, folder / name)
        collection = folder / ".bunko"
        subprocess.run([*bunko(), "ingest", str(folder), "-c", str(collection)], capture_output=True, check=True)
        runs = [ask(collection, q) for q in QUESTIONS]
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    results = ROOT / "bench" / "results"
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    (results / "local-llm.json").write_text(json.dumps({"date": stamp, "nproc": os.cpu_count(),
                                                        "runs": [asdict(r) for r in runs]}, indent=1) + "\n")
    lines = [
        "# The local model (SmolLM2-135M through llama.cpp), first answer in a cold process",
        "",
        f"`python bench/bench_local_llm.py`, {stamp}, {os.cpu_count()} cores. Each row is one `bunko ask --generator "
        "llamacpp --json` process on a fresh collection of three English samples: wall and CPU seconds of the whole "
        "process, model start included.",
        "",
        "| question | wall s | CPU s | load at start | threads | tokens written | stopped | abstained | confidence | "
        "unbacked sentences shown unmarked |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in runs:
        lines.append(f"| {r.question} | {r.wall_seconds} | {r.cpu_seconds} | {r.load_at_start} | {r.threads} | "
                     f"{r.completion_tokens} | {r.stopped or '–'} | {r.abstained} | {r.confidence:.2f} | "
                     f"{r.shown_unmarked_uncited} |")
    (results / "local-llm.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
