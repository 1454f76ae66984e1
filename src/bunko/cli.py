"""The `bunko` command: a thin shell over `Bunko`. Every command has `--json` for scripts."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from bunko.config import CONFIG_FILE, Config
from bunko.engine import DEFAULT_COLLECTION, Bunko
from bunko.errors import BunkoError
from bunko.evaluate.cli import eval_app
from bunko.generate.trace_view import render_trace
from bunko.schema import Answer, Hit, IngestJob, JobStatus, to_dict
from bunko.server.commands import register as register_server_commands

app = typer.Typer(help="bunko: ask your own documents, with every answer cited.", no_args_is_help=True, add_completion=False)
app.add_typer(eval_app, name="eval")
console = Console()
errors = Console(stderr=True, soft_wrap=True)

T = TypeVar("T")

CollectionOption = Annotated[
    Path | None,
    typer.Option("--collection", "-c", envvar="BUNKO_COLLECTION", help="Collection folder (default: nearest ./.bunko, like git)."),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]


def find_collection(explicit: Path | None) -> Path:
    """An explicit path wins; else the nearest `.bunko` in this folder or a parent; else `./.bunko`."""
    if explicit is not None:
        return explicit
    here = Path.cwd()
    for folder in (here, *here.parents):
        if (folder / DEFAULT_COLLECTION / CONFIG_FILE).exists():
            return folder / DEFAULT_COLLECTION
    return here / DEFAULT_COLLECTION


def run(action: Callable[[], T]) -> T:
    """Run a command body; a BunkoError becomes a one-line message and exit code 2."""
    try:
        return action()
    except BunkoError as exc:
        errors.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(2) from None
    except (ValueError, FileNotFoundError) as exc:
        errors.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(2) from None


def open_kb(collection: Path | None, create: bool = False) -> Bunko:
    return run(lambda: Bunko(find_collection(collection), create=create))


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")


def parse_filters(source: str | None, section: str | None, where: str | None) -> dict[str, Any] | None:
    clauses: list[dict[str, Any]] = []
    if source:
        clauses.append({"source": {"$glob": source}})
    if section:
        clauses.append({"section": {"$glob": section} if any(c in section for c in "*?[") else section})
    if where:
        try:
            clauses.append(json.loads(where))
        except json.JSONDecodeError as exc:
            errors.print(f"[red]error:[/red] --where is not valid JSON: {exc}")
            raise typer.Exit(2) from None
    if not clauses:
        return None
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}


@app.command()
def init(collection: CollectionOption = None, as_json: JsonOption = False) -> None:
    """Create an empty collection with a default bunko.toml."""
    path = collection or Path.cwd() / DEFAULT_COLLECTION
    existed = (path / CONFIG_FILE).exists()
    kb = run(lambda: Bunko(path, create=True))
    kb.close()
    if as_json:
        print_json({"collection": str(path), "created": not existed})
    else:
        console.print(f"{'Using existing' if existed else 'Created'} collection {escape(str(path))} (config: {escape(str(path / CONFIG_FILE))})")


def _job_row(job: IngestJob) -> list[str]:
    colour = {"READY": "green", "SKIPPED": "dim", "FAILED": "red"}.get(job.status, "yellow")
    reason = job.error_detail or ""
    return [f"[{colour}]{job.status}[/{colour}]", escape(job.source), job.error_code or "", escape(reason)]


@app.command()
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders to ingest.")],
    prune: Annotated[bool, typer.Option("--prune", help="Remove documents whose files are gone from these folders.")] = False,
    collection: CollectionOption = None,
    as_json: JsonOption = False,
) -> None:
    """Parse, chunk, embed and index documents. Re-runs skip unchanged files."""
    kb = open_kb(collection, create=True)
    with Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        TextColumn("{task.fields[current]}"), console=errors, disable=as_json or not errors.is_terminal, transient=True,
    ) as bar:
        task = bar.add_task("ingesting", total=None, current="")

        def progress(done: int, total: int, job: IngestJob) -> None:
            bar.update(task, completed=done, total=total, current=job.source[-50:])

        report = run(lambda: kb.ingest(paths, prune=prune, progress=progress))
    kb.close()
    if as_json:
        print_json({"run_id": report.run_id, "jobs": [to_dict(j) for j in report.jobs], "pruned": report.pruned})
    else:
        for job in report.failed:
            errors.print(f"[red]FAILED[/red] {escape(job.source)}: {job.error_code} {escape(job.error_detail or '')}")
        for source in report.pruned:
            console.print(f"pruned {escape(source)}")
        console.print(
            f"{report.count(JobStatus.READY)} indexed, {report.count(JobStatus.SKIPPED)} unchanged, "
            f"{len(report.failed)} failed, {len(report.pruned)} pruned"
        )
    if not report.ok:
        raise typer.Exit(1)


def _hit_json(hit: Hit) -> dict[str, Any]:
    chunk = hit.chunk
    return {
        "chunk_id": chunk.chunk_id, "source": chunk.source, "section_path": chunk.section_path, "pages": chunk.pages,
        "kinds": chunk.kinds, "score": hit.score, "distance": hit.distance, "signals": hit.signals, "text": chunk.text,
    }


def _location(hit: Hit) -> str:
    parts = [hit.chunk.source, *hit.chunk.section_path]
    if hit.chunk.pages:
        parts.append("p." + ",".join(map(str, hit.chunk.pages)))
    return " > ".join(parts)


@app.command()
def search(
    query: str,
    k: Annotated[int | None, typer.Option("-k", help="Number of hits.")] = None,
    mode: Annotated[str | None, typer.Option(help="hybrid, dense or keyword.")] = None,
    source: Annotated[str | None, typer.Option(help="Only sources matching this glob.")] = None,
    section: Annotated[str | None, typer.Option(help="Only chunks under this section (text or glob).")] = None,
    where: Annotated[str | None, typer.Option(help='Filter as JSON, e.g. \'{"kind": "table"}\'.')] = None,
    explain: Annotated[bool, typer.Option("--explain", help="Show each retriever's rank and score.")] = False,
    group_by: Annotated[
        str | None, typer.Option("--group-by", help="chunk, section or document: one hit per section or document (its best chunk).")
    ] = None,
    language: Annotated[
        str | None, typer.Option("--language", help="Prefer chunks in en, ja or zh instead of the query's language; any: no preference.")
    ] = None,
    collection: CollectionOption = None,
    as_json: JsonOption = False,
) -> None:
    """Ranked evidence with source > section > page."""
    kb = open_kb(collection)
    filters = parse_filters(source, section, where)
    result = run(lambda: kb.search_detailed(query, k=k, filters=filters, mode=mode, group_by=group_by, language=language))
    hits = result.hits
    thresholds = {"max_distance": kb.config.retrieve.max_distance, "min_score": kb.config.retrieve.min_score}
    kb.close()
    route = {"name": result.route.name, "weights": result.route.weights, "reason": result.route.reason} if result.route else None
    if as_json:
        payload: dict[str, Any] = {"query": query, "filters": filters, "hits": [_hit_json(h) for h in hits]}
        if explain:
            payload |= {"mode": result.mode, "route": route, "query_tokens": result.query_tokens, "thresholds": thresholds}
        print_json(payload)
        return
    if explain:
        console.print(f"[dim]mode {result.mode}; route {escape(json.dumps(route, ensure_ascii=False))}[/dim]")
        console.print(f"[dim]keyword tokens: {escape(' '.join(result.query_tokens))}[/dim]")
        console.print(f"[dim]filter (applied inside each retriever, before top-k): {escape(json.dumps(filters, ensure_ascii=False))}[/dim]")
    if not hits:
        console.print("no hits")
    for rank, hit in enumerate(hits, start=1):
        console.print(f"[bold]{rank}.[/bold] [cyan]{escape(_location(hit))}[/cyan]  score {hit.score:.4f}")
        if explain:
            for line in explain_hit(hit, thresholds, filtered=filters is not None):
                console.print(f"   [dim]{escape(line)}[/dim]")
        snippet = hit.chunk.text if len(hit.chunk.text) <= 300 else hit.chunk.text[:300] + "…"
        console.print("   " + escape(snippet).replace("\n", "\n   "))


def explain_hit(hit: Hit, thresholds: dict[str, float | None], filtered: bool) -> list[str]:
    """Each retriever's rank and score, and why the hit passed the filter and thresholds."""
    lines = [
        f"{name}: " + ", ".join(f"{key} {value:.4g}" for key, value in signal.items()) for name, signal in hit.signals.items()
    ]
    if "coverage" in hit.signals:
        from bunko.retrieve.fusion import BM25_SHARE

        coverage = hit.signals["coverage"]
        lines.append(f"holds {coverage['score']:.0%} of the query's idf-weighted terms; keyword evidence {coverage['evidence']:.3f} = "
                     f"that share + {BM25_SHARE:.2f} × relative BM25 {coverage['relative_bm25']:.3f}; "
                     "fused score = dense weight × cosine + keyword weight × evidence (weights: the route above)")
    if hit.distance is not None:
        limit = thresholds["max_distance"]
        verdict = "no limit" if limit is None else f"≤ max_distance {limit}"
        lines.append(f"dense distance (1 − cosine) {hit.distance:.4f}: {verdict}")
    else:
        lines.append("not among the dense candidates within max_distance; found by keyword search")
    if thresholds["min_score"] is not None:
        lines.append(f"fused score {hit.score:.4g} ≥ min_score {thresholds['min_score']}")
    if filtered:
        lines.append("matches the filter (source " + hit.chunk.source + ", section " + " > ".join(hit.chunk.section_path) + ")")
    return lines


