"""Answers on real documents: the Debian Reference QA development set, per language and question type.

    ../shared/evalsets/debian-reference-qa/run.sh all html        # lays out the documents and builds a collection
    python bench/bench_debian_qa.py COLLECTION QUESTIONS [--min-confidence X] [--confidence fitted]

COLLECTION is the `.bunko` folder run.sh built (under ~/.cache/bunko-evalsets/debian-reference/runs/),
QUESTIONS the questions.jsonl it wrote beside it. Asks every question in process with the
collection's own config (answer-side settings can be overridden), and reports, per language and
per type: fact (the expected string is in the answer text, as `bunko eval` counts it), citation
precision (an answered question cites a relevant document), abstention precision and recall,
same-language citations, and ask p50; then each stage's p50/p95 from the answers' traces. Results: bench/results/debian-qa.{json,md}; `--out NAME`
names them.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

from bunko import Bunko
from bunko.evaluate.metrics import fact_match
from bunko.evaluate.relevance import source_matches

RESULTS = Path(__file__).resolve().parents[1] / "bench" / "results"
FILE_LANGUAGE = {"en": (".en.", "/en/"), "ja": (".ja.", "/ja/"), "zh": (".zh-cn.", "/zh/")}
"""How a file of each language is named: chNN.LANG.html (Debian Reference) or html/LANG/page.html (the Handbook set)."""


def ask_all(kb: Bunko, questions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for q in questions:
        expected = q.get("expected_answer")
        expected = [expected] if isinstance(expected, str) else expected
        started = time.perf_counter()
        answer = kb.ask(q["question"])
        seconds = time.perf_counter() - started
        cited = [c.source for s in answer.sentences for c in s.citations]
        language = q["tags"]["lang"]
        rows.append({
            "id": q["id"], "lang": language, "type": q["tags"]["type"], "absent": expected is None,
            "abstained": answer.abstained, "confidence": answer.confidence, "seconds": seconds,
            "fact": bool(not answer.abstained and expected and fact_match(answer.text, expected)),
            "cited_relevant": bool(cited) and any(source_matches(c, r) for c in cited for r in q.get("relevant_sources") or []),
            "same_language": all(any(mark in f"/{c}" for mark in FILE_LANGUAGE[language]) for c in cited) if cited else None,
            "answer": answer.text,
            "timings": stage_seconds(answer),
        })
    return rows


def stage_seconds(answer: Any) -> dict[str, float]:
    """The trace's flat stage timings plus the agent steps' (analysis, decompose, table_lookup), in seconds."""
    if answer.trace is None:
        return {}
    seconds = dict(answer.trace.timings)
    for step in answer.trace.steps:
        seconds[f"step.{step.name}"] = seconds.get(f"step.{step.name}", 0.0) + step.seconds
    return seconds


def stage_percentiles(rows: list[dict[str, Any]]) -> dict[str, tuple[float, float]]:
    """Each stage's p50 and p95 in ms over the asks (an ask that skipped a stage counts as 0 ms for it)."""
    stages = sorted({name for r in rows for name in r.get("timings", {})}, key=lambda n: (n != "total", n))
    out = {}
    for name in stages:
        values = sorted(r.get("timings", {}).get(name, 0.0) * 1000 for r in rows)
        out[name] = (round(statistics.median(values), 1), round(values[min(len(values) - 1, int(0.95 * len(values)))], 1))
    return out


def summary(rows: list[dict[str, Any]]) -> dict[str, float]:
    answerable = [r for r in rows if not r["absent"]]
    answered = [r for r in rows if not r["abstained"]]
    answered_answerable = [r for r in answered if not r["absent"]]
    abstained = [r for r in rows if r["abstained"]]
    absent = [r for r in rows if r["absent"]]
    same = [r["same_language"] for r in answered if r["same_language"] is not None]
    share = lambda part, whole: round(len(part) / len(whole), 3) if whole else float("nan")  # noqa: E731
    return {
        "questions": len(rows),
        "fact": share([r for r in answerable if r["fact"]], answerable),
        "citation_precision": share([r for r in answered_answerable if r["cited_relevant"]], answered_answerable),
        "abstention_precision": share([r for r in abstained if r["absent"]], abstained),
        "abstention_recall": share([r for r in absent if r["abstained"]], absent),
        "same_language_citations": round(sum(same) / len(same), 3) if same else float("nan"),
        "ask_p50_ms": round(statistics.median(r["seconds"] for r in rows) * 1000, 1),
    }


def summarize(rows: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """`summary` of all rows, of each language and of each question type."""
    groups: dict[str, list[dict[str, Any]]] = {"all": rows}
    for language in ("en", "ja", "zh"):
        groups[language] = [r for r in rows if r["lang"] == language]
    for kind in ("fact", "table", "multi-hop", "absent"):
        groups[kind] = [r for r in rows if r["type"] == kind]
    return {name: summary(group) for name, group in groups.items() if group}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("collection", type=Path)
    parser.add_argument("questions", type=Path)
    parser.add_argument("--min-confidence", type=float)
    parser.add_argument("--confidence", choices=["retrieval", "fitted"])
    parser.add_argument("--retrieve", nargs="*", default=[], metavar="FIELD=VALUE",
                        help="override retrieve settings, e.g. document_weight=0 (numbers only)")
    parser.add_argument("--out", default="debian-qa")
    args = parser.parse_args()
    questions = [json.loads(line) for line in args.questions.read_text(encoding="utf-8").splitlines() if line.strip()]
    kb = Bunko(args.collection, create=False)
    if args.min_confidence is not None:
        kb.config.answer.min_confidence = args.min_confidence
    if args.confidence:
        kb.config.answer.confidence = args.confidence
    for setting in args.retrieve:
        field, value = setting.split("=", 1)
        setattr(kb.config.retrieve, field, float(value))
    rows = ask_all(kb, questions)
    settings = {"confidence": kb.config.answer.confidence, "min_confidence": kb.answerer.min_confidence()}
    kb.close()
    table = summarize(rows)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{args.out}.json").write_text(json.dumps({"settings": settings, "summary": table, "rows": rows}, ensure_ascii=False, indent=1), encoding="utf-8")
    metrics = list(next(iter(table.values())))
    lines = [f"# Debian Reference QA ({settings})", "", "`python bench/bench_debian_qa.py COLLECTION QUESTIONS`", "",
             "| group | " + " | ".join(metrics) + " |", "|---" * (len(metrics) + 1) + "|"]
    lines += [f"| {name} | " + " | ".join(str(v) for v in values.values()) + " |" for name, values in table.items()]
    lines += ["", "| stage | p50 ms | p95 ms |", "|---|---|---|"]
    lines += [f"| {name} | {p50} | {p95} |" for name, (p50, p95) in stage_percentiles(rows).items()]
    (RESULTS / f"{args.out}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
