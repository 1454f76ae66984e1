"""Maintaining a collection: `reembed`, `reindex`, `migrate` to another store, `calibrate` its thresholds."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Table

from bunko.cli.shared import (
    CollectionOption,
    JsonOption,
    console,
    document_progress,
    errors,
    fail,
    find_collection,
    open_kb,
    print_json,
    run,
)
from bunko.config import CONFIG_FILE, Config, switch_embedder
from bunko.engine import Bunko
from bunko.schema import to_dict


def reembed(
    model: Annotated[str | None, typer.Option(help="Switch [embed] model to this embedder first.")] = None,
    collection: CollectionOption = None,
    as_json: JsonOption = False,
) -> None:
    """Re-embed all stored chunks with the configured embedder (no re-parsing)."""
    path = find_collection(collection)
    config_file = path / CONFIG_FILE
    if not config_file.exists():
        raise fail(f"{path}: no bunko collection here")
    config = run(lambda: switch_embedder(config_file, model) if model else Config.load(config_file))
    kb = run(lambda: Bunko.for_reembed(path, config))
    count = run(kb.reembed)
    kb.close()
    if as_json:
        print_json({"chunks": count, "embedder": config.embed.model})
    else:
        console.print(f"re-embedded {count} chunks with {config.embed.model}")


def migrate(
    to: Annotated[str, typer.Option("--to", help="Destination store: a postgresql:// DSN, or 'local' for this folder.")],
    replace: Annotated[bool, typer.Option("--replace", help="Empty the destination first if it already holds a collection.")] = False,
    keep_config: Annotated[bool, typer.Option("--keep-config", help="Only copy; bunko.toml keeps using the current store.")] = False,
    collection: CollectionOption = None,
    as_json: JsonOption = False,
) -> None:
    """Copy the collection to another store (no re-parsing, no re-embedding), then use it."""
    from bunko.store.migrate import migrate_collection

    with Progress(TextColumn("[bold]copying"), BarColumn(), MofNCompleteColumn(), console=errors,
                  disable=as_json or not errors.is_terminal, transient=True) as bar:
        task = bar.add_task("copying", total=None)
        report = run(lambda: migrate_collection(
            find_collection(collection), to, replace=replace, switch=not keep_config,
            progress=lambda done, total: bar.update(task, completed=done, total=total),
        ))
    if as_json:
        print_json(to_dict(report))
        return
    console.print(f"copied {report.documents} documents, {report.chunks} chunks, {report.jobs} jobs, {report.traces} traces "
                  f"from {escape(report.source)} to {escape(report.destination)} in {report.seconds} s")
    if report.switched:
        console.print(f"the collection now uses {escape(report.destination)} (store in {CONFIG_FILE})")


def reindex(collection: CollectionOption = None, as_json: JsonOption = False) -> None:
    """Re-tokenize the keyword index with the configured [retrieve] analyzer and find each chunk's entities for the
    graph route again (no re-parsing, no re-embedding)."""
    path = find_collection(collection)
    kb = run(lambda: Bunko(path, create=False, allow_analyzer_change=True))
    with document_progress("re-indexing", as_json) as progress:
        count = run(lambda: kb.reindex(progress))
    analyzer = kb.config.retrieve.analyzer
    kb.close()
    if as_json:
        print_json({"documents": count, "analyzer": analyzer})
    else:
        console.print(f"re-indexed {count} documents with the {analyzer} analyzer, entities: {kb.config.ingest.entities}")


def calibrate(
    golden: Annotated[Path, typer.Argument(help="Golden set JSONL (questions with relevant sources; type 'absent' for unanswerable).")],
    collection: CollectionOption = None,
    as_json: JsonOption = False,
) -> None:
    """Distance and confidence distributions of should-find vs should-not-find questions, with suggested thresholds."""
    from bunko.evaluate.golden import load_golden
    from bunko.retrieve.calibrate import calibrate as run_calibration
    from bunko.retrieve.calibrate import percentiles

    kb = open_kb(collection)
    items = run(lambda: load_golden(golden))
    kb.lift_distance_limit()
    result = run(lambda: run_calibration(kb, items))
    kb.close()
    distance = {"should_find": percentiles(result.should_find), "should_not_find": percentiles(result.should_not_find)}
    confidence = {"answerable": percentiles(result.confidence_answerable), "absent": percentiles(result.confidence_absent)}
    suggested = {"retrieve.max_distance": result.suggested_max_distance, "answer.min_confidence": result.suggested_min_confidence}
    if as_json:
        print_json({"dense_distance": distance, "confidence": confidence, "suggested": suggested, "relevant_not_retrieved": result.missed})
        return
    table = Table("measure", "group", "n", "p5", "p25", "p50", "p75", "p95")
    for measure, groups in (("dense distance", distance), ("confidence", confidence)):
        for group, stats in groups.items():
            table.add_row(measure, group.replace("_", " "), *[str(stats.get(key, "-")) for key in ("n", "p5", "p25", "p50", "p75", "p95")])
    console.print(table)
    console.print("cosine distance = 1 − cosine similarity; a relevant hit must be at or below max_distance")
    for key, value in suggested.items():
        console.print(f"suggested {key} = {value}")
    if result.missed:
        console.print(f"[yellow]{result.missed} answerable questions had no relevant hit among the dense candidates[/yellow]")