@app.command()
def ask(
    question: str,
    source: Annotated[str | None, typer.Option(help="Only sources matching this glob.")] = None,
    section: Annotated[str | None, typer.Option(help="Only chunks under this section.")] = None,
    where: Annotated[str | None, typer.Option(help="Filter as JSON.")] = None,
    stream: Annotated[bool, typer.Option("--stream", help="Print each sentence as soon as it passes the citation check.")] = False,
    collection: CollectionOption = None,
    as_json: JsonOption = False,
) -> None:
    """A grounded answer, each sentence cited; or a plain statement that the documents do not say."""
    kb = open_kb(collection)
    filters = parse_filters(source, section, where)
    if stream and not as_json:
        answer = run(lambda: _print_stream(kb.ask_stream(question, filters=filters)))
    else:
        answer = run(lambda: kb.ask(question, filters=filters))
    kb.close()
    if as_json:
        print_json(to_dict(answer))
        return
    if not stream:
        console.print(escape(answer.text))
    numbers: dict[str, int] = {}
    for sentence in answer.sentences:
        for citation in sentence.citations:
            if citation.chunk_id not in numbers:
                numbers[citation.chunk_id] = len(numbers) + 1
                console.print(f"  [dim][{numbers[citation.chunk_id]}] {escape(citation.label())}[/dim]")
    review = " · [yellow]needs review[/yellow]" if answer.needs_review else ""
    console.print(f"[dim]confidence {answer.confidence:.2f} · trace {answer.trace_id}[/dim]{review}")


