"""Each metric against values computed by hand from its documented formula."""

from __future__ import annotations

import json
import math

import pytest

from bunko.evaluate.golden import GoldenItem, PageRef
from bunko.evaluate.metrics import (
    aggregate,
    answer_scores,
    describe,
    ndcg_at_k,
    precision_at_k,
    recall_at_k,
    reciprocal_rank,
    retrieval_scores,
    usage_scores,
)
from bunko.evaluate.records import CitationRecord, HitRecord, QuestionRecord, SentenceRecord
from bunko.evaluate.relevance import matched_units, source_matches
from bunko.evaluate.runner import usage_from_trace
from bunko.trace import Trace


def hit(source: str, ordinal: int = 0, pages: list[int] | None = None, kinds: list[str] | None = None) -> HitRecord:
    return HitRecord(chunk_id=f"{source}#{ordinal}", source=source, pages=pages or [], kinds=kinds or ["paragraph"])


# Two relevant files; the ranked list finds a.md at 2 (and again at 3) and b.md at 5.
ITEM = GoldenItem("q", "Q?", expected_answers=("12,000円",), relevant_sources=("a.md", "b.md"))
HITS = [hit("x.md"), hit("docs/a.md", 1), hit("docs/a.md", 2), hit("y.md"), hit("b.md")]
MATCHES = [matched_units(ITEM, h.chunk_id, h.source, h.pages) for h in HITS]


def test_relevance_matches_sources_by_path_suffix() -> None:
    assert source_matches("docs/a.md", "a.md") and source_matches("/abs/docs/a.md", "docs/a.md")
    assert source_matches("a.md", "./a.md") and source_matches("docs\\a.md", "a.md")
    assert not source_matches("docs/data.md", "a.md")
    matches = MATCHES
    assert matches == [set(), {"a.md"}, {"a.md"}, set(), {"b.md"}]


def test_recall_at_k() -> None:
    relevant = {"a.md", "b.md"}
    assert recall_at_k(MATCHES, relevant, 1) == 0.0
    assert recall_at_k(MATCHES, relevant, 3) == 0.5  # a.md found twice counts once
    assert recall_at_k(MATCHES, relevant, 5) == 1.0
    assert recall_at_k(MATCHES, relevant, 10) == 1.0


def test_precision_at_k_divides_by_k() -> None:
    assert precision_at_k(MATCHES, 1) == 0.0
    assert precision_at_k(MATCHES, 3) == pytest.approx(2 / 3)
    assert precision_at_k(MATCHES, 5) == pytest.approx(3 / 5)
    assert precision_at_k(MATCHES, 10) == pytest.approx(3 / 10)  # five hits returned, k = 10


def test_reciprocal_rank() -> None:
    assert reciprocal_rank(MATCHES) == 0.5
    assert reciprocal_rank([set(), set()]) == 0.0


def test_ndcg_counts_each_relevant_unit_once() -> None:
    ideal = 1 / math.log2(2) + 1 / math.log2(3)  # two relevant units at ranks 1 and 2
    assert ndcg_at_k(MATCHES, 2, 5) == pytest.approx((1 / math.log2(3) + 1 / math.log2(6)) / ideal)  # 0.6240
    assert ndcg_at_k(MATCHES, 2, 5) == pytest.approx(0.62406, abs=1e-5)
    assert ndcg_at_k(MATCHES, 2, 3) == pytest.approx((1 / math.log2(3)) / ideal)
    assert ndcg_at_k([{"a"}], 1, 1) == 1.0
    assert ndcg_at_k([{"a"}, {"b"}], 3, 2) == 1.0  # only k slots: the ideal fills 2 of 3 units


def test_retrieval_scores_of_one_question() -> None:
    scores = retrieval_scores(ITEM, QuestionRecord("q", "Q?", hits=HITS), ks=(1, 5))
    assert scores["recall@1"] == (0.0, 1.0) and scores["recall@5"] == (1.0, 1.0)
    assert scores["mrr"] == (0.5, 1.0)
    assert scores["page_hit@5"][1] == 0 and scores["table_hit@5"][1] == 0  # do not apply


def test_absent_questions_have_no_retrieval_scores() -> None:
    absent = GoldenItem("z", "Q?", type="absent")
    scores = retrieval_scores(absent, QuestionRecord("z", "Q?", hits=HITS), ks=(5,))
    assert all(den == 0 for _, den in scores.values())


