"""`bunko eval init | check | generate | run`: golden sets and experiments from the command line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from bunko.cli.shared import (
    SAMPLES,
    SAMPLES_DOCS,
    SAMPLES_GOLDEN,
    CollectionOption,
    JsonOption,
    console,
    errors,
    fail,
    find_collection,
    open_kb,
    print_json,
    run,
)
from bunko.evaluate.golden_format import DEFAULT_KS, GOLDEN_FORMAT

if TYPE_CHECKING:
    from bunko.config import Config
    from bunko.evaluate.experiments import Experiment
    from bunko.evaluate.gate import Threshold
    from bunko.evaluate.golden import GoldenItem
    from bunko.evaluate.judge import Judge
    from bunko.evaluate.variants import Variant

eval_app = typer.Typer(
    help="Measure retrieval and answers against a golden set; compare configurations; gate CI on the numbers.",
    no_args_is_help=True,
)
ForceOption = Annotated[bool, typer.Option("--force", help="Overwrite an existing file.")]


def _refuse_overwrite(path: Path, force: bool, as_json: bool = False) -> None:
    if path.exists() and not force:
        raise fail(f"{path} exists; pass --force to overwrite it", as_json=as_json)


@eval_app.command("init")
def init(
    path: Annotated[Path, typer.Argument(help="Golden set to create.")] = Path("golden.jsonl"),
    force: ForceOption = False,
) -> None:
    """Write a golden-set template: one example line per kind of question (fact, table, page, absent)."""
    from bunko.evaluate.golden import dump_lines, template

    _refuse_overwrite(path, force)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dump_lines(template()), encoding="utf-8")
    console.print(
        f"wrote {escape(str(path))}: {len(template())} example lines marked \"draft\": true — replace them with your "
        "questions and remove the draft flag (drafts are skipped by `bunko eval run`)"
    )


CHECK_HELP = f"""Check a golden set without running it: every problem with its line and key, all at once.

Exit codes: 0 the file is valid, 1 it has problems (each printed as FILE:LINE: message naming the key; under --json \
as {{"line", "key", "message"}} objects), 2 it cannot be read (missing, not UTF-8).

{GOLDEN_FORMAT}"""


@eval_app.command("check", help=CHECK_HELP)
def check_file(
    path: Annotated[Path, typer.Argument(help="Golden set (JSONL) to check.", show_default=False)],
    as_json: JsonOption = False,
) -> None:
    from bunko.evaluate.golden import check_golden

    items, problems = run(lambda: check_golden(path), as_json=as_json)
    types = _counts(item.type for item in items)
    languages = _counts(item.lang for item in items)
    drafts = sum(item.draft for item in items)
    if as_json:
        print_json({
            "file": str(path), "valid": not problems, "questions": len(items), "drafts": drafts, "types": types,
            "languages": languages, "problems": [p.to_json() for p in problems],
        })
    else:
        for problem in problems:
            console.print(escape(problem.describe(str(path))), soft_wrap=True)
        if problems:
            lines = len({p.line for p in problems})
            errors.print(f"[red]{escape(str(path))}: {len(problems)} problem(s) on {lines} line(s)[/red]")
        else:
            shown = ", ".join(f"{name} {n}" for name, n in types.items())
            in_languages = ", ".join(f"{name} {n}" for name, n in languages.items())
            console.print(
                f"{escape(str(path))}: valid, {len(items)} questions ({escape(shown)}; {escape(in_languages)})"
                + (f", {drafts} drafts (skipped by `bunko eval run` unless --include-drafts)" if drafts else ""),
                soft_wrap=True,
            )
    if problems:
        raise typer.Exit(1)


def _counts(values: Any) -> dict[str, int]:
    counts: dict[str, int] = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    return dict(sorted(counts.items()))


@eval_app.command("generate")
def generate(
    output: Annotated[Path, typer.Option("--output", "-o", help="Where to write the drafts.")] = Path("golden.drafts.jsonl"),
    n: Annotated[int, typer.Option("-n", min=1, help="How many questions to draft.")] = 30,
    seed: Annotated[int, typer.Option(help="Which drafts are picked, reproducibly.")] = 0,
    force: ForceOption = False,
    collection: CollectionOption = None,
    as_json: JsonOption = False,
) -> None:
    """Draft questions from the collection's tables and sentences (ja/zh/en templates), for a person to review."""
    from bunko.evaluate.drafts import draft_questions
    from bunko.evaluate.golden import dump_lines

    _refuse_overwrite(output, force, as_json)
    kb = open_kb(collection, as_json=as_json)
    chunks = run(kb.chunks, as_json=as_json)
    kb.close()
    drafts = draft_questions(chunks, n=n, seed=seed)
    if not drafts:
        raise fail("found no table cells or sentences with quantities to draft questions from", 1, as_json=as_json)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(dump_lines(drafts), encoding="utf-8")
    if as_json:
        print_json({"output": str(output), "drafts": [d.to_json() for d in drafts]})
        return
    console.print(
        f"wrote {len(drafts)} draft questions to {escape(str(output))}. Review each one: fix the wording and the expected "
        "answer, remove \"draft\": true, and add questions the documents do not answer ({\"type\": \"absent\"}) by hand."
    )


