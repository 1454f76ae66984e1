"""--fail-under parsing and checking, without running anything."""

from __future__ import annotations

import pytest

from bunko.errors import BunkoError
from bunko.evaluate.gate import Threshold, check, ks_needed, parse_threshold


def test_thresholds_parse_and_name_their_cut_offs() -> None:
    thresholds = [parse_threshold("recall@5=0.8"), parse_threshold(" fact_match = 0.75"), parse_threshold("ndcg@20=.5")]
    assert thresholds[0] == Threshold("recall@5", 0.8) and thresholds[1] == Threshold("fact_match", 0.75)
    assert ks_needed(thresholds) == {5, 20}


@pytest.mark.parametrize(
    ("text", "reason"),
    [("recall@5", "METRIC=VALUE"), ("recall@5=high", "not a number"), ("recal@5=0.8", "unknown metric"),
     ("latency_p95.total=0.2", "better when lower")],
)
def test_bad_thresholds_are_refused(text: str, reason: str) -> None:
    with pytest.raises(BunkoError, match=reason):
        parse_threshold(text)


def test_check_reports_each_configuration_below_and_unmeasured_metrics() -> None:
    summaries = {"a": {"recall@5": 0.9, "page_hit@5": None}, "b": {"recall@5": 0.7, "page_hit@5": None}}
    assert check(summaries, [Threshold("recall@5", 0.8)]) == ["b: recall@5 = 0.700 < 0.8"]
    assert check(summaries, [Threshold("recall@5", 0.7)]) == []
    failures = check({"a": summaries["a"]}, [Threshold("page_hit@5", 0.5)])
    assert failures == ["a: page_hit@5 could not be measured on this golden set (gate 0.5)"]
