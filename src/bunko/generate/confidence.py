"""How likely the answer about to be given is right: a calibrated probability from the evidence actually quoted.

The confidence is computed after the learned reader (`bunko.rerank.reader`) has chosen the unit to quote, from
features of that unit and of the question (`AnswerFeatures`, all traced): the reader's probability that the unit
holds the answer and its lead over the best unit of another document, the retrieval grade of the top hits, the share
of the question's key terms in the cited chunk, and the similarity, coverage, type and language figures the grade
always recorded. A model uses the subset it was fitted on (`ConfidenceModel.features`).

A question whose key term occurs nowhere in the collection gets confidence 0: no passage can answer about a tool the
documents never name.

One probability decides every route: an answer computed from a table (`table_answer_features`: the route's own
features, the mapping's certainty and the rows it read) is rated by the same model as a quoted one and abstains
below the same threshold; a model's answer keeps the grade's probability only in the share of its sentences the
citation check supported (`sentence_pipeline.checked_confidence`).

The models are logistic regressions fitted by ``bench/fit_reader.py`` (``bench/confidence_fit.py``) on hand-written
questions of six corpora (none of them reserved for held-out measurement), each judged on the corpora it was not
fitted on: the reader's ratings they learn from are those of the reader fitted without the question's corpus, as on
a corpus bunko never saw; a calibration map (a slope and a shift of the logit, fitted on predictions for corpora each
logistic did not see) is folded into the weights; the abstention threshold is chosen on those mapped predictions. ``confidence_model.json`` is the answer model (``[answer] confidence =
"fitted"``, the default), ``retrieval_calibration.json`` the retrieval grade alone (``calibrated``). Report:
bench/results/reader.md.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from bunko.errors import ConfigError
from bunko.rerank.reader import READER_MODEL, ReaderModel
from bunko.text.answer_types import CHECKABLE, AnswerType

FEATURES = ("similarity", "coverage", "chunk_coverage", "typed", "key_terms", "margin", "same_language", "retrieval", "japanese",
            "chinese", "reader", "reader_margin", "table", "certainty", "table_reader", "table_retrieval")
"""Everything the grade computes and traces; a model uses the subset it was fitted on (`ConfidenceModel.features`)."""
FITTED_MODEL = "confidence_model.json"
"""The answer-feature model of ``[answer] confidence = "fitted"`` (the default)."""
RETRIEVAL_CALIBRATION = "retrieval_calibration.json"
QUERY_PASSAGE_CONFIDENCE = "confidence_model_query_passage.json"
"""The ``fitted`` grade of answers whose reader reads e5's features (`[answer] query_passage`): its ratings, which the
grade's `reader` features are, spread differently from the default reader's."""
"""The ``calibrated`` grade: a one-feature model, a monotone map of the retrieval grade onto P(right)."""
REVIEW_BELOW = 0.7
"""The regulated review threshold of a confidence that no fit mapped: the raw retrieval grade's."""


@dataclass
class AnswerFeatures:
    similarity: float = 0.0
    coverage: float = 0.0
    chunk_coverage: float = 0.0
    typed: float = 0.0
    key_terms: float = 1.0
    margin: float = 0.0
    same_language: float = 1.0
    retrieval: float = 0.0
    """The retrieval grade's confidence (`bunko.generate.retrieval_grade`): the top hits' similarity and coverage."""
    japanese: float = 0.0
    chinese: float = 0.0
    """The question's language (both 0 for English)."""
    reader: float = 0.0
    """The learned reader's probability that the quoted unit holds the answer (`bunko.rerank.reader`)."""
    reader_margin: float = 0.0
    """That probability minus the best of another document's units (the probability itself when no other document
    competes): an answer two documents contest is less sure."""
    table: float = 0.0
    """1 for an answer computed from a table (the table route: a lookup or an aggregate); 0 for a quoted answer.
    Each route has its own features (`table_answer_features`): a row read by a computation is not rated as a
    sentence quoted for its words is, and a model fitted on both weighs each route's by its own answers."""
    certainty: float = 0.0
    """The table route's mapping certainty (`TablePlan.certainty`: how plainly the question named the table's column
    and how far that table led the others); 0 for a quoted answer."""
    table_reader: float = 0.0
    """The reader's rating of the best row the table answer read, graded as evidence for the question; 0 for a quoted
    answer."""
    table_retrieval: float = 0.0
    """The retrieval grade of those rows; 0 for a quoted answer."""

    def vector(self, names: Sequence[str] = FEATURES) -> np.ndarray:
        return np.array([getattr(self, name) for name in names], dtype=np.float64)


