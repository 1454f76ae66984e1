"""Every labelled question set, answered with the shipped defaults, and the reader judged by leaving one corpus out.

    python bench/bench_answers.py --sets [--collect] [--out bench/results/answer-sets]
    python bench/bench_answers.py --sets --query-passage --data DATA-E5 --out bench/results/answer-sets-query-passage
        # with [answer] query_passage on; DATA-E5: features collected with it (`fit_reader.py collect --query-passage`)

For each corpus of `bench/fit_reader.py` (`CORPORA`: the Debian Reference development set, the Debian Administrator's
Handbook and New Maintainers' Guide sets, LibreOffice Writer/Impress help, the table benchmark's lookups, the bundled
samples) whose collection is laid out under $BUNKO_EVALDATA: `bunko eval run` with the shipped answer settings (a
collection's own bunko.toml pins the defaults of the day it was made) and the reader and confidence fitted on the other
corpora (`[answer] models`, written by `fit_reader.fit(loco_dir=…)`: no figure of a set comes from a model that saw
it), and from its report the figures issue 45 names:
fact in the answer, fact in the evidence, citation precision, abstention precision and recall, expected calibration
error, answer length (characters p50/p90). Then the reader's leave-one-corpus-out table (`fit_reader.fit`, report only:
the shipped models are not rewritten), from the features `fit_reader collect` recorded (`--collect` records them
first, with the code under test).

Each set is marked by whether answer rules were designed on it: the development sets (Debian Reference, samples,
tables, LibreOffice Writer help) were read while rules were written; the Handbook and Maintainers' Guide sets were
written blind to bunko and kept for measuring. The gap between the two groups is reported, as the issue asks; the
reserved corpora (Debian FAQ, GIMP help, Calc help, manual pages) are not among them and are measured by the lead.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import tomli_w

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import fit_reader  # noqa: E402  (a sibling script)

DESIGNED_ON = {"debian-reference": True, "samples": True, "tables": True, "libreoffice-writer": True,
               "debian-handbook": False, "debian-maint-guide": False, "python-docs": False}
"""Whether answer rules were written while reading the set's questions (see the module doc)."""


@dataclass(frozen=True)
class SetFigures:
    corpus: str
    designed_on: bool
    questions: int
    fact: float | None
    fact_in_evidence: float | None
    citation_precision: float | None
    abstention_precision: float | None
    abstention_recall: float | None
    ece: float | None
    answer_chars_p50: float | None
    answer_chars_p90: float | None
    claims: list[list[float] | None] = field(default_factory=list)
    """Per question (as `bunko eval` keeps them): (confidence, right), None where rightness cannot be judged."""
    per_question: dict[str, list[list[float]]] = field(default_factory=dict)
    """Per question, the (numerator, denominator) of fact and abstention precision and recall: what a paired
    comparison of two runs resamples (`compare`)."""


def _shipped_config(folder: Path, query_passage: bool = False, models: Path | None = None, name: str = "shipped") -> Path:
    """A bunko.toml holding the shipped [answer] defaults, so every collection is answered as a new one would be;
    `query_passage`: with that setting on; `models`: the reader and confidence of that folder (`[answer] models`)."""
    from bunko.config import AnswerConfig

    answer = {key: value for key, value in AnswerConfig(query_passage=query_passage).model_dump().items() if value is not None}
    if models is not None:
        answer["models"] = str(models)
    path = folder / f"{name}.toml"
    path.write_text(tomli_w.dumps({"answer": answer}), encoding="utf-8")
    return path


def _rounded(value: Any) -> float | None:
    return None if value is None else round(float(value), 3)


def golden_file(questions: Path, work: Path, corpus: str) -> Path:
    """The set as a `bunko eval` golden file: the table benchmark's own records (`expected`, `lang`, `type`, `source`)
    are rewritten, its aggregates left out as `fit_reader` leaves them (a computed value is judged by bench_tables)."""
    rows = [json.loads(line) for line in questions.read_text(encoding="utf-8").splitlines() if line.strip()]
    if all("expected_answer" in row or "tags" in row for row in rows):
        return questions
    golden = work / f"{corpus}.jsonl"
    with golden.open("w", encoding="utf-8") as out:
        for number, row in enumerate(rows):
            kind = row.get("type", "fact")
            if kind == "aggregate":
                continue
            expected = None if kind == "absent" else row.get("expected")
            item = {"id": f"{corpus}-{number}", "question": row["question"], "expected_answer": expected,
                    "tags": {"lang": row.get("lang"), "type": "absent" if kind == "absent" else "table" if kind == "lookup" else "fact"}}
            if row.get("source") and kind != "absent":
                item["relevant_sources"] = [row["source"]]
            out.write(json.dumps(item, ensure_ascii=False) + "\n")
    return golden


