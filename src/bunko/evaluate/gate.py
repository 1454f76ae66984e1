"""The CI gate: ``--fail-under recall@5=0.8`` turns a quality regression into a failing build.

Every configuration of the run must reach every threshold. A gated metric the run could not
measure (say ``page_hit@5`` on a golden set without pages) fails too: a gate that silently
passes because nothing was measured protects nothing.

Only the metrics a threshold names are judged. Informative metrics (the answer-length percentiles
``answer_chars_p50``/``answer_chars_p90``) are no score — a longer answer is neither better nor worse — so
no threshold can name them and they never fail a run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bunko.errors import BunkoError
from bunko.evaluate.metrics import describe
from bunko.text.lazy_regex import lazy_compile

_K = lazy_compile(r"@(\d+)$")


@dataclass(frozen=True)
class Threshold:
    metric: str
    minimum: float


def parse_threshold(text: str) -> Threshold:
    """``recall@5=0.8`` → Threshold("recall@5", 0.8); unknown metrics are refused with the reason."""
    name, sep, value = text.partition("=")
    name = name.strip()
    if not sep or not name:
        raise BunkoError(f"--fail-under {text!r}: expected METRIC=VALUE, e.g. recall@5=0.8")
    try:
        minimum = float(value)
    except ValueError:
        raise BunkoError(f"--fail-under {text!r}: {value.strip()!r} is not a number") from None
    try:
        info = describe(name)
    except KeyError:
        raise BunkoError(
            f"--fail-under {text!r}: unknown metric {name!r}; use recall@K, precision@K, mrr, ndcg@K, page_hit@K, "
            "table_hit@K, fact_match, citation_precision, citation_coverage, faithfulness, abstention_precision, abstention_recall, "
            "judge_faithfulness, judge_relevance (with --judge)"
        ) from None
    if info.informative:
        raise BunkoError(
            f"--fail-under {text!r}: {name} is informative (read it beside fact_match: a longer answer contains the expected "
            "fact more often), not a score, so no gate judges it"
        )
    if not info.higher_is_better:
        raise BunkoError(f"--fail-under {text!r}: {name} is better when lower, so a minimum makes no sense for it")
    return Threshold(name, minimum)


def ks_needed(thresholds: Sequence[Threshold]) -> set[int]:
    """The cut-offs the gated metrics name, so the run measures them."""
    return {int(m.group(1)) for t in thresholds if (m := _K.search(t.metric))}


def check(summaries: dict[str, dict[str, float | None]], thresholds: Sequence[Threshold]) -> list[str]:
    """One message per (configuration, threshold) that is not met; empty when the gate passes."""
    failures = []
    for name, summary in summaries.items():
        for threshold in thresholds:
            value = summary.get(threshold.metric)
            if value is None:
                failures.append(f"{name}: {threshold.metric} could not be measured on this golden set (gate {threshold.minimum:g})")
            elif value < threshold.minimum:
                failures.append(f"{name}: {threshold.metric} = {value:.3f} < {threshold.minimum:g}")
    return failures
