"""Putting documents in and looking at them: `init`, `ingest`, `status`, `jobs` (and `jobs retry`), `docs`, `rm`, `chunks`,
`inspect`, `show`."""

from __future__ import annotations

import json
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
    open_kb,
    piped,
    print_json,
    print_lines,
    print_rows,
    run,
)

if TYPE_CHECKING:
    from bunko.schema import DocumentInfo, IngestJob


def init(collection: CollectionOption = None, as_json: JsonOption = False) -> None:
    """Create an empty collection with a default bunko.toml."""
    from bunko.config import CONFIG_FILE
    from bunko.engine import DEFAULT_COLLECTION, Bunko

    path = collection or Path.cwd() / DEFAULT_COLLECTION
    existed = (path / CONFIG_FILE).exists()
    kb = run(lambda: Bunko(path, create=True))
    kb.close()
    if as_json:
        print_json({"collection": str(path), "created": not existed})
    else:
        console.print(f"{'Using existing' if existed else 'Created'} collection {escape(str(path))} (config: {escape(str(path / CONFIG_FILE))})")


def _job_row(job: IngestJob) -> list[str]:
    reason = job.error_detail or (job.progress.describe() if job.progress is not None else "")  # a running job: how far
    return [job.status, job.source, job.error_code or "", reason]


JOB_STYLES = {0: lambda status: {"READY": "green", "SKIPPED": "dim", "FAILED": "red"}.get(status, "yellow")}


def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders to ingest.")],
    prune: Annotated[bool, typer.Option("--prune", help="Remove documents whose files are gone from these folders.")] = False,
    root: Annotated[Path | None, typer.Option(
        "--root", help="Name documents relative to this folder (it must hold every path given): `--root ../corpus` "
        "stores ../corpus/zh/a.md as zh/a.md. Default: [ingest] root, else the folder holding the collection; a folder "
        "from outside it is named from its own name down (corpus/zh/a.md).",
    )] = None,
    engine: Annotated[str | None, typer.Option(help="local, or ray: parse, chunk and embed on Ray actors (default: [ingest] engine).")] = None,
    address: Annotated[str | None, typer.Option(help="--engine ray: a running cluster (auto, ray://HOST:10001); default a local Ray.")] = None,
    workers: Annotated[int | None, typer.Option(min=1, help="--engine ray: actors in the pool (default: CPUs but one).")] = None,
    collection: CollectionOption = None,
    as_json: JsonOption = False,
) -> None:
    """Parse, chunk, embed and index documents. Re-runs skip unchanged files."""
    from bunko.schema import JobStatus, to_dict

    if engine not in (None, "local", "ray"):
        raise fail(f"--engine {engine}: use local or ray")
    kb = open_kb(collection, create=True)
    with document_progress("ingesting", as_json) as progress:
        try:
            chosen = engine or kb.config.ingest.engine
            report = run(lambda: kb.ingest(paths, prune=prune, progress=progress, root=root, engine=chosen, address=address, workers=workers))
        finally:
            kb.close()
    if as_json:
        print_json({
            "run_id": report.run_id, "jobs": [to_dict(j) for j in report.jobs], "pruned": report.pruned,
            "warnings": [{"source": source, "warning": warning} for source, warning in report.warnings],
        })
    else:
        print_failed(report.failed)
        for source, warning in report.warnings:
            errors.print(f"[yellow]warning[/yellow] {escape(source)}: {escape(warning)}")
        for source in report.pruned:
            console.print(f"pruned {escape(source)}")
        console.print(
            f"{report.count(JobStatus.READY)} indexed, {report.count(JobStatus.SKIPPED)} unchanged, "
            f"{len(report.failed)} failed, {len(report.pruned)} pruned"
        )
    if not report.ok:
        raise typer.Exit(1)


def print_failed(jobs: list[IngestJob]) -> None:
    for job in jobs:
        errors.print(f"[red]FAILED[/red] {escape(job.source)}: {job.error_code} {escape(job.error_detail or '')}")


def status(collection: CollectionOption = None, as_json: JsonOption = False) -> None:
    """Documents, chunks, embedder, the last ingest run, the index, a re-embed in progress.

    One field a line, "name: value"; a field of several values as "key=value" pairs ("last_run: READY=12 FAILED=1").
    """
    kb = open_kb(collection)
    info = kb.status()
    kb.close()
    if as_json:
        print_json(info)
        return
    lines = status_lines(info)
    if piped():
        print_lines([f"{key}: {value}" for key, value in lines])
        return
    for key, value in lines:
        console.print(f"{key:>15}: {escape(value)}", soft_wrap=True)


def status_lines(info: dict[str, Any]) -> list[tuple[str, str]]:
    """`Bunko.status()` as (name, value) text: nested values as key=value pairs, nothing as "none"."""
    lines: list[tuple[str, str]] = []
    for key, value in info.items():
        if key == "reembed" and value:
            text = f"to {value['embedder']}: {value['chunks_embedded']:,}/{value['chunks']:,} chunks embedded, " + (
                "running" if value["running"] else "interrupted (`bunko reembed` continues it)")
        else:
            text = status_value(value)
        lines.append((key, text))
    return lines