def _print_stream(items: Iterator[str | Answer]) -> Answer:
    """Deltas as they come; the final Answer is returned for the source list."""
    for item in items:
        if isinstance(item, Answer):
            console.print()
            return item
        console.print(escape(item), end="", soft_wrap=True)
    raise BunkoError("the answer stream ended without an answer")


@app.command()
def status(collection: CollectionOption = None, as_json: JsonOption = False) -> None:
    """Documents, chunks, embedder, and the last ingest run."""
    kb = open_kb(collection)
    info = kb.status()
    kb.close()
    if as_json:
        print_json(info)
        return
    for key, value in info.items():
        console.print(f"{key:>15}: {escape(str(value))}")


@app.command()
def jobs(
    all_runs: Annotated[bool, typer.Option("--all", help="Jobs of every run, not only the last.")] = False,
    failed: Annotated[bool, typer.Option("--failed", help="Only failed jobs.")] = False,
    collection: CollectionOption = None,
    as_json: JsonOption = False,
) -> None:
    """Ingest jobs with their state and, for failures, the code and reason."""
    kb = open_kb(collection)
    listed = [j for j in kb.jobs(all_runs=all_runs) if not failed or j.status == JobStatus.FAILED]
    kb.close()
    if as_json:
        print_json([to_dict(j) for j in listed])
        return
    table = Table("status", "source", "code", "reason")
    for job in listed:
        table.add_row(*_job_row(job))
    console.print(table)


@app.command()
def docs(collection: CollectionOption = None, as_json: JsonOption = False) -> None:
    """Documents in the collection."""
    kb = open_kb(collection)
    listed = kb.documents()
    kb.close()
    if as_json:
        print_json([to_dict(d) for d in listed])
        return
    table = Table("source", "title", "chunks", "parser")
    for doc in listed:
        table.add_row(escape(doc.source), escape(doc.title), str(doc.chunk_count), doc.parser)
    console.print(table)


@app.command()
def rm(source: str, collection: CollectionOption = None, as_json: JsonOption = False) -> None:
    """Remove a document (as listed by `bunko docs`) from every index."""
    kb = open_kb(collection)
    removed = run(lambda: kb.delete(source))
    kb.close()
    if as_json:
        print_json({"source": source, "removed": removed})
    elif removed:
        console.print(f"removed {escape(source)}")
    else:
        errors.print(f"[red]error:[/red] no document {escape(source)} (see `bunko docs`)")
    if not removed:
        raise typer.Exit(1)


