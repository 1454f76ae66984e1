"""Answer quality and speed on the samples' golden set (63 questions in ja/zh/en, 13 with no answer).

    python bench/bench_answers.py                    # extractive generator, light and no rerank
    python bench/bench_answers.py --sets --collect   # every labelled set, the reader left one corpus out (answer_sets.py)
    python bench/bench_answers.py --sets --query-passage --data DATA-E5   # the same with [answer] query_passage on
    python bench/bench_answers.py --sets --compare bench/results/answer-sets-loco-before.json   # each set's change, with
                                                     # its paired bootstrap interval against an earlier report
    python bench/bench_answers.py --debian ~/.cache/bunko-evalsets/debian-reference/runs/REV-*-html [HANDBOOK_RUN]
    (HANDBOOK_RUN: a folder named …handbook… holding questions.jsonl of bench/evalsets/debian-handbook-qa and the .bunko
    collection of its pages)
                                                     # … and the Debian Reference QA set under both grades
    BUNKO_BENCH_OPENAI_URL=http://127.0.0.1:8000/v1 BUNKO_BENCH_OPENAI_MODEL=qwen2.5-7b-instruct \\
        python bench/bench_answers.py                # … and an OpenAI-compatible server

Per configuration and language:

- fact_in_answer: the expected fact appears in the answer (answerable questions);
- citation_precision: of the answers' sentences that state the expected fact, the share
  with a cited chunk that contains the fact (the cited evidence really holds the support);
- cited_relevant: the answer cites a document the golden set names as relevant;
- citation_coverage: share of answer sentences with at least one valid citation;
- supported: share of answer sentences the citation check marks supported;
- abstain_precision / abstain_recall: abstentions that were right / absent questions abstained on;
- latency p50 / p95 of `ask` (seconds, one question at a time, 2-core machine).

A calibration section measures the citation check's two signals (lexical share, semantic
cosine) on claims built from the golden set — question + expected fact — against the chunk
holding the fact (should pass), against the best-ranked chunk of another document and with the
fact's number changed (should fail), and reports how the thresholds in
`bunko.generate.citations` separate them. Results: bench/results/answers.json and .md.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from bunko import Bunko, Config
from bunko.generate.citations import LEXICAL_MIN, SEMANTIC_MIN, CitationChecker
from bunko.schema import Hit

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "src" / "bunko" / "samples"
RESULTS = ROOT / "bench" / "results"


def fold(text: str) -> str:
    """Compare facts without spaces and thousands separators: '12,000円' in '12000円'."""
    return re.sub(r"[\s,，]", "", text)


def run_config(name: str, config: Config, kb_path: Path, golden: list[dict[str, Any]]) -> dict[str, Any]:
    rows = []
    with Bunko(kb_path, config=config) as kb:
        kb.ask("warm up")  # model loading is not a question's latency
        for item in golden:
            started = time.perf_counter()
            answer = kb.ask(item["question"])
            seconds = time.perf_counter() - started
            absent = item["tags"]["type"] == "absent"
            fact = item["expected_answer"]
            relevant = set(item["relevant_sources"])
            chunk_text = {c.chunk_id: c.text for c in kb.store.get_chunks(
                [c.chunk_id for s in answer.sentences for c in s.citations])}
            fact_sentences = [s for s in answer.sentences if fact and fold(fact) in fold(s.text)]
            rows.append({
                "id": item["id"], "lang": item["tags"]["lang"], "absent": absent, "abstained": answer.abstained,
                "fact": bool(fact) and not answer.abstained and fold(fact) in fold(answer.text),
                "fact_sentences": len(fact_sentences),
                "fact_cited": sum(any(fold(fact) in fold(chunk_text.get(c.chunk_id, "")) for c in s.citations) for s in fact_sentences),
                "cited_relevant": bool({Path(c.source).name for s in answer.sentences for c in s.citations} & relevant),
                "sentences": len(answer.sentences),
                "cited_sentences": sum(bool(s.citations) for s in answer.sentences),
                "supported_sentences": sum(s.verdict == "supported" for s in answer.sentences),
                "confidence": answer.confidence, "seconds": seconds, "question": item["question"], "answer": answer.text,
            })
    report: dict[str, Any] = {"name": name, "all": summarize(rows)}
    for lang in ("ja", "zh", "en"):
        report[lang] = summarize([r for r in rows if r["lang"] == lang])
    report["rows"] = rows
    return report


def ratio(num: float, den: float) -> float | None:
    return round(num / den, 3) if den else None


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    answerable = [r for r in rows if not r["absent"]]
    absent = [r for r in rows if r["absent"]]
    abstained = [r for r in rows if r["abstained"]]
    answered = [r for r in rows if not r["abstained"]]
    seconds = sorted(r["seconds"] for r in rows)
    return {
        "n": len(rows),
        "fact_in_answer": ratio(sum(r["fact"] for r in answerable), len(answerable)),
        "citation_precision": ratio(sum(r["fact_cited"] for r in answered), sum(r["fact_sentences"] for r in answered)),
        "cited_relevant": ratio(sum(r["cited_relevant"] for r in answerable if not r["abstained"]),
                                sum(not r["abstained"] for r in answerable)),
        "citation_coverage": ratio(sum(r["cited_sentences"] for r in answered), sum(r["sentences"] for r in answered)),
        "supported": ratio(sum(r["supported_sentences"] for r in answered), sum(r["sentences"] for r in answered)),
        "abstain_precision": ratio(sum(r["absent"] for r in abstained), len(abstained)),
        "abstain_recall": ratio(sum(r["abstained"] for r in absent), len(absent)),
        "latency_p50_s": round(statistics.median(seconds), 4) if seconds else None,
        "latency_p95_s": round(seconds[min(len(seconds) - 1, int(0.95 * len(seconds)))], 4) if seconds else None,
    }


def _swap_number(fact: str) -> str | None:
    match = re.search(r"\d", fact)
    if not match:
        return None
    digit = match.group()
    return fact[: match.start()] + str((int(digit) + 3) % 10 or 7) + fact[match.end():]


def calibrate(kb_path: Path, golden: list[dict[str, Any]]) -> dict[str, Any]:
    """Signals of the citation check on supported vs unsupported claims (see the module docstring)."""
    pairs: list[tuple[str, float, float, bool]] = []  # (kind, lexical, semantic, numbers_ok)
    with Bunko(kb_path) as kb:
        checker = CitationChecker(kb.embedder, kb.analyzer, lazy=False)
        chunks = kb.store.chunks()
        for item in golden:
            fact = item["expected_answer"]
            if not fact:
                continue
            holding = [c for c in chunks if Path(c.source).name in item["relevant_sources"] and fold(fact) in fold(c.text)]
            if not holding:
                continue
            claim = f"{item['question'].rstrip('？?')}：{fact}"
            other = next((h for h in kb.search(item["question"], k=10) if Path(h.chunk.source).name not in item["relevant_sources"]), None)
            cases: list[tuple[str, str, Hit]] = [("right_chunk", claim, Hit(holding[0], 1.0))]
            if other is not None:
                cases.append(("other_document", claim, other))
            swapped = _swap_number(fact)
            if swapped and swapped != fact:
                cases.append(("number_changed", f"{item['question'].rstrip('？?')}：{swapped}", Hit(holding[0], 1.0)))
            for kind, text, hit in cases:
                [checked] = checker.check_sentences([(text, [1])], [hit])
                pairs.append((kind, checked.lexical, checked.semantic, checked.numbers_ok))

    def verdict(lexical: float, semantic: float, numbers_ok: bool, lex_min: float, sem_min: float) -> bool:
        return (lexical >= lex_min or semantic >= sem_min) and numbers_ok

    def accuracy(lex_min: float, sem_min: float) -> dict[str, float]:
        out = {}
        for kind in ("right_chunk", "other_document", "number_changed"):
            selected = [p for p in pairs if p[0] == kind]
            passed = sum(verdict(p[1], p[2], p[3], lex_min, sem_min) for p in selected)
            out[kind] = round((passed if kind == "right_chunk" else len(selected) - passed) / max(len(selected), 1), 3)
        return out

    grid = [(lex / 20, sem / 50) for lex in range(6, 19) for sem in range(20, 46)]
    best = max(grid, key=lambda t: (sum(accuracy(*t).values()), -abs(t[0] - LEXICAL_MIN) - abs(t[1] - SEMANTIC_MIN)))
    summary = {}
    for kind in ("right_chunk", "other_document", "number_changed"):
        selected = [p for p in pairs if p[0] == kind]
        summary[kind] = {
            "n": len(selected),
            "lexical_median": round(statistics.median(p[1] for p in selected), 3) if selected else None,
            "semantic_median": round(statistics.median(p[2] for p in selected), 3) if selected else None,
        }
    return {
        "signals": summary,
        "thresholds": {"lexical_min": LEXICAL_MIN, "semantic_min": SEMANTIC_MIN},
        "correct_at_thresholds": accuracy(LEXICAL_MIN, SEMANTIC_MIN),
        "best_on_grid": {"lexical_min": best[0], "semantic_min": round(best[1], 2), "correct": accuracy(*best)},
    }


REAL_SETS = {
    "handbook": ("Debian Administrator's Handbook QA",
                 "Hand-written questions (`bench/evalsets/debian-handbook-qa/`, the calibration's training set), collection of its "
                 "pages in en/ja/zh. In-sample for the fitted and calibrated grades, whose training included these questions: their "
                 "cross-validated figures are in `confidence.md`."),
    "maint-guide": ("Debian New Maintainers' Guide QA",
                    "Hand-written questions (`bench/evalsets/debian-maint-guide-qa/`), written from the pages alone and never tuned "
                    "on; collection of its chapter pages (HTML) or its book (PDF), en/ja/zh in one."),
}
DEVELOPMENT_SET = ("Debian Reference QA", "Hand-written questions (`../shared/evalsets/debian-reference-qa/`), collection built "
                   "by its `run.sh`; no fit has seen them.")


def real_set(scope: str) -> tuple[str, str]:
    """The title and provenance of a real-document run, told by its folder's name."""
    return next((named for key, named in REAL_SETS.items() if key in scope), DEVELOPMENT_SET)


