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
    """A search filter is malformed (an unknown field, operator or combinator, an operand of the wrong type, an
    empty list or a non-finite number): the message starts with the path of the bad part, ``where.$and[0]: …``."""


class DocumentError(BunkoError):
    """One document failed; `code` says which stage and why, the rest of the run goes on."""

    def __init__(self, code: ErrorCode, detail: str) -> None:
        super().__init__(f"{code.value}: {detail}")
        self.code = code
        self.detail = detail