def test_page_hit_and_page_grain_recall() -> None:
    item = GoldenItem("p", "Q?", relevant_pages=(PageRef(4, "rules.pdf"),))
    hits = [hit("rules.pdf", 0, [3]), hit("other.pdf", 0, [4]), hit("docs/rules.pdf", 1, [4, 5])]
    scores = retrieval_scores(item, QuestionRecord("p", "Q?", hits=hits), ks=(1, 2, 3))
    assert [scores[f"page_hit@{k}"] for k in (1, 2, 3)] == [(0.0, 1.0), (0.0, 1.0), (1.0, 1.0)]
    assert scores["recall@3"] == (1.0, 1.0) and scores["mrr"] == (pytest.approx(1 / 3), 1.0)
    bare = GoldenItem("p2", "Q?", relevant_sources=("rules.pdf",), relevant_pages=(PageRef(4),))
    assert matched_units(bare, "x", "other.pdf", [4]) == set()  # a bare page counts in the relevant sources only
    assert matched_units(bare, "x", "rules.pdf", [4]) == {"#p4"}


def test_chunk_ids_are_the_most_specific_grain() -> None:
    item = GoldenItem("c", "Q?", relevant_sources=("a.md",), relevant_chunk_ids=("docs/a.md#2",))
    scores = retrieval_scores(item, QuestionRecord("c", "Q?", hits=HITS), ks=(2, 3))
    assert scores["recall@2"] == (0.0, 1.0) and scores["recall@3"] == (1.0, 1.0)


def test_table_hit_needs_a_relevant_table_chunk() -> None:
    item = GoldenItem("t", "Q?", relevant_sources=("t.md",), type="table")
    hits = [hit("u.md", 0, kinds=["table"]), hit("t.md", 1, kinds=["heading", "paragraph"]), hit("t.md", 2, kinds=["table"])]
    scores = retrieval_scores(item, QuestionRecord("t", "Q?", hits=hits), ks=(1, 2, 3))
    assert [scores[f"table_hit@{k}"][0] for k in (1, 2, 3)] == [0.0, 0.0, 1.0]


def answered(text: str, sentences: list[SentenceRecord], hits: list[HitRecord] | None = None) -> QuestionRecord:
    return QuestionRecord("q", "Q?", hits=hits or [], answer=text, sentences=sentences)


def test_fact_match_and_abstentions() -> None:
    record = answered("上限は１２，０００円です。", [SentenceRecord("上限は１２，０００円です。")])
    assert answer_scores(ITEM, record)["fact_match"] == (1.0, 1.0)
    record.abstained = True  # an abstention scores 0 even if its text happened to contain the answer
    assert answer_scores(ITEM, record)["fact_match"] == (0.0, 1.0)
    retrieval_only = GoldenItem("r", "Q?", relevant_sources=("a.md",))
    assert answer_scores(retrieval_only, answered("x", [SentenceRecord("x")]))["fact_match"] == (0.0, 0.0)


@pytest.mark.parametrize(("expected", "passage", "answer"), [
    ("12,000円", "宿泊費の上限は１泊１２，０００円です。", "宿泊費は実費精算です。"),
    ("三个工作日", "报销申请须在三个工作日内提交。", "报销申请须提交给财务部。"),
    ("--skip-patches", "Use the --skip-patches option to leave the patches unapplied.", "Run dpkg-source -x first."),
])
def test_fact_in_evidence_tells_a_retrieval_miss_from_an_answer_miss(expected: str, passage: str, answer: str) -> None:
    item = GoldenItem("q", "Q?", expected_answers=(expected,))
    elsewhere = HitRecord("x#0", "x.md", text="Nothing relevant here. 无关内容。関係のない文。")
    record = answered(answer, [SentenceRecord(answer)])
    record.evidence = [elsewhere, HitRecord("a#3", "a.md", text=passage)]
    scores = answer_scores(item, record)
    assert scores["fact_in_evidence"] == (1.0, 1.0) and scores["fact_match"] == (0.0, 1.0)  # lost by the answer
    record.abstained = True  # a refusal with the answer in hand is the answer's loss too
    assert answer_scores(item, record)["fact_in_evidence"] == (1.0, 1.0)
    record.evidence = [elsewhere]  # lost by retrieval
    assert answer_scores(item, record)["fact_in_evidence"] == (0.0, 1.0)
    record.evidence = None  # a run recorded before evidence was kept: not measured, not a zero
    assert answer_scores(item, record)["fact_in_evidence"] == (0.0, 0.0)
    absent = GoldenItem("z", "Q?", type="absent")
    assert answer_scores(absent, answered(answer, [SentenceRecord(answer)]))["fact_in_evidence"] == (0.0, 0.0)


