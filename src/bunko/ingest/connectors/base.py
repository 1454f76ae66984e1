"""What every source is: a listing of items, each with a version, and a way to read one item into a local file.

A `Source` never writes to the collection; `ingest/sync.py` compares its listing with what the collection
holds and hands changed items to the ingest pipeline one file at a time, under the document name the
source gives them (`document_name`). The spec (`SourceSpec` and its subclasses) is what
`<collection>/sources.toml` stores: where the items are and how to read them, never a credential.
Credentials come from the environment or from a secrets file the spec names (`Secrets`).
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field

from bunko.errors import BunkoError


class SourceError(BunkoError):
    """A source could not be listed (unreachable, refused, misconfigured): nothing of it is synced or deleted."""


NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"


@dataclass(frozen=True)
class Item:
    """One thing a source holds that becomes one document.

    `key` is unique within the source and stable across syncs (a path, an object key, a URL path, a row id);
    `version` changes whenever the content may have changed (mtime and size, ETag, blob id, a hash of the
    content); `suffix` is the file extension the parsers should see (".md", ".pdf", ".html")."""

    key: str
    version: str
    suffix: str = ""
    size: int | None = None


@dataclass
class Listing:
    """A source's items. `complete` is False when some items may be missing from the list (a crawl that hit a
    server error or its page limit): then nothing is deleted, since a missing item may only be unreachable."""

    items: list[Item]
    complete: bool = True
    problems: list[str] = field(default_factory=list)
    detail: dict[str, Any] = field(default_factory=dict)
    """What the source wants reported about this listing (e.g. the commit a Git ref pointed to)."""


class Source(Protocol):
    name: str

    def list_items(self) -> Listing:
        """Every item, or SourceError when the source cannot be listed at all."""
        ...

    def fetch(self, item: Item, folder: Path) -> Path:
        """The item's content as a local file: written under `folder` (which the caller removes), or a file the
        source already has on disk (a folder's own file). Raises `DocumentError` (FETCH_FAILED, NOT_FOUND,
        TOO_LARGE) for this item alone."""
        ...

    def document_name(self, key: str) -> str:
        """The stored document's `source` for an item key."""
        ...

    def owns(self, document: str) -> bool:
        """Whether a stored document came from this source (and is deleted when its item is gone)."""
        ...

    def close(self) -> None: ...


class SourceSpec(BaseModel):
    """What every source's entry in sources.toml may hold; each type adds where its items are."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    type: str
    secrets: str | None = Field(
        None, description="A TOML file with this source's credentials (read at sync time, never copied into the collection)."
    )
    include: list[str] | None = Field(None, description="Glob patterns of item keys to sync (default: [ingest] include for file-like sources).")
    exclude: list[str] | None = Field(None, description="Glob patterns of item keys to leave out (default: [ingest] exclude for file-like sources).")

    def target(self) -> str:
        """Where the items are, in one line (for `bunko sources list`)."""
        return self.type


SECRET_WORDS = ("password", "passwd", "secret", "token", "access_key", "api_key", "apikey", "credential")


def refuse_credentials(name: str, options: dict[str, Any]) -> None:
    """A credential in a stored option is refused with where to put it instead: the environment or a secrets file."""
    for key, value in options.items():
        if any(word in key.lower() for word in SECRET_WORDS):
            raise BunkoError(
                f"source {name}: {key} looks like a credential and is never stored in the collection; put it in a secrets "
                f"file (--secrets FILE, a TOML file outside the collection) or the environment ({env_name(name, key)})"
            )
        if isinstance(value, str) and "://" in value:
            parts = urlsplit(value)
            if parts.password:
                raise BunkoError(
                    f"source {name}: the URL in {key} holds a password, which is never stored in the collection; "
                    f"leave it out and put it in a secrets file (password = ...) or the environment ({env_name(name, 'password')})"
                )


def env_name(source: str, key: str) -> str:
    """The environment variable a source's secret is read from: BUNKO_SOURCE_<NAME>_<KEY>."""
    return "BUNKO_SOURCE_" + re.sub(r"[^A-Za-z0-9]", "_", f"{source}_{key}").upper()


class Secrets:
    """A source's credentials: the secrets file the spec names (a TOML table), then BUNKO_SOURCE_<NAME>_<KEY> in the
    environment, then the variables the service's own client reads (`fallback`)."""

    def __init__(self, source: str, secrets_file: str | None, base: Path) -> None:
        self.source = source
        self._values: dict[str, Any] = {}
        if secrets_file:
            path = Path(os.path.expanduser(secrets_file))
            path = path if path.is_absolute() else base / path
            try:
                self._values = tomllib.loads(path.read_text(encoding="utf-8"))
            except FileNotFoundError:
                raise SourceError(f"source {source}: secrets file {path} does not exist") from None
            except (OSError, tomllib.TOMLDecodeError) as exc:
                raise SourceError(f"source {source}: secrets file {path} is not readable TOML: {exc}") from None

    def get(self, key: str, fallback: Iterable[str] = ()) -> Any:
        if key in self._values:
            return self._values[key]
        for name in (env_name(self.source, key), *fallback):
            if os.environ.get(name):
                return os.environ[name]
        return None


class NamedSource:
    """Naming shared by sources other than a local folder: a document is `<source name>:<item key>`."""

    name: str

    def document_name(self, key: str) -> str:
        return f"{self.name}:{key}"

    def owns(self, document: str) -> bool:
        return document.startswith(f"{self.name}:")

    def close(self) -> None:
        return None


def safe_file_name(key: str, suffix: str) -> str:
    """A local file name for an item: its last path part, cleaned, ending in the suffix the parsers need."""
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", key.rstrip("/").rsplit("/", 1)[-1])[:80].strip("._") or "item"
    if suffix and not stem.lower().endswith(suffix.lower()):
        stem += suffix
    return stem


def validate_name(value: str) -> str:
    if not re.fullmatch(NAME_PATTERN, value):
        raise BunkoError(f"{value!r} is not a source name: use letters, digits, '_', '-' or '.', up to 64, starting with a letter or digit")
    return value


def non_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be empty")
    return value.strip()

