"""The tree route, auto-merging and contextual chunks on long PDFs: the Debian Reference in en, ja and zh.

Three ~270-page PDFs (prepared by ../shared/evalsets/debian-reference-qa/prepare.sh) are ingested
once per `[chunk] context` (nothing; section path, the default; document title + section path). On each
collection, hybrid alone, the default routing (hybrid, and the tree route for questions that name a section)
and the tree route for every question (with and without auto-merging) answer:

- the section-naming questions of bench/tree/sections.jsonl (42, ja/zh/en): is the first hit inside
  the section the question names (same PDF, its path under the named outline path)?
- the development set's 120 questions: chapter recall@5 (a question's relevant HTML chapters are
  the PDFs' chapters of the same number), and the answer's fact match and abstention.

Tree build cost is the time to build the three trees from the stored chunks, cold.

    python bench/bench_tree.py [--rebuild] [--limit N]
Writes bench/results/tree.md.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium

from bunko.config import Config
from bunko.engine import Bunko
from bunko.evaluate.metrics import fact_match
from bunko.parse.pdf_outline import title_key
from bunko.retrieve.trees import DocumentTrees
from bunko.schema import Hit

HERE = Path(__file__).parent
PDFS = Path.home() / ".cache/bunko-evalsets/debian-reference/docs/pdf"
QUESTIONS = HERE.parent.parent / "shared/evalsets/debian-reference-qa/questions.jsonl"
SECTIONS = HERE / "tree/sections.jsonl"
CACHE = Path.home() / ".cache/bunko-bench/tree"
RESULTS = HERE / "results/tree.md"
LANG_OF = {"en": "en", "ja": "ja", "zh-cn": "zh"}
CONTEXTS = ("none", "section", "title")
SETUPS: list[tuple[str, str | None, float | None]] = [
    ("hybrid", "hybrid", None), ("routed (default)", None, None), ("tree", "tree", None), ("tree + auto-merge 0.5", "tree", 0.5),
]


def collection(context: str, rebuild: bool) -> Bunko:
    path = CACHE / context / ".bunko"
    if rebuild and path.exists():
        shutil.rmtree(path)
    if not (path.parent / ".ingested").exists():
        config = Config()
        config.chunk.context = context  # type: ignore[assignment]
        kb = Bunko(path, config=config)
        started = time.perf_counter()
        report = kb.ingest([PDFS])
        (path.parent / ".ingested").write_text(f"{time.perf_counter() - started:.1f} s, {report}\n")
        kb.close()
    return Bunko(path)


def chapters(pdf: Path) -> list[str]:
    """Top-level outline titles in order: chapter N of the HTML edition is the N-th, the appendix the last."""
    return [b.get_title() for b in pdfium.PdfDocument(pdf).get_toc() if b.level == 0]


def relevant_chapters(sources: list[str]) -> set[tuple[str, str]]:
    """("en", chapter title key) for each relevant HTML chapter (ch03.en.html → the third chapter of the en PDF)."""
    units = set()
    for source in sources:
        match = re.match(r"(ch(\d+)|apa)\.(en|ja|zh-cn)\.html$", source)
        if not match:
            continue
        titles = chapters(PDFS / f"debian-reference.{match.group(3)}.pdf")
        title = titles[int(match.group(2)) - 1] if match.group(2) else titles[-1]
        units.add((LANG_OF[match.group(3)], title_key(title)))
    return units


def hit_unit(hit: Hit) -> tuple[str, str] | None:
    match = re.search(r"\.(en|ja|zh-cn)\.pdf$", hit.chunk.source)
    if not match or not hit.chunk.section_path:
        return None
    return LANG_OF[match.group(1)], title_key(hit.chunk.section_path[0])


def in_section(hit: Hit, source: str, path: list[str]) -> bool:
    keys = [title_key(t) for t in hit.chunk.section_path]
    wanted = [title_key(t) for t in path]
    return hit.chunk.source.endswith(source) and keys[: len(wanted)] == wanted


def measure(kb: Bunko, mode: str | None, merge: float | None, sections: list[dict[str, Any]], questions: list[dict[str, Any]]) -> dict[str, Any]:
    kb.config.retrieve.auto_merge = merge
    out: dict[str, Any] = defaultdict(lambda: defaultdict(list))
    for item in sections:
        hits = kb.search(item["question"], k=5, mode=mode)
        out[item["lang"]]["named@1"].append(bool(hits) and in_section(hits[0], item["source"], item["section"]))
        out["all"]["named@1"].append(out[item["lang"]]["named@1"][-1])
    for item in questions:
        lang = item["tags"]["lang"]
        relevant = relevant_chapters(item.get("relevant_sources") or [])
        if relevant:
            hits = kb.search(item["question"], k=5, mode=mode)
            found = {hit_unit(h) for h in hits} & relevant
            for scope in (lang, "all"):
                out[scope]["recall@5"].append(len(found) / len(relevant))
                out[scope]["hit@5"].append(bool(found))
        answer = kb.ask(item["question"], mode=mode)
        expected = item.get("expected_answer")
        for scope in (lang, "all"):
            if expected:
                out[scope]["fact"].append(fact_match(answer.text, [expected] if isinstance(expected, str) else expected))
            else:
                out[scope]["abstained (absent)"].append(answer.abstained)
    return {scope: {name: sum(v) / len(v) for name, v in values.items() if v} for scope, values in out.items()}


def tree_cost(kb: Bunko) -> tuple[float, int, int]:
    trees = DocumentTrees(kb.store.search(), kb.analyzer)
    started = time.perf_counter()
    built = [trees.tree(doc.doc_id) for doc in kb.documents()]
    seconds = time.perf_counter() - started
    nodes = sum(sum(1 for _ in t.sections()) for t in built if t is not None)
    return seconds, nodes, kb.store.chunk_count()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--limit", type=int, default=None, help="first N development questions only (a quick look)")
    args = parser.parse_args()
    sections = [json.loads(line) for line in SECTIONS.read_text(encoding="utf-8").splitlines() if line.strip()]
    questions = [json.loads(line) for line in QUESTIONS.read_text(encoding="utf-8").splitlines() if line.strip()][: args.limit]
    rows: list[str] = []
    costs: list[str] = []
    for context in CONTEXTS:
        kb = collection(context, args.rebuild)
        seconds, nodes, chunks = tree_cost(kb)
        costs.append(f"| {context} | {(CACHE / context / '.ingested').read_text().split(',')[0]} | {chunks} | {nodes} | {seconds:.2f} s |")
        for name, mode, merge in SETUPS:
            started = time.perf_counter()
            scores = measure(kb, mode, merge, sections, questions)
            elapsed = time.perf_counter() - started
            for scope in ("all", "en", "ja", "zh"):
                s = scores.get(scope, {})
                cells = [f"{s[m]:.3f}" if m in s else "–" for m in ("named@1", "recall@5", "hit@5", "fact", "abstained (absent)")]
                rows.append(f"| {context} | {name} | {scope} | " + " | ".join(cells) + " |")
            print(f"{context} / {name}: {scores.get('all')} ({elapsed:.0f} s)", flush=True)
        kb.close()
    RESULTS.write_text(
        "# Tree route, auto-merging and contextual chunks (bench/bench_tree.py)\n\n"
        "The Debian Reference PDFs (en, ja, zh-cn; ~270 pages each). named@1: first hit inside the section a "
        "question names (bench/tree/sections.jsonl, 42 questions). recall@5 / hit@5: the development set's relevant "
        "chapters found in the top 5 (chapter grain: the PDFs are one file per language). fact: expected answer in "
        "the answer text; abstained (absent): questions with no answer in the documents that were declined.\n\n"
        "| context | route | scope | named@1 | recall@5 | hit@5 | fact | abstained (absent) |\n|---|---|---|---|---|---|---|---|\n"
        + "\n".join(rows)
        + "\n\n## Cost\n\n| context | ingest | chunks | sections | tree build (3 trees, cold) |\n|---|---|---|---|---|\n"
        + "\n".join(costs) + "\n",
        encoding="utf-8",
    )
    print(RESULTS.read_text(encoding="utf-8"))


if __name__ == "__main__":
    main()
