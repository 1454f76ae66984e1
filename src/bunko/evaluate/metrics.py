"""Retrieval, answer and operations metrics — each with its formula, so a number can be checked by hand.

Notation for one question: hits h_1 … h_n in rank order; M_i = the relevant *units* hit h_i
covers (chunk ids, pages or sources — see relevance.py); R = all relevant units of the question.

Retrieval (questions with relevant evidence; absent questions have none and are skipped)

- recall@k      = |M_1 ∪ … ∪ M_k| / |R|
- precision@k   = |{i ≤ k : M_i ≠ ∅}| / k          (k, not n: returning fewer hits is not rewarded)
- mrr           = 1 / min{i : M_i ≠ ∅}, or 0 when no hit is relevant (mean over questions = MRR)
- ndcg@k        = DCG@k / IDCG@k, DCG@k = Σ_{i≤k} g_i / log2(i + 1), with g_i = 1 when h_i covers a
                  unit no earlier hit covered (a second chunk of the same relevant file adds nothing),
                  IDCG@k = Σ_{i ≤ min(k, |R|)} 1 / log2(i + 1)
- page_hit@k    = 1 when a top-k hit lies on a relevant page (questions with relevant_pages)
- table_hit@k   = 1 when a top-k hit is relevant *and* contains a table (questions of type "table"):
                  the table itself was retrieved, not only prose near it

Answer

- fact_match          = 1 when an expected answer occurs in the answer after normalisation
                        (normalize.py: NFKC, case, thousands separators, punctuation, CJK-aware spaces);
                        answerable questions with expected_answer; an abstention scores 0
- fact_in_evidence    = 1 when an expected answer occurs (normalised alike) in a passage the answer was drawn from:
                        its evidence after rerank and dedup, or a chunk it cites; answerable questions with
                        expected_answer, abstained or not. 1 − fact_in_evidence is what retrieval lost,
                        fact_in_evidence − fact_match what the answer lost (a wrong sentence quoted, or a refusal)
- citation_precision  = Σ relevant citations / Σ citations, over answered questions with relevant evidence
- citation_coverage   = Σ sentences with ≥ 1 citation / Σ sentences, over answered questions
- faithfulness        = Σ sentences with verdict "supported" / Σ sentences, over answered questions
                        (the citation checker sets each AnswerSentence.verdict; without it every verdict
                        is the default "supported" and this reads 1.0)
- abstention_precision = |abstained ∧ absent| / |abstained|   (of the refusals, how many were right)
- abstention_recall    = |abstained ∧ absent| / |absent|      (of the unanswerable, how many were refused)
- ece                 = expected calibration error of the answers' confidence (calibration.py): over ten
                        equal-width confidence bins, Σ (n_bin / n) · |mean confidence − share right|, where an
                        absent question is never right and an abstention is judged by the passage it would have
                        quoted. Not a ratio of sums: it is recomputed per bootstrap resample from the questions'
                        (confidence, right) pairs

LLM judge (``bunko eval run --judge``, judge.py; only on answered questions the judge gave that score)

- judge_faithfulness  = Σ faithfulness / Σ questions with a faithfulness score: the judge's 0–1 reading of how much
                        of the answer its cited passages support
- judge_relevance     = Σ relevance / Σ questions with a relevance score: the judge's 0–1 reading of how well the
                        answer addresses the question
  An unparsed or failed verdict adds nothing to either sum (it is not a 0): the report counts them apart.

Operations

- latency_p50.<stage>, latency_p95.<stage> = the 50th / 95th percentile (linear interpolation) of the
  seconds the `ask` trace records for that stage (embed_query, dense, keyword, generate, …, total)
- answer_chars_p50, answer_chars_p90 = the 50th / 90th percentile (the same linear interpolation) of the
  characters (code points) of the answer text, over the questions answered (not abstained, not failed). A longer
  answer contains the expected fact more often, so a fact_match gain is read beside these: informative, never
  judged — no winner in a comparison, and `--fail-under` refuses them
- tokens, cost = mean LLM tokens / cost per question, over questions whose trace reports usage
- judge_tokens, judge_cost = mean tokens / cost per judge call, over the calls that returned: the
  evaluation's own spending, kept apart from the answer's

Every metric except the percentiles (latency, answer length) and ece is a ratio of sums Σ num / Σ den over questions (den = 1 for a
per-question mean; den = 0 when the metric does not apply). That one shape is what lets bootstrap.py
resample questions and recompute any metric exactly as it was computed on the full set.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import dataclass

import numpy as np

from bunko.evaluate.golden import GoldenItem
from bunko.evaluate.golden_format import DEFAULT_KS
from bunko.evaluate.normalize import contains
from bunko.evaluate.records import QuestionRecord
from bunko.evaluate.relevance import matched_units, page_hit, relevant_units

Ratio = tuple[float, float]
"""(numerator, denominator) of one question's contribution; denominator 0 means "does not apply"."""