def status_value(value: Any) -> str:
    if value is None or value == {} or value == []:
        return "none"
    if isinstance(value, dict):
        return " ".join(f"{k}={status_value(v) if not isinstance(v, dict | list) else json.dumps(v, ensure_ascii=False)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(status_value(v) for v in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return " ".join(str(value).split())


jobs_app = typer.Typer(help="Ingest jobs: list them (the last run by default), or retry the failed ones.")


@jobs_app.callback(invoke_without_command=True)
def jobs(
    ctx: typer.Context,
    all_runs: Annotated[bool, typer.Option("--all", help="Jobs of every run, not only the last.")] = False,
    failed: Annotated[bool, typer.Option("--failed", help="Only failed jobs.")] = False,
    collection: CollectionOption = None,
    as_json: JsonOption = False,
) -> None:
    """Ingest jobs with their state and, for failures, the code and reason; `bunko jobs retry` ingests failures again.

    Piped: one job a line, tab-separated: status, source, code, reason, job id ("-" for an empty field)."""
    from bunko.schema import JobStatus, to_dict

    if ctx.invoked_subcommand is not None:
        ctx.obj = collection  # `bunko jobs -c PATH retry`: the subcommand's collection unless it names its own
        return
    kb = open_kb(collection)
    listed = [j for j in kb.jobs(all_runs=all_runs) if not failed or j.status == JobStatus.FAILED]
    kb.close()
    if as_json:
        print_json([to_dict(j) for j in listed])
        return
    print_rows(("status", "source", "code", "reason", "job"), [[*_job_row(job), job.job_id] for job in listed], styles=JOB_STYLES, fold=(1,))


@jobs_app.command("retry")
def retry(
    ctx: typer.Context,
    job_ids: Annotated[list[str] | None, typer.Argument(help="Ids of failed jobs (the last column of `bunko jobs`).", show_default=False)] = None,
    failed: Annotated[bool, typer.Option("--failed", help="Every source whose latest job failed, from any run.")] = False,
    collection: CollectionOption = None,
    as_json: JsonOption = False,
) -> None:
    """Ingest the files of failed jobs again (with the fields they were first ingested with), as one new run.

    Exits 0 when every retried file was indexed (or is unchanged), 1 when some failed again.
    """
    from bunko.schema import JobStatus, to_dict

    kb = open_kb(collection or (ctx.obj if isinstance(ctx.obj, Path) else None))
    with document_progress("retrying", as_json) as progress:
        report = run(lambda: kb.retry(job_ids or [], failed=failed, progress=progress))
    kb.close()
    if as_json:
        print_json({"run_id": report.run_id, "jobs": [to_dict(j) for j in report.jobs]})
    else:
        print_failed(report.failed)
        console.print(
            f"{len(report.jobs)} retried: {report.count(JobStatus.READY)} indexed, {report.count(JobStatus.SKIPPED)} unchanged, "
            f"{len(report.failed)} failed"
        )
    if not report.ok:
        raise typer.Exit(1)


def languages_label(doc: DocumentInfo) -> str:
    """"ja", or each language's share of a mixed document ("ja 82% en 18%")."""
    shares = doc.languages
    if len(shares) > 1:
        return " ".join(f"{lang} {share:.0%}" for lang, share in shares.items())
    return doc.lang or "-"


def docs(collection: CollectionOption = None, as_json: JsonOption = False) -> None:
    """Documents in the collection, with their language (each one's share for a mixed document); under --json also
    the language its folder names and, for a copy of another document's page, that document (`copy_of`).

    Piped: one document a line, tab-separated: source, title, chunks, lang, parser ("-" for an empty field)."""
    from bunko.schema import to_dict

    kb = open_kb(collection)
    listed = kb.documents()
    kb.close()
    if as_json:
        names = {d.doc_id: d.source for d in listed}
        print_json([
            {**to_dict(d), "lang": d.lang, "languages": d.languages, "folder_lang": d.folder_lang,
             "copy_of": names.get(d.duplicate_of) if d.duplicate_of else None}
            for d in listed
        ])
        return
    # a long name wraps whole: the middle that tells two documents apart stays
    print_rows(("source", "title", "chunks", "lang", "parser"),
               [(d.source, d.title, d.chunk_count, languages_label(d), d.parser) for d in listed], fold=(0,))


def rm(
    source: Annotated[str, typer.Argument(help="The document as `bunko docs` lists it (corpus/zh/说明.md), or a path to its file.")],
    collection: CollectionOption = None, as_json: JsonOption = False,
) -> None:
    """Remove a document (as listed by `bunko docs`, or named by its file's path) from every index."""
    kb = open_kb(collection)
    removed = run(lambda: kb.delete(source))
    kb.close()
    if as_json:
        print_json({"source": source, "removed": removed})
    elif removed:
        console.print(f"removed {escape(source)}")
    else:
        raise fail(f"no document {source} (see `bunko docs`)", 1)
    if not removed:
        raise typer.Exit(1)


def chunks(
    source: Annotated[str, typer.Argument(help="A stored source (see `bunko docs`), or a file to chunk without storing it.")],
    strategy: Annotated[str | None, typer.Option(help="Chunk the file with this strategy instead of the configured one.")] = None,
    text: Annotated[bool, typer.Option("--text", help="Print each chunk's text.")] = False,
    collection: CollectionOption = None,
    as_json: JsonOption = False,
) -> None:
    """How a document was chunked: ids, sizes, section paths, kinds and flags.

    Piped: one chunk a line, tab-separated: ordinal, chars, section, kinds, pages, role, lang, flags; with --text, then
    each chunk's id on a line of its own after "## ", and its text."""
    from bunko.chunk.preview import chunk_file, chunk_rows
    from bunko.generate.guardrails import guard_text
    from bunko.schema import LANG_KEY, LANGUAGES_KEY

    kb = open_kb(collection, create=True)
    stored = {d.source: d for d in kb.documents()}
    name = kb.resolve_source(source)
    if name in stored and strategy is None:
        meta, listed = stored[name].meta, kb.chunks(name)
    elif Path(source).is_file():
        doc, listed = run(lambda: chunk_file(Path(source), name, kb.registry, kb.config.chunk, kb.embedder, strategy))
        meta = doc.meta
    else:
        kb.close()
        raise fail(f"no document {source} in the collection (see `bunko docs`) and no such file", 1)
    rows = chunk_rows(listed, kb.embedder if kb.config.chunk.max_tokens else None)
    policy = kb.config.answer.policy  # strict and regulated mask personal data in what is shown, as in hits and answers
    for row in rows:
        row["text"] = guard_text(row["text"], policy, row["lang"] or "en")
    kb.close()
    summary = {k: meta.get(k) for k in ("doc_kind", "chunk_strategy", "chunk_reason", "truncated_chunks", LANG_KEY, LANGUAGES_KEY)}
    if as_json:
        print_json({"source": name, **summary, "stored": name in stored and strategy is None, "chunks": rows})
        return
    if not piped():
        console.print(f"[bold]{escape(name)}[/bold]: {len(rows)} chunks · " + " · ".join(f"{k} {escape(str(v))}" for k, v in summary.items() if v))
    print_rows(("#", "chars", "section", "kinds", "pages", "role", "lang", "flags"), [
        (row["ordinal"], str(row["chars"]) + (f" ({row['tokens']} tok)" if "tokens" in row else ""), " > ".join(row["section_path"]),
         ",".join(row["kinds"]), ",".join(map(str, row["pages"])), row["role"] or "", row["lang"] or "",
         ", ".join(f"{k}={v}" if v is not True else k for k, v in row["flags"].items()))
        for row in rows
    ])
    if text:
        for row in rows:
            if piped():
                print_lines([f"## {row['chunk_id']}", row["text"]])
                continue
            console.rule(f"{row['chunk_id']}")
            console.print(escape(row["text"]))


def show(
    source: Annotated[str, typer.Argument(help="A stored PDF document (see `bunko docs`), or the path it was ingested from.")],
    page: Annotated[int | None, typer.Option("--page", min=1, help="The page to render (default: the highlighted chunk's first page, else 1).")] = None,
    highlight: Annotated[str | None, typer.Option("--highlight", help="A chunk id (from `bunko search --json` or a citation): its regions are drawn.")] = None,
    out: Annotated[Path | None, typer.Option("--out", help="Write the PNG here (default: SOURCE-pN.png in this folder).")] = None,
    dpi: Annotated[float, typer.Option(min=30, max=300, help="Resolution of the picture.")] = 110,
    collection: CollectionOption = None,
    as_json: JsonOption = False,
) -> None:
    """Render a page of a PDF document as PNG, with the cited regions of a chunk highlighted."""
    kb = open_kb(collection)
    try:
        name = kb.resolve_source(source)
        png, shown, boxes = run(lambda: kb.pages.page_image(name, page, highlight, dpi))
    finally:
        kb.close()
    target = out or Path(f"{Path(name).stem}-p{shown}.png")
    target.write_bytes(png)
    if as_json:
        print_json({"source": name, "page": shown, "highlight": highlight, "regions": boxes, "out": str(target)})
        return
    regions = f", {boxes} region{'s' if boxes != 1 else ''} of {escape(highlight)} highlighted" if highlight else ""
    console.print(f"{escape(name)} p.{shown}{regions} → {escape(str(target))}")
    if highlight and not boxes:
        console.print(f"[yellow]chunk {escape(highlight)} has no stored region on page {shown}[/yellow]")


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
