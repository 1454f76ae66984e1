"""The answer confidence of `fit_reader.py fit`, fitted so that it transfers to a corpus it never saw.

Three choices, each so that what the fit learns is what bunko meets on a new corpus:

1. **The reader's scores out of fold.** The confidence reads the reader's rating of the quoted unit and its lead over
   other documents (`AnswerFeatures.reader`, `reader_margin`). On a corpus the reader was fitted on, those ratings
   are in-sample and too good; on a new corpus they are not. So each training question is rated again by the reader
   fitted without its corpus (`Readers.without`), the quoted unit chosen again as `evidence.best_unit` chooses it, and
   labelled by whether that unit holds the answer when it is not the one the collected run quoted.
2. **The route as a feature.** An answer computed from a table (`AnswerFeatures.table`, with the mapping's
   certainty) is rated by the same model as a quoted one, from the rows it read, and decided by the same threshold.
3. **A calibration map fitted out of fold.** The logistic's logit is mapped onto the share right by a slope and a
   shift (Platt scaling: two parameters, as few predictions as these, a few hundred, allow; an isotonic map's steps
   moved the threshold by up to 0.1 between folds) fitted on predictions for corpora each logistic did not see (leave
   one training corpus out), folded into the shipped weights, and the abstention threshold is chosen on those mapped
   predictions.

A model fitted "without" some corpora (`fit_confidence(excluded=…)`) excludes them from every step: its readers, its
logistic, its map and its threshold. The shipped model excludes none; the model each held-out corpus is judged by
excludes that corpus (and its reader ratings come from readers fitted without it too).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from bunko.generate.confidence import (
    FEATURES,
    AnswerFeatures,
    ConfidenceModel,
    expected_calibration_error,
    fit_logistic,
    table_answer_features,
)
from bunko.rerank.evidence import SAME_LANGUAGE_SUFFICES
from bunko.rerank.unit_features import FEATURE_NAMES

CONFIDENCE_FEATURES = ("reader", "reader_margin", "retrieval", "key_terms", "same_language", "table", "certainty", "table_reader",
                       "table_retrieval")
ROUTE = ("table", "certainty", "table_reader", "table_retrieval")
"""The table route's own features: set by `table_answer_features`, never read from a collected grade."""
L2 = 1.0
DEFAULTS = {"key_terms": 1.0, "same_language": 1.0}
"""A grade's features that are 1 when nothing was measured; the rest are 0."""


@dataclass(frozen=True)
class Measured:
    """The units scored for the answer's grade (the call that holds the quoted unit) and which unit was quoted."""

    x: np.ndarray
    sources: tuple[str, ...]
    same_language: np.ndarray
    holds: np.ndarray
    quoted: int


@dataclass(frozen=True)
class GradedQuestion:
    corpus: str
    grade: Mapping[str, float]
    right: float
    """As `bunko eval` judges it: the answer holds an expected answer, or the abstention's quoted unit does."""
    answerable: bool
    refused: bool
    """A rule refused it first (a key term absent…): confidence 0 whatever the model says."""
    table: bool
    """Answered by the table route (its grade records the mapping's certainty)."""
    computed: bool
    """A question asking for a computed value (a sum, a count…): scored by no held-out set, fitted for the table route."""
    measured: Measured | None


Probabilities = Callable[[Any, np.ndarray], np.ndarray]