def _parse_ks(text: str) -> tuple[int, ...]:
    from bunko.errors import BunkoError

    try:
        ks = tuple(sorted({int(part) for part in text.split(",") if part.strip()}))
    except ValueError:
        raise BunkoError(f"--k {text!r}: expected cut-offs such as 1,5,10") from None
    if not ks or min(ks) < 1:
        raise BunkoError(f"--k {text!r}: cut-offs must be positive integers")
    return ks


def _select_items(items: list[GoldenItem], include_drafts: bool) -> list[GoldenItem]:
    from bunko.errors import BunkoError

    drafts = [item for item in items if item.draft]
    if drafts and not include_drafts:
        errors.print(f"[yellow]note:[/yellow] skipping {len(drafts)} draft question(s) (review them, or pass --include-drafts)")
        items = [item for item in items if not item.draft]
    if not items:
        raise BunkoError("every question of the golden set is a draft; review them and remove \"draft\": true first")
    return items


def _plan(
    samples: bool, docs: list[Path], collection: Path | None,
) -> tuple[Path | None, list[Path] | None, Config, str]:
    """(collection to reuse, documents to index, base configuration, name of the default variant)."""
    from bunko.config import CONFIG_FILE, Config
    from bunko.errors import BunkoError

    if samples:
        return None, [*docs] or [SAMPLES_DOCS], Config(), "samples"
    path = find_collection(collection)
    if (path / CONFIG_FILE).exists():
        return path, docs or None, Config.load(path / CONFIG_FILE), "collection"
    if docs:
        return None, docs, Config(), "default"
    raise BunkoError(f"{path}: no bunko collection here; ingest documents first, or pass --docs PATH or --samples")


def _judge(judge_config: Path | None, variants: list[Variant]) -> Judge:
    """The judge: the chat model of the first configuration, or the [llm] of `--judge-config` laid over it.

    A judge file's [llm] decides its backend even when the configuration answers with another generator.
    """
    from bunko.evaluate.judge import Judge
    from bunko.evaluate.variants import load_variant

    if judge_config is None:
        return Judge.from_config(variants[0].config)
    base = variants[0].config.model_copy(update={"answer": variants[0].config.answer.model_copy(update={"generator": "extractive"})})
    return Judge.from_config(load_variant(judge_config, base).config)


