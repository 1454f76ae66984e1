"""The learned reader: which unit an extractive answer quotes, and the probability that it holds the asked fact.

One logistic model over `UnitFeatures` replaces the bonuses and penalties that were set by hand, one per missed
question, and lifted only the set they were written for. It is fitted by `bench/fit_reader.py` on labelled
questions of several corpora (a unit is positive when it holds the question's expected answer), validated by
leaving one corpus out, and shipped as `reader_model.json`: feature names, the standardisation, the weights and
the fit's record. JSON carries no code, so a model file is data whatever folder it comes from.

`LinearScorer` is the other scorer of the same features: fixed weights, for the light reranker, which orders
chunks by their best unit (a retrieval stage, judged by the retrieval benchmarks, not fitted here).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Protocol

import numpy as np

from bunko.rerank.unit_features import FEATURE_NAMES, UnitFeatures

READER_MODEL = "reader_model.json"
QUERY_PASSAGE_MODEL = "reader_model_query_passage.json"
"""The reader fitted with the `query_passage` features as well, for answers that measure them (`[answer] query_passage`):
the default reader is fitted without them, since they are 0 when not measured."""


class UnitScorer(Protocol):
    def score(self, features: UnitFeatures) -> float: ...


@dataclass(frozen=True)
class LinearScorer:
    """score = Σ weight · feature over the named features; the rest weigh nothing."""

    weights: Mapping[str, float]

    def score(self, features: UnitFeatures) -> float:
        return float(sum(weight * getattr(features, name) for name, weight in self.weights.items()))


@dataclass(frozen=True)
class ReaderModel:
    """P(unit holds the answer) = σ(bias + weights · (x − mean) / scale)."""

    features: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    bias: float
    meta: Mapping[str, object] = field(default_factory=dict)

    def logit(self, features: UnitFeatures) -> float:
        x = np.asarray([getattr(features, name) for name in self.features], dtype=np.float64)
        return self.bias + float(self.weights @ ((x - self.mean) / self.scale))

    def score(self, features: UnitFeatures) -> float:
        z = max(min(self.logit(features), 50.0), -50.0)
        return 1.0 / (1.0 + math.exp(-z))

    def to_json(self) -> str:
        return json.dumps({
            "features": list(self.features), "mean": self.mean.round(6).tolist(), "scale": self.scale.round(6).tolist(),
            "weights": self.weights.round(6).tolist(), "bias": round(self.bias, 6), "meta": dict(self.meta),
        }, indent=1, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str, origin: str) -> ReaderModel:
        data = json.loads(text)
        names = tuple(data.get("features", ()))
        unknown = set(names) - set(FEATURE_NAMES)
        arrays = [np.asarray(data.get(key, ()), dtype=np.float64) for key in ("mean", "scale", "weights")]
        if unknown or not names or any(len(a) != len(names) for a in arrays) or not np.all(arrays[1] > 0):
            raise ValueError(f"reader model {origin}: features {list(names)} do not fit {list(FEATURE_NAMES)} or its arrays")
        return cls(names, arrays[0], arrays[1], arrays[2], float(data["bias"]), dict(data.get("meta", {})))

    @classmethod
    def load(cls, path: str | Path | None = None, packaged: str = READER_MODEL) -> ReaderModel:
        """A model file, or the packaged one named `packaged`."""
        if path is not None:
            return cls.from_json(Path(path).read_text(encoding="utf-8"), str(path))
        return cls.from_json(resources.files("bunko.rerank").joinpath(packaged).read_text("utf-8"), packaged)


RERANK_WEIGHTS: Mapping[str, float] = {
    "similarity": 1.0, "coverage": 0.5, "identifiers": 0.3, "quoted": 0.3, "looked_up": 0.3, "states_quantity": 0.12,
    "lead_in": -0.2, "type_held": 0.1, "type_missing": -0.15, "code_for_command": 0.05, "key_share": 0.15,
    "same_language": 0.1,
}
"""The light reranker's weights: a chunk is as good as its best unit. Set by hand before the reader was learned and
kept for retrieval, whose own benchmarks (bench_fusion, bench_pages) judge them."""
