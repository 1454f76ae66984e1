"""The answers' length (answer_chars_p50 / answer_chars_p90): counted, aggregated, compared and reported, never judged.

A longer answer contains the expected fact more often, so the reports show how long the answers were beside fact_match.
Invented answers in en, ja and zh of known lengths; abstentions and failures are not answers and are left out.
"""

from __future__ import annotations

import re

import lxml.html
import pytest

from bunko import Config
from bunko.errors import BunkoError
from bunko.evaluate import formatting as fmt
from bunko.evaluate.experiments import Experiment, RunResult, compare, summarise
from bunko.evaluate.gate import Threshold, check, parse_threshold
from bunko.evaluate.golden import GoldenItem
from bunko.evaluate.metrics import ANSWER_LENGTH_QUANTILES, aggregate, answer_chars, describe, metric_names
from bunko.evaluate.records import QuestionRecord, SentenceRecord
from bunko.evaluate.report_html import render_html
from bunko.evaluate.report_md import render_markdown, unmeasured

# (item, answer, its length in characters, abstained, error)
CASES = [
    (GoldenItem("ja1", "宿泊費の上限は？", ("12,000円",), lang="ja"), "上限は１泊12,000円です。", 15, False, None),
    (GoldenItem("ja2", "宿泊費の上限は？", ("12,000円",), lang="ja"),
     "宿泊費の上限は１泊12,000円です。ただし東京23区内は14,000円、その他の地域は11,000円とし、領収書の提出を必須とします。", 68, False, None),
    (GoldenItem("ja3", "社長の給与は？", lang="ja", type="absent"), "ご質問の内容は資料に記載されていません。", 20, True, None),
    (GoldenItem("zh1", "年假可以顺延吗？", ("三月底",), lang="zh"), "年假可以顺延至次年三月底。", 13, False, None),
    (GoldenItem("zh2", "年假可以顺延吗？", ("三月底",), lang="zh"), "未使用的年假可以顺延至次年三月底，逾期作废。", 22, False, None),
    (GoldenItem("zh3", "公司的股价是多少？", lang="zh", type="absent"), "资料中没有提到这一点。", 11, True, None),
    (GoldenItem("en1", "What is the hotel limit?", ("12,000 yen",), lang="en"), "The limit is 12,000 yen.", 24, False, None),
    (GoldenItem("en2", "How fast is a P1 answered?", ("15 minutes",), lang="en"), "A P1 incident is answered within 15 minutes.", 44, False, None),
    (GoldenItem("en3", "How fast is a P1 answered?", ("15 minutes",), lang="en"),
     "A P1 incident is answered within 15 minutes, a P2 within one hour, and a P3 by the next business day.", 101, False, None),
    (GoldenItem("en4", "What is the CEO's salary?", lang="en", type="absent"), "I do not know.", 14, True, None),
    (GoldenItem("en5", "How fast is a P2 answered?", ("one hour",), lang="en"), "", 0, False, "TimeoutError: the model did not reply"),
]
ITEMS = [case[0] for case in CASES]


def records(repeat: int = 1) -> list[QuestionRecord]:
    """One record per case; `repeat` writes each answer that many times over (the same facts, a longer text)."""
    out = []
    for item, answer, length, abstained, error in CASES:
        assert len(answer) == length  # the lengths the expected percentiles below are computed from
        text = " ".join([answer] * repeat) if answer else answer
        out.append(QuestionRecord(
            item.id, item.question, answer=text, abstained=abstained, error=error,
            sentences=[] if abstained or error else [SentenceRecord(text)], timings={} if error else {"total": 0.1},
        ))
    return out


def run_of(name: str, recorded: list[QuestionRecord]) -> RunResult:
    run = RunResult(name, "test", Config().model_dump(), "collection", 10, None, recorded, [], {})
    run.scores, run.summary, run.by_tag = summarise(ITEMS, recorded, (1, 5), ["total"])
    return run


