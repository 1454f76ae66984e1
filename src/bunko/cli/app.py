"""The `bunko` command: every command module's functions, registered on one typer app.

Registration is in one place so `bunko --help` lists commands in the order a
user meets them (set up, ask, look inside, maintain, serve), whatever module
each lives in; groups (`eval`, `keys`, `graph`) come after the commands.
"""

from __future__ import annotations

import os

import typer

from bunko.cli import admin, documents, query, server, tree
from bunko.cli.evaluate import eval_app
from bunko.cli.graph import graph_app

app = typer.Typer(help="bunko: ask your own documents, with every answer cited.", no_args_is_help=True, add_completion=False)

for command in (
    documents.init, documents.ingest, query.search, query.ask, documents.status, documents.docs, documents.rm,
    admin.reembed, admin.migrate, admin.reindex, query.trace, documents.chunks, tree.tree, documents.inspect, admin.calibrate,
    query.demo, server.serve,
):
    app.command()(command)
app.add_typer(documents.jobs_app, name="jobs")
app.add_typer(eval_app, name="eval")
app.add_typer(server.keys_app, name="keys")
app.add_typer(graph_app, name="graph")


def main() -> None:  # pragma: no cover - console entry point
    os.environ.setdefault("PYTHONIOENCODING", "utf-8")
    app()
