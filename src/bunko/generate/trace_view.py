"""`bunko trace ID` for people: the stored trace of one ask as a short, readable summary.

The JSON (``--json``) holds everything; this view answers the questions a
person debugging an answer asks first — what a follow-up was searched as, what was retrieved, how rerank moved
it, why the grade said answer or abstain, what the model wrote, and which
sentences the citation check kept.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table


def _hits_table(title: str, hits: list[dict[str, Any]]) -> Table:
    table = Table("#", "source > section", "fusion", "rerank", "dense dist", title=title, title_justify="left")
    for rank, hit in enumerate(hits, start=1):
        signals = hit.get("signals", {})
        fusion = signals.get("fusion", {}).get("score")
        rerank = signals.get("rerank", {}).get("score")
        where = " > ".join([hit["source"], *hit.get("section_path", [])])
        flag = " [red](instruction-like)[/red]" if hit.get("instruction_like") else ""
        table.add_row(
            str(rank), escape(where) + flag, f"{fusion:.4f}" if fusion is not None else "",
            f"{rerank:.3f}" if rerank is not None else "", f"{hit['distance']:.3f}" if hit.get("distance") is not None else "",
        )
    return table


def _condensed(console: Console, condensed: dict[str, Any]) -> None:
    """The conversation step: what the follow-up was searched as, why, and by rules or by the model."""
    by = "the model" if condensed.get("used_llm") else "rules"
    turns = condensed.get("history_turns", 0)
    if condensed.get("standalone") == condensed.get("question"):
        console.print(f"conversation ({turns} earlier turns, {by}): searched as asked · {escape(str(condensed.get('reason', '')))}")
    else:
        console.print(
            f"conversation ({turns} earlier turns, {by}): searched as [bold]{escape(str(condensed.get('standalone', '')))}[/bold]"
            f" · {escape(str(condensed.get('reason', '')))}"
        )
    if condensed.get("previous"):
        console.print(f"[dim]  previous question: {escape(str(condensed['previous']))}[/dim]")
    if condensed.get("carried"):
        console.print(f"[dim]  carried over: {escape(', '.join(map(str, condensed['carried'])))}[/dim]")
    if condensed.get("llm_error"):
        console.print(f"[yellow]  the model's rewrite was not used: {escape(str(condensed['llm_error']))}[/yellow]")


def render_trace(console: Console, trace: dict[str, Any]) -> None:
    answer = trace.get("answer", {})
    console.rule(escape(trace.get("question", "")))
    route = trace.get("route", {})
    console.print(
        f"language [bold]{trace.get('language')}[/bold] · route {escape(str(route.get('mode', '')))}"
        f"{' · ' + escape(str(route.get('reason'))) if route.get('reason') else ''}"
        f" · generator {escape(str(trace.get('generator')))} · reranker {escape(str(trace.get('reranker')))}"
        f" · policy {escape(str(trace.get('policy')))}"
    )
    if trace.get("filters"):
        console.print(f"filters {escape(str(trace['filters']))}")
    if isinstance(trace.get("condensed"), dict):
        _condensed(console, trace["condensed"])
    for step in trace.get("steps", []):
        said = ", ".join(f"{key} {_shown(value)}" for key, value in step.get("output", {}).items())
        console.print(f"step [bold]{escape(str(step.get('name')))}[/bold] ({step.get('seconds', 0) * 1000:.0f} ms): {escape(said)}")
    if trace.get("fallback"):
        console.print(f"[yellow]the LLM failed, the answer is extractive: {escape(str(trace['fallback']))}[/yellow]")
    console.print(_hits_table("evidence (after rerank)", trace.get("hits", [])))
    rerank = trace.get("rerank", {})
    if rerank.get("duplicates_dropped"):
        console.print(f"[dim]near-duplicates dropped: {escape(', '.join(rerank['duplicates_dropped']))}[/dim]")
    if rerank.get("notes"):
        console.print(f"[yellow]rerank notes: {escape('; '.join(rerank['notes']))}[/yellow]")
    grade = trace.get("grade", {})
    colour = "green" if grade.get("sufficient") else "red"
    measured = grade.get("features", {})  # the quoted unit's figures (`generate/grade.answer_features`)
    console.print(
        f"grade [{colour}]{'sufficient' if grade.get('sufficient') else 'insufficient'}[/{colour}] · confidence "
        f"{grade.get('confidence', 0):.2f} (similarity {measured.get('similarity', 0):.2f}, coverage {measured.get('coverage', 0):.2f}, "
        f"reader {measured.get('reader', 0):.2f})"
        + (f" · refused: {escape(str(grade['reason']))}" if grade.get("reason") else "")
    )
    if "llm_grade" in trace:
        llm = trace["llm_grade"]
        console.print(f"LLM grade: {escape(str(llm.get('verdict')))}" + (f" → query {escape(str(llm.get('query')))}" if llm.get("query") else ""))
    if "rewrite" in trace:
        console.print(_hits_table(f"evidence for the rewritten query {trace['rewrite']['query']!r}", trace["rewrite"].get("hits", [])))
    if trace.get("abstain_reason"):
        console.print(f"[red]abstained[/red]: {escape(str(trace['abstain_reason']))}")
    if trace.get("raw_output") is not None:
        console.print("[bold]model output[/bold]")
        console.print("  " + escape(trace["raw_output"]).replace("\n", "\n  "))
        if trace.get("stopped"):
            why = {"enough_sentences": "the answer held the sentences it asked for", "repeating": "it repeated a sentence"}
            console.print(f"  [dim]stopped early: {escape(why.get(trace['stopped'], str(trace['stopped'])))}[/dim]")
    if trace.get("sentences"):
        table = Table("verdict", "sentence", "sources", "lexical", "semantic", title="citation check", title_justify="left")
        for s in trace["sentences"]:
            colour = {"supported": "green", "unsupported": "red", "uncited": "yellow"}.get(s.get("verdict"), "dim")
            table.add_row(
                f"[{colour}]{s.get('verdict')}[/{colour}]", escape(s.get("text", "")), ",".join(map(str, s.get("sources", []))),
                f"{s['lexical']:.2f}" if "lexical" in s else "", f"{s['semantic']:.2f}" if "semantic" in s else "",
            )
        console.print(table)
    checked = trace.get("checked_confidence")
    if isinstance(checked, dict):  # a model's answer: the grade's confidence times the share the check supported
        console.print(
            f"answer confidence {checked.get('confidence', 0):.2f} = grade {checked.get('grade', 0):.2f} × "
            f"{checked.get('supported', 0)} of {checked.get('checked', 0)} sentences supported"
        )
    if trace.get("pii_masked"):
        console.print(f"personal data masked: {escape(str(trace['pii_masked']))}")
    console.print("[bold]answer[/bold]")
    console.print("  " + escape(answer.get("text", "")).replace("\n", "\n  "))
    if answer.get("needs_review"):
        console.print("[yellow]needs human review[/yellow]")
    timings = trace.get("timings", {})
    shown = {k: v for k, v in timings.items() if "." not in k}
    console.print("[dim]timings " + " · ".join(f"{k} {v * 1000:.0f} ms" for k, v in shown.items()) + "[/dim]")


def _shown(value: object) -> str:
    """A step's output value on one line; the classifier's verdict as its kind and probability, not every kind's; the
    model's as its kind, not its reply."""
    if isinstance(value, dict) and "kind" in value and "probability" in value:
        return f"{value['kind']} (p={value['probability']})"
    if isinstance(value, dict) and "kind" in value and "raw" in value:  # the model's kind (`[agent] llm_analysis`)
        return str(value["kind"] or f"none ({value.get('error') or 'the reply named no kind'})")
    return str(value)