@app.command()
def reembed(
    model: Annotated[str | None, typer.Option(help="Switch [embed] model to this embedder first.")] = None,
    collection: CollectionOption = None,
    as_json: JsonOption = False,
) -> None:
    """Re-embed all stored chunks with the configured embedder (no re-parsing)."""
    path = find_collection(collection)
    config_file = path / CONFIG_FILE
    if not config_file.exists():
        errors.print(f"[red]error:[/red] {escape(str(path))}: no bunko collection here")
        raise typer.Exit(2)
    config = run(lambda: Config.load(config_file))
    if model:
        config.embed.model = model
        config.save(config_file)
    kb = run(lambda: Bunko.for_reembed(path, config))
    count = run(kb.reembed)
    kb.close()
    if as_json:
        print_json({"chunks": count, "embedder": config.embed.model})
    else:
        console.print(f"re-embedded {count} chunks with {config.embed.model}")


@app.command()
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


@app.command()
def reindex(collection: CollectionOption = None, as_json: JsonOption = False) -> None:
    """Re-tokenize the keyword index with the configured [retrieve] analyzer (no re-parsing, no re-embedding)."""
    path = find_collection(collection)
    kb = run(lambda: Bunko(path, create=False, allow_analyzer_change=True))
    count = run(kb.reindex)
    analyzer = kb.config.retrieve.analyzer
    kb.close()
    if as_json:
        print_json({"documents": count, "analyzer": analyzer})
    else:
        console.print(f"re-indexed {count} documents with the {analyzer} analyzer")


@app.command()
def trace(trace_id: str, collection: CollectionOption = None, as_json: JsonOption = False) -> None:
    """Everything recorded for one `ask`: route, hits and signals, rerank, grade, prompt, verdicts, timings."""
    kb = open_kb(collection)
    payload = kb.trace(trace_id)
    kb.close()
    if payload is None:
        errors.print(f"[red]error:[/red] no trace {escape(trace_id)}")
        raise typer.Exit(1)
    if as_json:
        print_json(payload)
    else:
        render_trace(console, payload)


@app.command()
def chunks(
    source: Annotated[str, typer.Argument(help="A stored source (see `bunko docs`), or a file to chunk without storing it.")],
    strategy: Annotated[str | None, typer.Option(help="Chunk the file with this strategy instead of the configured one.")] = None,
    text: Annotated[bool, typer.Option("--text", help="Print each chunk's text.")] = False,
    collection: CollectionOption = None,
    as_json: JsonOption = False,
) -> None:
    """How a document was chunked: ids, sizes, section paths, kinds and flags."""
    from bunko.chunk.preview import chunk_file, chunk_rows
    from bunko.ingest.sources import source_name

    kb = open_kb(collection, create=True)
    stored = {d.source: d for d in kb.documents()}
    name = source if source in stored else source_name(Path(source), kb.root)
    if name in stored and strategy is None:
        meta, listed = stored[name].meta, kb.chunks(name)
    elif Path(source).is_file():
        doc, listed = run(lambda: chunk_file(Path(source), name, kb.registry, kb.config.chunk, kb.embedder, strategy))
        meta = doc.meta
    else:
        kb.close()
        errors.print(f"[red]error:[/red] no document {escape(source)} in the collection (see `bunko docs`) and no such file")
        raise typer.Exit(1)
    rows = chunk_rows(listed, kb.embedder if kb.config.chunk.max_tokens else None)
    kb.close()
    summary = {k: meta.get(k) for k in ("doc_kind", "chunk_strategy", "chunk_reason", "truncated_chunks")}
    if as_json:
        print_json({"source": name, **summary, "stored": name in stored and strategy is None, "chunks": rows})
        return
    console.print(f"[bold]{escape(name)}[/bold]: {len(rows)} chunks · " + " · ".join(f"{k} {escape(str(v))}" for k, v in summary.items() if v))
    table = Table("#", "chars", "section", "kinds", "pages", "role", "flags")
    for row in rows:
        flags = ", ".join(f"{k}={v}" if v is not True else k for k, v in row["flags"].items())
        table.add_row(
            str(row["ordinal"]), str(row["chars"]) + (f" ({row['tokens']} tok)" if "tokens" in row else ""),
            escape(" > ".join(row["section_path"])), ",".join(row["kinds"]), ",".join(map(str, row["pages"])),
            row["role"] or "", escape(flags),
        )
    console.print(table)
    if text:
        for row in rows:
            console.rule(f"{row['chunk_id']}")
            console.print(escape(row["text"]))


