"""A cold `bunko` process imports what its command uses: `--version` and `--help` none of the engine, a command only
its own module; and the names the help shows without importing their home modules agree with those modules."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

from typer.testing import CliRunner

import bunko
from bunko.cli.app import COMMANDS, GROUPS, app

SRC = Path(bunko.__file__).resolve().parents[1]

_PROBE = """
import json, sys
from bunko.cli import app
try:
    app(sys.argv[1:], prog_name="bunko")
except SystemExit:
    pass
sys.stdout.flush()
print("\\nMODULES " + json.dumps(sorted(m for m in sys.modules if m == "bunko" or m.startswith("bunko."))))
"""


def _modules_after(*args: str) -> tuple[str, set[str]]:
    """Run `bunko ARGS` in a fresh interpreter; what it printed and the bunko modules it had imported."""
    env = {**os.environ, "PYTHONPATH": str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", ""), "COLUMNS": "120"}
    done = subprocess.run([sys.executable, "-c", _PROBE, *args], capture_output=True, text=True, env=env, timeout=120)
    output, _, modules = done.stdout.rpartition("\nMODULES ")
    assert modules, done.stderr
    return output, set(json.loads(modules))


def test_version_imports_no_engine_and_no_command_module() -> None:
    output, modules = _modules_after("--version")
    assert output.strip() == f"bunko {bunko.__version__}"
    assert "bunko.engine" not in modules and "bunko.config" not in modules
    assert not {f"bunko.cli.{module}" for _, module in COMMANDS} & modules


def test_help_lists_every_command_without_the_engine() -> None:
    output, modules = _modules_after("--help")
    for name, _ in COMMANDS:
        assert f" {name} " in output
    for name, _, _ in GROUPS:
        assert f" {name} " in output
    assert "bunko.engine" not in modules and "bunko.config" not in modules and "bunko.generate.answerer" not in modules


def test_a_command_imports_its_own_module_only() -> None:
    output, modules = _modules_after("search", "--help")
    assert "Ranked evidence" in output
    assert "bunko.cli.query" in modules and "bunko.engine" not in modules
    assert "bunko.cli.evaluate" not in modules and "bunko.cli.server" not in modules


def test_an_unknown_command_is_still_refused() -> None:
    result = CliRunner().invoke(app, ["serach", "x"])
    assert result.exit_code == 2 and "No such command" in result.output


def test_version_is_the_installed_one() -> None:
    assert bunko.__version__ == metadata.version("bunko")


def test_names_the_help_shows_agree_with_their_modules() -> None:
    from bunko.cli.sources import SOURCE_TYPES
    from bunko.config import CONFIG_FILE
    from bunko.engine import DEFAULT_COLLECTION
    from bunko.evaluate.metrics import DEFAULT_KS
    from bunko.ingest.connectors.registry import SPECS
    from bunko.ingest.maintenance import REEMBED_BATCH

    assert tuple(SPECS) == SOURCE_TYPES
    assert (CONFIG_FILE, DEFAULT_COLLECTION, DEFAULT_KS, REEMBED_BATCH) == ("bunko.toml", ".bunko", (1, 5, 10), 64)
