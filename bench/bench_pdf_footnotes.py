"""PDF footnotes on real manuals: how many notes are found and tied to their marks, and that no text is lost.

Each PDF is parsed twice in the same run, by a baseline source tree (``--before``, e.g. the main branch's src) and by
this one, each in its own process. The comparison is of characters: every non-space character of every element, the
brackets the footnote rule writes around labels and marks ("[3]") aside, counted before and after; any character
lost or gained is listed. Also counted: footnote elements, how many have their mark found (``parent_id``) and how
many end their section, marks "[N]" in the body text, labels still glued to a note's first word as the old text had
them ("3If"), and parse time. The table is printed; the rows go to the `--out` path as .json.

    nice -n 5 env PYTHONPATH=src python bench/bench_pdf_footnotes.py --before /work/main/src \\
        --out bench/results/pdf-footnotes.md /usr/share/doc/maint-guide/maint-guide.en.pdf …
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

_MARK = re.compile(r"\[[0-9]{1,3}\]|\[[*†‡§¶※]{1,3}\]")


def dump(path: Path) -> None:
    """Parse one PDF with whatever `bunko` is on the path; print its elements as JSON."""
    from bunko.parse.pdf import PdfParser

    start = time.perf_counter()
    doc = PdfParser().parse(path, path.name, "application/pdf")
    seconds = time.perf_counter() - start
    elements = [{"kind": str(e.kind), "text": e.text, "page": e.page, "parent": e.parent_id} for e in doc.elements]
    print(json.dumps({"seconds": seconds, "pages": doc.meta.get("pages"), "elements": elements}))


def run(src: str, path: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": src}
    out = subprocess.run([sys.executable, __file__, "--dump", str(path)], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def _next_heading(elements: list[dict], i: int) -> int:
    return next((j for j in range(i + 1, len(elements)) if elements[j]["kind"] == "heading"), len(elements))


def chars(elements: list[dict]) -> Counter[str]:
    text = "".join(e["text"] for e in elements)
    return Counter(c for c in text if not c.isspace() and c not in "[]")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("pdfs", nargs="*", type=Path)
    parser.add_argument("--before", help="PYTHONPATH of the baseline bunko")
    parser.add_argument("--after", help="PYTHONPATH of the bunko measured (default: this tree's src)")
    parser.add_argument("--dump", type=Path)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    if args.dump:
        dump(args.dump)
        return
    here = args.after or str(Path(__file__).resolve().parents[1] / "src")
    rows = []
    for pdf in args.pdfs:
        before, after = run(args.before, pdf), run(here, pdf)
        b, a = chars(before["elements"]), chars(after["elements"])
        notes = [e for e in after["elements"] if e["kind"] == "footnote"]
        body = [e for e in after["elements"] if e["kind"] != "footnote"]
        glued = sum(1 for e in before["elements"] if re.match(r"^[0-9⁰¹²³⁴-⁹]{1,3}[^\W\d_⁰¹²³⁴-⁹]", e["text"]))
        row = {
            "pdf": pdf.name, "pages": after["pages"], "footnotes": len(notes), "tied": sum(1 for n in notes if n["parent"]),
            "marks_before": sum(len(_MARK.findall(e["text"])) for e in before["elements"]),
            "marks_after": sum(len(_MARK.findall(e["text"])) for e in body),
            "at_section_end": sum(1 for i, e in enumerate(after["elements"]) if e["kind"] == "footnote" and
                                  all(x["kind"] == "footnote" for x in after["elements"][i + 1 : _next_heading(after["elements"], i)])),
            "glued_before": glued,
            "glued_after": sum(1 for e in after["elements"] if re.match(r"^[0-9⁰¹²³⁴-⁹]{1,3}[^\W\d_⁰¹²³⁴-⁹]", e["text"])),
            "chars_before": sum(b.values()), "chars_after": sum(a.values()),
            "lost": dict((b - a).most_common(10)), "gained": dict((a - b).most_common(10)),
            "seconds_before": round(before["seconds"], 1), "seconds_after": round(after["seconds"], 1),
        }
        rows.append(row)
        print(json.dumps(row, ensure_ascii=False), flush=True)
    if args.out:
        head = ("| PDF | pages | footnotes | tied to mark | at section end | \"[N]\" in body before → after | elements starting \"3If\" "
                "before → after | chars before → after (no spaces, no brackets) | lost / gained | parse s before → after |\n")
        head += "|---|---|---|---|---|---|---|---|---|---|\n"
        lines = [
            f"| {r['pdf']} | {r['pages']} | {r['footnotes']} | {r['tied']} | {r['at_section_end']} | {r['marks_before']} → {r['marks_after']} | "
            f"{r['glued_before']} → {r['glued_after']} | "
            f"{r['chars_before']:,} → {r['chars_after']:,} | {r['lost'] or '—'} / {r['gained'] or '—'} | {r['seconds_before']} → {r['seconds_after']} |"
            for r in rows
        ]
        args.out.with_suffix(".json").write_text(json.dumps(rows, ensure_ascii=False, indent=1) + "\n")
        print(head + "\n".join(lines))


if __name__ == "__main__":
    main()
