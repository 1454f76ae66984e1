"""Fit the question-kind classifier (`bunko.generate.kind_classifier`) and measure it against the rules.

    PYTHONPATH=src python bench/fit_question_kinds.py              # cross-validate, report, write the model
    PYTHONPATH=src python bench/fit_question_kinds.py --no-write   # measure only

Data: bench/question_kinds/questions.jsonl (480 questions, 30 per kind per language + 10 single-hop each, written for this; see the
README there) — never the evaluation sets, which are only *classified* here, to count how many real document
questions the classifier would call out of scope (each would lose its answer if out-of-scope questions skipped
retrieval).

- features: `kind_classifier.feature_names` over the multilingual analyzer with the rules' flags
  (`analysis.rule_flags`), hashed into DIM signed buckets;
- model: one-vs-rest logistic regressions, each `confidence.fit_logistic` (Newton, L2), normalised to one
  distribution; the L2 strength is chosen by cross-validated accuracy from L2_GRID;
- grouped k-fold cross-validation: the three languages' files are parallel line by line (the Japanese and much of
  the Chinese are the English questions in other words), so a question and its translations share a fold — no
  question is judged by a model that saw its translation;
- language held out: trained on two languages, tested on the third (how far the features carry to a language the
  fit has not seen: little, since words and characters differ; Han characters shared by ja and zh carry some);
- three deciders on the held-out predictions: the rules alone (their kinds mapped to the five classes,
  `analysis.RULE_CLASSES`), the classifier alone, and rules + classifier as `analysis.analyze` combines them with a
  threshold chosen here (the classifier decides when its probability reaches it);
- out of scope on real questions: the final model over the samples' golden set and the Debian Reference set.

Writes src/bunko/generate/question_kinds_model.json and bench/results/question-kinds.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from bunko.generate.analysis import RULE_CLASSES, by_rules, certain, rule_flags
from bunko.generate.confidence import fit_logistic
from bunko.generate.kind_classifier import KINDS, MODEL_FILE, KindClassifier, feature_names, hashed
from bunko.text.analyzers import get_analyzer

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "bench" / "question_kinds" / "questions.jsonl"
RESULTS = ROOT / "bench" / "results"
MODEL = ROOT / "src" / "bunko" / "generate" / MODEL_FILE
REAL_SETS = {
    "samples golden set (63)": ROOT / "src" / "bunko" / "samples" / "golden.jsonl",
    "Debian Reference QA (120)": ROOT.parent / "shared" / "evalsets" / "debian-reference-qa" / "questions.jsonl",
}
ANALYZER = "multilingual"
DIM = 1024
FOLDS = 5
L2_GRID = (0.03, 0.3)
THRESHOLDS = tuple(round(t, 2) for t in np.arange(0.3, 0.96, 0.05))
SEED = 7


def load() -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
    position: Counter[str] = Counter()
    for row in rows:  # the files are parallel line by line: the n-th question of each language shares a group
        row["group"] = position[row["language"]]
        position[row["language"]] += 1
    return rows


def fit(x: np.ndarray, labels: np.ndarray, l2: float) -> tuple[np.ndarray, np.ndarray]:
    weights, biases = [], []
    for k in range(len(KINDS)):
        w, b = fit_logistic(x, (labels == k).astype(np.float64), l2=l2, iterations=20)
        weights.append(w)
        biases.append(b)
    return np.vstack(weights), np.asarray(biases)


def probabilities(x: np.ndarray, weights: np.ndarray, biases: np.ndarray) -> np.ndarray:
    sigmoid = 1.0 / (1.0 + np.exp(-np.clip(x @ weights.T + biases, -50, 50)))
    return sigmoid / sigmoid.sum(axis=1, keepdims=True)


def held_out(x: np.ndarray, labels: np.ndarray, folds: np.ndarray, l2: float) -> np.ndarray:
    out = np.zeros((len(labels), len(KINDS)))
    for fold in np.unique(folds):
        test = folds == fold
        weights, biases = fit(x[~test], labels[~test], l2)
        out[test] = probabilities(x[test], weights, biases)
    return out


def combined(rule_kind: str, p: np.ndarray, threshold: float) -> str:
    """`analysis.analyze`'s decision, in the five classes."""
    best = int(p.argmax())
    kind = KINDS[best]
    if rule_kind in ("greeting", "arithmetic", "conversation") or p[best] < threshold:
        return RULE_CLASSES[rule_kind]
    if rule_kind == "multi_part" and kind in ("single_hop", "multi_hop"):
        return RULE_CLASSES[rule_kind]
    return kind


