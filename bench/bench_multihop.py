"""Multi-hop retrieval: does the graph route find *all* the passages a two-fact question needs?

    python bench/bench_multihop.py --handbook COLLECTION [--debian COLLECTION] [--modes hybrid graph routed]

Two sets, both over real documents nobody here wrote:

- **handbook** (bench/multihop/handbook.jsonl, checked by bench/multihop/check.py): 72 hand-written
  questions, 24 per language, over the Debian Administrator's Handbook pages (bench/page_corpora.py), each needing
  two evidence passages, given as verbatim snippets of two pages. A passage counts as found when a top-10 hit is
  from the snippet's page and shares at least `SNIPPET_MATCH` characters of it (hits are parents of up to 2,000
  characters, the snippets up to 200, so a snippet cut by a chunk border still counts).
- **debian** (the `multi-hop` questions of ../shared/evalsets/debian-reference-qa/): evidence is two chapters; a
  chapter counts as found when a top-10 hit is from its file in the question's language.

Reported per set, language and mode: **all@10**, the share of questions whose every needed passage is in the top
10, and **recall@10**, the mean share of needed passages found. "routed" is no mode at all: the router decides.
The single-hop questions of the debian set (fact and table) are measured too, as document nDCG@10 (every
language's chapter counts as relevant, as in the evalset), so the cost of routing is in the same table.
Results: bench/results/multihop.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import math
import time
import unicodedata
from collections import defaultdict
from dataclasses import dataclass
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

from bunko import Bunko
from bunko.schema import Hit

RESULTS = Path(__file__).parent / "results"
HANDBOOK_SET = Path(__file__).parent / "multihop" / "handbook.jsonl"
DEBIAN_SET = Path(__file__).resolve().parents[2] / "shared" / "evalsets" / "debian-reference-qa" / "questions.jsonl"
SNIPPET_MATCH = 30
K = 10
DEBIAN_SUFFIX = {"en": ".en.", "ja": ".ja.", "zh": ".zh-cn."}


def squash(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).split())


@dataclass
class Question:
    id: str
    lang: str
    text: str
    kind: str
    needed: list[tuple[str, str]]
    """(file name, snippet) per needed passage; the snippet is empty when the whole file is the evidence."""
    relevant: set[str]
    expected: str | None = None
    """The answer's expected fact (None: the question has none)."""


def handbook_questions(path: Path) -> list[Question]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        q = json.loads(line)
        needed = [(e["source"], squash(e["text"])) for e in q["evidence"]]
        out.append(Question(q["id"], q["lang"], q["question"], "multi-hop", needed, {s for s, _ in needed}, q.get("expected_answer")))
    return out


def debian_questions(path: Path) -> list[Question]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        q = json.loads(line)
        kind, lang = q["tags"]["type"], q["tags"]["lang"]
        if kind == "absent":
            continue
        own = sorted({s for s in q["relevant_sources"] if DEBIAN_SUFFIX[lang] in s})
        out.append(Question(q["id"], lang, q["question"], kind, [(s, "") for s in own], set(q["relevant_sources"]), q.get("expected_answer") or None))
    return out


def holds(hit: Hit, source: str, snippet: str) -> bool:
    if not hit.chunk.source.endswith(source):
        return False
    if not snippet:
        return True
    text = squash(hit.chunk.text)
    if snippet in text:
        return True
    match = SequenceMatcher(None, snippet, text, autojunk=False).find_longest_match(0, len(snippet), 0, len(text))
    return match.size >= min(SNIPPET_MATCH, len(snippet))


def document_ndcg(hits: list[Hit], relevant: set[str]) -> float:
    """Binary document nDCG@10: each document once, relevant when its source ends with a relevant name
    ("ch09.en.html" for the evalset, "en/apt.html" for the handbook set)."""
    seen: list[str] = []
    for hit in hits:
        if hit.chunk.source not in seen:
            seen.append(hit.chunk.source)
    gains = [1.0 if any(source.endswith(name) for name in relevant) else 0.0 for source in seen[:K]]
    dcg = sum(g / math.log2(i + 2) for i, g in enumerate(gains))
    ideal = sum(1 / math.log2(i + 2) for i in range(min(len(relevant), K)))
    return dcg / ideal if ideal else 0.0


def measure(kb: Bunko, questions: list[Question], mode: str) -> dict[str, Any]:
    rows = []
    started = time.perf_counter()
    for q in questions:
        result = kb.searcher.search(q.text, k=K, mode=None if mode == "routed" else mode)
        found = [any(holds(hit, source, snippet) for hit in result.hits) for source, snippet in q.needed]
        rows.append({
            "id": q.id, "lang": q.lang, "kind": q.kind, "mode": result.mode, "found": found,
            "all": float(all(found)), "recall": sum(found) / len(found), "ndcg": document_ndcg(result.hits, q.relevant),
        })
    return {"rows": rows, "seconds_per_query": (time.perf_counter() - started) / max(len(questions), 1)}


