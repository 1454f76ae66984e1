"""The collection's sources: `<collection>/sources.toml` (one table per source), their types, and building one.

The file holds where each source's items are and how to read them; a credential in it is refused (see
`base.refuse_credentials`): they come from the environment or a secrets file the source names.
"""

from __future__ import annotations

import fnmatch
import os
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import tomli_w
from pydantic import ValidationError

from bunko.config import Config
from bunko.errors import BunkoError, ConfigError
from bunko.ingest.connectors.base import Secrets, Source, SourceSpec, refuse_credentials, validate_name
from bunko.ingest.connectors.folder import FolderSource, FolderSpec
from bunko.ingest.connectors.git import GitSource, GitSpec
from bunko.ingest.connectors.s3 import S3Source, S3Spec
from bunko.ingest.connectors.sql import SqlSource, SqlSpec
from bunko.ingest.connectors.web import WebSource, WebSpec

SOURCES_FILE = "sources.toml"
SPECS: dict[str, type[SourceSpec]] = {"folder": FolderSpec, "s3": S3Spec, "git": GitSpec, "web": WebSpec, "sql": SqlSpec}
FILE_LIKE = ("folder", "s3", "git")
"""Types whose keys are file paths: `[ingest] include/exclude` apply unless the source sets its own."""


def parse_spec(name: str, data: dict[str, Any], origin: str = SOURCES_FILE) -> SourceSpec:
    """A source's table, validated by its type; errors name the source and the key."""
    validate_name(name)
    kind = data.get("type")
    if kind not in SPECS:
        raise ConfigError(f"{origin}: source {name}: type must be one of {', '.join(SPECS)} (got {kind!r})")
    refuse_credentials(name, {k: v for k, v in data.items() if k != "secrets"})
    try:
        return SPECS[kind].model_validate(data)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            key = ".".join(str(p) for p in err["loc"]) or "(source)"
            problems.append(f"{key}: {'unknown key' if err['type'] == 'extra_forbidden' else err['msg']}")
        raise ConfigError(f"{origin}: source {name}: " + "; ".join(problems)) from None


class SourceBook:
    """The sources of one collection, read from and written to its sources.toml."""

    def __init__(self, collection: Path) -> None:
        self.collection = collection
        self.path = collection / SOURCES_FILE

    def load(self) -> dict[str, SourceSpec]:
        if not self.path.exists():
            return {}
        try:
            data = tomllib.loads(self.path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{self.path}: not valid TOML: {exc}") from None
        tables = data.get("sources", {})
        if set(data) - {"sources"} or not isinstance(tables, dict):
            raise ConfigError(f"{self.path}: only [sources.NAME] tables belong here")
        return {name: parse_spec(name, dict(table), str(self.path)) for name, table in tables.items()}

    def save(self, specs: dict[str, SourceSpec]) -> None:
        data = {"sources": {name: spec.model_dump(exclude_none=True) for name, spec in specs.items()}}
        temporary = self.path.with_name(f".{SOURCES_FILE}.{os.getpid()}")
        with temporary.open("w", encoding="utf-8") as out:
            out.write("# bunko sources: where documents are synced from (`bunko sources add|list|sync|rm`). No credentials here.\n")
            out.write(tomli_w.dumps(data))
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, self.path)

    def get(self, name: str) -> SourceSpec:
        specs = self.load()
        if name not in specs:
            raise BunkoError(f"no source {name!r} (see `bunko sources list`)")
        return specs[name]

    def add(self, name: str, data: dict[str, Any], replace: bool = False) -> SourceSpec:
        spec = parse_spec(name, data)
        if spec.secrets:
            secrets = Path(os.path.expanduser(spec.secrets)).resolve()
            if secrets.is_relative_to(self.collection.resolve()):
                raise BunkoError(f"source {name}: the secrets file {secrets} is inside the collection; keep credentials outside it")
        specs = self.load()
        if name in specs and not replace:
            raise BunkoError(f"a source named {name!r} exists already (`bunko sources rm {name}` first, or --replace)")
        specs[name] = spec
        self.save(specs)
        return spec

    def remove(self, name: str) -> SourceSpec:
        specs = self.load()
        if name not in specs:
            raise BunkoError(f"no source {name!r} (see `bunko sources list`)")
        spec = specs.pop(name)
        self.save(specs)
        return spec


def key_filter(spec: SourceSpec, config: Config) -> tuple[list[str], list[str]]:
    """The include and exclude patterns for a source's item keys."""
    file_like = spec.type in FILE_LIKE
    include = spec.include if spec.include is not None else (config.ingest.include if file_like else ["*"])
    exclude = spec.exclude if spec.exclude is not None else (config.ingest.exclude if file_like else [])
    return include, exclude


def matches(key: str, patterns: Iterable[str]) -> bool:
    return any(fnmatch.fnmatchcase(key, p) or fnmatch.fnmatchcase("/" + key, p) for p in patterns)


def build_source(name: str, spec: SourceSpec, collection: Path, root: Path, config: Config) -> Source:
    """The source a spec describes. Relative paths (folders, repositories, SQLite files, secrets files) are
    relative to the collection's root, the folder that holds the collection, as `bunko ingest` paths are."""
    secrets = Secrets(name, spec.secrets, root)
    if isinstance(spec, FolderSpec):
        include, exclude = key_filter(spec, config)
        return FolderSource(name, spec, root, include, exclude, follow_links=config.ingest.follow_links)
    if isinstance(spec, S3Spec):
        return S3Source(name, spec, secrets)
    if isinstance(spec, GitSpec):
        return GitSource(name, spec, root, collection / "cache")
    if isinstance(spec, WebSpec):
        return WebSource(name, spec, secrets, int(config.ingest.max_file_mb * 1024 * 1024))
    if isinstance(spec, SqlSpec):
        return SqlSource(name, spec, secrets, root)
    raise ConfigError(f"source {name}: unknown type {spec.type!r}")
