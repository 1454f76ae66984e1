"""The `bunko` command: every command module's functions, registered on one typer app.

Registration is in one place so `bunko --help` lists commands in the order a
user meets them (set up, ask, look inside, maintain, serve), whatever module
each lives in; groups (`eval`, `keys`, `graph`, `sources`) come after the commands.

Commands are named here by module and function, and a module is imported when its command is run or its help is
shown (`LazyCommands`), so `bunko --version` imports no command module and `bunko search` only the ones it uses.
The command modules in turn import the engine inside the commands, so `bunko --help` imports none of it.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.main import get_command_from_info, get_group_from_info
from typer.models import CommandInfo, TyperInfo

import bunko
from bunko.cli.help_types import ReadableHelp, readable
from bunko.cli.optional_values import allow_bare
from bunko.cli.shared import COLLECTION_ENV, console

COMMANDS: tuple[tuple[str, str], ...] = (
    ("init", "documents"), ("ingest", "documents"), ("sync", "sources"), ("watch", "sources"), ("search", "query"),
    ("ask", "query"), ("chat", "chat"), ("status", "documents"), ("docs", "documents"), ("rm", "documents"),
    ("show", "documents"), ("reembed", "admin"), ("migrate", "admin"), ("reindex", "admin"), ("trace", "query"),
    ("chunks", "documents"), ("tree", "tree"), ("inspect", "documents"), ("calibrate", "admin"), ("demo", "query"),
    ("serve", "server"),
)
"""Each command, in the order `bunko --help` lists them, and the module of bunko.cli whose function of that name
it runs."""

GROUPS: tuple[tuple[str, str, str], ...] = (
    ("jobs", "documents", "jobs_app"), ("eval", "evaluate", "eval_app"), ("keys", "server", "keys_app"),
    ("graph", "graph", "graph_app"), ("sources", "sources", "sources_app"),
)
"""Each group of commands (after the commands in `bunko --help`): its name, module, and the typer app in it."""


class LazyCommands(ReadableHelp):
    """The `bunko` group: its commands are built from `COMMANDS` and `GROUPS` one at a time, when click asks for one
    (to run it, or to list it in `bunko --help`), each given the same help names and bare options as the rest."""

    def list_commands(self, ctx: Any) -> list[str]:
        return [name for name, _ in COMMANDS] + [name for name, _, _ in GROUPS]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = self.commands.get(cmd_name)
        if command is None:
            command = _build(cmd_name)
            if command is not None:
                readable(command)
                allow_bare(command)
                self.commands[cmd_name] = command
        return command


def _build(name: str) -> Any:
    for command_name, module in COMMANDS:
        if command_name == name:
            function = getattr(importlib.import_module(f"bunko.cli.{module}"), name)
            return get_command_from_info(
                CommandInfo(callback=function), pretty_exceptions_short=app.pretty_exceptions_short,
                rich_markup_mode=app.rich_markup_mode,
            )
    for group_name, module, attribute in GROUPS:
        if group_name == name:
            group = getattr(importlib.import_module(f"bunko.cli.{module}"), attribute)
            return get_group_from_info(
                TyperInfo(group, name=name), pretty_exceptions_short=app.pretty_exceptions_short,
                rich_markup_mode=app.rich_markup_mode, suggest_commands=app.suggest_commands,
            )
    return None


app = typer.Typer(
    help="bunko: ask your own documents, with every answer cited.", no_args_is_help=True, add_completion=False, cls=LazyCommands,
)


def version() -> str:
    """The package's version (`bunko.__version__`, kept equal to pyproject's: tests/cli check it against the installed
    metadata), read without importlib.metadata, whose import costs more than the rest of `bunko --version`."""
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




def main() -> None:  # pragma: no cover - console entry point
    os.environ.setdefault("PYTHONIOENCODING", "utf-8")
    app()