def rule_kind_of(question: str) -> str:
    analyzer = get_analyzer(ANALYZER)
    sure = certain(question)
    return (sure or by_rules(question, analyzer)).kind


def accuracy(predicted: list[str], truth: list[str]) -> float:
    return sum(p == t for p, t in zip(predicted, truth, strict=True)) / len(truth)


def confusion(predicted: list[str], truth: list[str]) -> dict[str, dict[str, int]]:
    table = {t: dict.fromkeys(KINDS, 0) for t in KINDS}
    for p, t in zip(predicted, truth, strict=True):
        table[t][p] += 1
    return table


def per_class(predicted: list[str], truth: list[str]) -> dict[str, dict[str, float]]:
    scores = {}
    for kind in KINDS:
        tp = sum(p == t == kind for p, t in zip(predicted, truth, strict=True))
        said = sum(p == kind for p in predicted)
        real = sum(t == kind for t in truth)
        scores[kind] = {"precision": round(tp / said, 3) if said else 0.0, "recall": round(tp / real, 3) if real else 0.0}
    return scores


def deciders(rows: list[dict[str, Any]], probs: np.ndarray, rule_kinds: list[str], threshold: float) -> dict[str, list[str]]:
    return {
        "rules": [RULE_CLASSES[r] for r in rule_kinds],
        "classifier": [KINDS[int(p.argmax())] for p in probs],
        "rules+classifier": [combined(r, p, threshold) for r, p in zip(rule_kinds, probs, strict=True)],
    }


def real_questions(model: KindClassifier) -> dict[str, Any]:
    """The final model over real document questions: every one is in scope, so each out-of-scope call is a loss."""
    analyzer = get_analyzer(ANALYZER)
    report: dict[str, Any] = {}
    for name, path in REAL_SETS.items():
        if not path.exists():
            report[name] = {"missing": str(path)}
            continue
        questions = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        kinds: Counter[str] = Counter()
        by_type: dict[str, Counter[str]] = {}
        oos: list[dict[str, Any]] = []
        for q in questions:
            predicted = model.predict(q["question"], rule_flags(q["question"], analyzer))
            decided = combined(rule_kind_of(q["question"]), np.array([predicted.probabilities[k] for k in KINDS]), model.threshold)
            kinds[decided] += 1
            by_type.setdefault(str(q.get("tags", {}).get("type", "?")), Counter())[decided] += 1
            if predicted.kind == "out_of_scope":
                oos.append({"question": q["question"], "probability": predicted.probability})
        top = sorted((o["probability"] for o in oos), reverse=True)
        report[name] = {"questions": len(questions), "decided": dict(kinds), "by_type": {t: dict(c) for t, c in by_type.items()},
                        "out_of_scope_argmax": sorted(oos, key=lambda o: -o["probability"]),
                        "highest_out_of_scope_probability": top[0] if top else 0.0}
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--no-write", action="store_true", help="Measure only; leave the packaged model as it is.")
    args = parser.parse_args()
    started = time.time()
    rows = load()
    analyzer = get_analyzer(ANALYZER)
    x = np.vstack([hashed(feature_names(r["question"], analyzer, rule_flags(r["question"], analyzer)), DIM) for r in rows])
    labels = np.array([KINDS.index(r["kind"]) for r in rows])
    truth = [r["kind"] for r in rows]
    languages = np.array([r["language"] for r in rows])
    rule_kinds = [rule_kind_of(r["question"]) for r in rows]
    groups = np.array([r["group"] for r in rows])
    order = np.random.default_rng(SEED).permutation(groups.max() + 1)
    folds = order[groups] % FOLDS

    by_l2 = {}
    for l2 in L2_GRID:
        probs = held_out(x, labels, folds, l2)
        by_l2[l2] = (accuracy([KINDS[int(p.argmax())] for p in probs], truth), probs)
    l2 = max(L2_GRID, key=lambda value: (round(by_l2[value][0], 3), value))
    probs = by_l2[l2][1]
    by_threshold = {t: accuracy(deciders(rows, probs, rule_kinds, t)["rules+classifier"], truth) for t in THRESHOLDS}
    threshold = max(THRESHOLDS, key=lambda t: (round(by_threshold[t], 3), t))  # ties: the stricter threshold
    cv = deciders(rows, probs, rule_kinds, threshold)

    language_probs = held_out(x, labels, languages, l2)
    language_held = deciders(rows, language_probs, rule_kinds, threshold)

    weights, biases = fit(x, labels, l2)
    model = KindClassifier(list(KINDS), DIM, weights, biases, ANALYZER, threshold, {})
    real = real_questions(model)

    def summary(predicted: dict[str, list[str]]) -> dict[str, Any]:
        return {name: {"accuracy": round(accuracy(p, truth), 3),
                       "per_language": {lang: round(accuracy([p[i] for i in np.flatnonzero(languages == lang)],
                                                             [truth[i] for i in np.flatnonzero(languages == lang)]), 3)
                                        for lang in ("en", "ja", "zh")},
                       "per_class": per_class(p, truth), "confusion": confusion(p, truth)} for name, p in predicted.items()}

    report = {
        "data": {"questions": len(rows), "per_language_kind": {f"{k[0]}/{k[1]}": v for k, v in sorted(Counter(zip(languages, truth, strict=True)).items())}},
        "features": {"analyzer": ANALYZER, "dim": DIM}, "l2_grid": {str(k): round(v[0], 3) for k, v in by_l2.items()}, "l2": l2,
        "thresholds": {str(k): round(v, 3) for k, v in by_threshold.items()}, "threshold": threshold,
        "cross_validation": summary(cv), "language_held_out": summary(language_held), "real_questions": real,
        "seconds": round(time.time() - started, 1),
    }
    model.meta = {"fitted_on": str(DATA.relative_to(ROOT)), "questions": len(rows), "l2": l2,
                  "cv_accuracy": report["cross_validation"]["classifier"]["accuracy"],
                  "cv_accuracy_with_rules": report["cross_validation"]["rules+classifier"]["accuracy"], "report": "bench/results/question-kinds.md"}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "question-kinds.json").write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    (RESULTS / "question-kinds.md").write_text(markdown(report), encoding="utf-8")
    if not args.no_write:
        MODEL.write_text(model.to_json() + "\n", encoding="utf-8")
    print(markdown(report))