def _print_table(experiment: Experiment) -> None:
    """The comparison for a terminal: with more than two configurations the intervals stay in the reports."""
    from rich.table import Table

    from bunko.evaluate import formatting as fmt
    from bunko.evaluate.report_md import comparison_header, comparison_rows

    runs = experiment.runs
    header = ["metric", *(run.name for run in runs)]
    if len(runs) == 2:
        header = comparison_header(experiment)
    elif len(runs) > 2:
        header += ["winner", *(f"Δ {run.name}" for run in runs[1:])]
    table = Table(*header, title="bunko eval", title_justify="left")
    for comparison, row in zip(experiment.comparisons, comparison_rows(experiment), strict=True):
        if fmt.is_latency(comparison.metric) and not comparison.metric.endswith(".total"):
            continue  # every stage is in the reports; the terminal keeps to the totals
        if len(runs) > 2:
            shifts = [comparison.diffs.get(run.name) for run in runs[1:]]
            row = row[: len(runs) + 2] + [fmt.shift(comparison.metric, d) for d in shifts]
        table.add_row(*(escape(cell) for cell in row))
    console.print(table)


def _write_reports(experiment: Experiment, out: Path, failures: list[str] | None) -> dict[str, str]:
    from bunko.evaluate.ragas_export import write_ragas
    from bunko.evaluate.report_html import render_html
    from bunko.evaluate.report_md import render_markdown

    out.mkdir(parents=True, exist_ok=True)
    paths = {"markdown": out / "report.md", "html": out / "report.html", "results": out / "results.json"}
    paths["markdown"].write_text(render_markdown(experiment, failures), encoding="utf-8")
    paths["html"].write_text(render_html(experiment, failures), encoding="utf-8")
    paths["results"].write_text(json.dumps(experiment.to_json(), ensure_ascii=False, indent=1), encoding="utf-8")
    for measured in experiment.runs:
        contexts = int(measured.config.get("retrieve", {}).get("k", max(experiment.ks)))
        paths[f"ragas:{measured.name}"] = write_ragas(out / f"ragas-{measured.name}.jsonl", experiment.items, measured.records, contexts)
    return {name: str(path) for name, path in paths.items()}


def with_baseline(given: list[Variant], baseline: Variant, keep: bool) -> list[Variant]:
    """The configurations to run: the baseline first (renamed if a --config file has its name) unless left out."""
    from bunko.evaluate.variants import Variant

    if not keep:
        return given
    names = {v.name for v in given}
    name = baseline.name if baseline.name not in names else f"{baseline.name}-as-is"
    return [Variant(name, baseline.config, baseline.origin), *given]


RUN_HELP = f"""Run every configuration over the golden set; compare them; write reports; gate on --fail-under.

With --judge, one chat model judges every configuration's answered questions; its prompts, raw verdicts, tokens \
and cost are in the reports, apart from the answers'.

Exit codes: 0 every gate met, 1 a gate failed, 2 a usage, golden-set or configuration error.

The golden set is checked first (`bunko eval check FILE` checks it alone); under --json a golden-set or usage error \
is a JSON object on stdout too ({{"error", "exit_code", "problems"}}).

{GOLDEN_FORMAT}"""


