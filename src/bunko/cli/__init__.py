"""The `bunko` command line: a thin shell over `Bunko` and the layers below it; nothing below imports it.

`bunko.cli:app` is the console entry point (pyproject.toml). Every command has `--json` for scripts.
"""

from bunko.cli.app import app, main

__all__ = ["app", "main"]