def markdown(report: dict[str, Any]) -> str:
    lines = [
        "# Question kinds: rules, the learned classifier, and both",
        "",
        "    PYTHONPATH=src python bench/fit_question_kinds.py",
        "",
        f"{report['data']['questions']} labelled questions (bench/question_kinds/), features hashed into "
        f"{report['features']['dim']} buckets over the {report['features']['analyzer']} analyzer, one-vs-rest logistic regression "
        f"(L2 {report['l2']}, chosen from {report['l2_grid']} by cross-validated accuracy). Rules + classifier: the classifier "
        f"decides when its probability is at least {report['threshold']} (chosen on the held-out predictions; accuracy by "
        f"threshold: {report['thresholds']}).",
        "",
    ]
    for title, key in (("Grouped 5-fold cross-validation (a question and its translations in one fold)", "cross_validation"),
                       ("Language held out (trained on the other two languages)", "language_held_out")):
        lines += [f"## {title}", "", "| decider | accuracy | en | ja | zh |", "|---|---|---|---|---|"]
        for name, s in report[key].items():
            per = s["per_language"]
            lines.append(f"| {name} | {s['accuracy']:.3f} | {per['en']:.3f} | {per['ja']:.3f} | {per['zh']:.3f} |")
        lines += ["", "Per class (precision / recall):", "", "| decider | " + " | ".join(KINDS) + " |", "|---|" + "---|" * len(KINDS)]
        for name, s in report[key].items():
            lines.append(f"| {name} | " + " | ".join(f"{s['per_class'][k]['precision']:.2f} / {s['per_class'][k]['recall']:.2f}" for k in KINDS) + " |")
        for name in ("rules", "rules+classifier"):
            lines += ["", f"Confusion, {name} (rows: the label; columns: the decision):", "",
                      "| label \\ decided | " + " | ".join(KINDS) + " |", "|---|" + "---|" * len(KINDS)]
            for label, row in report[key][name]["confusion"].items():
                lines.append(f"| {label} | " + " | ".join(str(row[k]) for k in KINDS) + " |")
        lines.append("")
    lines += ["## Real document questions (every one in scope)", ""]
    for name, r in report["real_questions"].items():
        if "missing" in r:
            lines += [f"- {name}: not found ({r['missing']})"]
            continue
        lines += [f"- {name}: decided kinds {r['decided']}; by the set's own type tag {r['by_type']}; "
                  f"{len(r['out_of_scope_argmax'])} called out of scope by the classifier's top kind "
                  f"(highest probability {r['highest_out_of_scope_probability']:.2f})"]
        lines += [f"  - {o['probability']:.2f} {o['question']}" for o in r["out_of_scope_argmax"][:10]]
    lines += ["", f"({report['seconds']} s.)", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
