"""Fit the learned reader (`bunko.rerank.reader`) and the answer confidence, judged by leaving one corpus out.

    python bench/fit_reader.py collect            # ask every labelled question of every corpus; features to DATA
    python bench/fit_reader.py fit                # leave-one-corpus-out report, then the shipped fit on all corpora
    python bench/fit_reader.py collect --query-passage --data DATA-E5   # the same with [answer] query_passage on
    python bench/fit_reader.py fit --query-passage --data DATA-E5 --out bench/results/reader-query-passage

Corpora (labelled, hand-written, none of them reserved): the Debian Reference development set, the Debian
Administrator's Handbook and New Maintainers' Guide sets, LibreOffice Writer/Impress help, the table benchmark's
lookups, and the bundled samples' golden set. Each needs its collection built once (`bunko ingest`; layout in
`CORPORA` below, under $BUNKO_EVALDATA, default /work/evaldata); the samples' is built here. The reserved corpora
(Debian FAQ, GIMP help, LibreOffice Calc help, manual pages) are never read.

`collect` asks each question through `Bunko.ask` and records every unit the extractive scorer measured
(`UnitFeatures`), whether that unit holds an expected answer (`bunko.evaluate.metrics.fact_match`), and the grade's
retrieval figures of the answer. `fit`:

1. The reader: a logistic regression over the standardised unit features, each question weighing one (its
   positive units one half, its negatives one half), L2-penalised, fitted by Newton's method: deterministic.
   Judged per held-out corpus by top-1: the share of questions whose best unit holds the answer, among those
   where some measured unit does.
2. The confidence (`confidence_fit.py`): a logistic over the answer's features (the reader's rating of the quoted
   unit and its lead over the best unit of another document, the retrieval grade, the key-term share, the language;
   for an answer computed from a table, the table route's own), labelled as `bunko eval` judges the answer (absent
   questions always 0), the reader's ratings those of the reader fitted without the question's corpus, then a
   slope-and-shift map of its logit fitted on out-of-fold predictions and the threshold chosen on them. Judged per
   held-out corpus (every step fitted without it) by ECE over every question (a refused one at 0) and by
   abstention precision/recall at its threshold. `collect` asks the table benchmark's computed values too: the
   table route's answers to learn from (the reader's fit and the scored sets leave them out).

`[answer] query_passage` (e5 reads the question as a query and each unit as a passage) has its own reader and
confidence, fitted the same way on questions asked with the setting on (`collect --query-passage`: e5's two features
recorded, grades made by its reader; about 30 ms a unit the first time, minutes per corpus). The default reader is
fitted without those features, on a collection made with the setting off, as shipped.

Results: bench/results/reader.md and .json (reader-query-passage.* for the setting); the models:
src/bunko/rerank/reader_model.json and src/bunko/generate/confidence_model.json (each `_query_passage` for the setting).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "evalsets"
EVALDATA = Path(os.environ.get("BUNKO_EVALDATA", "/work/evaldata"))
RESULTS = ROOT / "bench" / "results"
DATA = EVALDATA / "reader-features"
READER_OUT = ROOT / "src" / "bunko" / "rerank" / "reader_model.json"
QUERY_PASSAGE_OUT = ROOT / "src" / "bunko" / "rerank" / "reader_model_query_passage.json"
CONFIDENCE_OUT = ROOT / "src" / "bunko" / "generate" / "confidence_model.json"
QUERY_PASSAGE_CONFIDENCE_OUT = ROOT / "src" / "bunko" / "generate" / "confidence_model_query_passage.json"
CALIBRATION_OUT = ROOT / "src" / "bunko" / "generate" / "retrieval_calibration.json"

CORPORA: dict[str, tuple[Path, Path]] = {
    "debian-reference": (EVALDATA / "reference" / ".bunko", SHARED / "debian-reference-qa" / "questions.jsonl"),
    "debian-handbook": (EVALDATA / "handbook" / ".bunko", ROOT / "bench" / "evalsets" / "debian-handbook-qa" / "questions.jsonl"),
    "debian-maint-guide": (EVALDATA / "maintguide" / ".bunko", ROOT / "bench" / "evalsets" / "debian-maint-guide-qa" / "questions.jsonl"),
    "python-docs": (EVALDATA / "python" / ".bunko", ROOT / "bench" / "evalsets" / "python-docs-qa" / "questions.jsonl"),
    "libreoffice-writer": (EVALDATA / "writer" / ".bunko", SHARED / "libreoffice-writer-impress-qa" / "questions.jsonl"),
    "tables": (EVALDATA / "tables" / ".bunko", ROOT / "bench" / "tables" / "questions.jsonl"),
    "samples": (EVALDATA / "samples" / ".bunko", ROOT / "src" / "bunko" / "samples" / "golden.jsonl"),
}
RESERVED = ("debian-faq", "gimp-help", "scalc", "manpages")
COLLECTED_READER = "reader_model.json"
AGGREGATE = "aggregate"
"""`collect` keeps the reader it asked with beside the features: `fit` finds each answer's quoted unit by its rating."""