def test_only_answered_questions_have_a_length_and_each_cjk_character_counts_once() -> None:
    recorded = records()
    assert [answer_chars(r) for r in recorded] == [15, 68, None, 13, 22, None, 24, 44, 101, None, None]
    assert answer_chars(QuestionRecord("x", "Q?", answer="１２，０００円")) == 7  # full-width characters: one each


def test_the_percentiles_over_answered_questions_overall_and_per_language_and_type() -> None:
    run = run_of("base", records())
    # answered: 13 15 22 24 44 68 101 (the abstentions' 20, 11, 14 characters and the failure are left out);
    # linear interpolation as numpy's (the latency percentiles'): p90 at position 0.9 × 6 = 5.4 → 68 + 0.4 × 33
    assert run.summary["answer_chars_p50"] == pytest.approx(24.0)
    assert run.summary["answer_chars_p90"] == pytest.approx(81.2)
    lang = run.by_tag["lang"]
    assert (lang["en"]["answer_chars_p50"], lang["en"]["answer_chars_p90"]) == (pytest.approx(44.0), pytest.approx(89.6))
    assert (lang["ja"]["answer_chars_p50"], lang["ja"]["answer_chars_p90"]) == (pytest.approx(41.5), pytest.approx(62.7))
    assert (lang["zh"]["answer_chars_p50"], lang["zh"]["answer_chars_p90"]) == (pytest.approx(17.5), pytest.approx(21.1))
    kinds = run.by_tag["type"]
    assert kinds["fact"]["answer_chars_p50"] == pytest.approx(24.0)
    assert kinds["absent"]["answer_chars_p50"] is None and kinds["absent"]["answer_chars_p90"] is None  # all abstained: unmeasured


def test_aggregate_adds_the_lengths_only_when_given() -> None:
    assert not set(ANSWER_LENGTH_QUANTILES) & set(aggregate([], [{"total": 0.1}], ["total"]))
    assert aggregate([], [], [], [None, None]) == {"answer_chars_p50": None, "answer_chars_p90": None}
    assert aggregate([], [], [], [10, None, 30])["answer_chars_p50"] == pytest.approx(20.0)


def test_the_lengths_are_informative_operations_metrics() -> None:
    for name in ANSWER_LENGTH_QUANTILES:
        info = describe(name)
        assert (info.group, info.higher_is_better, info.informative) == ("ops", False, True)
        assert "characters" in info.formula and "abstained" in info.formula
        assert fmt.direction(name) == fmt.INFORMATIVE
    assert not describe("fact_match").informative and fmt.direction("latency_p50.total") == "↓"
    names = metric_names((5,), ["total"])
    assert names.index("latency_p95.total") < names.index("answer_chars_p50") < names.index("answer_chars_p90") < names.index("tokens")
    assert fmt.value("answer_chars_p50", 212.4) == "212 ch" and fmt.value("answer_chars_p90", None) == "–"


def test_a_comparison_measures_the_difference_but_names_no_winner() -> None:
    base, longer = run_of("base", records()), run_of("longer", records(repeat=2))
    assert longer.summary["fact_match"] == base.summary["fact_match"]  # the same facts, only longer
    assert longer.summary["answer_chars_p50"] == pytest.approx(49.0)  # "x x": 2 × 24 + 1
    comparisons = {c.metric: c for c in compare([base, longer], (1, 5), ["total"], resamples=300, seed=0)}
    length = comparisons["answer_chars_p50"]
    assert length.winner is None  # neither length is better
    interval = length.diffs["longer"]
    assert interval is not None and interval.diff == pytest.approx(25.0) and interval.significant
    assert re.fullmatch(r"\+25 ch \[\+\d+, \+\d+\]\*", fmt.interval("answer_chars_p50", interval))
    assert fmt.shift("answer_chars_p50", interval) == "+25 ch*"
    assert comparisons["answer_chars_p90"].winner is None and comparisons["latency_p50.total"].winner == "tie"
    experiment = Experiment("golden.jsonl", ITEMS, [base, longer], (1, 5), ["total"], list(comparisons.values()), 300, 0)
    row = next(c for c in experiment.to_json()["comparisons"] if c["metric"] == "answer_chars_p90")
    assert row["informative"] is True and row["winner"] is None and row["higher_is_better"] is False


