"""The experiment as Markdown: small enough to paste into a pull request, complete enough to decide on."""

from __future__ import annotations

import re
from collections import Counter
from html import escape

from bunko.evaluate import formatting as fmt
from bunko.evaluate.experiments import Experiment, RunResult
from bunko.evaluate.judge import SYSTEM as JUDGE_SYSTEM
from bunko.evaluate.judge import judge_summary
from bunko.evaluate.metrics import answer_chars, applicable, fact_in_evidence, fact_match
from bunko.evaluate.records import JudgeRecord
from bunko.evaluate.variants import differences

MAX_MISSES = 15
LOW_JUDGE_SCORE = 0.5
"""A judged answer below this faithfulness or relevance is listed among the questions to look at."""


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(cell(h) for h in header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return lines


def overview(experiment: Experiment) -> str:
    langs = Counter(item.lang for item in experiment.items)
    types = Counter(item.type for item in experiment.items)
    return (
        f"{len(experiment.items)} questions ("
        + ", ".join(f"{lang} {n}" for lang, n in sorted(langs.items()))
        + "; "
        + ", ".join(f"{kind} {n}" for kind, n in sorted(types.items()))
        + ")"
    )


def configuration_rows(experiment: Experiment) -> list[list[str]]:
    base = experiment.runs[0].config
    rows = []
    for run in experiment.runs:
        changes = differences(base, run.config) if run is not experiment.runs[0] else ["(baseline)"]
        indexed = run.index + (f", indexed in {run.ingest_seconds:.1f} s" if run.ingest_seconds is not None else "")
        rows.append([run.name, run.origin, f"{indexed}, {run.chunks} chunks", "; ".join(changes) or "(same settings)"])
    return rows


def comparison_rows(experiment: Experiment) -> list[list[str]]:
    rows = []
    for comparison in experiment.comparisons:
        row = [f"{comparison.metric} {fmt.direction(comparison.metric)}"]
        row += [fmt.value(comparison.metric, comparison.values[run.name]) for run in experiment.runs]
        if len(experiment.runs) > 1:
            row.append(comparison.winner or "–")
            row += [fmt.interval(comparison.metric, comparison.diffs.get(run.name)) for run in experiment.runs[1:]]
        rows.append(row)
    return rows


def comparison_header(experiment: Experiment) -> list[str]:
    header = ["metric", *(run.name for run in experiment.runs)]
    if len(experiment.runs) > 1:
        header.append("winner")
        header += [f"{run.name} − {experiment.baseline} [95% CI]" for run in experiment.runs[1:]]
    return header


def breakdown_lines(experiment: Experiment, run: RunResult) -> list[str]:
    metrics = [m for m in fmt.key_metrics(experiment.ks) if run.summary.get(m) is not None]
    lines: list[str] = []
    for dimension, groups in run.by_tag.items():
        counts = Counter(item.lang if dimension == "lang" else item.type for item in experiment.items)
        rows = [[f"{value} ({counts[value]})", *(fmt.value(m, summary.get(m)) for m in metrics)] for value, summary in groups.items()]
        lines += [f"**{run.name}** by {dimension}", "", *_table([dimension, *metrics], rows), ""]
    return lines


def calibration_lines(experiment: Experiment) -> list[str]:
    lines = ["## Calibration", "", fmt.CALIBRATION_INTRO, ""]
    for run in experiment.runs:
        lines += [f"**{fmt.reliability_summary(run.name, run.reliability)}**", ""]
        rows = fmt.reliability_rows(run.reliability)
        if rows:
            lines += [*_table(fmt.RELIABILITY_HEADER, rows), ""]
    return lines


def misses(experiment: Experiment, run: RunResult) -> list[list[str]]:
    """Questions worth a look: evidence not retrieved, expected answer missing, or a wrong abstention."""
    k = fmt.main_k(experiment.ks)
    rows = []
    for item, record in zip(experiment.items, run.records, strict=True):
        rank = fmt.first_relevant_rank(item, record)
        held = fact_in_evidence(item, record)
        problems = []
        if record.error:
            problems.append(f"error: {record.error}")
        if item.absent and not record.abstained:
            problems.append("answered an absent question")
        if not item.absent and record.abstained:
            problems.append(_ABSTAINED[held])
        if item.has_relevance and not item.absent and (rank is None or rank > k):
            problems.append(f"no relevant hit in top {k}")
        if item.expected_answers and not record.abstained and not fact_match(record.answer, item.expected_answers):
            problems.append(_NOT_IN_THE_ANSWER[held])
        judge = record.judge
        if judge is not None:
            for label, score in (("faithfulness", judge.faithfulness), ("relevance", judge.relevance)):
                if score is not None and score < LOW_JUDGE_SCORE:
                    problems.append(f"judge: {label} {score:.2f}")
        if problems:
            rows.append([item.id, item.lang, item.type, item.question, "; ".join(problems), record.answer[:120]])
    return rows


# Which stage lost an expected answer, by whether the evidence held it (`fact_in_evidence`; None: not recorded).
_ABSTAINED = {
    True: "abstained, the expected answer in the evidence", False: "abstained, the expected answer not in the evidence",
    None: "abstained",
}
_NOT_IN_THE_ANSWER = {
    True: "expected answer in the evidence, not in the answer", False: "expected answer neither in the evidence nor in the answer",
    None: "expected answer not in the answer",
}


_WHY_UNMEASURED = {
    "page_hit": "page_hit (no question has relevant_pages)",
    "table_hit": "table_hit (no table question with relevant evidence)",
    "fact_match": "fact_match (no answerable question has expected_answer)",
    "fact_in_evidence": "fact_in_evidence (no answerable question has expected_answer, or the run kept no evidence)",
    "citation_precision": "citation_precision (no answered question with relevant evidence)",
    "abstention_precision": "abstention_precision (no question was abstained on)",
    "abstention_recall": "abstention_recall (no absent questions)",
    "tokens": "tokens and cost (no LLM usage in the traces)",
    "answer_chars_p50": "answer_chars_p50/p90 (no question was answered: every one abstained or failed)",
}


def unmeasured(experiment: Experiment) -> list[str]:
    """Metrics that apply to no question of this golden set, with the reason, so a gap is not mistaken for a zero."""
    measured = {c.metric.partition("@")[0] for c in experiment.comparisons}
    return [reason for base, reason in _WHY_UNMEASURED.items() if base not in measured]


# -- the LLM judge ----------------------------------------------------------------
JUDGE_COLUMNS = ["configuration", "answered", "judged", "ok", "partial", "unparsed", "failed", "read", "scored by",
                 "judge_faithfulness", "judge_relevance", "judge tokens", "judge cost"]


def judge_rows(experiment: Experiment) -> list[list[str]]:
    """Per configuration: how many answered questions the judge scored, and what its calls took, apart from the answers'."""
    rows = []
    for run in experiment.runs:
        counts = judge_summary(run.records)
        cost = counts.get("cost")
        rows.append([
            run.name, *(f"{int(counts[key])}" for key in ("answered", "judged", "ok", "partial", "unparsed", "error")),
            f"{int(counts['parsed'])} of {int(counts['judged'])}",
            "lexical judge (fewer than half read)" if counts["lexical"] else "the model",
            fmt.value("judge_faithfulness", run.summary.get("judge_faithfulness")),
            fmt.value("judge_relevance", run.summary.get("judge_relevance")),
            f"{int(counts['total_tokens'])} ({int(counts['prompt_tokens'])} prompt + {int(counts['completion_tokens'])} completion)",
            f"{cost:.5f}" if cost is not None else "–",
        ])
    return rows


def verdict_line(judge: JudgeRecord) -> str:
    """`faithfulness 0.90 · relevance 1.00 · ok`, with the problem when the verdict is not whole."""
    def score(value: float | None) -> str:
        return f"{value:.2f}" if value is not None else "–"

    line = f"faithfulness {score(judge.faithfulness)} · relevance {score(judge.relevance)} · {judge.status}"
    if judge.scored_by != "llm":
        line += f" · scored by the {judge.scored_by} judge"
    return line + (f" ({judge.problem})" if judge.problem else "")


def _fenced(text: str) -> list[str]:
    """A code block that no backtick run inside `text` can close."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + "text", text, fence]


JUDGE_INTRO = (
    "Every answered question was judged by **{model}**: faithfulness (how much of the answer its cited passages support) "
    "and relevance (whether it addresses the question), 0–1. A verdict that could not be read, or a call that failed, "
    "scores nothing — it is counted here, not as 0; when fewer than half could be read, the whole configuration is "
    "scored by the lexical judge instead (the citation check's supported share, the question's words in the answer). "
    "The judge's tokens and cost are its own, not the answers'."
)


def judge_lines(experiment: Experiment) -> list[str]:
    """The judge's section: counts per configuration, the shared instructions, then each question's prompt and raw verdict."""
    lines = ["## LLM judge", "", JUDGE_INTRO.format(model=experiment.judge), "",
             *_table(JUDGE_COLUMNS, judge_rows(experiment)), "",
             "<details><summary>The judge's instructions (the system message of every call)</summary>", "",
             *_fenced(JUDGE_SYSTEM), "", "</details>", ""]
    for run in experiment.runs:
        lines += [f"**{run.name}**: each question's prompt and the judge's verdict as it came back", ""]
        for record in run.records:
            judge = record.judge
            if judge is None:
                continue
            user = next((m["content"] for m in judge.prompt if m.get("role") == "user"), "")
            lines += [
                f"<details><summary>{escape(record.item_id)} · {escape(verdict_line(judge))}</summary>", "",
                "Prompt (user message):", "", *_fenced(user), "",
                "Verdict (raw):", "", *_fenced(judge.raw or "(no reply)"), "", "</details>", "",
            ]
    return lines


def render_markdown(experiment: Experiment, gate_failures: list[str] | None = None) -> str:
    lines = [
        "# bunko evaluation",
        "",
        f"Golden set `{experiment.golden}`: {overview(experiment)}. Differences are against the baseline "
        f"**{experiment.baseline}** with 95% paired-bootstrap intervals over questions ({experiment.resamples} resamples, "
        "seed {}); `*` marks an interval that excludes zero. ↑ higher is better, ↓ lower is better; {} marks a number to "
        "read beside the scores, never judged and never a winner: the answers' length (a longer answer contains the "
        "expected fact more often, so a fact_match gain that comes with longer answers may come from the length).".format(
            experiment.seed, fmt.INFORMATIVE),
        "",
        "## Configurations",
        "",
        *_table(["name", "from", "index", "settings"], configuration_rows(experiment)),
        "",
        "## Comparison",
        "",
        *_table(comparison_header(experiment), comparison_rows(experiment)),
        "",
    ]
    missing = unmeasured(experiment)
    if missing:
        lines += ["Not measured: " + "; ".join(missing) + ".", ""]
    if gate_failures is not None:
        lines += ["## Gate", ""]
        lines += [f"- FAILED {failure}" for failure in gate_failures] or ["- passed"]
        lines.append("")
    if experiment.notes:
        lines += ["## Notes", "", *(f"- {note}" for note in experiment.notes), ""]
    lines += ["## Breakdown", ""]
    for run in experiment.runs:
        lines += breakdown_lines(experiment, run)
    lines += calibration_lines(experiment)
    lines += ["## Questions to look at", ""]
    for run in experiment.runs:
        rows = misses(experiment, run)
        lines += [f"**{run.name}**: {len(rows)} of {len(run.records)}", ""]
        if rows:
            shown = rows[:MAX_MISSES]
            lines += _table(["id", "lang", "type", "question", "problem", "answer"], shown)
            if len(rows) > len(shown):
                lines.append(f"\n… {len(rows) - len(shown)} more in the HTML report.")
            lines.append("")
    if experiment.judge is not None:
        lines += judge_lines(experiment)
    lines += ["## Metric definitions", ""]
    base = experiment.runs[0]
    answered = sum(1 for record in base.records if answer_chars(record) is not None)
    for comparison in experiment.comparisons:
        if fmt.is_answer_length(comparison.metric):
            measured_on = f" (measured on {answered} answered questions)"
        elif comparison.info.group == "ops":
            measured_on = ""
        else:
            measured_on = f" (measured on {applicable(base.scores, comparison.metric)} questions)"
        lines.append(f"- **{comparison.metric}** — {comparison.info.formula}{measured_on}")
    return "\n".join(lines) + "\n"
