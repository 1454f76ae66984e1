"""Hostile files among good ones: each must fail alone, with its code, in bounded time and memory.

    python bench/bench_hostile.py [--good 300] [--rounds 3] [--overhead-good 100] [--cli-rounds 2]

Builds the hostile files of issue 22 at their sizes (tests/ingest/hostile.py: a 9-level YAML alias bomb, 200k
nested <div>s, DOCX zip bombs of 1 GB and 250 MB, a 5M-row XLSX, a 6M-cell XLSX, a 1M-row CSV, a 6,000-page
PDF, a 12,000 pt scanned page, a 50 MiB single line, deeply nested JSON, truncated .docx/.xlsx/.pptx, a FIFO,
a loop of links and a dangling link) in one folder
with `--good` good ja/zh/en files (Markdown, text, HTML, CSV, DOCX, XLSX, PPTX) and the bundled samples, and
ingests the folder once with the default `[ingest]` limits. Per file: status, code, seconds, the peak resident
memory of the parser process for that file (the child's VmHWM; for a child that was killed, the largest RSS
the parent saw), and the detail. The ingesting process's own peak RSS is reported beside them.

Then the guard's cost on normal ingest: the bundled samples (`bunko demo`'s 12 files) and `--overhead-good` good files,
each ingested into a fresh collection with `ingest.isolate` true and false, alternating, `--rounds` times:
wall time of the run and the sum of the jobs' parse stage; and `bunko ingest` of the samples in a new process. Writes bench/results/hostile.md and hostile.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "ingest"))

import hostile  # noqa: E402

from bunko import Bunko, Config  # noqa: E402
from bunko.embed.use_m3 import UseM3Embedder  # noqa: E402

SAMPLES = ROOT / "src" / "bunko" / "samples" / "docs"
RESULTS = ROOT / "bench" / "results"

SENTENCES = {
    "ja": ["出張の宿泊費は一泊{n}円までです。", "申請は{n}日以内に行ってください。", "第{n}条の規定により承認が必要です。"],
    "zh": ["差旅住宿费每晚不超过{n}元。", "请在{n}天内提交申请。", "根据第{n}条规定需要审批。"],
    "en": ["The hotel limit is {n} dollars per night.", "Submit the claim within {n} days.", "Clause {n} requires an approval."],
}


def hostile_files(folder: Path) -> dict[str, str]:
    """The hostile files, named by what they are; returns name → description."""
    made: dict[str, str] = {}

    def add(name: str, description: str, build: Any) -> None:
        started = time.perf_counter()
        build(folder / name)
        made[name] = f"{description} ({(folder / name).stat().st_size / 1024:,.0f} KB, built in {time.perf_counter() - started:.1f} s)"

    add("yaml-bomb.md", "front matter: 9 levels of 9 aliases (387M values)", hostile.billion_laughs)
    add("nested-200k.html", "200,000 nested <div>", lambda p: hostile.deep_html(p, 200_000))
    add("zip-bomb.docx", "DOCX whose body unpacks to 1 GB", lambda p: hostile.docx_bomb(p, 1024, level=1))
    add("zip-bomb-250mb.docx", "DOCX whose body unpacks to 250 MB (under max_unpacked_mb: its elements are counted as it is streamed)",
        lambda p: hostile.docx_bomb(p, 250))
    add("rows-5m.xlsx", "XLSX, 5,000,000 rows", lambda p: hostile.xlsx_rows(p, 5_000_000, compact=True))
    add("cells-6m.xlsx", "XLSX, 99,000 rows × 60 columns", lambda p: hostile.xlsx_rows(p, 99_000, columns=60))
    add("pages-6000.pdf", "PDF of 6,000 pages", lambda p: hostile.many_pages_pdf(p, 6_000))
    add("rows-1m.csv", "CSV, 1,000,000 rows", lambda p: hostile.csv_rows(p, 1_000_000))
    add("page-12000pt.pdf", "one scanned page of 12,000 × 12,000 pt", hostile.huge_page_pdf)
    add("one-line-50mib.txt", "50 MiB on one line (= max_file_mb)", lambda p: hostile.single_line_text(p, 50))
    add("nested.json", "JSON nested 100,000 deep", lambda p: hostile.nested_json(p, 100_000))
    good_docx, good_xlsx, good_pptx = folder / "good-office.docx", folder / "good-office.xlsx", folder / "good-office.pptx"
    for kind, whole in (("docx", good_docx), ("xlsx", good_xlsx), ("pptx", good_pptx)):
        add(f"truncated.{kind}", f"a good .{kind} cut in half", lambda p, w=whole: hostile.truncated(w, p))
    os.mkfifo(folder / "fifo.md")
    made["fifo.md"] = "a named pipe"
    os.symlink(folder / "loop-b.md", folder / "loop-a.md")
    os.symlink(folder / "loop-a.md", folder / "loop-b.md")
    made["loop-a.md"] = made["loop-b.md"] = "a loop of symbolic links"
    os.symlink(folder / "missing.md", folder / "dangling.md")
    made["dangling.md"] = "a symbolic link to nothing"
    return made


def good_files(folder: Path, count: int) -> int:
    """`count` small good files in ja/zh/en across the formats, plus one of each Office kind (also cut for the hostile set)."""
    from docx import Document
    from pptx import Presentation

    folder.mkdir(parents=True, exist_ok=True)
    langs = list(SENTENCES)
    for i in range(count):
        lang = langs[i % 3]
        lines = [s.format(n=i * 7 + k) for k, s in enumerate(SENTENCES[lang])]
        kind = (i // 3) % 4
        if kind == 0:
            (folder / f"good-{i:03d}-{lang}.md").write_text(f"# {lang} {i}\n\n" + "\n\n".join(lines) + "\n", encoding="utf-8")
        elif kind == 1:
            (folder / f"good-{i:03d}-{lang}.txt").write_text("\n\n".join(lines) + "\n", encoding="utf-8")
        elif kind == 2:
            body = "".join(f"<p>{line}</p>" for line in lines)
            (folder / f"good-{i:03d}-{lang}.html").write_text(f"<html><body><main><h1>{i}</h1>{body}</main></body></html>", encoding="utf-8")
        else:
            rows = "\n".join(f"{k},{line}" for k, line in enumerate(lines))
            (folder / f"good-{i:03d}-{lang}.csv").write_text("id,text\n" + rows + "\n", encoding="utf-8")
    document = Document()
    document.add_heading("出張規程 差旅制度 Travel", level=1)
    for lang in langs:
        document.add_paragraph(" ".join(s.format(n=1) for s in SENTENCES[lang]))
    document.save(str(folder / "good-office.docx"))
    hostile.xlsx_rows(folder / "good-office.xlsx", 500)
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "出張規程 差旅制度 Travel"
    slide.placeholders[1].text = SENTENCES["en"][0].format(n=100)
    deck.save(str(folder / "good-office.pptx"))
    return count + 3


def run(folder: Path, collection: Path, embedder: UseM3Embedder, isolate: bool = True) -> tuple[Any, float, Any]:
    config = Config()
    config.ingest.isolate = isolate
    kb = Bunko(collection, config=config, embedder=embedder)
    started = time.perf_counter()
    report = kb.ingest(folder)
    elapsed = time.perf_counter() - started
    worker = kb._parser
    kb.close()
    return report, elapsed, worker


def overhead(embedder: UseM3Embedder, folders: dict[str, Path], rounds: int, work: Path) -> list[dict[str, Any]]:
    rows = []
    for label, folder in folders.items():
        times: dict[bool, list[float]] = {True: [], False: []}
        parse: dict[bool, list[float]] = {True: [], False: []}
        files = 0
        for round_ in range(rounds):
            for isolate in ((True, False) if round_ % 2 == 0 else (False, True)):
                collection = work / f"overhead-{label}-{isolate}-{round_}"
                report, elapsed, _ = run(folder, collection, embedder, isolate)
                assert report.ok, [(j.source, j.error_detail) for j in report.failed]
                times[isolate].append(elapsed)
                parse[isolate].append(sum(j.timings.get("parse", 0.0) for j in report.jobs))
                files = len(report.jobs)
                shutil.rmtree(collection)
        rows.append({
            "set": label, "files": files, "rounds": rounds,
            "isolated_s_median": round(statistics.median(times[True]), 2), "in_process_s_median": round(statistics.median(times[False]), 2),
            "isolated_s_best": round(min(times[True]), 2), "in_process_s_best": round(min(times[False]), 2),
            "isolated_parse_s_median": round(statistics.median(parse[True]), 3), "in_process_parse_s_median": round(statistics.median(parse[False]), 3),
        })
    return rows


def cli_overhead(rounds: int, work: Path, samples: Path) -> dict[str, Any]:
    """`bunko ingest` of the samples in a fresh process: the embedder loads while the parser process starts."""
    import subprocess

    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    times: dict[bool, list[float]] = {True: [], False: []}
    for round_ in range(rounds):
        for isolate in ((True, False) if round_ % 2 == 0 else (False, True)):
            collection = work / f"cli-{isolate}-{round_}"
            collection.mkdir()
            config = Config()
            config.ingest.isolate = isolate
            config.save(collection / "bunko.toml")
            started = time.perf_counter()
            subprocess.run([sys.executable, "-m", "bunko", "ingest", str(samples), "--collection", str(collection)],
                           env=env, check=True, capture_output=True)
            times[isolate].append(time.perf_counter() - started)
            shutil.rmtree(collection)
    return {
        "set": "samples, `bunko ingest` in a new process", "files": len(list(samples.iterdir())), "rounds": rounds,
        "isolated_s_median": round(statistics.median(times[True]), 2), "in_process_s_median": round(statistics.median(times[False]), 2),
        "isolated_s_best": round(min(times[True]), 2), "in_process_s_best": round(min(times[False]), 2),
        "isolated_parse_s_median": None, "in_process_parse_s_median": None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--good", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--overhead-good", type=int, default=100, help="good files in the second overhead set")
    parser.add_argument("--cli-rounds", type=int, default=2, help="rounds of `bunko ingest` in a new process")
    parser.add_argument("--out", type=Path, default=RESULTS / "hostile.md")
    args = parser.parse_args()
    load_start = os.getloadavg()
    started = time.perf_counter()
    embedder = UseM3Embedder(threads=1)
    with tempfile.TemporaryDirectory(prefix="bunko-hostile-") as tmp:
        work = Path(tmp)
        folder = work / "docs"
        good_count = good_files(folder, args.good)
        shutil.copytree(SAMPLES, folder / "samples")
        good_only = work / "good"
        good_only.mkdir()
        for path in sorted(folder.glob("good-*"))[: args.overhead_good]:
            shutil.copy2(path, good_only / path.name)
        described = hostile_files(folder)
        build_s = time.perf_counter() - started

        report, elapsed, worker = run(folder, work / ".bunko", embedder)
        parent_peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        jobs = []
        for job in report.jobs:
            name = Path(job.source).name
            jobs.append({
                "file": job.source, "hostile": name in described, "what": described.get(name, ""), "status": str(job.status),
                "code": job.error_code, "seconds": job.timings.get("total"), "parse_s": job.timings.get("parse"),
                "peak_rss_mb": job.timings.get("parse_peak_rss_mb"), "detail": job.error_detail,
            })
        good = [j for j in jobs if not j["hostile"]]
        bad = [j for j in jobs if j["hostile"]]
        summary = {
            "files": len(jobs), "good": len(good), "good_ready": sum(j["status"] == "READY" for j in good),
            "hostile": len(bad), "hostile_failed": sum(j["status"] == "FAILED" for j in bad),
            "run_s": round(elapsed, 1), "worker_starts": worker.starts if worker else None,
            "max_hostile_s": max((j["seconds"] or 0) for j in bad), "max_peak_rss_mb": max((j["peak_rss_mb"] or 0) for j in jobs),
            "ingest_process_peak_rss_mb": round(parent_peak_mb, 1), "build_s": round(build_s, 1),
        }
        assert good_count + len(list(SAMPLES.glob("*"))) == len(good), (good_count, len(good))
        demo = shutil.copytree(SAMPLES, work / "demo")  # beside the collections, not a second folder named "docs"
        sets = {"samples (bunko demo)": demo, f"{len(list(good_only.iterdir()))} of the good files": good_only}
        costs = overhead(embedder, sets, args.rounds, work)
        costs.append(cli_overhead(args.cli_rounds, work, demo))
    summary["total_s"] = round(time.perf_counter() - started, 1)
    meta = {
        "command": "python bench/bench_hostile.py " + " ".join(sys.argv[1:]), "python": platform.python_version(),
        "platform": platform.platform(), "cpus": os.cpu_count(), "load_start": [round(x, 2) for x in load_start],
        "load_end": [round(x, 2) for x in os.getloadavg()], "date": time.strftime("%Y-%m-%d"),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps({"meta": meta, "summary": summary, "jobs": jobs, "overhead": costs},
                                                        ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    args.out.write_text(render(meta, summary, jobs, costs), encoding="utf-8")
    print(args.out.read_text(encoding="utf-8"))


def render(meta: dict[str, Any], summary: dict[str, Any], jobs: list[dict[str, Any]], costs: list[dict[str, Any]]) -> str:
    out = [
        "# Hostile files",
        "",
        f"`{meta['command'].strip()}` on {meta['platform']} ({meta['cpus']} CPUs), Python {meta['python']}, {meta['date']}; "
        f"load average {meta['load_start']} at start, {meta['load_end']} at end (the machine is shared).",
        "",
        f"One ingest run of {summary['files']} files with the default `[ingest]` limits: {summary['good_ready']} of "
        f"{summary['good']} good files READY, {summary['hostile_failed']} of {summary['hostile']} hostile files FAILED, each "
        f"with its code; {summary['run_s']} s for the run, the slowest hostile file {summary['max_hostile_s']:.1f} s, the "
        f"largest parser peak {summary['max_peak_rss_mb']} MB (limit: 1,024 MB of resident memory for the parser process); "
        f"the ingesting process (with the embedder) peaked at {summary['ingest_process_peak_rss_mb']} MB. "
        f"The parser process was started {summary['worker_starts']} times (once, then after each file that was killed "
        "or ran out of memory).",
        "",
        "## Hostile files",
        "",
        "| file | what | status | code | s | parse s | peak RSS MB | detail |",
        "|---|---|---|---|---:|---:|---:|---|",
    ]
    for job in sorted((j for j in jobs if j["hostile"]), key=lambda j: j["file"]):
        detail = (job["detail"] or "").replace("|", "\\|")
        out.append(f"| {job['file']} | {job['what']} | {job['status']} | {job['code'] or ''} | {job['seconds']} | "
                   f"{job['parse_s'] if job['parse_s'] is not None else ''} | {job['peak_rss_mb'] if job['peak_rss_mb'] is not None else ''} | {detail} |")
    good = [j for j in jobs if not j["hostile"]]
    parse = sorted(j["parse_s"] or 0 for j in good)
    peaks = sorted(j["peak_rss_mb"] or 0 for j in good)
    out += [
        "",
        "## Good files in the same run",
        "",
        f"{len(good)} files ({sum(j['status'] == 'READY' for j in good)} READY): parse median {statistics.median(parse):.3f} s, "
        f"max {parse[-1]:.3f} s; parser peak RSS median {statistics.median(peaks):.1f} MB, max {peaks[-1]:.1f} MB.",
        "",
        "## Cost of the guard on normal ingest",
        "",
        "Each set ingested into a fresh collection with `ingest.isolate = true` (parsing in the reused child process, "
        "the next file parsed while the current one is embedded) and `false` (in the ingesting process), alternating; "
        "wall time of the whole run (parse, chunk, embed, index) and the sum of the jobs' parse stage (where the parse "
        "ran). In the first two rows the embedder is loaded beforehand, so the child's start-up (importing the parsers: "
        "about 0.4 s of CPU, more on a loaded machine) is waited for by the first file; in the last row `bunko ingest` "
        "runs in a new process, which loads the embedder while the child starts.",
        "",
        "| set | files | rounds | isolated s (median / best) | in-process s (median / best) | parse stage s, isolated | parse stage s, in-process |",
        "|---|---:|---:|---|---|---:|---:|",
    ]
    for row in costs:
        parse = [row["isolated_parse_s_median"], row["in_process_parse_s_median"]]
        out.append(f"| {row['set']} | {row['files']} | {row['rounds']} | {row['isolated_s_median']} / {row['isolated_s_best']} | "
                   f"{row['in_process_s_median']} / {row['in_process_s_best']} | {parse[0] if parse[0] is not None else ''} | "
                   f"{parse[1] if parse[1] is not None else ''} |")
    out += ["", f"Building the files took {summary['build_s']} s; the whole benchmark {summary['total_s']} s.", ""]
    return "\n".join(out)


if __name__ == "__main__":
    main()
