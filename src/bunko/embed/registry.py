"""Embedders by name, built from `[embed]` in bunko.toml."""

from __future__ import annotations

from collections.abc import Callable

from bunko.config import EmbedConfig
from bunko.embed.base import Embedder


def _use_m3(config: EmbedConfig) -> Embedder:
    from bunko.embed.use_m3 import UseM3Embedder

    return UseM3Embedder(threads=config.threads, batch_size=config.batch_size)


EMBEDDERS: dict[str, Callable[[EmbedConfig], Embedder]] = {"use-m3": _use_m3}


def build_embedder(config: EmbedConfig) -> Embedder:
    try:
        factory = EMBEDDERS[config.model]
    except KeyError:
        raise ValueError(f"unknown embedder {config.model!r}; available: {', '.join(sorted(EMBEDDERS))}") from None
    return factory(config)
