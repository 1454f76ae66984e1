"""The Python documentation set (bench/evalsets/python-docs-qa), answered with the shipped defaults, per language,
with every miss put in one of three classes.

    python bench/bench_python_docs_qa.py [--keep DIR] [--out bench/results/python-docs-qa]

The collection is `fit_reader.CORPORA["python-docs"]` ($BUNKO_EVALDATA/python/.bunko, made by
`prepare.sh` + `bunko ingest html --root html`, see the set's README). The set is answered exactly as
`bench/answer_sets.py` answers every set (`evaluate_set`: `bunko eval run` with a bunko.toml of the shipped
[answer] defaults, `--no-baseline`), so its figures are the row `answer_sets.py --sets` would print; this
script adds the per-language figures from the same run and reads each record to say where answers were lost:

- retrieval: no expected string in the passages the answer was drawn from (bunko's fact_in_evidence = 0);
- wrong abstention: the expected string was in that evidence, but bunko refused;
- wrong unit quoted: it was in the evidence, bunko answered, but quoted other sentences or rows;
- and, for absent questions, an answer given where it should have refused.

`first_hit_rank` is the rank (0-based) of the first retrieved hit holding an expected string, judged with the
grader's own normalisation (`bunko.evaluate.normalize.contains`).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import answer_sets  # noqa: E402  (a sibling script)
import fit_reader  # noqa: E402

CORPUS = "python-docs"
FIGURES = ("fact_match", "fact_in_evidence", "citation_precision", "abstention_precision", "abstention_recall", "ece",
           "answer_chars_p50", "answer_chars_p90", "recall@5", "mrr")


@dataclass(frozen=True)
class Outcome:
    qid: str
    lang: str
    kind: str
    outcome: str
    """right, retrieval, wrong abstention, wrong unit quoted; absent: abstained, answered absent"""
    first_hit_rank: int | None
    confidence: float | None
    answer: str


def outcomes(results: Path, questions: Path) -> list[Outcome]:
    from bunko.evaluate.normalize import contains

    gold = {row["id"]: row for row in map(json.loads, questions.read_text(encoding="utf-8").splitlines()) if row}
    run = json.loads(results.read_text(encoding="utf-8"))["runs"][-1]
    out = []
    for record, scores in zip(run["records"], run["scores"], strict=True):
        item = gold[record["item_id"]]
        kind, lang = item["tags"]["type"], item["tags"]["lang"]
        expected = item.get("expected_answer")
        answers = [expected] if isinstance(expected, str) else list(expected or [])
        rank = next((i for i, hit in enumerate(record["hits"]) if any(contains(hit["text"], a) for a in answers)), None)
        if kind == "absent":
            outcome = "abstained" if record["abstained"] else "answered absent"
        elif scores["fact_match"][0] >= 1:
            outcome = "right"
        elif scores["fact_in_evidence"][0] < 1:
            outcome = "retrieval"
        else:
            outcome = "wrong abstention" if record["abstained"] else "wrong unit quoted"
        answer = " ".join(record["answer"].split())
        out.append(Outcome(record["item_id"], lang, kind, outcome, rank, record["confidence"],
                           answer[:160] + ("…" if len(answer) > 160 else "")))
    return out


def _rounded(value: Any) -> float | None:
    return None if value is None else round(float(value), 3)


def run(keep: Path) -> dict[str, Any]:
    collection, questions = fit_reader.CORPORA[CORPUS]
    if not collection.exists():
        raise SystemExit(f"{collection}: no collection; lay out and ingest the pages first (bench/evalsets/python-docs-qa/README.md)")
    keep.mkdir(parents=True, exist_ok=True)
    figures = answer_sets.evaluate_set(CORPUS, collection, questions, keep)
    if isinstance(figures, str):
        raise SystemExit(f"{CORPUS}: {figures}")
    results = keep / CORPUS / "results.json"
    last = json.loads(results.read_text(encoding="utf-8"))["runs"][-1]
    per_language = {lang: {k: _rounded(v.get(k)) for k in FIGURES} for lang, v in last["by_tag"]["lang"].items()}
    per_type = {kind: {k: _rounded(v.get(k)) for k in FIGURES} for kind, v in last["by_tag"]["type"].items()}
    found = outcomes(results, questions)
    classes: dict[str, dict[str, int]] = {}
    for o in found:
        classes.setdefault(o.outcome, {}).setdefault(o.lang, 0)
        classes[o.outcome][o.lang] += 1
    return {"set": asdict(figures), "all": {k: _rounded(last["summary"].get(k)) for k in FIGURES},
            "per_language": per_language, "per_type": per_type, "outcomes": classes,
            "questions": [asdict(o) for o in found]}


def markdown(report: dict[str, Any]) -> str:
    lines = ["# Python documentation set, shipped defaults (`python bench/bench_python_docs_qa.py`)", "",
             "60 questions (40 en, 10 ja, 10 zh; 15 absent) over 90 English pages of the Python 3.11 docs, written blind "
             "to bunko (`bench/evalsets/python-docs-qa`). Answered as `bench/answer_sets.py` answers every set.", "",
             "| | fact | fact in evidence | citation precision | abstention P | abstention R | ECE | chars p50 | chars p90 | recall@5 | MRR |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    rows = [("all", report["all"])] + sorted(report["per_language"].items()) + \
        [(f"type {k}", v) for k, v in sorted(report["per_type"].items())]
    for name, f in rows:
        lines.append(f"| {name} | " + " | ".join(str(f[k]) for k in FIGURES) + " |")
    lines += ["", "Commands (from the repository root, the project's venv; the collection made once, with the shipped "
              "defaults):", "", "```sh",
              "bash bench/evalsets/python-docs-qa/prepare.sh /work/evaldata/python",
              "cd /work/evaldata/python && nice -n 5 bunko ingest html --root html -c /work/evaldata/python/.bunko",
              "cd - && nice -n 5 python bench/bench_python_docs_qa.py --keep /work/evaldata/python/eval-run",
              "```", "", "`bench_python_docs_qa.py` runs `answer_sets.evaluate_set`, i.e. `python -m bunko eval run "
              "bench/evalsets/python-docs-qa/questions.jsonl -c /work/evaldata/python/.bunko -o DIR/python-docs "
              "--config DIR/shipped.toml --no-baseline` (shipped.toml: the shipped [answer] defaults).",
              "", "## Where answers were lost", "",
              "retrieval: no expected string in the evidence the answer was drawn from; wrong abstention: it was there "
              "and bunko refused; wrong unit quoted: it was there and bunko quoted other sentences or rows; answered "
              "absent: an answer to a question the pages do not answer.", "",
              "| outcome | en | ja | zh |", "|---|---|---|---|"]
    for outcome, counts in sorted(report["outcomes"].items()):
        lines.append(f"| {outcome} | " + " | ".join(str(counts.get(lang, 0)) for lang in ("en", "ja", "zh")) + " |")
    lines += ["", "| id | type | outcome | first hit with the answer | confidence | answer (start) |", "|---|---|---|---|---|---|"]
    for q in report["questions"]:
        if q["outcome"] in ("right", "abstained"):
            continue
        answer = q["answer"].replace("|", "\\|")
        lines.append(f"| {q['qid']} | {q['kind']} | {q['outcome']} | {q['first_hit_rank']} | {q['confidence']} | {answer} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", type=Path, help="keep the eval output here (default: a temporary folder)")
    parser.add_argument("--out", type=Path, default=fit_reader.RESULTS / "python-docs-qa")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bunko-python-docs-") as tmp:
        report = run(args.keep or Path(tmp))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(report, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    args.out.with_suffix(".md").write_text(markdown(report), encoding="utf-8")
    print(markdown(report))


if __name__ == "__main__":
    main()
