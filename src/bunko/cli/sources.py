"""Where documents come from besides files given to `ingest`: `bunko sources add|list|sync|rm` and `bunko sync`."""

from __future__ import annotations

import datetime
import sys
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any
from urllib.parse import urlsplit

import typer
from rich.markup import escape

from bunko.cli.shared import (
    CollectionOption,
    JsonOption,
    console,
    document_progress,
    errors,
    existing_collection,
    fail,
    open_kb,
    print_json,
    print_rows,
    run,
)

if TYPE_CHECKING:
    from bunko.engine import Bunko
    from bunko.ingest.sync import SyncReport

sources_app = typer.Typer(help="Sources a collection syncs from: folders, S3 buckets, Git repositories, websites, SQL tables.",
                          no_args_is_help=True)

SOURCE_TYPES = ("folder", "s3", "git", "web", "sql")
"""The connector types, as `bunko.ingest.connectors.registry.SPECS` names them (tests/cli check the two agree): named
here so the command's help does not import every connector."""
TYPES_HELP = ", ".join(SOURCE_TYPES)



def _value(text: str) -> Any:
    """A --set value: a TOML value when it reads as one (numbers, true/false, [lists]), else the string."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def _local(path: str, root: Path) -> str:
    """A path typed on the command line (relative to this folder) as the collection stores it (relative to its root)."""
    from bunko.ingest.sources import source_name

    return source_name(Path(path).expanduser(), root)


def _options(kind: str, target: str, root: Path, given: dict[str, Any]) -> dict[str, Any]:
    options: dict[str, Any] = {"type": kind}
    if kind == "folder":
        options["path"] = _local(target, root)
    elif kind == "s3":
        parts = urlsplit(target)
        if parts.scheme != "s3" or not parts.netloc:
            raise fail(f"{target!r}: an S3 source's target is s3://BUCKET/PREFIX")
        options["bucket"], options["prefix"] = parts.netloc, parts.path.lstrip("/")
    elif kind == "git":
        is_url = "://" in target or ("@" in target and ":" in target.split("/")[0])
        options["repo"] = target if is_url else _local(target, root)
    elif kind == "web":
        options["url"] = target
    elif kind == "sql":
        options["url"] = target if "://" in target else "sqlite:///" + _local(target, root)
    else:
        raise fail(f"unknown source type {kind!r}; one of {TYPES_HELP}")
    options.update({k: v for k, v in given.items() if v not in (None, [])})
    return options


def add(
    name: Annotated[str, typer.Argument(help="The source's name (documents are named NAME:KEY, a folder's by their path).")],
    kind: Annotated[str, typer.Argument(metavar="TYPE", help=f"One of {TYPES_HELP}.")],
    target: Annotated[str, typer.Argument(help="folder: a path · s3: s3://BUCKET/PREFIX · git: a repository path or URL · "
                                          "web: the start URL · sql: sqlite:///FILE, a .db file or postgresql://USER@HOST/DB")],
    ref: Annotated[str | None, typer.Option(help="git: the branch, tag or commit to read.")] = None,
    under: Annotated[str | None, typer.Option(help="git: only files under this folder.")] = None,
    prefix: Annotated[str | None, typer.Option(help="web: only URLs starting with this (default: the start URL's folder).")] = None,
    max_pages: Annotated[int | None, typer.Option(help="web: pages read at most per sync.")] = None,
    endpoint_url: Annotated[str | None, typer.Option(help="s3: an S3-compatible server's address.")] = None,
    region: Annotated[str | None, typer.Option(help="s3: the bucket's region.")] = None,
    table: Annotated[str | None, typer.Option(help="sql: a table to read.")] = None,
    query: Annotated[str | None, typer.Option(help="sql: a SELECT to run instead.")] = None,
    id_column: Annotated[str | None, typer.Option(help="sql: the column naming each row's document.")] = None,
    group_by: Annotated[str | None, typer.Option(help="sql: one document per value of this column.")] = None,
    title_column: Annotated[str | None, typer.Option(help="sql: the title column.")] = None,
    text_column: Annotated[list[str] | None, typer.Option(help="sql: a column of the text (repeatable; default all others).")] = None,
    field_column: Annotated[list[str] | None, typer.Option(help="sql: a column kept as a filter field (repeatable).")] = None,
    secrets: Annotated[Path | None, typer.Option(help="A TOML file with the source's credentials, outside the collection.")] = None,
    include: Annotated[list[str] | None, typer.Option(help="Glob of item keys to sync (repeatable).")] = None,
    exclude: Annotated[list[str] | None, typer.Option(help="Glob of item keys to leave out (repeatable).")] = None,
    set_: Annotated[list[str] | None, typer.Option("--set", help="Any other key of the source, KEY=VALUE (repeatable).")] = None,
    replace: Annotated[bool, typer.Option("--replace", help="Replace a source of this name.")] = False,
    collection: CollectionOption = None,
    as_json: JsonOption = False,
) -> None:
    """Add a source to the collection (nothing is read until `bunko sync`). Credentials never go here: use the
    environment (BUNKO_SOURCE_<NAME>_<KEY>, or the service's own variables) or --secrets FILE."""
    kb = open_kb(collection, create=True)
    given: dict[str, Any] = {
        "ref": ref, "under": under, "prefix": prefix, "max_pages": max_pages, "endpoint_url": endpoint_url, "region": region,
        "table": table, "query": query, "id_column": id_column, "group_by": group_by, "title_column": title_column,
        "text_columns": text_column, "field_columns": field_column, "include": include, "exclude": exclude,
        "secrets": str(secrets.expanduser().resolve()) if secrets else None,
    }
    for pair in set_ or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            kb.close()
            raise fail(f"--set {pair!r}: write KEY=VALUE")
        given[key.strip()] = _value(value.strip())
    try:
        options = _options(kind, target, kb.root, given)
        spec = run(lambda: kb.sources.add(name, options, replace=replace))
    finally:
        kb.close()
    if as_json:
        print_json({"name": name, **spec.model_dump(exclude_none=True)})
    else:
        console.print(f"added source {escape(name)} ({spec.type}: {escape(spec.target())}); run `bunko sync` to read it")


def list_sources(collection: CollectionOption = None, as_json: JsonOption = False) -> None:
    """The collection's sources and their last sync."""
    from bunko.ingest.sync import SyncState

    path = existing_collection(collection)
    kb = open_kb(path)
    specs = run(lambda: kb.sources.book.load())
    kb.close()
    state = SyncState(path)
    rows = [{"name": name, **spec.model_dump(exclude_none=True), "target": spec.target(), "last_sync": state.last_sync(name)}
            for name, spec in specs.items()]
    if as_json:
        print_json(rows)
        return
    listed = []
    for row in rows:
        last = row["last_sync"]
        when = datetime.datetime.fromtimestamp(last["synced_at"]).strftime("%Y-%m-%d %H:%M") if "synced_at" in last else "never"
        listed.append((row["name"], row["type"], row["target"], when, last.get("items", "")))
    print_rows(("name", "type", "target", "last sync", "items"), listed)


def _print_report(report: SyncReport) -> None:
    from bunko.schema import JobStatus

    for job in report.failed:
        errors.print(f"[red]FAILED[/red] {escape(job.source)}: {job.error_code} {escape(job.error_detail or '')}")
    if report.error:
        errors.print(f"[red]error:[/red] {escape(report.error)}")
        return
    for problem in report.problems:
        errors.print(f"[yellow]warning[/yellow] {escape(report.source)}: {escape(problem)}")
    if not report.complete:
        errors.print(f"[yellow]warning[/yellow] {escape(report.source)}: the listing was incomplete, so no document was deleted")
    for document in report.deleted:
        console.print(f"deleted {escape(document)}")
    extra = f" at {report.detail['commit'][:12]}" if "commit" in report.detail else ""
    nodes = len(report.detail.get("crawl_nodes", []))
    followed = f", {nodes} page(s) of links only followed, not indexed" if nodes else ""
    console.print(
        f"{escape(report.source)}{extra}: {report.count(JobStatus.READY)} indexed, {report.count(JobStatus.SKIPPED)} unchanged, "
        f"{len(report.failed)} failed, {len(report.deleted)} deleted{followed}"
    )


def sync(
    names: Annotated[list[str] | None, typer.Argument(help="Sources to sync (default: all).")] = None,
    collection: CollectionOption = None,
    as_json: JsonOption = False,
) -> None:
    """Sync sources: ingest new and changed items, delete the documents of items that are gone."""
    path = existing_collection(collection)
    kb: Bunko = open_kb(path)
    if not names and not run(lambda: kb.sources.book.load()):
        kb.close()
        raise fail("this collection has no sources; add one with `bunko sources add NAME TYPE TARGET`", 1)
    with document_progress("syncing", as_json) as progress:
        try:
            reports = run(lambda: kb.sources.sync(names or None, progress=progress))
        finally:
            kb.close()
    if as_json:
        from bunko.schema import to_dict

        print_json([{**r.to_dict(), "jobs": [to_dict(j) for j in r.jobs]} for r in reports])
    else:
        for report in reports:
            _print_report(report)
    if not all(r.ok for r in reports):
        raise typer.Exit(1)


def rm(
    name: Annotated[str, typer.Argument(help="The source to remove.")],
    keep_documents: Annotated[bool, typer.Option("--keep-documents", help="Keep the documents it brought in.")] = False,
    collection: CollectionOption = None,
    as_json: JsonOption = False,
) -> None:
    """Remove a source and (unless --keep-documents) delete its documents from every index."""
    kb = open_kb(existing_collection(collection))
    try:
        deleted = run(lambda: kb.sources.remove(name, keep_documents=keep_documents))
    finally:
        kb.close()
    if as_json:
        print_json({"name": name, "deleted": deleted})
    else:
        console.print(f"removed source {escape(name)}; {len(deleted)} documents deleted")


def watch(
    folder: Annotated[Path, typer.Argument(help="The folder to keep the collection in line with.")],
    debounce: Annotated[float, typer.Option(min=0.01, help="Seconds the folder must be quiet before its changes are ingested.")] = 1.0,
    catch_up: Annotated[bool, typer.Option("--catch-up/--no-catch-up", help="First ingest (with prune) what changed while not watched.")] = True,
    collection: CollectionOption = None,
    as_json: JsonOption = False,
) -> None:
    """Re-ingest files as they change and delete the documents of files removed, until Ctrl-C (or SIGTERM).
    --json prints one JSON line per batch."""
    import signal
    import threading

    from bunko.ingest.watch import WatchBatch
    from bunko.schema import JobStatus, to_dict

    if not folder.is_dir():
        raise fail(f"{folder}: not a folder")
    kb = open_kb(collection, create=True)
    stop = threading.Event()

    def stop_watching(signum: int, frame: object) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, stop_watching) for sig in (signal.SIGINT, signal.SIGTERM)}

    def show(batch: WatchBatch) -> None:
        if as_json:
            print_json({"run_id": batch.run_id, "jobs": [to_dict(j) for j in batch.jobs], "deleted": batch.deleted}, compact=True)
            sys.stdout.flush()
            return
        for job in batch.jobs:
            if job.status == JobStatus.READY:
                console.print(f"indexed {escape(job.source)}")
            elif job.status == JobStatus.FAILED:
                errors.print(f"[red]FAILED[/red] {escape(job.source)}: {job.error_code} {escape(job.error_detail or '')}")
        for document in batch.deleted:
            console.print(f"deleted {escape(document)}")

    errors.print(f"watching {escape(str(folder))} (quiet for {debounce:g} s before ingesting); Ctrl-C to stop")
    try:
        run(lambda: kb.sources.watch(folder, debounce=debounce, catch_up=catch_up, on_batch=show, stop=stop))
    finally:
        kb.close()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    errors.print("stopped watching")


sources_app.command("add")(add)
sources_app.command("list")(list_sources)
sources_app.command("sync")(sync)
sources_app.command("rm")(rm)