def test_no_gate_judges_the_length() -> None:
    for name in ANSWER_LENGTH_QUANTILES:
        with pytest.raises(BunkoError, match="informative"):
            parse_threshold(f"{name}=100")
    summary = run_of("base", records()).summary
    assert summary["answer_chars_p90"] is not None
    assert check({"base": summary}, [Threshold("fact_match", 0.0)]) == []  # present in the summary, judged by no threshold


def experiment() -> Experiment:
    runs = [run_of("base", records()), run_of("longer", records(repeat=2))]
    return Experiment("golden.jsonl", ITEMS, runs, (1, 5), ["total"], compare(runs, (1, 5), ["total"], resamples=200, seed=0), 200, 0)


def test_the_markdown_report_shows_the_lengths_in_the_comparison_the_breakdown_and_the_definitions() -> None:
    markdown = render_markdown(experiment())
    lines = markdown.splitlines()
    p50 = next(line for line in lines if line.startswith("| answer_chars_p50"))
    assert p50.startswith("| answer_chars_p50 (informative) | 24 ch | 49 ch | – | +25 ch [")  # no winner
    assert next(line for line in lines if line.startswith("| answer_chars_p90")).startswith("| answer_chars_p90 (informative) | 81 ch |")
    assert "(informative) marks a number to read beside the scores" in markdown
    breakdown = markdown[markdown.index("**base** by lang"):markdown.index("**base** by type")]
    header = next(line for line in breakdown.splitlines() if line.startswith("| lang"))
    assert header.endswith("| latency_p50.total | answer_chars_p50 | answer_chars_p90 |")
    assert next(line for line in breakdown.splitlines() if line.startswith("| en (")).endswith("| 44 ch | 90 ch |")
    assert next(line for line in breakdown.splitlines() if line.startswith("| ja (")).endswith("| 42 ch | 63 ch |")
    assert next(line for line in breakdown.splitlines() if line.startswith("| zh (")).endswith("| 18 ch | 21 ch |")
    assert "- **answer_chars_p50** — 50th percentile of the characters of the answer text" in markdown
    assert "(measured on 7 answered questions)" in markdown


def test_an_unanswered_golden_set_says_why_the_lengths_are_missing() -> None:
    recorded = [QuestionRecord(r.item_id, r.question, answer=r.answer, abstained=True) for r in records()]
    run = run_of("refuses", recorded)
    assert run.summary["answer_chars_p50"] is None
    empty = Experiment("golden.jsonl", ITEMS, [run], (1, 5), [], compare([run], (1, 5), [], resamples=100, seed=0), 100, 0)
    assert any(reason.startswith("answer_chars_p50/p90 (no question was answered") for reason in unmeasured(empty))


def test_the_html_report_shows_the_lengths_and_each_answers_own() -> None:
    html = render_html(experiment())
    tree = lxml.html.fromstring(html)
    rows = {row.xpath("./td[1]")[0].text_content(): row for row in tree.xpath("(//table)[2]/tbody/tr")}
    p90 = rows["answer_chars_p90 (informative)"]
    assert [td.text_content() for td in p90.xpath("./td")][1:4] == ["81 ch", "163 ch", "–"]  # 2 × 81.2 + 1, no winner
    assert not p90.xpath("./td[contains(@class, 'win')]")
    assert "answer_chars_p50 (informative)" in rows
    detail = tree.xpath('//details[@id="q-ja1"]')[0].text_content()
    assert "15 ch" in detail and "31 ch" in detail  # base and longer
    assert "20 ch" not in tree.xpath('//details[@id="q-ja3"]')[0].text_content()  # an abstention has no length