def test_records_without_evidence_read_back_as_unmeasured() -> None:
    old = QuestionRecord("q", "Q?").to_json()
    del old["evidence"]
    assert QuestionRecord.from_json(old).evidence is None
    kept = QuestionRecord("q", "Q?", evidence=[HitRecord("a#0", "a.md", text="上限は１２，０００円")])
    assert QuestionRecord.from_json(json.loads(json.dumps(kept.to_json()))) == kept


def test_citation_precision_coverage_and_faithfulness() -> None:
    sentences = [
        SentenceRecord("one", "supported", 0.9, [CitationRecord("docs/a.md#1", "docs/a.md"), CitationRecord("x.md#0", "x.md")]),
        SentenceRecord("two", "unsupported", 0.1, []),
        SentenceRecord("three", "supported", 0.8, [CitationRecord("b.md#4", "b.md", 2)]),
    ]
    scores = answer_scores(ITEM, answered("one two three", sentences))
    assert scores["citation_precision"] == (2.0, 3.0)
    assert scores["citation_coverage"] == (2.0, 3.0)
    assert scores["faithfulness"] == (2.0, 3.0)
    abstained = answered("…", [])
    abstained.abstained = True
    assert answer_scores(ITEM, abstained)["citation_precision"][1] == 0
    assert answer_scores(ITEM, abstained)["faithfulness"][1] == 0


def test_abstention_precision_and_recall_over_a_set() -> None:
    absent = GoldenItem("z", "Q?", type="absent")
    cases = [(absent, True), (absent, False), (ITEM, True), (ITEM, False)]
    scores = []
    for item, abstains in cases:
        record = answered("text", [] if abstains else [SentenceRecord("text")])
        record.abstained = abstains
        scores.append(answer_scores(item, record))
    summary = aggregate(scores, [], [])
    assert summary["abstention_precision"] == 0.5  # 2 abstentions, 1 on an absent question
    assert summary["abstention_recall"] == 0.5  # 2 absent questions, 1 abstained on
    assert aggregate(scores[1:2], [], [])["abstention_precision"] is None  # no abstention: undefined, not 0


def test_latency_percentiles_per_stage() -> None:
    timings = [{"total": 0.1, "dense": 0.01}, {"total": 0.2}, {"total": 0.3, "dense": 0.03}, {"total": 0.4}]
    summary = aggregate([], timings, ["total", "dense"])
    assert summary["latency_p50.total"] == pytest.approx(0.25)
    assert summary["latency_p95.total"] == pytest.approx(0.385)  # linear: 0.3 + 0.85 × 0.1
    assert summary["latency_p50.dense"] == pytest.approx(0.02)  # over the questions that have the stage


def test_tokens_and_cost_from_the_trace_add_up_every_model_call() -> None:
    stored = {
        "generator": "openai:m", "usage": {"prompt_tokens": 100, "completion_tokens": 20, "estimated": False, "cost": 0.002},
        "llm_grade": {"verdict": "sufficient", "usage": {"input_tokens": 7, "output_tokens": 3, "cost": 0.0001}},
    }
    usage = usage_from_trace(Trace.from_dict(stored))
    assert usage == {"prompt_tokens": 107.0, "completion_tokens": 23.0, "total_tokens": 130.0, "cost": pytest.approx(0.0021)}
    assert usage_scores(QuestionRecord("q", "Q?", usage=usage)) == {"tokens": (130.0, 1.0), "cost": (pytest.approx(0.0021), 1.0)}


def test_without_prices_the_cost_is_unknown_and_without_a_model_there_is_no_usage() -> None:
    unpriced = usage_from_trace(Trace.from_dict({"usage": {"prompt_tokens": 7, "completion_tokens": 3, "estimated": True}}))
    assert unpriced == {"prompt_tokens": 7.0, "completion_tokens": 3.0, "total_tokens": 10.0}
    assert usage_scores(QuestionRecord("q", "Q?", usage=unpriced))["cost"] == (0.0, 0.0)
    assert usage_from_trace(Trace.from_dict({"generator": "extractive"})) == {}
    assert usage_scores(QuestionRecord("q", "Q?")) == {"tokens": (0.0, 0.0), "cost": (0.0, 0.0)}


def test_every_metric_is_described_with_a_direction() -> None:
    assert describe("recall@5").higher_is_better and "top 5" in describe("recall@5").formula
    assert not describe("latency_p95.total").higher_is_better
    assert describe("abstention_recall").group == "answer"
    with pytest.raises(KeyError):
        describe("recall@five")