def evaluate_set(
    corpus: str, collection: Path, questions: Path, work: Path, query_passage: bool = False, models: Path | None = None,
) -> SetFigures | str:
    """The set's figures from `bunko eval run`, or why it could not run; `models`: the folder of the reader and
    confidence fitted without this set."""
    out = work / corpus
    questions = golden_file(questions, work, corpus)
    config = _shipped_config(work, query_passage, models, f"shipped-{corpus}")
    command = [sys.executable, "-m", "bunko", "eval", "run", str(questions), "-c", str(collection), "-o", str(out),
               "--config", str(config), "--no-baseline"]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    results = out / "results.json"
    if not results.exists():
        return f"eval failed (exit {done.returncode}): {(done.stderr or done.stdout).strip().splitlines()[-1:]}"
    run = json.loads(results.read_text(encoding="utf-8"))["runs"][-1]
    summary = run["summary"]
    return SetFigures(
        corpus, DESIGNED_ON.get(corpus, True), len(run["records"]), _rounded(summary.get("fact_match")),
        _rounded(summary.get("fact_in_evidence")), _rounded(summary.get("citation_precision")),
        _rounded(summary.get("abstention_precision")), _rounded(summary.get("abstention_recall")),
        _rounded((run.get("reliability") or {}).get("ece")), _rounded(summary.get("answer_chars_p50")),
        _rounded(summary.get("answer_chars_p90")), list(run.get("claims") or []),
        {metric: [list(score.get(metric) or [0.0, 0.0]) for score in run["scores"]] for metric in PAIRED},
    )


PAIRED = ("fact_match", "abstention_precision", "abstention_recall")


def compare(before: dict[str, Any], after: dict[str, Any], confidence: float = 0.95) -> list[dict[str, Any]]:
    """Each set in both reports: after − before of ECE, fact and abstention precision/recall, with the paired
    bootstrap interval over its questions (`bunko.evaluate.bootstrap`, `calibration.ece_difference`): whether a
    change is more than which questions happened to be asked. Sets whose questions differ are left out."""
    from bunko.evaluate.bootstrap import ratio_difference, resample_indices
    from bunko.evaluate.calibration import ece_difference

    earlier = {f["corpus"]: f for f in before["sets"]}
    out = []
    for f in after["sets"]:
        b = earlier.get(f["corpus"])
        if b is None or not f.get("claims") or len(b.get("claims") or []) != len(f["claims"]):
            continue
        indices = resample_indices(len(f["claims"]))
        row: dict[str, Any] = {"corpus": f["corpus"], "designed_on": f["designed_on"]}
        claims = [[tuple(c) if c is not None else None for c in run["claims"]] for run in (b, f)]
        row["ece"] = ece_difference(claims[0], claims[1], indices, confidence)
        for metric in PAIRED:
            pairs = [np.array(run["per_question"][metric], dtype=float).reshape(-1, 2) for run in (b, f)]
            row[metric] = ratio_difference(pairs[0][:, 0], pairs[0][:, 1], pairs[1][:, 0], pairs[1][:, 1], indices, confidence)
        out.append(row)
    return out


def comparison_markdown(rows: list[dict[str, Any]], before: str) -> list[str]:
    def cell(interval: Any) -> str:
        if interval is None:
            return "—"
        mark = " *" if interval.significant else ""
        return f"{interval.diff:+.3f} [{interval.low:+.3f}, {interval.high:+.3f}]{mark}"

    lines = ["", f"## After − before ({before}), paired bootstrap 95 % intervals over each set's questions", "",
             "`*`: the interval excludes 0. ECE: lower is better; the others: higher is better.", "",
             "| set | designed on | ECE | fact | abstention P | abstention R |", "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['corpus']} | {'yes' if r['designed_on'] else 'no'} | {cell(r['ece'])} | {cell(r['fact_match'])} | "
                     f"{cell(r['abstention_precision'])} | {cell(r['abstention_recall'])} |")
    return lines


