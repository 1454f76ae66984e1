"""Configurations to compare: partial bunko.toml files laid over a base configuration.

An experiment file only needs the keys it changes (``[chunk]\\nmax_chars = 300``); the rest comes
from the collection's own bunko.toml (or the defaults), so two files differ exactly where their
author meant them to. Which sections change the *index* decides whether a configuration can
reuse an existing collection or needs its own re-chunked, re-embedded copy.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bunko.config import Config
from bunko.errors import ConfigError
from bunko.text.lazy_regex import lazy_compile

INDEX_SECTIONS = ("ingest", "chunk", "embed")
"""Sections whose settings are baked into stored chunks, vectors or keyword tokens."""
INDEX_KEYS = (("retrieve", "analyzer"),)
"""Single keys outside those sections that are baked in too: the analyzer tokenises the keyword index at ingest."""
_PASSWORD = lazy_compile(r"(://[^:/@]+:)[^@]+@")


@dataclass
class Variant:
    name: str
    config: Config
    origin: str


def overlay(base: Mapping[str, Any], patch: Mapping[str, Any]) -> dict[str, Any]:
    """Deep merge: tables merge key by key, everything else in `patch` replaces."""
    merged = dict(base)
    for key, value in patch.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = overlay(merged[key], value)
        else:
            merged[key] = value
    return merged


def load_variant(path: Path, base: Config, name: str | None = None) -> Variant:
    try:
        patch = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such configuration file") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    config = Config.from_dict(overlay(base.model_dump(), patch), origin=str(path))
    return Variant(name or path.stem, config, str(path))


def load_variants(paths: Sequence[Path], base: Config) -> list[Variant]:
    """One variant per file, named by its stem (a repeated stem gets its position appended)."""
    stems = [p.stem for p in paths]
    variants = []
    for index, path in enumerate(paths):
        name = path.stem if stems.count(path.stem) == 1 else f"{path.stem}-{index + 1}"
        variants.append(load_variant(path, base, name))
    return variants


def index_key(config: Config) -> str:
    """Equal keys ⇔ the same documents would be indexed identically, so one index serves both."""
    data = config.model_dump()
    key: dict[str, Any] = {section: data[section] for section in INDEX_SECTIONS}
    key["store"] = data.get("store")  # another backend is another index, even with the same chunks
    for section, name in INDEX_KEYS:
        key[f"{section}.{name}"] = data[section][name]
    return json.dumps(key, sort_keys=True, default=str)


def redacted(config: Config) -> dict[str, Any]:
    """The settings as reports show them: a password in a postgresql:// store DSN is masked."""
    data = config.model_dump()
    if isinstance(data.get("store"), str):
        data["store"] = _PASSWORD.sub(r"\1***@", data["store"])
    return data


def differences(left: Mapping[str, Any], right: Mapping[str, Any]) -> list[str]:
    """`section.key: a → b` for every setting that differs between two dumped configurations (the report's table)."""
    changed = []
    for section in left:
        if not isinstance(left[section], dict):
            if left[section] != right.get(section):
                changed.append(f"{section}: {left[section]!r} → {right.get(section)!r}")
            continue
        for key in sorted(set(left[section]) | set(right[section])):
            if left[section].get(key) != right[section].get(key):
                changed.append(f"{section}.{key}: {left[section].get(key)!r} → {right[section].get(key)!r}")
    return changed
