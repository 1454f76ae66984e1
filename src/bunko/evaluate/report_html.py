"""A single self-contained HTML file: tables, charts as embedded PNGs, a per-question drill-down.

Nothing is fetched when it opens — no CDN, no fonts, no scripts — so the report can be mailed,
attached to a CI run or opened on an air-gapped machine, and look the same in ten years.
"""

from __future__ import annotations

import base64
from html import escape

from bunko.evaluate import charts
from bunko.evaluate import formatting as fmt
from bunko.evaluate.experiments import Experiment, RunResult
from bunko.evaluate.golden import GoldenItem
from bunko.evaluate.judge import SYSTEM as JUDGE_SYSTEM
from bunko.evaluate.metrics import answer_chars, fact_match
from bunko.evaluate.records import QuestionRecord
from bunko.evaluate.relevance import matched_units
from bunko.evaluate.report_md import (
    JUDGE_COLUMNS,
    JUDGE_INTRO,
    comparison_header,
    comparison_rows,
    configuration_rows,
    judge_rows,
    misses,
    overview,
    verdict_line,
)

STYLE = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI","Hiragino Sans","Noto Sans CJK JP","Microsoft YaHei",sans-serif;
 margin:2em auto;max-width:1200px;padding:0 1em;color:#222}
h1{font-size:1.6em}h2{margin-top:2em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.6em 0;font-size:13px}
th,td{border:1px solid #ddd;padding:3px 7px;text-align:left;vertical-align:top}
th{background:#f4f4f4}td.num{text-align:right;font-variant-numeric:tabular-nums}
td.win{font-weight:600;background:#eef6ee}
img{max-width:100%;border:1px solid #eee}
details{border-bottom:1px solid #eee;padding:2px 0}summary{cursor:pointer}
.ok{color:#2e7d32}.bad{color:#c62828}.muted{color:#777}
.badge{display:inline-block;border-radius:3px;padding:0 5px;margin-left:4px;font-size:12px;background:#eee}
.badge.ok{background:#e3f2e5}.badge.bad{background:#fbe4e4}
.run{margin:.4em 0 .8em 1em}.hit{margin-left:1em}.rel{background:#fff6d5}
pre{white-space:pre-wrap;margin:.2em 0;font:12px/1.4 ui-monospace,monospace}
"""


def _img(png: bytes, alt: str) -> str:
    return f'<img alt="{escape(alt)}" src="data:image/png;base64,{base64.b64encode(png).decode("ascii")}">'


def _table(header: list[str], rows: list[list[str]], winners: list[int | None] | None = None, numeric: bool = False) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = []
    for row_index, row in enumerate(rows):
        win = winners[row_index] if winners else None
        cells = []
        for index, cell in enumerate(row):
            classes = []
            if numeric and index > 0 and cell[:1] in "+-–0123456789":
                classes.append("num")
            if win is not None and index == win:
                classes.append("win")
            attr = f' class="{" ".join(classes)}"' if classes else ""
            cells.append(f"<td{attr}>{escape(cell)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _winner_columns(experiment: Experiment) -> list[int | None]:
    names = [run.name for run in experiment.runs]
    return [names.index(c.winner) + 1 if c.winner in names else None for c in experiment.comparisons]


def _badges(item: GoldenItem, record: QuestionRecord, k: int) -> str:
    parts = []
    if record.error:
        return '<span class="badge bad">error</span>'
    if item.has_relevance and not item.absent:
        rank = fmt.first_relevant_rank(item, record)
        good = rank is not None and rank <= k
        parts.append(f'<span class="badge {"ok" if good else "bad"}">rank {rank or "–"}</span>')
    if item.absent:
        parts.append(f'<span class="badge {"ok" if record.abstained else "bad"}">{"abstained" if record.abstained else "answered"}</span>')
    elif record.abstained:
        parts.append('<span class="badge bad">abstained</span>')
    elif item.expected_answers:
        good = fact_match(record.answer, item.expected_answers)
        parts.append(f'<span class="badge {"ok" if good else "bad"}">{"fact ✓" if good else "fact ✗"}</span>')
    return "".join(parts)


def _run_detail(item: GoldenItem, record: QuestionRecord, run: RunResult, k: int) -> str:
    out = [f'<div class="run"><b>{escape(run.name)}</b>{_badges(item, record, k)}']
    if record.error:
        out.append(f'<pre class="bad">{escape(record.error)}</pre></div>')
        return "".join(out)
    out.append(f"<pre>{escape(record.answer)}</pre>")
    for sentence in record.sentences:
        cites = ", ".join(f"{c.source}{f' p.{c.page}' if c.page is not None else ''}" for c in sentence.citations) or "no citation"
        support = f", support {sentence.support:.2f}" if sentence.support is not None else ""
        out.append(f'<div class="hit muted">· {escape(sentence.verdict)}{escape(support)} — {escape(cites)}</div>')
    if record.judge is not None:
        anchor = _judge_anchor(run, record)
        out.append(f'<div class="muted">judge: <a href="#{anchor}">{escape(verdict_line(record.judge))}</a></div>')
    total = record.timings.get("total")
    chars = answer_chars(record)
    facts = [f"confidence {record.confidence:.2f}"] if total is not None else []
    facts += [f"{total * 1000:.1f} ms"] if total is not None else []
    facts += [f"{chars} ch"] if chars is not None else []
    if facts:
        out.append(f'<div class="muted">{escape(" · ".join(facts))}</div>')
    for rank, hit in enumerate(record.hits[:k], start=1):
        relevant = bool(matched_units(item, hit.chunk_id, hit.source, hit.pages))
        where = " > ".join([hit.source, *hit.section_path]) + (f" p.{','.join(map(str, hit.pages))}" if hit.pages else "")
        snippet = hit.text if len(hit.text) <= 240 else hit.text[:240] + "…"
        out.append(
            f'<div class="hit{" rel" if relevant else ""}">{rank}. {"★ " if relevant else ""}{escape(where)} '
            f'<span class="muted">{escape(", ".join(hit.kinds))} · score {hit.score:.4f}</span><pre>{escape(snippet)}</pre></div>'
        )
    out.append("</div>")
    return "".join(out)


def _judge_anchor(run: RunResult, record: QuestionRecord) -> str:
    return escape(f"judge-{run.name}-{record.item_id}")


def judge_section(experiment: Experiment) -> str:
    """Counts per configuration, the judge's instructions once, then each judged question's prompt and raw verdict."""
    parts = [
        "<h2>LLM judge</h2>",
        "<p>" + escape(JUDGE_INTRO.replace("**{model}**", "{model}")).format(model=f"<code>{escape(experiment.judge or '')}</code>")
        + "</p>",
        _table(JUDGE_COLUMNS, judge_rows(experiment), numeric=True),
        f"<details><summary>The judge's instructions (the system message of every call)</summary><pre>{escape(JUDGE_SYSTEM)}</pre></details>",
    ]
    for run in experiment.runs:
        parts.append(f"<h3>{escape(run.name)}</h3>")
        for record in run.records:
            judge = record.judge
            if judge is None:
                continue
            status = "ok" if judge.status == "ok" else "bad"
            user = next((m["content"] for m in judge.prompt if m.get("role") == "user"), "")
            parts.append(
                f'<details id="{_judge_anchor(run, record)}"><summary><b>{escape(record.item_id)}</b> '
                f'<span class="badge {status}">{escape(verdict_line(judge))}</span> {escape(record.question)}</summary>'
                f'<div class="run"><div class="muted">prompt (user message)</div><pre>{escape(user)}</pre>'
                f'<div class="muted">verdict as it came back</div><pre>{escape(judge.raw or "(no reply)")}</pre></div></details>'
            )
    return "".join(parts)


def drilldown(experiment: Experiment) -> str:
    k = fmt.main_k(experiment.ks)
    rows = []
    for index, item in enumerate(experiment.items):
        badges = "".join(f" <span class='muted'>{escape(run.name)}:</span>{_badges(item, run.records[index], k)}" for run in experiment.runs)
        expected = " | ".join(item.expected_answers) or "(no answer in the documents)"
        evidence = ", ".join([*item.relevant_sources, *item.relevant_chunk_ids, *(p.key() for p in item.relevant_pages)]) or "–"
        body = "".join(_run_detail(item, run.records[index], run, k) for run in experiment.runs)
        rows.append(
            f'<details id="q-{escape(item.id)}"><summary><b>{escape(item.id)}</b> [{escape(item.lang)}/{escape(item.type)}] '
            f"{escape(item.question)}{badges}</summary>"
            f'<div class="run muted">expected: {escape(expected)} · evidence: {escape(evidence)}</div>{body}</details>'
        )
    return "".join(rows)


def calibration_section(experiment: Experiment) -> str:
    parts = ["<h2>Calibration</h2>", f"<p>{escape(fmt.CALIBRATION_INTRO)}</p>"]
    if charts.available() and any(run.reliability and run.reliability.bins for run in experiment.runs):
        parts.append(_img(charts.reliability_chart(experiment), "reliability diagram: share right against confidence"))
    for run in experiment.runs:
        parts.append(f"<h3>{escape(fmt.reliability_summary(run.name, run.reliability))}</h3>")
        rows = fmt.reliability_rows(run.reliability)
        if rows:
            parts.append(_table(fmt.RELIABILITY_HEADER, rows, numeric=True))
    return "\n".join(parts)


def render_html(experiment: Experiment, gate_failures: list[str] | None = None) -> str:
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>bunko evaluation: {escape(', '.join(run.name for run in experiment.runs))}</title>",
        f"<style>{STYLE}</style></head><body>",
        "<h1>bunko evaluation</h1>",
        f"<p>Golden set <code>{escape(experiment.golden)}</code>: {escape(overview(experiment))}. Differences are against "
        f"<b>{escape(experiment.baseline)}</b> with 95% paired-bootstrap intervals ({experiment.resamples} resamples, seed "
        f"{experiment.seed}); * marks an interval that excludes zero; the winner of each metric is highlighted. "
        f"{escape(fmt.INFORMATIVE)} marks a number to read beside the scores, never judged and never a winner: the answers' "
        "length (a longer answer contains the expected fact more often).</p>",
    ]
    if gate_failures is not None:
        verdict = "passed" if not gate_failures else "FAILED"
        items = "".join(f"<li>{escape(f)}</li>" for f in gate_failures)
        parts.append(f'<h2>Gate: <span class="{"ok" if not gate_failures else "bad"}">{verdict}</span></h2><ul>{items}</ul>')
    parts += [
        "<h2>Configurations</h2>",
        _table(["name", "from", "index", "settings"], configuration_rows(experiment)),
        "<h2>Comparison</h2>",
        _table(comparison_header(experiment), comparison_rows(experiment), _winner_columns(experiment), numeric=True),
    ]
    if experiment.notes:
        parts.append("<h2>Notes</h2><ul>" + "".join(f"<li>{escape(n)}</li>" for n in experiment.notes) + "</ul>")
    parts.append("<h2>Charts</h2>")
    if charts.available():
        parts += [
            _img(charts.metric_bars(experiment), "quality metrics per configuration"),
            _img(charts.breakdown_chart(experiment), "key metrics by question type and language"),
            _img(charts.latency_chart(experiment), "latency distribution and per-stage percentiles"),
        ]
    else:
        parts.append('<p class="muted">matplotlib is not installed (pip install "bunko[eval]"), so no charts.</p>')
    parts.append(calibration_section(experiment))
    parts.append("<h2>Questions to look at</h2>")
    for run in experiment.runs:
        rows = misses(experiment, run)
        parts.append(f"<h3>{escape(run.name)}: {len(rows)} of {len(run.records)}</h3>")
        if rows:
            parts.append(_table(["id", "lang", "type", "question", "problem", "answer"], rows))
    if experiment.judge is not None:
        parts.append(judge_section(experiment))
    parts += [
        "<h2>Every question</h2>",
        '<p class="muted">★ marks hits that count as relevant; badges show the rank of the first relevant hit and whether the '
        "expected answer (or the abstention) came back.</p>",
        drilldown(experiment),
        "<h2>Metric definitions</h2><ul>",
        *(f"<li><b>{escape(c.metric)}</b> — {escape(c.info.formula)}</li>" for c in experiment.comparisons),
        "</ul></body></html>",
    ]
    return "\n".join(parts) + "\n"