def answers(kb: Bunko, questions: list[Question]) -> dict[str, Any]:
    """Each question asked (`Bunko.ask`, routed): whether the answer holds the expected fact, and whether its citations
    cite every needed passage's document (both hops)."""
    from bunko.evaluate.metrics import fact_match

    rows = []
    started = time.perf_counter()
    for q in questions:
        answer = kb.ask(q.text)
        cited = {c.source for s in answer.sentences for c in s.citations}
        both = all(any(source.endswith(name) for source in cited) for name, _ in q.needed)
        rows.append({
            "id": q.id, "lang": q.lang, "abstained": answer.abstained, "confidence": answer.confidence,
            "fact": float(bool(q.expected) and not answer.abstained and fact_match(answer.text, q.expected or "")),
            "both_cited": float(not answer.abstained and both), "chars": len(answer.text),
            "answer": answer.text[:400],
        })
    return {"rows": rows, "seconds_per_query": (time.perf_counter() - started) / max(len(questions), 1)}


def summarise_answers(rows: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        groups[row["lang"]].append(row)
        groups["all"].append(row)
    return {
        name: {
            "n": len(group), "fact": sum(r["fact"] for r in group) / len(group),
            "both_cited": sum(r["both_cited"] for r in group) / len(group),
            "abstained": sum(r["abstained"] for r in group) / len(group),
            "chars_p50": sorted(r["chars"] for r in group)[len(group) // 2],
        }
        for name, group in groups.items()
    }


def summarise(rows: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        groups[row["lang"]].append(row)
        groups["all"].append(row)
    return {
        name: {
            "n": len(group), "all@10": sum(r["all"] for r in group) / len(group), "recall@10": sum(r["recall"] for r in group) / len(group),
            "ndcg@10": sum(r["ndcg"] for r in group) / len(group), "graph_routed": sum(r["mode"] == "graph" for r in group) / len(group),
        }
        for name, group in groups.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--handbook", type=Path, help="a collection of the handbook pages (bench/page_corpora.py)")
    parser.add_argument("--debian", type=Path, help="a collection of the Debian Reference HTML (the evalset's run.sh)")
    parser.add_argument("--modes", nargs="+", default=["hybrid", "graph", "routed"])
    parser.add_argument("--answers", action="store_true", help="also ask every multi-hop question and judge the answer")
    parser.add_argument("--out", default="multihop")
    args = parser.parse_args()
    report: dict[str, Any] = {}
    sets = []
    if args.handbook:
        sets.append(("handbook", args.handbook, handbook_questions(HANDBOOK_SET)))
    if args.debian:
        questions = debian_questions(DEBIAN_SET)
        sets.append(("debian multi-hop", args.debian, [q for q in questions if q.kind == "multi-hop"]))
        sets.append(("debian single-hop", args.debian, [q for q in questions if q.kind != "multi-hop"]))
    for name, collection, questions in sets:
        kb = Bunko(collection, create=False)
        kb.searcher.search("warm up", k=K)
        for mode in args.modes:
            measured = measure(kb, questions, mode)
            report.setdefault(name, {})[mode] = {"summary": summarise(measured["rows"]), **measured}
            summary = report[name][mode]["summary"]["all"]
            print(f"{name:18} {mode:7} all@10 {summary['all@10']:.3f} recall@10 {summary['recall@10']:.3f} "
                  f"ndcg@10 {summary['ndcg@10']:.3f} graph-routed {summary['graph_routed']:.2f} "
                  f"{measured['seconds_per_query'] * 1000:.0f} ms/q", flush=True)
        if args.answers and name != "debian single-hop":
            asked = answers(kb, questions)
            report.setdefault(name, {})["answers"] = {"summary": summarise_answers(asked["rows"]), **asked}
            summary = report[name]["answers"]["summary"]["all"]
            print(f"{name:18} answers fact {summary['fact']:.3f} both cited {summary['both_cited']:.3f} "
                  f"abstained {summary['abstained']:.3f} chars p50 {summary['chars_p50']}", flush=True)
        kb.close()
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{args.out}.json").write_text(json.dumps(report, indent=1, ensure_ascii=False), encoding="utf-8")
    (RESULTS / f"{args.out}.md").write_text(markdown(report), encoding="utf-8")


def markdown(report: dict[str, Any]) -> str:
    lines = ["# Multi-hop retrieval (bench/bench_multihop.py)", "", __doc__.split("\n\n", 2)[2].split("Results:")[0].strip(), ""]
    for name, modes in report.items():
        lines += [f"## {name}", "", "| mode | lang | n | all@10 | recall@10 | doc nDCG@10 | routed to graph | ms/query |", "|---|---|---|---|---|---|---|---|"]
        for mode, measured in modes.items():
            if mode == "answers":
                continue
            for lang, s in sorted(measured["summary"].items(), key=lambda item: item[0] != "all"):
                lines.append(f"| {mode} | {lang} | {s['n']} | {s['all@10']:.3f} | {s['recall@10']:.3f} | {s['ndcg@10']:.3f} | "
                             f"{s['graph_routed']:.2f} | {measured['seconds_per_query'] * 1000:.0f} |")
        lines.append("")
        if "answers" in modes:
            measured = modes["answers"]
            lines += ["Answers (`Bunko.ask`, routed): **fact**, the expected fact is in the answer; **both cited**, the answer "
                      "cites every needed passage's document; chars p50, the answer's length.", "",
                      "| lang | n | fact | both cited | abstained | chars p50 | ms/question |", "|---|---|---|---|---|---|---|"]
            for lang, s in sorted(measured["summary"].items(), key=lambda item: item[0] != "all"):
                lines.append(f"| {lang} | {s['n']} | {s['fact']:.3f} | {s['both_cited']:.3f} | {s['abstained']:.3f} | "
                             f"{s['chars_p50']} | {measured['seconds_per_query'] * 1000:.0f} |")
            lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
