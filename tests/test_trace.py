"""`bunko.trace`: the typed record of one ask and the JSON it is stored as, for traces of today and of earlier versions."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bunko.schema import Answer, to_dict
from bunko.trace import Condensed, Evidence, Generation, Grade, LLMGrade, Trace, TracedHit, Usage


def hit(chunk_id: str, source: str) -> TracedHit:
    return TracedHit(chunk_id, source, ["年次有給休暇"], 0.031, 0.42, {"dense": {"rank": 1, "score": 0.58}})


def evidence(query: str, timings: dict[str, float]) -> Evidence:
    hits = [hit("leave-policy-zh.md#3", "leave-policy-zh.md"), hit("remote-work-policy-ja.md#1", "remote-work-policy-ja.md")]
    return Evidence(
        query, {"mode": "hybrid", "name": "default", "weights": {"dense": 1.0, "keyword": 1.0}, "reason": ""}, ["婚假", "几天"],
        hits, hits[:1], Grade(True, 0.81, "number", {"similarity": 0.6}, ["婚假"], []), ["leave-policy-zh.md#4"], [], timings,
    )


def llm_trace() -> Trace:
    """A trace of an LLM answer whose grader asked for a rewrite: every optional part present."""
    return Trace(
        question="婚假有几天？", trace_id="abc123", language="zh", policy="strict", reranker="light",
        evidence=evidence("婚假有几天？", {"search": 0.02, "search.dense": 0.01, "rerank": 0.003, "grade": 0.001}),
        generation=Generation(
            "openai:qwen", prompt=[{"role": "system", "content": "…"}, {"role": "user", "content": "婚假有几天？"}],
            raw_output="婚假为3天。[1]", usage=Usage(321, 45, cost=0.228), budget=["leave-policy-zh.md#3"],
            sentences=[{"text": "婚假为3天。", "sources": [1], "verdict": "supported"}], removed=[], pii_masked={},
            timings={"generate": 0.5, "check": 0.01},
        ),
        filters={"groups": {"$in": ["hr"]}}, llm_grade=LLMGrade("rewrite", "婚假 天数", '{"verdict": "rewrite"}', usage=Usage(200, 10)),
        rewrite=evidence("婚假 天数", {"search": 0.03, "rerank": 0.002, "grade": 0.001}), abstain_reason=None,
        answer={"question": "婚假有几天？", "text": "婚假为3天。[1]", "trace_id": "abc123"},
        stage_timings={"llm_grade": 0.2, "total": 0.9},
    )


def test_a_trace_round_trips_through_its_json() -> None:
    trace = llm_trace()
    stored = json.loads(json.dumps(trace.to_dict(), ensure_ascii=False))
    again = Trace.from_dict(stored)
    assert again == trace
    assert again.to_dict() == stored and list(again.to_dict()) == list(stored)


def test_stored_keys_keep_the_order_the_pipeline_wrote_them_in() -> None:
    assert list(llm_trace().to_dict()) == [
        "question", "language", "filters", "policy", "generator", "reranker", "query", "route", "query_tokens", "candidates",
        "hits", "rerank", "grade", "llm_grade", "rewrite", "prompt", "raw_output", "usage", "abstain_reason", "budget",
        "sentences", "removed", "pii_masked", "fallback", "steps", "answer", "timings",
    ]


def test_timings_are_flat_in_the_order_the_stages_ran() -> None:
    assert list(llm_trace().timings) == [
        "search", "search.dense", "rerank", "grade", "llm_grade", "rewrite.search", "rewrite.rerank", "rewrite.grade",
        "generate", "check", "total",
    ]


def test_the_deciding_grade_and_the_usage_cover_the_rewrite_and_every_model_call() -> None:
    trace = llm_trace()
    assert trace.grade is trace.rewrite.grade  # type: ignore[union-attr]
    assert trace.usage == Usage(521, 55, cost=None), "the grader's call has no price, so the total cost is unknown"
    assert trace.generation.mode == "llm" and trace.evidence.hit_ids == ["leave-policy-zh.md#3"]


def test_an_extractive_trace_stores_no_prompt_output_or_usage() -> None:
    trace = Trace(
        "How long are invoices kept?", "t1", "en", "standard", "light",
        evidence("How long are invoices kept?", {"search": 0.01}), Generation("extractive", timings={"generate": 0.0, "check": 0.0}),
    )
    stored = trace.to_dict()
    assert not {"prompt", "raw_output", "usage", "llm_grade", "rewrite"} & set(stored)
    assert stored["budget"] is None and stored["generator"] == "extractive"
    assert Trace.from_dict(stored).to_dict() == stored


OLD_TRACE: dict[str, Any] = {
    # The shape written by the first answer pipeline (bacf3a6): grade on similarity and coverage, no usage.
    "question": "東京23区の宿泊費の上限は？", "language": "ja", "filters": {}, "policy": "standard", "generator": "extractive",
    "reranker": "light", "query": "東京23区の宿泊費の上限は？", "route": {"mode": "hybrid", "name": "default", "weights": {}, "reason": ""},
    "query_tokens": ["東京", "宿泊"],
    "candidates": [{"chunk_id": "travel#2", "source": "travel-expense-policy-ja.md", "section_path": ["宿泊費"], "score": 0.03,
                    "distance": 0.4, "signals": {}, "instruction_like": False}],
    "hits": [{"chunk_id": "travel#2", "source": "travel-expense-policy-ja.md", "section_path": ["宿泊費"], "score": 0.9,
              "distance": 0.4, "signals": {"rerank": {"score": 0.9}}, "instruction_like": False}],
    "rerank": {"order": ["travel#2"], "duplicates_dropped": [], "notes": []},
    "grade": {"sufficient": True, "confidence": 0.77, "similarity": 0.62, "coverage": 0.5},
    "abstain_reason": None, "budget": None, "sentences": [{"text": "上限は12,000円です。", "verdict": "supported"}],
    "removed": [], "pii_masked": {}, "answer": {"question": "東京23区の宿泊費の上限は？", "text": "上限は12,000円です。[1]", "trace_id": "0ld"},
    "timings": {"search": 0.02, "search.embed_query": 0.01, "rerank": 0.004, "grade": 0.001, "generate": 0.05, "check": 0.0, "total": 0.08},
}


def test_an_old_saved_trace_is_read_and_nothing_it_held_is_lost() -> None:
    trace = Trace.from_dict(OLD_TRACE)
    assert trace.trace_id == "0ld" and trace.grade.confidence == 0.77 and trace.grade.sufficient
    assert trace.grade.extra == {"similarity": 0.62, "coverage": 0.5}
    assert trace.timings == OLD_TRACE["timings"] and trace.evidence.timings == {"search": 0.02, "search.embed_query": 0.01,
                                                                                 "rerank": 0.004, "grade": 0.001}
    assert trace.usage is None and trace.generation.mode == "extractive"
    written = trace.to_dict()
    for key, value in OLD_TRACE.items():
        if key == "grade":
            assert written["grade"].items() >= value.items()
        else:
            assert written[key] == value, key


def test_unknown_keys_of_another_version_are_kept() -> None:
    stored = {**llm_trace().to_dict(), "reasoning": {"steps": 3}}
    assert Trace.from_dict(stored).to_dict() == stored


def test_usage_reads_openai_and_anthropic_names_and_prices_only_with_both_prices() -> None:
    assert Usage.from_dict({"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}) == Usage(10, 2)
    assert Usage.from_dict({"input_tokens": 7, "output_tokens": 3}) == Usage(7, 3)
    assert Usage.from_dict({"total_tokens": 12}) is None
    assert Usage(1000, 500).priced(0.5, None).cost is None
    assert Usage(1000, 500).priced(0.5, 2.0).cost == pytest.approx(1.5)
    assert Usage(1000, 500).priced(0.0, 0.0).cost == 0.0, "a local model priced at 0 costs 0, which is not unknown"


def test_an_answers_json_leaves_its_trace_out() -> None:
    answer = Answer("婚假有几天？", "婚假为3天。[1]", [], False, 0.8, "abc123", language="zh", trace=llm_trace())
    data = to_dict(answer)
    assert "trace" not in data and data["trace_id"] == "abc123"
    assert answer.trace is not None, "to_dict does not strip the trace from the answer itself"


def test_the_conversation_step_round_trips_runs_first_and_counts_its_tokens() -> None:
    trace = llm_trace()
    trace.question = "那年假呢？"
    trace.condensed = Condensed(
        "那年假呢？", "年假有几天？", "ellipsis: 那: 年假 in place of 婚假", history_turns=2, previous="婚假有几天？", referent="婚假",
        usage=Usage(50, 8),
    )
    trace.stage_timings = {"condense": 0.001, **trace.stage_timings}
    stored = json.loads(json.dumps(trace.to_dict(), ensure_ascii=False))
    assert list(stored)[:8] == ["question", "language", "filters", "policy", "generator", "reranker", "condensed", "query"]
    assert stored["condensed"]["standalone"] == "年假有几天？" and stored["condensed"]["usage"]["total_tokens"] == 58
    again = Trace.from_dict(stored)
    assert again == trace and again.to_dict() == stored
    assert list(again.timings)[:2] == ["condense", "search"] and again.stage_timings["condense"] == 0.001
    assert trace.usage == Usage(571, 63), "condensing, the grader and the answer: every model call"
    assert trace.condensed.changed and not Condensed("婚假有几天？", "婚假有几天？", "not a follow-up").changed


def test_a_trace_of_an_ask_without_history_has_no_conversation_step() -> None:
    assert Trace.from_dict(OLD_TRACE).condensed is None and "condensed" not in llm_trace().to_dict()
    partial = Condensed.from_dict({"question": "それの上限は？"})
    assert partial.standalone == "それの上限は？" and partial.usage is None and partial.carried == []