def graded_questions(rows: Sequence[Mapping[str, Any]], corpus: str, collected_reader: Any, probabilities: Probabilities) -> list[GradedQuestion]:
    """Each collected question with the call its grade was made from: the call holding a unit the collected run's
    reader rated exactly the grade's `reader` (the quoted unit)."""
    out = []
    for row in rows:
        grade = {k: float(v) for k, v in (row.get("grade") or {}).items() if isinstance(v, int | float)}
        measured = None
        table = "mapping_certainty" in grade
        if "reader" in grade and not table:  # a table answer's rows are rated as they were (see `featured`)
            for call in row["calls"]:
                units = call["units"]
                if not units:
                    continue
                x = np.array([[u["features"].get(name, 0.0) for name in FEATURE_NAMES] for u in units], dtype=np.float64)
                p = probabilities(collected_reader, x)
                quoted = int(np.argmin(np.abs(p - grade["reader"])))
                if abs(p[quoted] - grade["reader"]) < 2e-3:
                    measured = Measured(x, tuple(u["source"] for u in units), x[:, FEATURE_NAMES.index("same_language")] > 0,
                                        np.array([float(u["holds"]) for u in units]), quoted)
                    break
        out.append(GradedQuestion(corpus, grade, float(bool(row.get("judged_right"))), bool(row["expected"]), bool(row.get("reason")),
                                  table, row.get("kind") == "aggregate", measured))
    return out


def featured(question: GradedQuestion, reader: Any, probabilities: Probabilities) -> tuple[list[float], float]:
    """The question's confidence features and label as `reader` would leave them (see the module doc, 1). A table
    answer's rows keep the rating they were collected with: they were read by a computation, not chosen by the
    reader, and its label is the computation's."""
    values = dict(question.grade)
    right = question.right
    measured = question.measured
    if reader is not None and measured is not None:
        p = probabilities(reader, measured.x)
        best = int(np.argmax(p))
        same = np.flatnonzero(measured.same_language)
        if not measured.same_language[best] and len(same):
            closest = int(same[np.argmax(p[same])])
            best = closest if p[closest] >= SAME_LANGUAGE_SUFFICES * p[best] else best
        others = [p[i] for i, s in enumerate(measured.sources) if s != measured.sources[best]]
        values["reader"] = float(p[best])
        values["reader_margin"] = float(p[best] - max(others)) if others else float(p[best])
        values["same_language"] = float(measured.same_language[best])
        if best != measured.quoted and not question.table:  # a table answer's rightness is the table's, not a unit's
            right = float(measured.holds[best])
    features = AnswerFeatures(**{name: float(values.get(name, DEFAULTS.get(name, 0.0))) for name in FEATURES if name not in ROUTE})
    if question.table:  # the rows' grade as the table route reads it, one rule with the answerer's
        if "table_reader" in values:  # recorded as the route's own features (runs since the route had them)
            features.reader, features.retrieval = values["table_reader"], values.get("table_retrieval", 0.0)
        features = table_answer_features(features, float(values.get("mapping_certainty", 0.0)))
    return [float(getattr(features, name)) for name in CONFIDENCE_FEATURES], right


class Readers:
    """The reader fitted without some corpora, each fit once (the fit is deterministic)."""

    def __init__(self, fit: Callable[[frozenset[str]], Any]) -> None:
        self._fit = fit
        self._fitted: dict[frozenset[str], Any] = {}

    def without(self, excluded: Iterable[str]) -> Any:
        key = frozenset(excluded)
        if key not in self._fitted:
            self._fitted[key] = self._fit(key)
        return self._fitted[key]