def table_answer_features(rows: AnswerFeatures, certainty: float) -> AnswerFeatures:
    """The features of an answer computed from a table, from `rows` (the rows it read, graded as a quoted answer's
    evidence) and the mapping's certainty: the table route's own, every quoted answer's at its value when nothing
    was measured (see `table`)."""
    return AnswerFeatures(table=1.0, certainty=certainty, table_reader=rows.reader, table_retrieval=rows.retrieval)


def typed_feature(kind: AnswerType, typed: bool) -> float:
    return 0.0 if kind not in CHECKABLE else (1.0 if typed else -1.0)


@dataclass
class ConfidenceModel:
    """Logistic regression over some of `FEATURES`: P(answer right) = σ(bias + weights · features). The fit folds its
    calibration map into the weights (`meta["map"]`: the slope and shift fitted on out-of-fold predictions)."""

    features: list[str]
    weights: list[float]
    bias: float
    meta: dict[str, object]

    @property
    def threshold(self) -> float:
        """The abstention threshold chosen with the fit (share of right decisions on held-out questions)."""
        return float(self.meta.get("threshold", 0.5))  # type: ignore[arg-type]

    @property
    def review_below(self) -> float:
        """Below this, a regulated answer asks for review: the raw grade's 0.7 on this model's scale, when the fit mapped it."""
        return float(self.meta.get("review_below", REVIEW_BELOW))  # type: ignore[arg-type]

    def threshold_for(self, language: str) -> float:
        """The threshold for a question in `language`: a map that shifts by language maps the raw grade's threshold
        to a probability per language, so that its decisions stay the raw grade's in every language."""
        return _per_language(self.meta.get("thresholds"), language, self.threshold)

    def review_below_for(self, language: str) -> float:
        return _per_language(self.meta.get("review_thresholds"), language, self.review_below)

    def probability(self, features: AnswerFeatures) -> float:
        z = self.bias + float(np.dot(np.asarray(self.weights), features.vector(self.features)))
        return 1.0 / (1.0 + math.exp(-max(min(z, 50.0), -50.0)))

    @classmethod
    def load(cls, path: str | None = None, packaged_name: str = FITTED_MODEL) -> ConfidenceModel:
        """A model file, or the packaged one named `packaged_name`."""
        packaged = resources.files("bunko.generate").joinpath(packaged_name)
        text = Path(path).read_text(encoding="utf-8") if path else packaged.read_text("utf-8")
        data = json.loads(text)
        unknown = set(data["features"]) - set(FEATURES)
        if unknown or len(data["features"]) != len(data["weights"]):
            raise ValueError(f"confidence model {path or packaged_name}: features {data['features']} do not fit {list(FEATURES)}")
        return cls(list(data["features"]), [float(w) for w in data["weights"]], float(data["bias"]), dict(data.get("meta", {})))

    def to_json(self) -> str:
        return json.dumps({"features": self.features, "weights": self.weights, "bias": self.bias, "meta": self.meta}, indent=1, ensure_ascii=False)


def _per_language(values: object, language: str, default: float) -> float:
    return float(values[language]) if isinstance(values, dict) and language in values else default