RETRIEVAL_AT_K = ("recall", "precision", "ndcg", "page_hit", "table_hit")
ANSWER_METRICS = ("fact_match", "fact_in_evidence", "citation_precision", "citation_coverage", "faithfulness", "abstention_precision", "abstention_recall")
CALIBRATION_METRICS = ("ece",)
JUDGE_METRICS = ("judge_faithfulness", "judge_relevance")
JUDGE_USAGE = ("judge_tokens", "judge_cost")
LATENCY_QUANTILES = {"latency_p50": 50.0, "latency_p95": 95.0}
ANSWER_LENGTH_QUANTILES = {"answer_chars_p50": 50.0, "answer_chars_p90": 90.0}


# -- retrieval, on one ranked list ------------------------------------------------
def recall_at_k(matches: Sequence[Set[str]], relevant: Set[str], k: int) -> float:
    if not relevant:
        raise ValueError("recall needs at least one relevant unit")
    found: set[str] = set()
    for units in matches[:k]:
        found |= units & relevant
    return len(found) / len(relevant)


def precision_at_k(matches: Sequence[Set[str]], k: int) -> float:
    return sum(1 for units in matches[:k] if units) / k


def reciprocal_rank(matches: Sequence[Set[str]]) -> float:
    return next((1.0 / rank for rank, units in enumerate(matches, start=1) if units), 0.0)


def ndcg_at_k(matches: Sequence[Set[str]], relevant_count: int, k: int) -> float:
    if relevant_count <= 0:
        raise ValueError("nDCG needs at least one relevant unit")
    seen: set[str] = set()
    dcg = 0.0
    for rank, units in enumerate(matches[:k], start=1):
        if units - seen:
            dcg += 1.0 / math.log2(rank + 1)
        seen |= units
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(k, relevant_count) + 1))
    return dcg / ideal


# -- answers ----------------------------------------------------------------------
def fact_match(answer: str, expected: Iterable[str]) -> bool:
    return any(contains(answer, value) for value in expected)


def fact_in_evidence(item: GoldenItem, record: QuestionRecord) -> bool | None:
    """Whether a passage the answer was drawn from holds an expected answer, abstained or not; None when the question
    has none or the run kept no evidence. Below it, retrieval lost the answer; between it and `fact_match`, the answer."""
    if item.absent or not item.expected_answers or record.evidence is None:
        return None
    return any(fact_match(passage.text, item.expected_answers) for passage in record.evidence)


def answer_chars(record: QuestionRecord) -> int | None:
    """Characters (code points) of the answer text; None when the question was abstained on or failed: not answered."""
    return None if record.abstained or record.error else len(record.answer)


def percentile(values: Sequence[float], q: float) -> float | None:
    return float(np.percentile(np.asarray(values, dtype=float), q)) if len(values) else None


# -- per question -----------------------------------------------------------------
def retrieval_scores(item: GoldenItem, record: QuestionRecord, ks: Sequence[int]) -> dict[str, Ratio]:
    scores: dict[str, Ratio] = {}
    relevant = relevant_units(item)
    matches = [matched_units(item, h.chunk_id, h.source, h.pages) for h in record.hits]
    measured = bool(relevant) and not item.absent
    scores["mrr"] = (reciprocal_rank(matches), 1.0) if measured else (0.0, 0.0)
    for k in ks:
        if measured:
            scores[f"recall@{k}"] = (recall_at_k(matches, relevant, k), 1.0)
            scores[f"precision@{k}"] = (precision_at_k(matches, k), 1.0)
            scores[f"ndcg@{k}"] = (ndcg_at_k(matches, len(relevant), k), 1.0)
        else:
            scores[f"recall@{k}"] = scores[f"precision@{k}"] = scores[f"ndcg@{k}"] = (0.0, 0.0)
        top = record.hits[:k]
        if item.relevant_pages and not item.absent:
            scores[f"page_hit@{k}"] = (float(any(page_hit(item, h.source, h.pages) for h in top)), 1.0)
        else:
            scores[f"page_hit@{k}"] = (0.0, 0.0)
        if item.type == "table" and measured:
            table = any("table" in h.kinds and units for h, units in zip(top, matches, strict=False))
            scores[f"table_hit@{k}"] = (float(table), 1.0)
        else:
            scores[f"table_hit@{k}"] = (0.0, 0.0)
    return scores


