"""Exceptions that carry a user-facing message; the CLI prints them without a traceback."""

from __future__ import annotations

from bunko.schema import ErrorCode


class BunkoError(Exception):
    """Base class: the message is meant for the user, as is."""


class ConfigError(BunkoError):
    """bunko.toml is invalid: the message names the key."""


class CollectionError(BunkoError):
    """The collection folder is missing, locked, or was built with another embedder."""


class FilterError(BunkoError):
    """A search filter names an unknown field or uses an unknown operator."""


class DocumentError(BunkoError):
    """One document failed; `code` says which stage and why, the rest of the run goes on."""

    def __init__(self, code: ErrorCode, detail: str) -> None:
        super().__init__(f"{code.value}: {detail}")
        self.code = code
        self.detail = detail