def _design(
    graded: Mapping[str, list[GradedQuestion]], corpora: Iterable[str], excluded: frozenset[str], readers: Readers,
    probabilities: Probabilities,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Features, labels and answerability of the questions the model decides (no rule refused them) of `corpora`,
    each rated by the reader fitted without its own corpus and `excluded`."""
    rows = [(*featured(q, readers.without(excluded | {c}), probabilities), q.answerable)
            for c in corpora for q in graded[c] if not q.refused]
    return (np.array([r[0] for r in rows], dtype=np.float64).reshape(-1, len(CONFIDENCE_FEATURES)),
            np.array([r[1] for r in rows]), np.array([r[2] for r in rows], dtype=bool))


def _sigmoid(x: np.ndarray, w: np.ndarray, b: float) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(x @ w + b, -50, 50)))


def fit_confidence(
    graded: Mapping[str, list[GradedQuestion]], corpora: Sequence[str], readers: Readers, probabilities: Probabilities,
    choose_threshold: Callable[[np.ndarray, np.ndarray, np.ndarray], float], excluded: frozenset[str] = frozenset(),
    meta: Mapping[str, object] | None = None, mapped: bool = True,
) -> ConfidenceModel:
    """The logistic over `CONFIDENCE_FEATURES`, its calibration map and threshold from the corpora not `excluded`
    (see the module doc); `mapped` False leaves the map out (the identity; for the report's ablation)."""
    train = [c for c in corpora if c not in excluded]
    x, y, _ = _design(graded, train, excluded, readers, probabilities)
    w, b = fit_logistic(x, y, l2=L2)
    fold_p, fold_y, fold_answerable = [], [], []
    for held in train:
        xi, yi, _ = _design(graded, [c for c in train if c != held], excluded | {held}, readers, probabilities)
        wi, bi = fit_logistic(xi, yi, l2=L2)
        xo, yo, ao = _design(graded, [held], excluded, readers, probabilities)
        fold_p.append(_sigmoid(xo, wi, bi))
        fold_y.append(yo)
        fold_answerable.append(ao)
    raw, right, answerable = np.concatenate(fold_p), np.concatenate(fold_y), np.concatenate(fold_answerable)
    logit = np.log(np.clip(raw, 1e-6, 1 - 1e-6) / np.clip(1 - raw, 1e-6, 1))
    (slope,), shift = fit_logistic(logit[:, None], right, l2=0.0) if mapped else (np.ones(1), 0.0)  # no map: an ablation
    calibrated = 1.0 / (1.0 + np.exp(-(slope * logit + shift)))
    threshold = choose_threshold(calibrated, right, answerable)
    # σ(slope · (w·x + b) + shift): the map folded into the logistic, so the shipped model stays one logistic
    return ConfidenceModel(list(CONFIDENCE_FEATURES), [round(float(slope * v), 6) for v in w], round(float(slope * b + shift), 6), {
        **(meta or {}), "corpora": train, "rows": len(y), "threshold": round(float(threshold), 4),
        "threshold_chosen_on": "mapped predictions for each training corpus by the logistic fitted without it",
        "map": {"slope": round(float(slope), 4), "shift": round(float(shift), 4),
                "fitted_on": "out-of-fold predictions (each training corpus by the logistic fitted without it)"},
        "fold_ece_raw": round(expected_calibration_error(raw, right)[0], 4),
        "fold_ece_mapped": round(expected_calibration_error(calibrated, right)[0], 4),
    })


@dataclass(frozen=True)
class HeldOut:
    """A corpus's questions as the model fitted without it decides them (a refused question at confidence 0)."""

    confidence: np.ndarray
    right: np.ndarray
    answerable: np.ndarray
    answered: np.ndarray


def held_out(questions: Sequence[GradedQuestion], reader: Any, model: ConfidenceModel, probabilities: Probabilities) -> HeldOut:
    confidence, right = [], []
    for q in questions:
        values, label = featured(q, reader, probabilities)
        right.append(label)
        confidence.append(0.0 if q.refused else model.probability(AnswerFeatures(**dict(zip(CONFIDENCE_FEATURES, values, strict=True)))))
    c = np.array(confidence)
    refused = np.array([q.refused for q in questions], dtype=bool)
    return HeldOut(c, np.array(right), np.array([q.answerable for q in questions], dtype=bool), (c >= model.threshold) & ~refused)


def scores(result: HeldOut) -> dict[str, float]:
    """ECE over every question (as `bunko eval` judges it), answered right among the answerable, abstention P/R."""
    abstained = ~result.answered
    correct = abstained & ~result.answerable
    return {
        "ece": round(expected_calibration_error(result.confidence, result.right)[0], 3),
        "answered_right": round(float((result.answered & (result.right > 0)).sum() / max(result.answerable.sum(), 1)), 3),
        "abstain_precision": round(float(correct.sum() / max(abstained.sum(), 1)), 3),
        "abstain_recall": round(float(correct.sum() / max((~result.answerable).sum(), 1)), 3),
    }