def answer_scores(item: GoldenItem, record: QuestionRecord) -> dict[str, Ratio]:
    scores: dict[str, Ratio] = {}
    answered = not record.abstained and bool(record.sentences)
    if not item.absent and item.expected_answers:
        scores["fact_match"] = (float(not record.abstained and fact_match(record.answer, item.expected_answers)), 1.0)
    else:
        scores["fact_match"] = (0.0, 0.0)
    held = fact_in_evidence(item, record)
    scores["fact_in_evidence"] = (float(held), 1.0) if held is not None else (0.0, 0.0)
    if answered and not item.absent and item.has_relevance:
        pages_of = {h.chunk_id: h.pages for h in record.hits}
        citations = [c for s in record.sentences for c in s.citations]
        relevant = sum(
            1 for c in citations
            if matched_units(item, c.chunk_id, c.source, [c.page] if c.page is not None else pages_of.get(c.chunk_id, []))
        )
        scores["citation_precision"] = (float(relevant), float(len(citations)))
    else:
        scores["citation_precision"] = (0.0, 0.0)
    if answered:
        sentences = record.sentences
        scores["citation_coverage"] = (float(sum(1 for s in sentences if s.citations)), float(len(sentences)))
        scores["faithfulness"] = (float(sum(1 for s in sentences if s.verdict == "supported")), float(len(sentences)))
    else:
        scores["citation_coverage"] = scores["faithfulness"] = (0.0, 0.0)
    right = float(record.abstained and item.absent)
    scores["abstention_precision"] = (right, float(record.abstained))
    scores["abstention_recall"] = (right, float(item.absent))
    return scores


def usage_scores(record: QuestionRecord) -> dict[str, Ratio]:
    scores: dict[str, Ratio] = {}
    tokens = record.usage.get("total_tokens")
    if tokens is None and ("prompt_tokens" in record.usage or "completion_tokens" in record.usage):
        tokens = record.usage.get("prompt_tokens", 0.0) + record.usage.get("completion_tokens", 0.0)
    scores["tokens"] = (float(tokens), 1.0) if tokens is not None else (0.0, 0.0)
    cost = record.usage.get("cost")
    scores["cost"] = (float(cost), 1.0) if cost is not None else (0.0, 0.0)
    return scores


def judge_scores(record: QuestionRecord) -> dict[str, Ratio]:
    """The judge's scores and spending for one question; empty when it was not judged, so unjudged runs carry no judge metric."""
    judge = record.judge
    if judge is None:
        return {}
    scores: dict[str, Ratio] = {
        "judge_faithfulness": (judge.faithfulness, 1.0) if judge.faithfulness is not None else (0.0, 0.0),
        "judge_relevance": (judge.relevance, 1.0) if judge.relevance is not None else (0.0, 0.0),
    }
    tokens = judge.usage.get("total_tokens")
    scores["judge_tokens"] = (float(tokens), 1.0) if tokens is not None else (0.0, 0.0)
    cost = judge.usage.get("cost")
    scores["judge_cost"] = (float(cost), 1.0) if cost is not None else (0.0, 0.0)
    return scores


def score_question(item: GoldenItem, record: QuestionRecord, ks: Sequence[int] = DEFAULT_KS) -> dict[str, Ratio]:
    """Every ratio metric's (num, den) for one question."""
    return {**retrieval_scores(item, record, ks), **answer_scores(item, record), **usage_scores(record), **judge_scores(record)}


# -- aggregation ------------------------------------------------------------------
def aggregate_ratio(pairs: Iterable[Ratio]) -> float | None:
    num = den = 0.0
    for n, d in pairs:
        num += n
        den += d
    return num / den if den > 0 else None


def aggregate(
    scores: Sequence[Mapping[str, Ratio]], timings: Sequence[Mapping[str, float]], stages: Sequence[str],
    lengths: Sequence[int | None] | None = None,
) -> dict[str, float | None]:
    """Summary values of every metric over a set of questions (None: the metric does not apply); `lengths`, per question,
    its `answer_chars` (None when not answered), adds the answer-length percentiles."""
    names = list(dict.fromkeys(name for row in scores for name in row))
    summary: dict[str, float | None] = {name: aggregate_ratio(row[name] for row in scores if name in row) for name in names}
    for stage in stages:
        values = [t[stage] for t in timings if stage in t]
        for metric, q in LATENCY_QUANTILES.items():
            summary[f"{metric}.{stage}"] = percentile(values, q)
    if lengths is not None:
        answered = [float(n) for n in lengths if n is not None]
        for metric, q in ANSWER_LENGTH_QUANTILES.items():
            summary[metric] = percentile(answered, q)
    return summary


def applicable(scores: Sequence[Mapping[str, Ratio]], name: str) -> int:
    """How many questions a ratio metric was measured on."""
    return sum(1 for row in scores if row.get(name, (0.0, 0.0))[1] > 0)


