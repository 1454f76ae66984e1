"""Retrieval and answer quality on the bundled samples and their golden set.

    python bench/sample_quality.py [--mode hybrid|dense|keyword] [--rerank none|light|cross_encoder|llm]

Hits are those `ask` uses (after rerank). Writes bench/results/sample_quality.json: source hit@1/@5 and MRR by language,
fact-in-answer rate, abstention precision/recall, and per-question rows.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from bunko import Bunko, Config

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "src" / "bunko" / "samples"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="hybrid")
    parser.add_argument("--rerank", default=None, help="[rerank] method; default: the config default")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "sample_quality.json"))
    args = parser.parse_args()
    golden = [json.loads(line) for line in (SAMPLES / "golden.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    with tempfile.TemporaryDirectory() as tmp:
        config = Config()
        config.retrieve.mode = args.mode
        if args.rerank:
            config.rerank.method = args.rerank
        kb = Bunko(Path(tmp) / ".bunko", config=config)
        kb.ingest(SAMPLES / "docs")
        rows = []
        for item in golden:
            started = time.perf_counter()
            answer = kb.ask(item["question"])
            elapsed = time.perf_counter() - started
            trace = kb.trace(answer.trace_id)
            names = [Path(h["source"]).name for h in trace["hits"]]
            relevant = set(item["relevant_sources"])
            rank = next((i + 1 for i, n in enumerate(names) if n in relevant), None)
            absent = item["tags"]["type"] == "absent"
            grade = trace["grade"]
            cited = {Path(c.source).name for s in answer.sentences for c in s.citations}
            rows.append({
                "id": item["id"], "lang": item["tags"]["lang"], "type": item["tags"]["type"], "absent": absent,
                "rank": rank, "abstained": answer.abstained, "confidence": answer.confidence, "similarity": grade["features"].get("similarity"), "coverage": grade["features"].get("coverage"),
                "fact": (not absent) and item["expected_answer"] in answer.text,
                "cited_relevant": bool(cited & relevant), "seconds": elapsed,
                "question": item["question"], "answer": answer.text,
            })
        kb.close()

    def summary(selected: list[dict]) -> dict:
        answerable = [r for r in selected if not r["absent"]]
        absent = [r for r in selected if r["absent"]]
        abstained = [r for r in selected if r["abstained"]]
        return {
            "n": len(selected),
            "hit@1": sum(r["rank"] == 1 for r in answerable) / max(len(answerable), 1),
            "hit@5": sum(r["rank"] is not None for r in answerable) / max(len(answerable), 1),
            "mrr": sum(1 / r["rank"] for r in answerable if r["rank"]) / max(len(answerable), 1),
            "fact_in_answer": sum(r["fact"] for r in answerable) / max(len(answerable), 1),
            "cited_relevant": sum(r["cited_relevant"] for r in answerable) / max(len(answerable), 1),
            "abstain_recall": sum(r["abstained"] for r in absent) / max(len(absent), 1),
            "abstain_precision": sum(r["absent"] for r in abstained) / max(len(abstained), 1),
        }

    report = {"mode": args.mode, "rerank": config.rerank.method, "all": summary(rows)}
    for lang in ("ja", "zh", "en"):
        report[lang] = summary([r for r in rows if r["lang"] == lang])
    report["rows"] = rows
    Path(args.out).write_text(json.dumps(report, ensure_ascii=False, indent=1), encoding="utf-8")
    for key in ("all", "ja", "zh", "en"):
        print(key, {k: round(v, 3) if isinstance(v, float) else v for k, v in report[key].items()})
    for r in rows:
        if (r["absent"] and not r["abstained"]) or (not r["absent"] and (r["abstained"] or not r["fact"])):
            print(f"  {r['id']} {r['type']:6} rank={r['rank']} abst={r['abstained']} conf={r['confidence']:.2f} sim={r['similarity']:.2f} cov={r['coverage']:.2f} fact={r['fact']} | {r['question']} -> {r['answer'][:90]!r}", file=sys.stderr)


if __name__ == "__main__":
    main()