def fit_logistic(
    x: np.ndarray, y: np.ndarray, l2: float = 1.0, iterations: int = 50, sample_weight: np.ndarray | None = None,
) -> tuple[np.ndarray, float]:
    """Newton's method on the (sample-weighted) L2-penalised log-loss (the bias is not penalised); small data, exact fit."""
    n, d = x.shape
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    design = np.hstack([np.ones((n, 1)), x])
    theta = np.zeros(d + 1)
    penalty = np.full(d + 1, l2)
    penalty[0] = 0.0
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(design @ theta, -50, 50)))
        gradient = design.T @ (w * (p - y)) + penalty * theta
        hessian = (design * (w * p * (1 - p))[:, None]).T @ design + np.diag(penalty)
        step = np.linalg.solve(hessian + 1e-9 * np.eye(d + 1), gradient)
        theta -= step
        if np.abs(step).max() < 1e-8:
            break
    return theta[1:], float(theta[0])


def expected_calibration_error(
    probabilities: Sequence[float] | np.ndarray, outcomes: Sequence[float] | np.ndarray, bins: int = 10,
) -> tuple[float, list[dict[str, float]]]:
    """ECE over equal-width bins, and the reliability table (bin, count, mean confidence, accuracy)."""
    p = np.asarray(probabilities, dtype=np.float64)
    y = np.asarray(outcomes, dtype=np.float64)
    table: list[dict[str, float]] = []
    if not len(p):
        return 0.0, table
    edges = np.linspace(0.0, 1.0, bins + 1)
    which = np.clip(np.digitize(p, edges[1:-1]), 0, bins - 1)
    ece = 0.0
    for b in range(bins):
        mask = which == b
        if not mask.any():
            continue
        confidence, accuracy = float(p[mask].mean()), float(y[mask].mean())
        ece += mask.sum() / len(p) * abs(confidence - accuracy)
        table.append({"low": float(edges[b]), "high": float(edges[b + 1]), "count": int(mask.sum()),
                      "confidence": round(confidence, 4), "accuracy": round(accuracy, 4)})
    return float(ece), table


def features_dict(features: AnswerFeatures) -> Mapping[str, float]:
    return {k: round(v, 4) for k, v in asdict(features).items()}


def load_confidence(kind: str, query_passage: bool = False, folder: str | None = None) -> ConfidenceModel | None:
    """The packaged model behind ``[answer] confidence`` (and ``query_passage``), or the fitted one in `folder`
    (``[answer] models``); None for the raw retrieval grade."""
    if kind == "fitted" and folder:
        path = _model_file(folder, QUERY_PASSAGE_CONFIDENCE if query_passage else FITTED_MODEL)
        try:
            return ConfidenceModel.load(str(path))
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigError(f"[answer] models: {path} is not a confidence model ({exc.__class__.__name__}: {exc})") from exc
    if kind == "fitted":
        return ConfidenceModel.load(packaged_name=QUERY_PASSAGE_CONFIDENCE if query_passage else FITTED_MODEL)
    if kind == "calibrated":
        return ConfidenceModel.load(packaged_name=RETRIEVAL_CALIBRATION)
    return None



def folder_reader(folder: str) -> ReaderModel:
    """The reader in ``[answer] models``' folder (`READER_MODEL`); a missing or malformed file is a `ConfigError`
    naming it."""
    path = _model_file(folder, READER_MODEL)
    try:
        return ReaderModel.load(path)
    except (KeyError, TypeError, ValueError) as exc:
        raise ConfigError(f"[answer] models: {path} is not a reader model ({exc.__class__.__name__}: {exc})") from exc


def _model_file(folder: str, name: str) -> Path:
    path = Path(folder).expanduser() / name
    if not path.is_file():
        raise ConfigError(f"[answer] models: {path} does not exist (the folder must hold {READER_MODEL} and {FITTED_MODEL}, "
                          "as bench/fit_reader.py writes them)")
    return path