CONFIDENCE_FEATURES = ("reader", "reader_margin", "retrieval", "key_terms", "same_language")
"""The collected grade's features `answer_features` reads (for the retrieval grade's one-feature map); the answer
confidence's own are `confidence_fit.CONFIDENCE_FEATURES`."""
L2 = 1.0


@dataclass
class Question:
    corpus: str
    qid: str
    question: str
    expected: list[str]
    lang: str
    kind: str
    """fact / table / multi-hop / absent / lookup …; "absent" expects an abstention."""


def load_questions(corpus: str, path: Path, aggregates: bool = False) -> list[Question]:
    """The corpus's labelled questions; `aggregates`: with the table benchmark's computed values too (asked by
    `collect` for the confidence of the table route, which computes them; no unit holds one, so the reader's fit
    and the sets `bench_answers --sets` scores leave them out)."""
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        if not line.strip():
            continue
        item = json.loads(line)
        if any(word in json.dumps(item.get("relevant_sources", [])) for word in RESERVED):
            continue
        kind = str(item.get("tags", {}).get("type") or item.get("type") or "fact")
        if kind == AGGREGATE and not aggregates:  # a computed value: no unit holds it
            continue
        expected = item.get("expected_answer", item.get("expected"))
        answers = [] if kind == "absent" or expected is None else [str(e) for e in (expected if isinstance(expected, list) else [expected])]
        lang = str(item.get("tags", {}).get("lang") or item.get("lang") or "en")
        out.append(Question(corpus, str(item.get("id") or f"{corpus}-{number}"), item["question"], answers, lang, kind))
    return out


# -- collect ------------------------------------------------------------------------------------------


def _samples_collection(path: Path) -> None:
    from bunko import Bunko

    if (path / ".ready").exists():
        return
    with Bunko(path) as kb:
        kb.ingest(ROOT / "src" / "bunko" / "samples" / "docs")
    (path / ".ready").touch()


def collect(corpora: Sequence[str], data: Path = DATA, query_passage: bool = False) -> None:
    from bunko import Bunko
    from bunko.config import AnswerConfig
    from bunko.evaluate.metrics import fact_match
    from bunko.rerank.reader import QUERY_PASSAGE_MODEL, READER_MODEL, ReaderModel
    from bunko.retrieve.question import QuestionFacts

    data.mkdir(parents=True, exist_ok=True)
    for corpus in corpora:
        collection, questions_file = CORPORA[corpus]
        if corpus == "samples":
            _samples_collection(collection)
        if not collection.exists():
            print(f"{corpus}: no collection at {collection}; skipped", file=sys.stderr)
            continue
        questions = load_questions(corpus, questions_file, aggregates=True)
        rows = []
        started = time.perf_counter()
        with Bunko(collection) as kb:
            # as shipped: a collection's bunko.toml pins the defaults of its day
            kb.config.answer = AnswerConfig(query_passage=query_passage)
            answerer = kb.answerer
            extractive = answerer.extractive
            original = extractive.score_units
            calls: list[tuple[str, list[Any], list[Any]]] = []

            def recording(
                question: QuestionFacts, hits: list[Any], *args: Any, original: Any = original, calls: list[Any] = calls, **kwargs: Any,
            ) -> list[Any]:
                scored = original(question, hits, *args, **kwargs)
                calls.append((question.text, list(hits[:5]), scored))
                return scored

            extractive.score_units = recording  # type: ignore[method-assign]
            for q in questions:
                calls.clear()
                answer = kb.ask(q.question)
                grade = answer.trace.evidence.grade if answer.trace and answer.trace.evidence else None
                rows.append({
                    **asdict(q),
                    "answered_right": bool(q.expected) and not answer.abstained and fact_match(answer.text, q.expected),
                    # as `bunko eval` judges a confidence: an answer by its text, an abstention by the unit it would have quoted
                    "judged_right": bool(q.expected) and (
                        fact_match(grade.quoted, q.expected) if answer.abstained and grade else fact_match(answer.text, q.expected)
                    ),
                    "abstained": answer.abstained, "confidence": answer.confidence, "answer_chars": len(answer.text),
                    "route": str((answer.trace.evidence.route or {}).get("mode") or "") if answer.trace and answer.trace.evidence else "",
                    "generator": answer.trace.generation.generator if answer.trace and answer.trace.generation else "",
                    "grade": dict(grade.features) if grade else {}, "reason": grade.reason if grade else None,
                    "calls": [
                        {
                            "question": asked,
                            "units": [
                                {"features": measured(s.features, query_passage), "holds": bool(q.expected) and fact_match(s.unit.text, q.expected),
                                 "source": hits[s.unit.hit_index].chunk.source, "text": s.unit.text[:200]}
                                for s in scored if s.features is not None
                            ],
                        }
                        for asked, hits, scored in calls
                    ],
                })
        (data / f"{corpus}.{COLLECTED_READER}").write_text(ReaderModel.load(packaged=QUERY_PASSAGE_MODEL if query_passage else READER_MODEL).to_json() + "\n",
                                             encoding="utf-8")
        out = data / f"{corpus}.jsonl"
        out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
        print(f"{corpus}: {len(rows)} questions in {time.perf_counter() - started:.0f} s -> {out}")