@eval_app.command("run", help=RUN_HELP)
def run_eval(
    golden: Annotated[Path | None, typer.Argument(help="Golden set (JSONL); with --samples, default: the samples' own.")] = None,
    config: Annotated[
        list[Path] | None,
        typer.Option("--config", help="A bunko.toml (partial is fine) to compare; repeat for several. Each is compared "
                     "with the collection as is (the baseline, run first; --no-baseline leaves it out)."),
    ] = None,
    baseline: Annotated[
        bool, typer.Option("--baseline/--no-baseline", help="With --config, also run the collection as is (or the samples' "
                           "or the defaults' configuration) as the baseline."),
    ] = True,
    docs: Annotated[
        list[Path] | None, typer.Option("--docs", help="Files or folders to index for configurations that change the index."),
    ] = None,
    samples: Annotated[bool, typer.Option("--samples", help="Evaluate on the bundled sample documents and their golden set.")] = False,
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for report.md, report.html, results.json, ragas-*.jsonl.")] = Path(
        "bunko-eval"
    ),
    k: Annotated[str, typer.Option("--k", help="Retrieval cut-offs, comma-separated.")] = ",".join(map(str, DEFAULT_KS)),
    fail_under: Annotated[
        list[str] | None, typer.Option("--fail-under", help="METRIC=VALUE, e.g. recall@5=0.8; exit 1 if any configuration is below."),
    ] = None,
    include_drafts: Annotated[bool, typer.Option("--include-drafts", help="Also score questions marked draft.")] = False,
    resamples: Annotated[int, typer.Option(min=100, help="Bootstrap resamples for the confidence intervals.")] = 2000,
    seed: Annotated[int, typer.Option(help="Bootstrap seed.")] = 0,
    judge: Annotated[
        bool,
        typer.Option("--judge", help="Also let the [llm] chat model judge each answer's faithfulness and relevance (0–1)."),
    ] = False,
    judge_config: Annotated[
        Path | None,
        typer.Option("--judge-config", help="A bunko.toml (partial is fine) whose [llm] is the judge. Default: the first "
                     "--config's, else the collection's."),
    ] = None,
    collection: CollectionOption = None,
    as_json: JsonOption = False,
) -> None:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from bunko.evaluate.experiments import run_experiment
    from bunko.evaluate.gate import check, ks_needed, parse_threshold
    from bunko.evaluate.golden import load_golden
    from bunko.evaluate.variants import Variant, load_variants

    thresholds: list[Threshold] = run(lambda: [parse_threshold(t) for t in fail_under or []], as_json=as_json)
    ks = tuple(sorted(set(run(lambda: _parse_ks(k), as_json=as_json)) | ks_needed(thresholds)))
    if golden is None and not samples:
        raise fail("give a golden set (JSONL), or --samples for the bundled one", as_json=as_json)
    golden_path = golden or SAMPLES_GOLDEN
    items = run(lambda: _select_items(load_golden(golden_path), include_drafts), as_json=as_json)
    reuse, doc_paths, base, default_name = run(lambda: _plan(samples, docs or [], collection), as_json=as_json)
    given = run(lambda: load_variants(config, base), as_json=as_json) if config else []
    variants = with_baseline(given, Variant(default_name, base, str(reuse or "defaults")), keep=baseline or not given)
    if given and not baseline:
        errors.print("[yellow]note:[/yellow] --no-baseline: the configurations are compared with each other, not with the collection as is")
    if judge_config is not None and not judge:
        raise fail("--judge-config names the judge's model; add --judge to use it", as_json=as_json)
    judge_model = run(lambda: _judge(judge_config, given or variants), as_json=as_json) if judge else None

    with Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=errors, disable=as_json or not errors.is_terminal, transient=True,
    ) as bar:
        task = bar.add_task("evaluating", total=None)

        def progress(description: str, done: int, total: int) -> None:
            bar.update(task, description=description[-60:], completed=done, total=total)

        try:
            experiment = run(lambda: run_experiment(
                items, variants, collection=reuse, docs=doc_paths, ks=ks, resamples=resamples, seed=seed,
                golden=str(golden_path), progress=progress, root=SAMPLES if samples else None, judge=judge_model,
            ), as_json=as_json)
        finally:
            if judge_model is not None:
                judge_model.close()
    failures = check({r.name: r.summary for r in experiment.runs}, thresholds) if thresholds else None
    written = _write_reports(experiment, out, failures)

    if as_json:
        payload: dict[str, Any] = {
            "golden": str(golden_path), "questions": len(items), "reports": written,
            "runs": {r.name: {"index": r.index, "chunks": r.chunks, "summary": r.summary} for r in experiment.runs},
            "winners": {c.metric: c.winner for c in experiment.comparisons},
            "gate": None if failures is None else {"passed": not failures, "failures": failures},
            "notes": experiment.notes, "judge": experiment.judge,
        }
        print_json(payload)
    else:
        _print_table(experiment)
        for note in experiment.notes:
            errors.print(f"[yellow]note:[/yellow] {escape(note)}")
        console.print(f"reports: {escape(written['html'])}, {escape(written['markdown'])}")
        if failures is not None:
            console.print("[green]gate passed[/green]" if not failures else "[red]gate FAILED[/red]")
        for failure in failures or []:
            errors.print(f"[red]below threshold:[/red] {escape(failure)}")
    if failures:
        raise typer.Exit(1)
