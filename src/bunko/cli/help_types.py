"""How `--help` names what an option takes: TEXT, INTEGER, PATH, a choice's values — nothing for a flag.

The typer this project pins prints Python annotations instead (`<bool>` beside every flag, `<list[Path]>` beside an
argument, `{paths}...` in the usage line), which reads as a program's internals. The root command's class
(`ReadableHelp`, given to the `bunko` app) walks every command and group once when the command tree is built and
sets each parameter's metavar, so the CLI, `python -m bunko` and the tests' runner all show the same help.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from typer.core import TyperArgument, TyperGroup, TyperOption

from bunko.cli.optional_values import allow_bare

_NAMES = {"str": "TEXT", "int": "INTEGER", "float": "FLOAT", "Path": "PATH", "bool": "BOOLEAN", "datetime": "DATETIME", "UUID": "UUID"}


def _value_name(param: Any) -> str:
    """What typer's type descriptor says the option takes, in the words click's help has always used."""
    desc = param.type_descriptor
    if desc.is_choice and desc.choices:
        return "[" + "|".join(str(getattr(c, "value", c)) for c in desc.choices) + "]"
    if desc.is_path:
        return "PATH"
    annotation = desc.annotation
    args = [a for a in getattr(annotation, "__args__", ()) if a is not type(None)]
    inner = args[0] if desc.is_list and args else annotation
    name = getattr(inner, "__name__", str(inner))
    return _NAMES.get(name, name.upper())


_SECTION = re.compile(r"(?<!\\)\[([a-z][\w.-]*)\]")
"""A bunko.toml section named in help text (`[llm]`, `[ingest] root`), which rich would take for markup and drop."""


def _keep_sections(text: str | None) -> str | None:
    return _SECTION.sub(r"\\[\1]", text) if text else text


def _no_type(ctx: Any) -> None:
    return None


def readable(command: Any) -> None:
    """Set the help names of `command`'s parameters, and of every command under it; keep the `[section]` names
    their help mentions."""
    command.help = _keep_sections(getattr(command, "help", None))
    original = command.get_help_option
    command.get_help_option = lambda ctx: _flag(original(ctx))  # built on demand, per command
    for param in getattr(command, "params", []):
        if getattr(param, "help", None):
            param.help = _keep_sections(param.help)
        if isinstance(param, TyperOption) and param.metavar is None:
            flag = param.is_flag or param.count
            param.metavar = "" if flag else _value_name(param) + ("..." if param.multiple or param.nargs != 1 else "")
        elif isinstance(param, TyperArgument):
            shown = (param.metavar or param.name or "value").upper() + ("..." if param.nargs != 1 else "")
            param.metavar = shown
            usage = shown if param.required else f"[{shown}]"
            setattr(param, "_usage_display_name", functools.partial(str, usage))  # noqa: B010  # per parameter
            setattr(param, "display_type_rich", _no_type)  # noqa: B010  # the name says what it is
    for child in getattr(command, "commands", {}).values():
        readable(child)


class ReadableHelp(TyperGroup):
    """The `bunko` group: every parameter's help name set once, when typer builds the command tree, and the options
    whose value may be left out marked (`optional_values.py`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        readable(self)
        allow_bare(self)


def _flag(option: Any) -> Any:
    """--help takes no value: nothing in the type column."""
    if option is not None:
        option.metavar = ""
    return option