# -- the catalogue ----------------------------------------------------------------
@dataclass(frozen=True)
class MetricInfo:
    name: str
    group: str
    higher_is_better: bool
    formula: str
    informative: bool = False
    """A number to read beside the scores, never a score itself: no winner is named for it and no gate takes it."""


_FORMULAS = {
    "recall": "|relevant units in top k| / |relevant units|",
    "precision": "relevant hits in top k / k",
    "mrr": "1 / rank of the first relevant hit (0 if none), mean over questions",
    "ndcg": "Σ new-relevant_i / log2(i+1) over top k, divided by the ideal",
    "page_hit": "share of questions with relevant_pages whose top k includes a relevant page",
    "table_hit": "share of table questions whose top k includes a relevant chunk containing a table",
    "fact_match": "share of answerable questions whose answer contains an expected answer (normalised)",
    "fact_in_evidence": "share of answerable questions with an expected answer in a passage the answer was drawn from "
    "(its evidence after rerank, or a passage it cites), abstained or not: 1 − this was lost by retrieval, "
    "this − fact_match by the answer",
    "citation_precision": "citations to relevant evidence / citations (answered questions)",
    "citation_coverage": "sentences with ≥1 citation / sentences (answered questions)",
    "faithfulness": "sentences with verdict 'supported' / sentences (answered questions)",
    "abstention_precision": "abstentions on absent questions / abstentions",
    "abstention_recall": "abstentions on absent questions / absent questions",
    "tokens": "mean LLM tokens per question (from the trace)",
    "cost": "mean LLM cost per question (from the trace)",
    "ece": "expected calibration error of the confidence: Σ over 10 bins (n_bin / n)·|mean confidence − share right|; "
    "absent questions are never right, an abstention is judged by the passage it would have quoted",
    "judge_faithfulness": "mean of the LLM judge's 0–1 faithfulness (claims of the answer its cited passages support), "
    "answered questions with a verdict",
    "judge_relevance": "mean of the LLM judge's 0–1 answer relevance (the answer addresses the question), answered questions "
    "with a verdict",
    "judge_tokens": "mean tokens per LLM judge call (not part of the answer's tokens)",
    "judge_cost": "mean cost per LLM judge call (not part of the answer's cost)",
}


def describe(name: str) -> MetricInfo:
    """Group, direction and formula of a metric name such as ``recall@5`` or ``latency_p95.total``."""
    base, _, suffix = name.partition("@")
    if base in RETRIEVAL_AT_K and suffix.isdigit():
        return MetricInfo(name, "retrieval", True, _FORMULAS[base].replace("top k", f"top {suffix}"))
    if name == "mrr":
        return MetricInfo(name, "retrieval", True, _FORMULAS[name])
    if name in ANSWER_METRICS:
        return MetricInfo(name, "answer", True, _FORMULAS[name])
    if name in CALIBRATION_METRICS:
        return MetricInfo(name, "answer", False, _FORMULAS[name])
    if name in JUDGE_METRICS:
        return MetricInfo(name, "judge", True, _FORMULAS[name])
    if name in ("tokens", "cost", *JUDGE_USAGE):
        return MetricInfo(name, "ops", False, _FORMULAS[name])
    quantile, _, stage = name.partition(".")
    if name in ANSWER_LENGTH_QUANTILES:
        return MetricInfo(
            name, "ops", False,
            f"{ANSWER_LENGTH_QUANTILES[name]:g}th percentile of the characters of the answer text, answered (not abstained) "
            "questions; informative, not a score: a longer answer contains the expected fact more often",
            informative=True,
        )
    if quantile in LATENCY_QUANTILES and stage:
        return MetricInfo(name, "ops", False, f"{LATENCY_QUANTILES[quantile]:g}th percentile of seconds in stage '{stage}'")
    raise KeyError(name)


def metric_names(ks: Sequence[int], stages: Sequence[str]) -> list[str]:
    """Every metric in report order: retrieval, answer, judge, operations."""
    names = [f"recall@{k}" for k in ks] + [f"precision@{k}" for k in ks] + ["mrr"] + [f"ndcg@{k}" for k in ks]
    names += [f"page_hit@{k}" for k in ks] + [f"table_hit@{k}" for k in ks]
    names += [*ANSWER_METRICS, *CALIBRATION_METRICS, *JUDGE_METRICS]
    for stage in stages:
        names += [f"{quantile}.{stage}" for quantile in LATENCY_QUANTILES]
    return [*names, *ANSWER_LENGTH_QUANTILES, "tokens", "cost", *JUDGE_USAGE]


def stage_order(stages: Iterable[str]) -> list[str]:
    """'total' first, then the stages in a stable order."""
    unique = set(stages)
    return (["total"] if "total" in unique else []) + sorted(unique - {"total"})