def collected_reader(data: Path, corpus: str, query_passage: bool) -> Any:
    """The reader `corpus` was collected with (collect keeps a copy beside its features; `reader_model.json` there
    for collections made before it did), else the packaged one: its ratings find the unit each answer quoted."""
    from bunko.rerank.reader import QUERY_PASSAGE_MODEL, READER_MODEL, ReaderModel

    for kept in (data / f"{corpus}.{COLLECTED_READER}", data / COLLECTED_READER):
        if kept.exists():
            return ReaderModel.load(kept)
    return ReaderModel.load(packaged=QUERY_PASSAGE_MODEL if query_passage else READER_MODEL)


def measured(features: Any, query_passage: bool) -> dict[str, float]:
    """The unit's features as recorded: e5's only when the setting measured them, so a fit that needs them refuses
    a collection made without."""
    return {name: value for name, value in asdict(features).items() if query_passage or name not in QUERY_PASSAGE}


# -- fit ----------------------------------------------------------------------------------------------


def load_rows(corpora: Sequence[str], data: Path = DATA) -> dict[str, list[dict[str, Any]]]:
    found = {}
    for corpus in corpora:
        path = data / f"{corpus}.jsonl"
        if path.exists():
            found[corpus] = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return found


def groups(rows: Sequence[dict[str, Any]]) -> Iterator[tuple[dict[str, Any], np.ndarray, np.ndarray, list[str]]]:
    """(question row, feature matrix, labels, sources) of each question's first measured call: the question as asked."""
    from bunko.rerank.unit_features import FEATURE_NAMES

    for row in rows:
        calls = [c for c in row["calls"] if c["units"]]
        if not calls or row["kind"] == AGGREGATE:
            continue
        units = calls[0]["units"]
        x = np.array([[u["features"].get(name, np.nan) for name in FEATURE_NAMES] for u in units], dtype=np.float64)
        y = np.array([float(u["holds"]) for u in units])
        yield row, x, y, [u["source"] for u in units]


UNFITTED = ("same_language",)
"""Features measured but left out of the reader: a unit and its translation hold the same fact, so the labels teach
nothing about language; which language is quoted is `evidence.best_unit`'s product rule."""

QUERY_PASSAGE = ("query_passage", "query_passage_gap")
"""Features only `[answer] query_passage` measures: read by the reader fitted with `--query-passage` alone."""


