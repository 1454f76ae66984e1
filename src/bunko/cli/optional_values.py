"""Options whose value may be left out: `bunko search QUERY --explain` is `--explain brief`, `--explain full` says
more.

Click has this (an option's `flag_value` taken when no value follows), but the click that the pinned typer carries
(`typer._click`) dropped it: its parser wants a value after every option that takes one. `allow_bare` marks such
an option on the command tree (`ReadableHelp` walks it once), and the parser, asked for the option's value, takes
the next argument only when it is one of the option's values: otherwise the option stands bare and the argument is
left for the command (`bunko search --explain 出張` reads 出張 as the query).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from typer._click import parser as _parser

OPTIONAL_VALUES: dict[str, tuple[str, tuple[str, ...]]] = {
    "--explain": ("brief", ("brief", "full")),
}
"""Option name → (the value when it stands bare, the values it may be given)."""

_ATTRIBUTE = "bunko_optional_value"
_original = _parser._OptionParser._get_value_from_state


def _get_value_from_state(self: Any, option_name: str, option: Any, state: Any) -> str | Sequence[str]:
    spec = getattr(option.obj, _ATTRIBUTE, None)
    if spec is not None:
        bare, values = spec
        if not state.rargs or state.rargs[0] not in values:
            return str(bare)
    return _original(self, option_name, option, state)


_parser._OptionParser._get_value_from_state = _get_value_from_state  # type: ignore[method-assign]


def allow_bare(command: Any) -> None:
    """Mark the options of OPTIONAL_VALUES in `command` and every command under it."""
    for param in getattr(command, "params", []):
        for name in getattr(param, "opts", ()):
            if name in OPTIONAL_VALUES:
                setattr(param, _ATTRIBUTE, OPTIONAL_VALUES[name])
    for child in getattr(command, "commands", {}).values():
        allow_bare(child)