def markdown(report: dict[str, Any]) -> str:
    keys = ["fact_in_answer", "citation_precision", "cited_relevant", "citation_coverage", "supported",
            "abstain_precision", "abstain_recall", "latency_p50_s", "latency_p95_s"]
    lines = ["# Answer benchmark", "", f"`python bench/bench_answers.py` on {report['questions']} golden questions "
             f"({report['absent']} without an answer) over the bundled samples; {report['machine']}.", ""]
    lines += ["| configuration | lang | " + " | ".join(keys) + " |", "|" + "---|" * (len(keys) + 2)]
    for run in report["runs"]:
        for lang in ("all", "ja", "zh", "en"):
            values = ["" if run[lang][k] is None else str(run[lang][k]) for k in keys]
            lines.append(f"| {run['name']} | {lang} | " + " | ".join(values) + " |")
    cal = report["calibration"]
    lines += ["", "## Citation check calibration", "",
              "Claims = golden question + expected fact, checked against: the chunk holding the fact (should pass), "
              "the best-ranked chunk of another document and the claim with its number changed (should fail).", "",
              "| case | n | lexical median | semantic median |", "|---|---|---|---|"]
    for kind, s in cal["signals"].items():
        lines.append(f"| {kind} | {s['n']} | {s['lexical_median']} | {s['semantic_median']} |")
    lines += ["", f"Thresholds in use: lexical ≥ {cal['thresholds']['lexical_min']} or semantic ≥ {cal['thresholds']['semantic_min']} "
              f"(and every stated number present): share judged correctly {cal['correct_at_thresholds']}.",
              f"Best pair on the grid: {cal['best_on_grid']}.", ""]
    if report.get("skipped"):
        lines += [f"Skipped: {report['skipped']}", ""]
    for run in report.get("real_documents", []):
        metrics = list(next(iter(run["summary"].values())))
        title, about = real_set(run["scope"])
        lines += [f"## Real documents: {title}, {run['scope']} ({run['settings']})", "", about, "",
                  "| group | " + " | ".join(metrics) + " |", "|---" * (len(metrics) + 1) + "|"]
        lines += [f"| {name} | " + " | ".join(str(v) for v in values.values()) + " |" for name, values in run["summary"].items()]
        lines.append("")
    return "\n".join(lines)