def fit_reader(data: Sequence[tuple[np.ndarray, np.ndarray]], names: Sequence[str]) -> Any:
    from bunko.generate.confidence import fit_logistic
    from bunko.rerank.reader import ReaderModel

    x = np.vstack([g[0] for g in data])[:, [FEATURE_INDEX[n] for n in names]]
    y = np.concatenate([g[1] for g in data])
    weight = np.concatenate([
        np.where(g[1] > 0, 0.5 / max(g[1].sum(), 1), 0.5 / max((g[1] == 0).sum(), 1)) for g in data
    ])
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale < 1e-6] = 1.0
    weights, bias = fit_logistic((x - mean) / scale, y, l2=L2, sample_weight=weight)
    return ReaderModel(tuple(names), mean, scale, weights, bias)


def fit_pairwise(data: Sequence[tuple[np.ndarray, np.ndarray]], names: Sequence[str]) -> Any:
    """Weights that order each question's units (a logistic on the differences of a positive and a negative unit,
    each question weighing one), then a bias and temperature that make them a probability (Platt, pointwise)."""
    from bunko.generate.confidence import fit_logistic
    from bunko.rerank.reader import ReaderModel

    columns = [FEATURE_INDEX[n] for n in names]
    x = np.vstack([g[0] for g in data])[:, columns]
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale < 1e-6] = 1.0
    diffs, weights = [], []
    for features, labels in data:
        z = (features[:, columns] - mean) / scale
        positive, negative = z[labels > 0], z[labels == 0]
        if not len(positive) or not len(negative):
            continue
        pairs = (positive[:, None, :] - negative[None, :, :]).reshape(-1, z.shape[1])
        diffs.append(np.vstack([pairs, -pairs]))
        weights.append(np.full(2 * len(pairs), 1.0 / len(pairs)))
    d = np.vstack(diffs)
    y = np.concatenate([np.concatenate([np.ones(len(dd) // 2), np.zeros(len(dd) // 2)]) for dd in diffs])
    w, _ = fit_logistic(d, y, l2=L2, sample_weight=np.concatenate(weights))
    margin = ((x - mean) / scale) @ w
    labels = np.concatenate([g[1] for g in data])
    temperature, bias = fit_logistic(margin[:, None], labels, l2=0.0)
    return ReaderModel(tuple(names), mean, scale, w * temperature[0], bias)


def top1(model: Any, data: Sequence[tuple[np.ndarray, np.ndarray]]) -> float:
    hits = [g[1][int(np.argmax(probabilities(model, g[0])))] for g in data if g[1].any()]
    return float(np.mean(hits)) if hits else float("nan")


def probabilities(model: Any, x: np.ndarray) -> np.ndarray:
    z = model.bias + ((x[:, [FEATURE_INDEX[n] for n in model.features]] - model.mean) / model.scale) @ model.weights
    return 1.0 / (1.0 + np.exp(-np.clip(z, -50, 50)))


FEATURE_INDEX: dict[str, int] = {}
FIT = fit_pairwise if os.environ.get("BUNKO_READER_FIT") == "pairwise" else fit_reader
"""Pointwise by default: left one corpus out it ranks as well as the pairwise fit (0.71 vs 0.69-0.70 top-1 mean over
six corpora, 2026-12-07) and its output is already a probability."""


def answer_features(model: Any, row: dict[str, Any], x: np.ndarray, y: np.ndarray, sources: list[str]) -> tuple[list[float], float]:
    """The confidence features of the collected run's answer (its grade, as the shipped reader left it) and whether
    `bunko eval` judges it right. Rows the grade refused by a rule (a key term absent…) get confidence 0 at run time
    whatever the model says; they are returned with the label 0 and left out by the caller."""
    grade = dict(row.get("grade") or {})
    if "table_reader" in grade:  # a table answer records its rows' figures as the route's own
        grade["reader"], grade["retrieval"] = grade["table_reader"], grade.get("table_retrieval", 0.0)
    values = {name: float(grade.get(name, 0.0)) for name in CONFIDENCE_FEATURES}
    return [values[name] for name in CONFIDENCE_FEATURES], float(bool(row.get("judged_right")))


def graded(row: dict[str, Any]) -> bool:
    """Whether the model decides this question: no rule refused it first."""
    return not row.get("reason")


def decisions(p: np.ndarray, right: np.ndarray, answerable: np.ndarray, threshold: float) -> dict[str, float]:
    answered = p >= threshold
    abstained = ~answered
    correct_abstain = abstained & ~answerable
    return {
        "answered_right": float((answered & (right > 0)).sum() / max(answerable.sum(), 1)),
        "abstain_precision": float(correct_abstain.sum() / max(abstained.sum(), 1)),
        "abstain_recall": float(correct_abstain.sum() / max((~answerable).sum(), 1)),
    }


def choose_threshold(p: np.ndarray, right: np.ndarray, answerable: np.ndarray) -> float:
    """The threshold of most useful decisions: an answer that is right, or an abstention on a question the documents
    do not answer. A wrong answer and an abstention on an answerable question count nothing: both leave the asker
    without the fact, and a threshold that counted answering an answerable question as right whatever the answer
    said fell so low that absent questions were answered (the samples' abstention recall 1.00 → 0.62)."""
    candidates = np.unique(np.round(p, 3))
    best, best_score = 0.5, -1.0
    for t in candidates:
        answered = p >= t
        score = float((answered & (right > 0)).sum() + (~answered & ~answerable).sum())
        if score > best_score:
            best, best_score = float(t), score
    return best


def fit(
    corpora: Sequence[str], report: Path, without: Sequence[str] = (), write_models: bool = True, data: Path = DATA,
    query_passage: bool = False, loco_dir: Path | None = None, confidence_only: bool = False, no_map: bool = False,
) -> None:
    """`loco_dir`: also write each held-out corpus's models (the reader and confidence fitted without it) to
    `loco_dir/<corpus>/`, for `[answer] models` (bench/answer_sets.py answers each set with them);
    `confidence_only`: of the shipped models, rewrite the answer confidence alone (the reader and the retrieval
    grade's map stay as they are); `no_map`: the confidence without its calibration map (an ablation)."""
    import confidence_fit

    from bunko.generate.confidence import ConfidenceModel, expected_calibration_error, fit_logistic
    from bunko.rerank.reader import ReaderModel
    from bunko.rerank.unit_features import FEATURE_NAMES

    FEATURE_INDEX.update({name: i for i, name in enumerate(FEATURE_NAMES)})
    FITTED = [name for name in FEATURE_NAMES
              if name not in UNFITTED and name not in without and (query_passage or name not in QUERY_PASSAGE)]
    rows = load_rows(corpora, data)
    names = [n for n in rows]
    per = {c: list(groups(rows[c])) for c in names}
    uncollected = sorted({n for c in names for _, x, _, _ in per[c] for n in FITTED if np.isnan(x[:, FEATURE_INDEX[n]]).any()})
    if uncollected:
        raise SystemExit(f"{data}: features {uncollected} were not collected there; run `fit_reader.py collect` again "
                         "(with --query-passage for e5's)")
    rules = ReaderModel.load(ROOT / "bench" / "reader_rules.json")
    readers = confidence_fit.Readers(lambda excluded: FIT([(x, y) for c in names if c not in excluded for _, x, y, _ in per[c]], FITTED))
    graded_by = {c: confidence_fit.graded_questions(rows[c], c, collected_reader(data, c, query_passage), probabilities) for c in names}
    stamp = "python bench/fit_reader.py fit" + (" --query-passage" if query_passage else "")
    table = []
    held: dict[str, confidence_fit.HeldOut] = {}
    for out in names:
        train = [(x, y) for c in names if c != out for _, x, y, _ in per[c]]
        model = readers.without({out})
        test = [(x, y) for _, x, y, _ in per[out]]
        conf = confidence_fit.fit_confidence(graded_by, names, readers, probabilities, choose_threshold, frozenset({out}),
                                             {"fitted_by": stamp, "held_out": out}, mapped=not no_map)
        scored = [q for q in graded_by[out] if not q.computed]  # the questions bench_answers --sets scores
        held[out] = confidence_fit.held_out(scored, model, conf, probabilities)
        if loco_dir is not None:
            write_loco(loco_dir / out, model, conf, query_passage)
        table.append({
            "held_out": out, "questions": len(scored), "with_answer_in_units": int(sum(y.any() for _, y in test)),
            "top1_rules": round(top1(rules, test), 3), "top1_learned": round(top1(model, test), 3),
            "top1_learned_on_training": round(top1(model, train), 3), "threshold": round(conf.threshold, 3),
            **confidence_fit.scores(held[out]),
            "answered_right_now": round(float(np.mean([r["answered_right"] for r, _, _, _ in per[out] if r["expected"]] or [0])), 3),
        })
    all_data = [(x, y) for c in names for _, x, y, _ in per[c]]
    final = FIT(all_data, FITTED)
    final = ReaderModel(final.features, final.mean, final.scale, final.weights, final.bias, {
        "fitted_by": stamp, "corpora": names, "l2": L2,
        "leave_one_corpus_out_top1": {r["held_out"]: r["top1_learned"] for r in table},
        "rules_top1": {r["held_out"]: r["top1_rules"] for r in table},
    })
    confidence = confidence_fit.fit_confidence(graded_by, names, readers, probabilities, choose_threshold, frozenset(), mapped=not no_map, meta={
        "fitted_by": stamp,
        "data": "hand-written questions of the corpora above, asked with the shipped reader"
                + (" of [answer] query_passage" if query_passage else "") + "; each rated again by the reader fitted without "
                "its corpus (bench/confidence_fit.py); label: right as bunko eval judges it (the answer's text, or an "
                "abstention's quoted unit, holds an expected answer); rows a rule refused left out",
    })
    held_p = np.concatenate([held[c].confidence for c in names])
    held_y = np.concatenate([held[c].right for c in names])
    graded_answerable = np.array([bool(r["expected"]) for c in names for r, _, _, _ in per[c] if graded(r)])
    cv_ece, reliability = expected_calibration_error(held_p, held_y)
    conf_all = [answer_features(final, r, x, y, s) for c in names for r, x, y, s in per[c] if graded(r)]
    cx = np.array([f for f, _ in conf_all])
    cy = np.array([r for _, r in conf_all])
    retrieval_index = CONFIDENCE_FEATURES.index("retrieval")
    rw, rb = fit_logistic(cx[:, [retrieval_index]], cy, l2=L2)
    held_retrieval = []
    for out in names:
        rows_out = [answer_features(final, r, x, y, s) for r, x, y, s in per[out] if graded(r)]
        rows_in = [answer_features(final, r, x, y, s) for c in names if c != out for r, x, y, s in per[c] if graded(r)]
        xi = np.array([[f[retrieval_index]] for f, _ in rows_in])
        yi = np.array([v for _, v in rows_in])
        wi, bi = fit_logistic(xi, yi, l2=L2)
        xo = np.array([f[retrieval_index] for f, _ in rows_out])
        held_retrieval.append((1.0 / (1.0 + np.exp(-(xo * wi[0] + bi))), np.array([v for _, v in rows_out])))
    retrieval_p = np.concatenate([p for p, _ in held_retrieval])
    retrieval_y = np.concatenate([v for _, v in held_retrieval])
    retrieval_ece, _ = expected_calibration_error(retrieval_p, retrieval_y)
    calibration = ConfidenceModel(["retrieval"], rw.tolist(), rb, {
        "fitted_by": "python bench/fit_reader.py fit", "corpora": names,
        "maps": "retrieval (bunko.generate.retrieval_grade) onto P(the reader's answer is right)",
        "cv_ece": round(retrieval_ece, 4), "threshold": round(choose_threshold(retrieval_p, retrieval_y, graded_answerable), 4),
        "threshold_chosen_on": "leave-one-corpus-out predictions",
    })
    if write_models and query_passage:
        QUERY_PASSAGE_OUT.write_text(final.to_json() + "\n", encoding="utf-8")
        QUERY_PASSAGE_CONFIDENCE_OUT.write_text(confidence.to_json() + "\n", encoding="utf-8")
    elif write_models:
        if not confidence_only:
            CALIBRATION_OUT.write_text(calibration.to_json() + "\n", encoding="utf-8")
            READER_OUT.write_text(final.to_json() + "\n", encoding="utf-8")
        CONFIDENCE_OUT.write_text(confidence.to_json() + "\n", encoding="utf-8")
    result = {"leave_one_corpus_out": table, "weights": dict(zip(final.features, final.weights.round(4).tolist(), strict=True)),
              "retrieval_only_cv_ece": round(retrieval_ece, 4),
              "confidence": {"features": confidence.features, "weights": confidence.weights, "bias": confidence.bias,
                             "map": confidence.meta["map"],
                             "cv_ece": round(cv_ece, 4), "threshold": confidence.threshold, "reliability": reliability,
                             "fold_ece_raw": confidence.meta["fold_ece_raw"], "fold_ece_mapped": confidence.meta["fold_ece_mapped"]}}
    report.with_suffix(".json").write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    report.with_suffix(".md").write_text(markdown(result), encoding="utf-8")
    print(markdown(result))


def write_loco(folder: Path, reader: Any, confidence: Any, query_passage: bool) -> None:
    """One held-out corpus's models, named as `[answer] models` reads them."""
    from bunko.generate.confidence import FITTED_MODEL, QUERY_PASSAGE_CONFIDENCE
    from bunko.rerank.reader import READER_MODEL

    folder.mkdir(parents=True, exist_ok=True)
    (folder / READER_MODEL).write_text(reader.to_json() + "\n", encoding="utf-8")
    (folder / (QUERY_PASSAGE_CONFIDENCE if query_passage else FITTED_MODEL)).write_text(confidence.to_json() + "\n", encoding="utf-8")


def markdown(result: dict[str, Any]) -> str:
    lines = ["# The learned reader, left one corpus out (`python bench/fit_reader.py fit`)", "",
             "top-1: share of questions whose best-rated unit holds the expected answer, among those where a measured unit "
             "does. `rules`: the hand-set weights the reader replaced (bench/reader_rules.json); `learned`: fitted on the "
             "other corpora only. Confidence (bench/confidence_fit.py): every step fitted without the held-out corpus "
             "(the readers rating its training questions, the logistic, the map, the threshold); ECE over every question "
             "of the held-out corpus as `bunko eval` judges it (a refused one at confidence 0; computed table values "
             "left out, as `bench_answers --sets` scores), abstention at its threshold, the reader fitted without the "
             "corpus choosing the unit. `answered_right_now`: fact in the answer of the collected run.", "",
             "| held out | questions | answer in units | top-1 rules | top-1 learned | (on its training corpora) | ECE | threshold | answered right | abstain P | abstain R | answered right now |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in result["leave_one_corpus_out"]:
        lines.append(f"| {r['held_out']} | {r['questions']} | {r['with_answer_in_units']} | {r['top1_rules']} | {r['top1_learned']} | "
                     f"{r['top1_learned_on_training']} | {r['ece']} | {r['threshold']} | {r['answered_right']} | {r['abstain_precision']} | "
                     f"{r['abstain_recall']} | {r['answered_right_now']} |")
    gaps = [r["top1_learned_on_training"] - r["top1_learned"] for r in result["leave_one_corpus_out"]]
    lines += ["", f"Gap, top-1 on the corpora fitted minus the corpus held out: mean {statistics.mean(gaps):+.3f}, "
              f"largest {max(gaps):+.3f}.", "", "## Reader weights (standardised features)", ""]
    lines += [f"- `{name}`: {weight:+.3f}" for name, weight in sorted(result["weights"].items(), key=lambda kv: -abs(kv[1]))]
    c = result["confidence"]
    lines += ["", "## Confidence", "", f"Features {c['features']}, weights {c['weights']} (the map folded in), bias {c['bias']}; "
              f"map {c.get('map')}; ECE over held-out predictions {c['cv_ece']}, threshold {c['threshold']}. The retrieval "
              f"grade alone, mapped the same way (`[answer] confidence = \"calibrated\"`, not refitted by --confidence-only): "
              f"ECE {result['retrieval_only_cv_ece']}.", ""]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("step", choices=["collect", "fit"])
    parser.add_argument("--corpus", nargs="*", default=list(CORPORA))
    parser.add_argument("--out", type=Path, default=RESULTS / "reader")
    parser.add_argument("--without", nargs="*", default=[], help="features left out of the fit (an ablation)")
    parser.add_argument("--report-only", action="store_true", help="write the report, not the shipped models")
    parser.add_argument("--no-map", action="store_true", help="the confidence without its calibration map (an ablation; "
                        "use with --report-only)")
    parser.add_argument("--confidence-only", action="store_true",
                        help="of the shipped models, rewrite confidence_model.json alone (the reader is kept)")
    parser.add_argument("--data", type=Path, default=DATA, help="where collect writes the features and fit reads them")
    parser.add_argument("--query-passage", action="store_true",
                        help="collect with [answer] query_passage on / fit its reader (e5's features too) and confidence")
    args = parser.parse_args()
    if args.step == "collect":
        collect(args.corpus, args.data, args.query_passage)
    else:
        fit(args.corpus, args.out, args.without, write_models=not args.report_only, data=args.data,
            query_passage=args.query_passage, confidence_only=args.confidence_only, no_map=args.no_map)


if __name__ == "__main__":
    main()