@app.command()
def inspect(
    source: Annotated[str | None, typer.Option(help="Only sources matching this glob.")] = None,
    collection: CollectionOption = None,
    as_json: JsonOption = False,
) -> None:
    """Chunk integrity: tables split, headings crossed, captions separated, truncated chunks, sizes."""
    from bunko.chunk.sizing import input_limit
    from bunko.ingest.integrity import inspect_store

    kb = open_kb(collection)
    result = run(lambda: inspect_store(kb.store, input_limit(kb.embedder), source))
    kb.close()
    if as_json:
        print_json(result)
        return
    def share(key: str) -> str:
        return "-" if result[key] is None else f"{result[key]:.1%}"
    console.print(f"{result['documents']} documents, {result['chunks']} searchable chunks, {result['parents']} parent chunks")
    console.print(f"tables split            {result['tables_split']}/{result['tables']} ({share('tables_split_share')}), "
                  f"{result['tables_split_without_header']} without their header")
    console.print(f"chunks crossing heading {result['chunks_crossing_headings']} ({share('headings_crossed_share')})")
    console.print(f"captions separated      {result['captions_separated']}/{result['captions']} ({share('captions_separated_share')})")
    console.print(f"truncated by embedder   {result['chunks_truncated']} ({share('truncated_share')}); oversized {result['chunks_oversized']}")
    console.print(f"elements in no chunk    {result['elements_missing']} ({share('elements_missing_share')})")
    sizes = result["sizes"]
    if sizes.get("count"):
        console.print(f"sizes (chars)           min {sizes['min']} · p10 {sizes['p10']:.0f} · median {sizes['median']:.0f} · "
                      f"mean {sizes['mean']:.0f} · p90 {sizes['p90']:.0f} · max {sizes['max']}")
        console.print("                        " + " · ".join(f"{k}: {v}" for k, v in sizes["histogram"].items()))
    for name, part in result["by_strategy"].items():
        console.print(f"[dim]{name}: {part['documents']} documents, {part['chunks']} chunks, "
                      f"median {part['sizes'].get('median', 0):.0f} chars[/dim]")


@app.command()
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
    kb.config.retrieve.max_distance = None  # measure every candidate, not only those the current threshold keeps
    result = run(lambda: run_calibration(kb, items))
    kb.close()
    summary = {
        "dense_distance": {"should_find": percentiles(result.should_find), "should_not_find": percentiles(result.should_not_find)},
        "confidence": {"answerable": percentiles(result.confidence_answerable), "absent": percentiles(result.confidence_absent)},
        "suggested": {"retrieve.max_distance": result.suggested_max_distance, "answer.min_confidence": result.suggested_min_confidence},
        "relevant_not_retrieved": result.missed,
    }
    if as_json:
        print_json(summary)
        return
    table = Table("measure", "group", "n", "p5", "p25", "p50", "p75", "p95")
    for measure, groups in (("dense distance", summary["dense_distance"]), ("confidence", summary["confidence"])):
        for group, stats in groups.items():
            table.add_row(measure, group.replace("_", " "), *[str(stats.get(key, "-")) for key in ("n", "p5", "p25", "p50", "p75", "p95")])
    console.print(table)
    console.print("cosine distance = 1 − cosine similarity; a relevant hit must be at or below max_distance")
    for key, value in summary["suggested"].items():
        console.print(f"suggested {key} = {value}")
    if result.missed:
        console.print(f"[yellow]{result.missed} answerable questions had no relevant hit among the dense candidates[/yellow]")


SAMPLES = Path(__file__).resolve().parent / "samples" / "docs"
DEMO_QUESTIONS = ("東京23区に出張する一般社員の宿泊費の上限はいくらですか？", "婚假有几天？", "How many API requests per minute are allowed per key?")


@app.command()
def demo(collection: CollectionOption = None) -> None:
    """Ingest the bundled sample documents and ask one question in each language."""
    path = collection or Path.cwd() / DEFAULT_COLLECTION
    console.print(f"Ingesting the bundled samples ({escape(str(SAMPLES))}) into {escape(str(path))} …")
    ingest([SAMPLES], prune=False, collection=path, as_json=False)
    for question in DEMO_QUESTIONS:
        console.rule(escape(question))
        ask(question, source=None, section=None, where=None, collection=path, as_json=False)


register_server_commands(app)  # `bunko serve`, `bunko keys`


def main() -> None:  # pragma: no cover - console entry point
    os.environ.setdefault("PYTHONIOENCODING", "utf-8")
    app()