def real_document_runs(run_dirs: list[Path]) -> list[dict[str, Any]]:
    """The development set on real documents, beside the samples: each run.sh folder under both grades."""
    from bench_debian_qa import ask_all, summarize

    runs = []
    for run_dir in run_dirs:
        questions = [json.loads(line) for line in (run_dir / "questions.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
        for grade in ("retrieval", "fitted"):
            with Bunko(run_dir / ".bunko", create=False) as kb:
                kb.config.answer.confidence = grade  # type: ignore[assignment]
                kb.config.answer.min_confidence = None
                settings = {"confidence": grade, "min_confidence": kb.answerer.min_confidence()}
                runs.append({"scope": run_dir.name, "settings": settings, "summary": summarize(ask_all(kb, questions))})
    return runs


def fit_reader_data() -> Path:
    from fit_reader import DATA

    return DATA


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=str(RESULTS / "answers"))
    parser.add_argument("--debian", type=Path, nargs="*", default=[],
                        help="run.sh folders of the Debian Reference QA set (…/runs/REV-SCOPE-FORM), or folders holding a .bunko "
                        "collection and questions.jsonl of the Handbook or maint-guide sets (named …handbook… / …maint-guide…), "
                        "to report beside the samples")
    parser.add_argument("--sets", action="store_true", help="every labelled set with the shipped defaults, the reader left one "
                        "corpus out, and the gap between sets designed on and not (bench/answer_sets.py); writes --out, default "
                        "bench/results/answer-sets")
    parser.add_argument("--collect", action="store_true", help="with --sets: record the reader's features first (fit_reader collect)")
    parser.add_argument("--query-passage", action="store_true", help="with --sets: answer with [answer] query_passage on")
    parser.add_argument("--data", type=Path, default=None, help="with --sets: the reader's collected features (fit_reader --data)")
    parser.add_argument("--compare", type=Path, default=None, help="with --sets: an earlier report's .json; each set's change "
                        "with its paired bootstrap interval")
    args = parser.parse_args()
    if args.sets:
        from answer_sets import main as answer_sets

        out = Path(args.out) if args.out != str(RESULTS / "answers") else RESULTS / "answer-sets"
        answer_sets(out, args.collect, args.query_passage, args.data or fit_reader_data(), args.compare)
        return
    golden = [json.loads(line) for line in (SAMPLES / "golden.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    configs: list[tuple[str, Config]] = []
    for method in ("light", "none"):
        config = Config()
        config.rerank.method = method
        configs.append((f"extractive, rerank={method}", config))
    skipped = None
    url = os.environ.get("BUNKO_BENCH_OPENAI_URL")
    if url:
        config = Config()
        config.answer.generator = "openai"
        config.llm.base_url = url
        config.llm.model = os.environ.get("BUNKO_BENCH_OPENAI_MODEL", "default")
        configs.append((f"openai {config.llm.model}, rerank=light", config))
    else:
        skipped = "openai generator (set BUNKO_BENCH_OPENAI_URL and BUNKO_BENCH_OPENAI_MODEL to run it)"
    with tempfile.TemporaryDirectory() as tmp:
        kb_path = Path(tmp) / ".bunko"
        with Bunko(kb_path) as kb:
            kb.ingest(SAMPLES / "docs")
        runs = [run_config(name, config, kb_path, golden) for name, config in configs]
        calibration = calibrate(kb_path, golden)
    report = {
        "questions": len(golden), "absent": sum(g["tags"]["type"] == "absent" for g in golden),
        "machine": f"{os.cpu_count()} cores", "runs": runs, "calibration": calibration, "skipped": skipped,
        "real_documents": real_document_runs(args.debian),
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(report, ensure_ascii=False, indent=1), encoding="utf-8")
    out.with_suffix(".md").write_text(markdown(report), encoding="utf-8")
    print(markdown(report))


if __name__ == "__main__":
    main()
