"""Word documents past `ingest.max_elements`: how long the parse worker is held, and at what memory, before they fail.

    python bench/bench_docx_limits.py [--before SRC] [--out bench/results/docx-limits.md]

Builds, with tests/ingest/hostile.py, the Word documents of issue 48 (item 5) and one that is large but within the
limits:

* about 250,000 numbered paragraphs of 1 KB of ja/zh/en text, 250 MB unpacked in a 2 MB file: under
  `max_unpacked_mb` (256 MB) and, as python-docx builds it, under `max_memory_mb` (1,024 MB), past `max_elements`;
* the bench_hostile.py zip bomb: one 171-byte paragraph repeated to 250 MB (1.5 million paragraphs, 1 MB file);
* 30 MB of the same 1 KB paragraphs (about 30,000, 15 million characters): within every limit, what streaming the body
  first costs a document that passes.

Each file is parsed once by the ingest parse worker (`ingest/isolation.py`: a child process, default `[ingest]`
limits: 300 s, 1,024 MB), in a fresh Python process per file, with this checkout's `src`, and with `--before SRC` (a
source tree of another version, e.g. `git archive HEAD src | tar -x -C /tmp/before`) when given. Per file: outcome, the
parse's seconds and the worker's peak resident memory. Writes the table to `--out` (and .json beside it).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"

FILES = {
    "paragraphs-250mb.docx": "250 MB unpacked: about 250,000 paragraphs of 1 KB (issue 48)",
    "zip-bomb-250mb.docx": "250 MB unpacked: one 171-byte paragraph 1.5 million times",
    "large-30mb.docx": "30 MB unpacked: about 30,000 paragraphs of 1 KB, within every limit",
}


def build(folder: Path) -> dict[str, float]:
    sys.path.insert(0, str(ROOT / "tests" / "ingest"))
    import hostile

    seconds = {}
    for name, make in (
        ("paragraphs-250mb.docx", lambda p: hostile.docx_paragraphs(p, 250)),
        ("zip-bomb-250mb.docx", lambda p: hostile.docx_bomb(p, 250)),
        ("large-30mb.docx", lambda p: hostile.docx_paragraphs(p, 30)),
    ):
        started = time.perf_counter()
        make(folder / name)
        seconds[name] = time.perf_counter() - started
    return seconds


def measure(path: Path) -> dict[str, Any]:
    """Run in the child: one file through a fresh parse worker with the default limits."""
    from bunko.errors import DocumentError
    from bunko.ingest.isolation import ParseWorker
    from bunko.parse.limits import ParseLimits
    from bunko.parse.registry import default_registry

    worker = ParseWorker(default_registry(), ParseLimits())
    worker.start()
    try:
        doc = worker.parse(path, path.name)
        outcome: dict[str, Any] = {"status": "READY", "code": None, "detail": f"{len(doc.elements):,} elements"}
    except DocumentError as exc:
        outcome = {"status": "FAILED", "code": exc.code.value, "detail": exc.detail}
    finally:
        worker.close()
    import bunko

    return {**outcome, "parse_s": round(worker.last.seconds, 2), "peak_rss_mb": worker.last.peak_rss_mb,
            "bunko": str(Path(bunko.__file__).parent)}


def run(src: Path, path: Path) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(src), os.environ.get("PYTHONPATH", "")])}
    started = time.perf_counter()
    done = subprocess.run([sys.executable, __file__, "--measure", str(path)], env=env, capture_output=True, text=True, check=True)
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    result["wall_s"] = round(time.perf_counter() - started, 2)
    return result


def render(meta: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    out = [
        "# Word documents past the element limit",
        "",
        f"`{meta['command']}` on {meta['platform']} ({meta['cpus']} CPUs), Python {meta['python']}, {meta['date']}; load "
        f"average {meta['load_start']} at start, {meta['load_end']} at end (the machine is shared).",
        "",
        "Each file parsed once by the ingest parse worker (a child process; default `[ingest]` limits: "
        "`max_parse_seconds` 300, `max_memory_mb` 1,024, `max_elements` 200,000, `max_chars` 20,000,000). *before*: "
        "the element and character limits checked after the parser (`check_document`); *after*: counted while the "
        "body is streamed, before python-docx builds its tree (`parse/docx.py` `count_body`), and as each element "
        "is added (`ElementBuilder`). s: the parse in the worker; peak MB: the worker's peak resident memory.",
        "",
        "| file | what | version | outcome | parse s | peak MB | detail |",
        "|---|---|---|---|---:|---:|---|",
    ]
    for row in rows:
        detail = (row["detail"] or "").replace("|", "\\|")
        outcome = row["status"] + (f" {row['code']}" if row["code"] else "")
        out.append(f"| {row['file']} | {row['what']} | {row['version']} | {outcome} | {row['parse_s']} | "
                   f"{row['peak_rss_mb'] if row['peak_rss_mb'] is not None else ''} | {detail} |")
    out += ["", f"Files: {', '.join(f'{k} {v / 1024 / 1024:.1f} MB' for k, v in meta['sizes'].items())}.", ""]
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", type=Path, help="a source tree (its `src`) of the version to compare with")
    parser.add_argument("--out", type=Path, default=RESULTS / "docx-limits.md")
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure), ensure_ascii=False))
        return
    load_start = os.getloadavg()
    versions = [("after", ROOT / "src")]
    if args.before:
        versions.insert(0, ("before", (args.before / "src") if (args.before / "src").is_dir() else args.before))
    rows = []
    with tempfile.TemporaryDirectory(prefix="bunko-docx-limits-") as tmp:
        folder = Path(tmp)
        build(folder)
        sizes = {name: (folder / name).stat().st_size for name in FILES}
        for name, what in FILES.items():
            for version, src in versions:
                result = run(src, folder / name)
                assert Path(result.pop("bunko")).resolve() == (src / "bunko").resolve(), "bunko imported from elsewhere"
                rows.append({"file": name, "what": what, "version": version, **result})
                print(rows[-1], flush=True)
    meta = {
        "command": "python bench/bench_docx_limits.py" + (" --before SRC" if args.before else ""),
        "python": platform.python_version(), "platform": platform.platform(), "cpus": os.cpu_count(),
        "load_start": [round(x, 2) for x in load_start], "load_end": [round(x, 2) for x in os.getloadavg()],
        "date": time.strftime("%Y-%m-%d"), "sizes": sizes,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps({"meta": meta, "rows": rows}, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    args.out.write_text(render(meta, rows), encoding="utf-8")
    print(args.out.read_text(encoding="utf-8"))


if __name__ == "__main__":
    main()