def _mean(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return round(statistics.mean(present), 3) if present else None


def run_sets(out: Path, collect: bool, query_passage: bool = False, data: Path = fit_reader.DATA) -> dict[str, Any]:
    corpora = [c for c, (collection, questions) in fit_reader.CORPORA.items() if collection.exists() and questions.exists()]
    missing = sorted(set(fit_reader.CORPORA) - set(corpora))
    figures: list[SetFigures] = []
    failures: dict[str, str] = {}
    if collect:
        fit_reader.collect(corpora, data)
    loco_path = out.with_name(out.name + "-reader")
    with tempfile.TemporaryDirectory(prefix="bunko-answer-sets-") as tmp:
        # each set is answered by the reader and confidence fitted without it, as the lead's held-out sets are
        fit_reader.fit(corpora, loco_path, write_models=False, data=data, query_passage=query_passage, loco_dir=Path(tmp) / "loco")
        for corpus in corpora:
            collection, questions = fit_reader.CORPORA[corpus]
            models = Path(tmp) / "loco" / corpus
            result = evaluate_set(corpus, collection, questions, Path(tmp), query_passage, models if models.is_dir() else None)
            if isinstance(result, str):
                failures[corpus] = result
            else:
                figures.append(result)
            print(f"{corpus}: {result if isinstance(result, str) else markdown_row(result)}", file=sys.stderr)
    loco = json.loads(loco_path.with_suffix(".json").read_text(encoding="utf-8"))["leave_one_corpus_out"]
    groups = {flag: [f for f in figures if f.designed_on is flag] for flag in (True, False)}
    gap = {metric: (_mean([getattr(f, metric) for f in groups[True]]), _mean([getattr(f, metric) for f in groups[False]]))
           for metric in ("fact", "citation_precision", "abstention_precision", "abstention_recall", "ece")}
    return {"query_passage": query_passage, "sets": [asdict(f) for f in figures], "missing": missing, "failures": failures, "leave_one_corpus_out": loco,
            "designed_vs_not": {metric: {"designed_on": a, "not_designed_on": b, "gap": None if a is None or b is None else round(a - b, 3)}
                                for metric, (a, b) in gap.items()}}


def markdown_row(f: SetFigures) -> str:
    return (f"| {f.corpus} | {'yes' if f.designed_on else 'no'} | {f.questions} | {f.fact} | {f.fact_in_evidence} | "
            f"{f.citation_precision} | {f.abstention_precision} | {f.abstention_recall} | {f.ece} | "
            f"{f.answer_chars_p50} | {f.answer_chars_p90} |")


def markdown(report: dict[str, Any]) -> str:
    setting = ", `[answer] query_passage = true` (`--query-passage`)" if report.get("query_passage") else ""
    lines = [f"# Every labelled set, shipped defaults{setting} (`python bench/bench_answers.py --sets`)", "",
             "`bunko eval run` per set with the shipped [answer] settings, the reader and confidence fitted without the set "
             "(`[answer] models`: `fit_reader.fit` left it out). *designed on*: answer rules were written while "
             "reading the set. The reserved corpora are not here (the lead measures them).", "",
             "| set | designed on | questions | fact | fact in evidence | citation precision | abstention P | abstention R | ECE | chars p50 | chars p90 |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    lines += [markdown_row(SetFigures(**f)) for f in report["sets"]]
    lines += ["", "## Sets designed on against sets not designed on (means)", "", "| metric | designed on | not designed on | gap |",
              "|---|---|---|---|"]
    for metric, values in report["designed_vs_not"].items():
        lines.append(f"| {metric} | {values['designed_on']} | {values['not_designed_on']} | {values['gap']} |")
    lines += ["", "## The reader left one corpus out (`bench/fit_reader.py`)", "",
              "top-1: share of questions whose best-rated unit holds the answer, among those where a measured unit does; each "
              "row's model was fitted on the other corpora.", "",
              "| held out | top-1 rules | top-1 learned | on its training corpora | gap | ECE | abstain P | abstain R |", "|---|---|---|---|---|---|---|---|"]
    for r in report["leave_one_corpus_out"]:
        lines.append(f"| {r['held_out']} | {r['top1_rules']} | {r['top1_learned']} | {r['top1_learned_on_training']} | "
                     f"{round(r['top1_learned_on_training'] - r['top1_learned'], 3)} | {r['ece']} | {r['abstain_precision']} | {r['abstain_recall']} |")
    if report["missing"]:
        lines += ["", f"Not measured (no collection under $BUNKO_EVALDATA): {', '.join(report['missing'])}."]
    if report["failures"]:
        lines += ["", *[f"- {corpus}: {why}" for corpus, why in report["failures"].items()]]
    return "\n".join(lines) + "\n"


def main(out: Path, collect: bool, query_passage: bool = False, data: Path = fit_reader.DATA, before: Path | None = None) -> None:
    """`before`: an earlier report (its .json) to compare each set with (`compare`)."""
    out.parent.mkdir(parents=True, exist_ok=True)  # the reader's table is written beside it first
    report = run_sets(out, collect, query_passage, data)
    text = markdown(report)
    if before is not None:
        rows = compare(json.loads(before.read_text(encoding="utf-8")), report)
        text += "\n".join(comparison_markdown(rows, before.name)) + "\n"
    out.with_suffix(".json").write_text(json.dumps(report, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    out.with_suffix(".md").write_text(text, encoding="utf-8")
    print(text)
