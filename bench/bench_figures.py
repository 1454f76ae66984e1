"""What figure extraction costs a PDF's parse: wall time and peak memory, with and without OCR of the figures.

`python bench/bench_figures.py [--pages 100]` builds a PDF of N pages, each with a paragraph, one picture (every
other one holds words drawn in it, the rest are flat diagrams) and a caption, then parses it in a fresh process per
setting: figures off (`max_figures = 0`), figures without Tesseract, figures with OCR. Results go to
bench/results/figures.md.
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

CHILD = r"""
import json, resource, sys, time
from pathlib import Path
from bunko.parse.limits import ParseLimits, applied
from bunko.parse.ocr import Tesseract
from bunko.parse.pdf import PdfParser
path, setting = Path(sys.argv[1]), sys.argv[2]
ocr = Tesseract() if setting == "ocr" else Tesseract(binary="/nonexistent")
limits = ParseLimits(max_figures=0 if setting == "off" else 1000)
start = time.perf_counter()
with applied(limits):
    doc = PdfParser(ocr=ocr).parse(path, path.name, "application/pdf")
seconds = time.perf_counter() - start
figures = [e for e in doc.elements if e.kind == "figure"]
read = sum(1 for e in figures if e.meta.get("ocr_text"))
print(json.dumps({"seconds": seconds, "figures": len([f for f in figures if "figure_id" in f.meta]), "ocr_read": read,
                  "image_kb": sum(len(v) for v in doc.images.values()) // 1024,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def build(path: Path, pages: int) -> Path:
    from PIL import Image, ImageDraw
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen.canvas import Canvas

    from figuredocs import TEXTS, text_picture

    height = A4[1]
    folder = path.parent
    worded = text_picture("en", "NIGHTLY BACKUP 02:00")
    worded.save(folder / "worded.png")
    flat = Image.new("RGB", (640, 240), (40, 120, 200))
    ImageDraw.Draw(flat).rectangle((80, 90, 560, 150), fill=(250, 250, 250))
    flat.save(folder / "flat.png")
    c = Canvas(str(path), pagesize=A4)
    for number in range(1, pages + 1):
        c.setFont(TEXTS["en"].regular, 11)
        c.drawString(72, height - 90, f"Section {number}. {TEXTS['en'].p1}")
        c.drawImage(str(folder / ("worded.png" if number % 2 else "flat.png")), 72, height - 400, width=320, height=120)
        c.drawString(72, height - 420, f"Figure {number}: storage diagram {number}")
        c.showPage()
    c.save()
    return path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int, default=100)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bunko-bench-fig-") as tmp:
        pdf = build(Path(tmp) / "figures.pdf", args.pages)
        size_kb = pdf.stat().st_size // 1024
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
        rows = {}
        for setting in ("off", "no-ocr", "ocr"):
            out = subprocess.run([sys.executable, "-c", CHILD, str(pdf), setting], capture_output=True, text=True, env=env, check=True)
            rows[setting] = json.loads(out.stdout.strip().splitlines()[-1])
    load = os.getloadavg()
    lines = [
        "# Figure extraction",
        "",
        f"`python bench/bench_figures.py --pages {args.pages}` on {platform.platform()} ({os.cpu_count()} CPUs), Python "
        f"{platform.python_version()}, {time.strftime('%Y-%m-%d')}; load average {[round(v, 2) for v in load]} at the end (the machine is shared).",
        "",
        f"A PDF of {args.pages} pages ({size_kb:,} KB), each with a paragraph, one 320 × 120 pt picture and its caption; "
        "odd pages' pictures hold words, even pages' are flat diagrams. Each setting parses it in a fresh process.",
        "",
        "| setting | parse s | s per page | figures | figures with OCR text | kept pictures KB | peak RSS MB |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for setting, row in rows.items():
        lines.append(f"| {setting} | {row['seconds']:.2f} | {row['seconds'] / args.pages:.3f} | {row['figures']} | {row['ocr_read']} | "
                     f"{row['image_kb']:,} | {row['peak_rss_mb']:.0f} |")
    lines += [
        "",
        "`off` is `[ingest] max_figures = 0` (the parse before figures). `no-ocr`: pictures rendered from their box and kept "
        "as PNG, no Tesseract. `ocr`: Tesseract with the document's languages (here English: `eng`) on each picture that may hold text (the edge "
        "test in `parse/figures.may_hold_text` skips flat diagrams), within 40% of `max_parse_seconds`. Timings vary "
        "with the machine's load: the same OCR call took 0.9 s on this machine at load 6 and 2.5 s per figure at load 7.",
    ]
    target = ROOT / "bench" / "results" / "figures.md"
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
