"""Parsing speed, memory and table accuracy: bunko's parsers beside MarkItDown and plain pdfplumber.

    python bench/bench_parse.py [--pages 500] [--office 30] [--tables 40]

Workloads, all generated with a fixed seed in a temporary folder:
- a ``--pages``-page PDF (en/ja/zh paragraphs, a numbered heading per page, a
  ruled table every fifth page);
- a folder of ``--office`` Word, PowerPoint and Excel files (a third each);
- ``--tables`` ruled tables of 2-6 columns and 2-8 rows with known cells
  (words in three languages, numbers), once as a PDF, once as a PDF drawn as LaTeX draws
  ``tabular{l|l|l}`` (rules under the rows and between the columns, no outer sides) and once as a .docx.

Tools: bunko (its registry's parser for the file), pdfplumber text extraction
(``page.extract_text()``, tables by ``page.extract_tables()``; PDFs only) and
MarkItDown (``convert().text_content``, tables read back from its Markdown).
Each tool runs each workload in a fresh subprocess, so peak memory (ru_maxrss)
is that tool's alone. Table-cell accuracy: the i-th table a tool returns is
matched to the generated table it reproduces best (each returned table used
once) and compared cell by cell at the same row and column, whitespace
ignored; a missed table costs all its cells, a table split in two keeps only
the cells of its better half. The same tables are also drawn with every third
one broken by a page break (header repeated on the next page). Writes bench/results/parse.json and .md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
WORDS = {
    "en": ["policy", "travel", "budget", "hotel", "claim", "receipt", "manager", "approval", "limit", "review", "quarter", "office"],
    "ja": ["出張", "規程", "予算", "宿泊", "精算", "領収書", "承認", "上限", "会議", "経理", "部門", "申請"],
    "zh": ["差旅", "制度", "预算", "住宿", "报销", "发票", "审批", "上限", "会议", "财务", "部门", "申请"],
}
FONTS = {"en": ("Helvetica", "Helvetica-Bold"), "ja": ("HeiseiMin-W3", "HeiseiKakuGo-W5"), "zh": ("STSong-Light", "STSong-Light")}


# --- workloads ------------------------------------------------------------------------------------


def _register_fonts() -> None:
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont

    for name in ("HeiseiMin-W3", "HeiseiKakuGo-W5", "STSong-Light"):
        pdfmetrics.registerFont(UnicodeCIDFont(name))


def _sentence(rng: random.Random, lang: str, n: int) -> str:
    words = [rng.choice(WORDS[lang]) for _ in range(n)]
    return (" ".join(words) + ".") if lang == "en" else ("".join(words) + "。")


def _cell(rng: random.Random, lang: str) -> str:
    return str(rng.randint(1, 99999)) if rng.random() < 0.4 else rng.choice(WORDS[lang]) + rng.choice(WORDS[lang])


def truth_tables(count: int, seed: int = 11) -> list[tuple[str, list[list[str]]]]:
    rng = random.Random(seed)
    tables = []
    for i in range(count):
        lang = ("en", "ja", "zh")[i % 3]
        cols, rows = rng.randint(2, 6), rng.randint(2, 8)
        tables.append((lang, [[_cell(rng, lang) for _ in range(cols)] for _ in range(rows + 1)]))
    return tables


def _draw_table(
    canvas: Any, lang: str, rows: list[list[str]], x: float, top: float, width: float = 450, row_h: float = 18, open_sides: bool = False,
) -> float:
    """Every cell boxed, as office programs export tables; with `open_sides`, as LaTeX's tabular{l|l|l} with \\hline
    (and dblatex) draws them: a rule under every row, drawn cell by cell, rules between the columns, no outer sides."""
    col = width / len(rows[0])
    for r, row in enumerate(rows):
        y = top - (r + 1) * row_h
        for c, value in enumerate(row):
            if open_sides:
                canvas.line(x + c * col, y, x + (c + 1) * col, y)
                canvas.line(x + c * col, y + row_h, x + (c + 1) * col, y + row_h)
                if c:
                    canvas.line(x + c * col, y, x + c * col, y + row_h)
            else:
                canvas.rect(x + c * col, y, col, row_h)
            canvas.setFont(FONTS[lang][1 if r == 0 else 0], 9)
            canvas.drawString(x + c * col + 3, y + 5, value)
    return top - len(rows) * row_h


def make_long_pdf(path: Path, pages: int, seed: int = 3) -> Path:
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen.canvas import Canvas

    _register_fonts()
    rng = random.Random(seed)
    canvas = Canvas(str(path), pagesize=A4)
    for number in range(1, pages + 1):
        lang = ("en", "ja", "zh")[number % 3]
        regular, bold = FONTS[lang]
        y = A4[1] - 72
        canvas.setFont(bold, 14)
        canvas.drawString(72, y, f"{number}. {rng.choice(WORDS[lang])}")
        y -= 28
        canvas.setFont(regular, 10)
        for _ in range(14):
            canvas.drawString(72, y, _sentence(rng, lang, 8 if lang == "en" else 12))
            y -= 14
        if number % 5 == 0:
            _draw_table(canvas, lang, [[_cell(rng, lang) for _ in range(4)] for _ in range(5)], 72, y - 10)
        canvas.showPage()
    canvas.save()
    return path


def make_tables_pdf(path: Path, tables: list[tuple[str, list[list[str]]]], split_every: int = 0, open_sides: bool = False) -> Path:
    """Tables one under another; with `split_every`, every n-th table is broken by a page break, header repeated;
    with `open_sides`, drawn without their outer sides (`_draw_table`)."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen.canvas import Canvas

    _register_fonts()
    canvas = Canvas(str(path), pagesize=A4)
    y = A4[1] - 72
    for i, (lang, rows) in enumerate(tables, start=1):
        height = len(rows) * 18 + 30
        split = bool(split_every) and i % split_every == 0 and len(rows) >= 3
        if split:
            canvas.showPage()
            y = 72 + 30 + 18 * (len(rows) // 2 + 1)
        elif y - height < 72:
            canvas.showPage()
            y = A4[1] - 72
        canvas.setFont(FONTS[lang][0], 10)
        canvas.drawString(72, y, _sentence(random.Random(len(rows)), lang, 5))
        if split:
            cut = len(rows) // 2 + 1
            _draw_table(canvas, lang, rows[:cut], 72, y - 8, open_sides=open_sides)
            canvas.showPage()
            y = _draw_table(canvas, lang, [rows[0], *rows[cut:]], 72, A4[1] - 72, open_sides=open_sides) - 22
        else:
            y = _draw_table(canvas, lang, rows, 72, y - 8, open_sides=open_sides) - 22
    canvas.save()
    return path


def make_tables_docx(path: Path, tables: list[tuple[str, list[list[str]]]]) -> Path:
    from docx import Document

    doc = Document()
    for lang, rows in tables:
        doc.add_paragraph(_sentence(random.Random(len(rows)), lang, 5))
        table = doc.add_table(rows=len(rows), cols=len(rows[0]))
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                table.cell(r, c).text = value
    doc.save(str(path))
    return path


def make_office_folder(folder: Path, count: int, seed: int = 5) -> Path:
    """A third each of .docx (4 sections), .pptx (6 slides) and .xlsx (2 sheets of 60 rows)."""
    import xlsxwriter
    from docx import Document
    from pptx import Presentation

    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        lang = ("en", "ja", "zh")[i % 3]
        kind = ("docx", "pptx", "xlsx")[(i // 3) % 3]
        path = folder / f"file-{i:03d}-{lang}.{kind}"
        if kind == "docx":
            doc = Document()
            doc.add_heading(_sentence(rng, lang, 3), 0)
            for _ in range(4):
                doc.add_heading(_sentence(rng, lang, 2), 1)
                for _ in range(5):
                    doc.add_paragraph(_sentence(rng, lang, 25))
                table = doc.add_table(rows=4, cols=3)
                for r in range(4):
                    for c in range(3):
                        table.cell(r, c).text = _cell(rng, lang)
            doc.save(str(path))
        elif kind == "pptx":
            prs = Presentation()
            for _ in range(6):
                slide = prs.slides.add_slide(prs.slide_layouts[1])
                slide.shapes.title.text = _sentence(rng, lang, 3)
                slide.placeholders[1].text_frame.text = "\n".join(_sentence(rng, lang, 8) for _ in range(4))
                slide.notes_slide.notes_text_frame.text = _sentence(rng, lang, 10)
            prs.save(str(path))
        else:
            wb = xlsxwriter.Workbook(str(path))
            for s in range(2):
                ws = wb.add_worksheet(f"S{s}")
                ws.write_row(0, 0, ["item", "q1", "q2", "total"])
                for r in range(1, 61):
                    q1, q2 = rng.randint(1, 999), rng.randint(1, 999)
                    ws.write_row(r, 0, [_cell(rng, lang), q1, q2])
                    ws.write_formula(r, 3, f"=B{r + 1}+C{r + 1}", None, q1 + q2)
            wb.close()
    return folder


# --- one tool on one workload, in its own process --------------------------------------------------


def _files(target: Path) -> list[Path]:
    return sorted(p for p in target.iterdir() if p.is_file()) if target.is_dir() else [target]


def run_bunko(target: Path) -> dict[str, Any]:
    from bunko.parse.registry import default_registry

    registry = default_registry()
    pages = elements = 0
    tables: list[list[list[str]]] = []
    for path in _files(target):
        parser, mime = registry.parser_for(path, path.name)
        doc = parser.parse(path, path.name, mime)
        elements += len(doc.elements)
        pages += int(doc.meta.get("pages") or doc.meta.get("slides") or len(doc.meta.get("sheets", [])) or 1)
        tables += [[e.meta["cells"]["header"], *e.meta["cells"]["rows"]] for e in doc.elements if e.kind == "table"]
    return {"pages": pages, "elements": elements, "tables": tables}


def run_pdfplumber(target: Path) -> dict[str, Any]:
    import pdfplumber

    pages = chars = 0
    tables: list[list[list[str]]] = []
    for path in _files(target):
        with pdfplumber.open(path) as pdf:
            for page in pdf.pages:
                chars += len(page.extract_text() or "")
                tables += [[[c or "" for c in row] for row in t] for t in page.extract_tables()]
                page.close()
                pages += 1
    return {"pages": pages, "chars": chars, "tables": tables}


def markdown_tables(text: str) -> list[list[list[str]]]:
    """Pipe tables in Markdown output, separator rows dropped."""
    tables: list[list[list[str]]] = []
    current: list[list[str]] = []
    for line in [*text.splitlines(), ""]:
        stripped = line.strip()
        if stripped.startswith("|") and stripped.endswith("|"):
            cells = [c.strip() for c in stripped[1:-1].split("|")]
            if not all(re.fullmatch(r":?-{3,}:?", c) for c in cells if c):
                current.append(cells)
        elif current:
            tables.append(current)
            current = []
    return tables


def run_markitdown(target: Path) -> dict[str, Any]:
    from markitdown import MarkItDown

    converter = MarkItDown()
    chars = 0
    files = 0
    tables: list[list[list[str]]] = []
    for path in _files(target):
        text = converter.convert(str(path)).text_content
        chars += len(text)
        files += 1
        tables += markdown_tables(text)
    return {"files": files, "chars": chars, "tables": tables}


TOOLS = {"bunko": run_bunko, "pdfplumber": run_pdfplumber, "markitdown": run_markitdown}


def worker(tool: str, target: Path) -> None:
    started = time.perf_counter()
    result = TOOLS[tool](target)
    result["seconds"] = round(time.perf_counter() - started, 3)
    result["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    print(json.dumps(result, ensure_ascii=False))


def measure(tool: str, target: Path, timeout: float = 600) -> dict[str, Any]:
    try:
        out = subprocess.run([sys.executable, __file__, "--worker", tool, str(target)], capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s"}
    if out.returncode != 0:
        return {"error": (out.stderr.strip().splitlines() or ["failed"])[-1]}
    return json.loads(out.stdout.strip().splitlines()[-1])


# --- scoring and report ----------------------------------------------------------------------------


def _norm(text: str) -> str:
    return re.sub(r"\s+", "", str(text))


def _matching_cells(truth: list[list[str]], candidate: list[list[str]]) -> int:
    return sum(
        1 for r, row in enumerate(truth) for c, value in enumerate(row)
        if r < len(candidate) and c < len(candidate[r]) and _norm(candidate[r][c]) == _norm(value)
    )


def cell_accuracy(truth: list[tuple[str, list[list[str]]]], got: list[list[list[str]]]) -> dict[str, Any]:
    """Each generated table is matched to the returned table that reproduces most of its cells (each used once)."""
    pool = list(got)
    total = matched = exact_tables = 0
    for _, rows in truth:
        scores = [_matching_cells(rows, candidate) for candidate in pool]
        best = max(range(len(pool)), key=scores.__getitem__) if pool else None
        cells = sum(len(r) for r in rows)
        total += cells
        if best is None:
            continue
        matched += scores[best]
        exact_tables += scores[best] == cells and len(pool[best]) == len(rows)
        pool.pop(best)
    return {"cells": total, "cells_correct": matched, "cell_accuracy": round(matched / total, 4) if total else 0.0,
            "tables": len(truth), "tables_found": len(got), "tables_exact": exact_tables}


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def report(results: dict[str, Any]) -> str:
    lines = [
        "# Parsing benchmark", "",
        f"`{results['command']}` on {results['machine']} ({results['cpus']} cores), Python {results['python']}.",
        f"Versions: {', '.join(f'{k} {v}' for k, v in results['versions'].items())}.", "",
        f"## {results['pages']}-page PDF", "",
        "| tool | pages/s | seconds | peak RSS MB |", "|---|---|---|---|",
    ]
    for tool, row in results["long_pdf"].items():
        if "error" in row:
            lines.append(f"| {tool} | error: {row['error']} | | |")
        else:
            lines.append(f"| {tool} | {row.get('pages_per_s', '')} | {row['seconds']} | {row['peak_rss_mb']} |")
    lines += ["", f"## {results['office_files']} Office files (docx, pptx, xlsx)", "", "| tool | files/s | seconds | peak RSS MB |", "|---|---|---|---|"]
    for tool, row in results["office"].items():
        if "error" in row:
            lines.append(f"| {tool} | error: {row['error']} | | |")
        else:
            lines.append(f"| {tool} | {row['files_per_s']} | {row['seconds']} | {row['peak_rss_mb']} |")
    lines += ["", f"## Table-cell accuracy ({results['tables']} generated tables)", "",
              "| source | tool | cell accuracy | cells correct | tables found | tables exact |", "|---|---|---|---|---|---|"]
    for source, rows in results["table_accuracy"].items():
        for tool, row in rows.items():
            if "error" in row:
                lines.append(f"| {source} | {tool} | error: {row['error']} | | | |")
            else:
                lines.append(f"| {source} | {tool} | {row['cell_accuracy']:.1%} | {row['cells_correct']}/{row['cells']} | {row['tables_found']} | {row['tables_exact']}/{row['tables']} |")
    lines += ["", f"Load average (1, 5, 15 min) at start {results['load_average_at_start']}, at end {results['load_average_at_end']}: the machine is shared.",
              "Each tool ran each workload in its own process; peak RSS includes the interpreter and the tool's imports.",
              "bunko's PDF figure includes layout, headings, tables and captions; pdfplumber's is plain text + its table finder."]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=500)
    parser.add_argument("--office", type=int, default=30)
    parser.add_argument("--tables", type=int, default=40)
    parser.add_argument("--worker", nargs=2, metavar=("TOOL", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker[0], Path(args.worker[1]))
        return
    command = "python bench/bench_parse.py" + "".join(f" --{k} {v}" for k, v in (("pages", args.pages), ("office", args.office), ("tables", args.tables)))
    results: dict[str, Any] = {
        "command": command, "machine": platform.platform(), "cpus": os.cpu_count(), "python": platform.python_version(),
        "versions": {d: _version(d) for d in ("bunko", "pdfplumber", "pypdfium2", "markitdown", "python-docx", "python-pptx", "openpyxl")},
        "pages": args.pages, "office_files": args.office, "tables": args.tables,
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
    }
    with tempfile.TemporaryDirectory(prefix="bench-parse-") as tmp:
        folder = Path(tmp)
        started = time.perf_counter()
        long_pdf = make_long_pdf(folder / "long.pdf", args.pages)
        office = make_office_folder(folder / "office", args.office)
        truth = truth_tables(args.tables)
        tables_pdf = make_tables_pdf(folder / "tables.pdf", truth)
        split_pdf = make_tables_pdf(folder / "tables-split.pdf", truth, split_every=3)
        open_pdf = make_tables_pdf(folder / "tables-open.pdf", truth, open_sides=True)
        tables_docx = make_tables_docx(folder / "tables.docx", truth)
        results["generate_seconds"] = round(time.perf_counter() - started, 1)
        results["long_pdf"] = {}
        for tool in ("bunko", "pdfplumber", "markitdown"):
            row = measure(tool, long_pdf)
            if "error" not in row:
                row["pages_per_s"] = round(args.pages / row["seconds"], 1) if row["seconds"] else None
                row.pop("tables", None)
            results["long_pdf"][tool] = row
            print(tool, "pdf", row, flush=True)
        results["office"] = {}
        for tool in ("bunko", "markitdown"):
            row = measure(tool, office)
            if "error" not in row:
                row["files_per_s"] = round(args.office / row["seconds"], 1) if row["seconds"] else None
                row.pop("tables", None)
            results["office"][tool] = row
            print(tool, "office", row, flush=True)
        open_source = "pdf, ruled as LaTeX tabular: no outer sides"
        results["table_accuracy"] = {"pdf": {}, "pdf, every 3rd table split by a page break": {}, open_source: {}, "docx": {}}
        pdf_tools = ("bunko", "pdfplumber", "markitdown")
        for source, path, tools in (
            ("pdf", tables_pdf, pdf_tools), ("pdf, every 3rd table split by a page break", split_pdf, pdf_tools),
            (open_source, open_pdf, pdf_tools), ("docx", tables_docx, ("bunko", "markitdown")),
        ):
            for tool in tools:
                row = measure(tool, path)
                results["table_accuracy"][source][tool] = row if "error" in row else cell_accuracy(truth, row["tables"])
                print(tool, source, results["table_accuracy"][source][tool], flush=True)
    results["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "parse.json").write_text(json.dumps(results, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    (RESULTS / "parse.md").write_text(report(results), encoding="utf-8")
    print(report(results))


if __name__ == "__main__":
    main()
