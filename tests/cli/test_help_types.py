"""`--help` names what options take in words (TEXT, INTEGER, PATH, a choice's values), nothing for a flag, and keeps
the bunko.toml sections its text mentions."""

from __future__ import annotations

import re

import typer
from typer.testing import CliRunner

from bunko.cli.app import app


def _paths(command, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command path, asked of each group the way click asks it (the root group builds its commands on demand)."""
    found = [prefix]
    if not hasattr(command, "list_commands"):
        return found
    ctx = typer.Context(command)
    for name in command.list_commands(ctx):
        found += _paths(command.get_command(ctx, name), (*prefix, name))
    return found


def test_no_help_shows_python_annotations_as_types() -> None:
    runner = CliRunner()
    paths = _paths(typer.main.get_command(app))
    assert ("ingest",) in paths and ("jobs", "retry") in paths and ("eval", "run") in paths
    for path in paths:
        result = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "160"})
        assert result.exit_code == 0, (path, result.output)
        leaked = re.findall(r"<(?:bool|str|int|float|path|list\[[^\]]*\])>|\{\w+\}", result.output)
        assert not leaked, f"bunko {' '.join(path)} --help shows {leaked}"


def test_flags_show_no_type_values_show_their_kind_and_sections_stay() -> None:
    runner = CliRunner()
    ingest = runner.invoke(app, ["ingest", "--help"], env={"COLUMNS": "160"}).output
    assert "PATHS..." in ingest and re.search(r"--root\s+PATH\s", ingest)
    assert re.search(r"--prune\s+Remove documents", ingest)  # a flag: straight to its help
    assert "[ingest] root" in ingest
    search = runner.invoke(app, ["search", "--help"], env={"COLUMNS": "160"}).output
    assert re.search(r"-k\s+INTEGER", search) and re.search(r"--where\s+TEXT", search)
    evaluate = runner.invoke(app, ["eval", "run", "--help"], env={"COLUMNS": "160"}).output
    assert "the [llm] chat model" in evaluate
