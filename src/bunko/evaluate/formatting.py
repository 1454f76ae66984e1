"""How numbers read in every report: one place, so Markdown, HTML and the terminal agree."""

from __future__ import annotations

from collections.abc import Sequence

from bunko.evaluate.bootstrap import Interval
from bunko.evaluate.calibration import Reliability
from bunko.evaluate.golden import GoldenItem
from bunko.evaluate.metrics import ANSWER_LENGTH_QUANTILES, describe
from bunko.evaluate.records import QuestionRecord
from bunko.evaluate.relevance import matched_units


def is_latency(metric: str) -> bool:
    return metric.startswith("latency_")


def is_answer_length(metric: str) -> bool:
    return metric in ANSWER_LENGTH_QUANTILES


def _unit(metric: str) -> tuple[float, str, int]:
    """(scale, unit, decimals) a metric's values and differences read in: ms, whole characters, or plain."""
    if is_latency(metric):
        return 1000.0, " ms", 1
    if is_answer_length(metric):
        return 1.0, " ch", 0
    return 1.0, "", 3


def value(metric: str, number: float | None) -> str:
    if number is None:
        return "–"
    if is_latency(metric) or is_answer_length(metric):
        scale, unit, digits = _unit(metric)
        return f"{number * scale:.{digits}f}{unit}"
    if metric in ("cost", "judge_cost"):
        return f"{number:.5f}"
    if metric in ("tokens", "judge_tokens"):
        return f"{number:.0f}"
    return f"{number:.3f}"


def interval(metric: str, diff: Interval | None) -> str:
    """`+0.050 [+0.010, +0.090]*` — the star marks an interval that excludes zero."""
    if diff is None:
        return "–"
    scale, unit, digits = _unit(metric)
    star = "*" if diff.significant else ""
    return f"{diff.diff * scale:+.{digits}f}{unit} [{diff.low * scale:+.{digits}f}, {diff.high * scale:+.{digits}f}]{star}"


def shift(metric: str, diff: Interval | None) -> str:
    """The difference alone, starred when its interval excludes zero (for narrow tables)."""
    if diff is None:
        return "–"
    scale, unit, digits = _unit(metric)
    return f"{diff.diff * scale:+.{digits}f}{unit}{'*' if diff.significant else ''}"


def main_k(ks: Sequence[int]) -> int:
    """The cut-off the summaries show: 5 when measured (bunko's default k), else the largest."""
    return 5 if 5 in ks else max(ks)


def key_metrics(ks: Sequence[int]) -> list[str]:
    k = main_k(ks)
    return [f"recall@{k}", "mrr", f"ndcg@{k}", f"table_hit@{k}", "fact_match", "fact_in_evidence", "citation_precision",
            "abstention_recall", "ece", "judge_faithfulness", "judge_relevance", "latency_p50.total", *ANSWER_LENGTH_QUANTILES]


def first_relevant_rank(item: GoldenItem, record: QuestionRecord) -> int | None:
    return next(
        (rank for rank, h in enumerate(record.hits, start=1) if matched_units(item, h.chunk_id, h.source, h.pages)), None
    )


INFORMATIVE = "(informative)"
"""The direction mark of a metric that is no score (answer length): neither higher nor lower is better."""


def direction(metric: str) -> str:
    info = describe(metric)
    if info.informative:
        return INFORMATIVE
    return "↑" if info.higher_is_better else "↓"


CALIBRATION_INTRO = (
    "How well each run's confidence predicts a right answer: questions binned by confidence, each bin's mean confidence "
    "against its share of right answers (an absent question is never right; an abstention is judged by the passage it "
    "would have quoted). A calibrated confidence lies on the diagonal; ECE is the count-weighted mean gap."
)


def reliability_rows(reliability: Reliability | None) -> list[list[str]]:
    """The reliability table of a run: one row per non-empty confidence bin."""
    if reliability is None:
        return []
    return [
        [f"{b['low']:.1f}–{b['high']:.1f}", str(int(b["count"])), f"{b['confidence']:.3f}", f"{b['accuracy']:.3f}"]
        for b in reliability.bins
    ]


RELIABILITY_HEADER = ["confidence", "questions", "mean confidence", "share right"]


def reliability_summary(name: str, reliability: Reliability | None) -> str:
    if reliability is None or reliability.ece is None:
        return f"{name}: no question could be judged (no absent question and no expected answer)"
    return f"{name}: ECE {reliability.ece:.3f} over {reliability.questions} questions"

