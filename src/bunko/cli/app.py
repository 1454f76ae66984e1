"""The `bunko` command: every command module's functions, registered on one typer app.

Registration is in one place so `bunko --help` lists commands in the order a
user meets them (set up, ask, look inside, maintain, serve), whatever module
each lives in; groups (`eval`, `keys`, `graph`, `sources`) come after the commands.
"""

from __future__ import annotations

import os
from importlib import metadata
from pathlib import Path
from typing import Annotated

import typer

import bunko
from bunko.cli import admin, chat, documents, query, server, sources, tree
from bunko.cli.evaluate import eval_app
from bunko.cli.graph import graph_app
from bunko.cli.help_types import ReadableHelp
from bunko.cli.shared import COLLECTION_ENV, console

app = typer.Typer(
    help="bunko: ask your own documents, with every answer cited.", no_args_is_help=True, add_completion=False, cls=ReadableHelp,
)


def version() -> str:
    try:
        return metadata.version("bunko")
    except metadata.PackageNotFoundError:  # run from a source tree without installing
        return bunko.__version__


def _print_version(value: bool) -> None:
    if value:
        console.print(f"bunko {version()}")
        raise typer.Exit()


@app.callback()
def options(
    ctx: typer.Context,
    collection: Annotated[
        Path | None,
        typer.Option("--collection", "-c", help="Collection folder for the command that follows (bunko -c PATH ingest …); "
                     "the command's own --collection wins.", show_default=False),
    ] = None,
    show_version: Annotated[bool, typer.Option("--version", help="Print bunko's version and exit.", callback=_print_version, is_eager=True)] = False,
) -> None:
    """bunko: ask your own documents, with every answer cited."""
    if collection is None:
        return
    # Every command reads its collection from --collection or BUNKO_COLLECTION: the global option is handed on as
    # that variable for the one command this process runs (restored when it ends), so the command's own option wins.
    previous = os.environ.get(COLLECTION_ENV)
    os.environ[COLLECTION_ENV] = str(collection)

    def restore() -> None:
        if previous is None:
            os.environ.pop(COLLECTION_ENV, None)
        else:
            os.environ[COLLECTION_ENV] = previous

    ctx.call_on_close(restore)


for command in (
    documents.init, documents.ingest, sources.sync, sources.watch, query.search, query.ask, chat.chat, documents.status,
    documents.docs, documents.rm, documents.show,
    admin.reembed, admin.migrate, admin.reindex, query.trace, documents.chunks, tree.tree, documents.inspect, admin.calibrate,
    query.demo, server.serve,
):
    app.command()(command)
app.add_typer(documents.jobs_app, name="jobs")
app.add_typer(eval_app, name="eval")
app.add_typer(server.keys_app, name="keys")
app.add_typer(graph_app, name="graph")
app.add_typer(sources.sources_app, name="sources")


def main() -> None:  # pragma: no cover - console entry point
    os.environ.setdefault("PYTHONIOENCODING", "utf-8")
    app()
