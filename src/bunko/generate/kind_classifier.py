"""A small learned classifier of question complexity, beside the rules of `generate/analysis.py` (no LLM).

The rules are certain about a few kinds (greetings, arithmetic, questions about the conversation) and guess the
rest from keywords ("difference", 違い, 区别 → comparison; "how many", 合計, 总共 → aggregation; "the X that…" →
multi-hop). What they cannot see at all is a question no document answers in principle — chit-chat, opinions,
a request to write code or a poem, today's date, weather or news — and they miss phrasings their keywords do not
list. The classifier reads the question as hashed features:

- the analyzer's tokens (the analyzer family the model was fitted with, named in the model: token ids must mean
  what they meant in the fit, whatever the collection's own analyzer is);
- Latin words *with* their stop words and word pairs ("what do you", "write a"): the analyzer drops question
  words, which are most of what tells kinds apart;
- character 1–3-grams of CJK runs (何日, 几个, 哪个更, 書いて);
- the rules' own flags (comparison, relates facts, aggregation, several parts, greeting, arithmetic, conversation).

One-vs-rest logistic regressions (`confidence.fit_logistic`, fitted by ``bench/fit_question_kinds.py`` on a
labelled question set of its own, bench/question_kinds/) give a probability per kind; the kinds' probabilities are
normalised to sum to one. The model — weights, the hash size, the analyzer and the decision threshold chosen with
the fit — ships as ``question_kinds_model.json`` beside this module.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from itertools import pairwise
from pathlib import Path

import numpy as np

from bunko.errors import BunkoError
from bunko.text.analyzers import Analyzer, get_analyzer, normalize
from bunko.text.lazy_regex import lazy_compile
from bunko.text.scripts import CJK

KINDS = ("single_hop", "multi_hop", "comparison", "aggregation", "out_of_scope")
MODEL_FILE = "question_kinds_model.json"

_CJK_RUN = lazy_compile(f"[{CJK}]+")
_LATIN_WORD = lazy_compile(r"[a-z][a-z0-9'+#-]*")


class KindModelError(BunkoError):
    """The question-kind model file is missing or cannot be read as one."""


def feature_names(question: str, analyzer: Analyzer, flags: Sequence[str]) -> list[str]:
    """The question's features as strings (hashed by `hashed`); the fit and every prediction share this one rule."""
    text = normalize(question)
    names = [f"t:{token}" for token in analyzer(question)]
    words = _LATIN_WORD.findall(text)
    names += [f"w:{w}" for w in words] + [f"w2:{a} {b}" for a, b in pairwise(words)]
    if words:
        names.append(f"w0:{words[0]}")
    for run in _CJK_RUN.findall(text):
        for n in (1, 2, 3):
            names += [f"c{n}:{run[i : i + n]}" for i in range(len(run) - n + 1)]
    tail = text.rstrip()[-2:]
    names.append(f"end:{tail}")
    names += [f"r:{flag}" for flag in flags]
    length = len(words) + sum(len(run) for run in _CJK_RUN.findall(text)) // 2
    names.append(f"len:{min(length // 4, 6)}")
    return names


def hashed(names: Sequence[str], dim: int) -> np.ndarray:
    """Signed feature hashing with crc32 (stable across processes, unlike ``hash``), l2-normalised."""
    vector = np.zeros(dim)
    for name in names:
        code = zlib.crc32(name.encode("utf-8"))
        vector[code % dim] += 1.0 if (code >> 31) & 1 == 0 else -1.0
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm else vector


@dataclass
class KindPrediction:
    kind: str
    probability: float
    probabilities: dict[str, float]


@dataclass
class KindClassifier:
    """One-vs-rest logistic regression over hashed question features."""

    kinds: list[str]
    dim: int
    weights: np.ndarray
    """One row of `dim` weights per kind."""
    biases: np.ndarray
    analyzer_name: str
    threshold: float
    """The classifier decides among the non-certain kinds when its probability is at least this."""
    meta: dict[str, object]

    def __post_init__(self) -> None:
        self.analyzer = get_analyzer(self.analyzer_name)

    def predict(self, question: str, flags: Sequence[str]) -> KindPrediction:
        x = hashed(feature_names(question, self.analyzer, flags), self.dim)
        scores = self.weights @ x + self.biases
        sigmoid = 1.0 / (1.0 + np.exp(-np.clip(scores, -50, 50)))
        total = float(sigmoid.sum()) or 1.0
        probabilities = {kind: round(float(p) / total, 4) for kind, p in zip(self.kinds, sigmoid, strict=True)}
        best = max(probabilities, key=lambda k: probabilities[k])
        return KindPrediction(best, probabilities[best], probabilities)

    @classmethod
    def load(cls, path: str | Path | None = None) -> KindClassifier:
        """The packaged model, or the one at `path`; a missing or malformed file is a `KindModelError` naming it."""
        where = str(path) if path else f"bunko/generate/{MODEL_FILE}"
        try:
            text = Path(path).read_text(encoding="utf-8") if path else resources.files("bunko.generate").joinpath(MODEL_FILE).read_text("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise KindModelError(f"question-kind model {where}: cannot be read ({exc.__class__.__name__}: {exc}); "
                                 "refit it with bench/fit_question_kinds.py or set [agent] classifier = false") from exc
        try:
            data = json.loads(text)
            kinds, dim = [str(k) for k in data["kinds"]], int(data["dim"])
            weights = np.asarray(data["weights"], dtype=np.float64)
            biases = np.asarray(data["biases"], dtype=np.float64)
            analyzer, threshold = str(data["analyzer"]), float(data["threshold"])
        except (ValueError, KeyError, TypeError) as exc:
            raise KindModelError(f"question-kind model {where}: not a model file ({exc.__class__.__name__}: {exc})") from exc
        if set(kinds) - set(KINDS) or weights.shape != (len(kinds), dim) or biases.shape != (len(kinds),) or not 0 <= threshold <= 1:
            raise KindModelError(f"question-kind model {where}: kinds {kinds}, weights {weights.shape}, biases {biases.shape} and "
                                 f"threshold {threshold} do not fit together (expected kinds from {list(KINDS)}, weights kinds × dim)")
        if not np.isfinite(weights).all() or not np.isfinite(biases).all():
            raise KindModelError(f"question-kind model {where}: weights that are not finite numbers")
        try:
            return cls(kinds, dim, weights, biases, analyzer, threshold, dict(data.get("meta", {})))
        except ValueError as exc:  # an analyzer this installation does not have
            raise KindModelError(f"question-kind model {where}: {exc}") from exc

    def to_json(self) -> str:
        rounded = [[float(f"{w:.5g}") for w in row] for row in self.weights]
        return json.dumps({"kinds": self.kinds, "dim": self.dim, "analyzer": self.analyzer_name, "threshold": self.threshold,
                           "biases": [float(f"{b:.6g}") for b in self.biases], "weights": rounded, "meta": self.meta},
                          ensure_ascii=False, separators=(",", ":"))

