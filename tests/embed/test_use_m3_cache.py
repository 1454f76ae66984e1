"""The use-m3 cache gives the package's own token ids and vectors, and a cache that is missing, stale or damaged is
rebuilt (or bypassed) without a search ever failing."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bunko import Bunko, Config, user_cache
from bunko.embed import use_m3_cache
from bunko.embed.use_m3 import UseM3Embedder

TEXTS = [
    "How do I configure an apt proxy for the whole network?",
    "東京23区に出張する一般社員の宿泊費の上限はいくらですか？ ｶﾀｶﾅと全角ＡＢＣ１２３も。",
    "婚假有几天？请参阅《员工手册》第3.2节。",
    "  leading   and trailing   spaces\tand\ttabs  ",
    "",
    "émigré café naïve — “quotes” … ① ㍻ 🙂 \u200b zero-width",
    "Mixed 日本語 and English and 中文 in one line: ext4/btrfs, 10GiB, ~/.bashrc",
]


@pytest.fixture(scope="session")
def package_model() -> tuple[Any, Any]:
    """The package's own tokenizer and weights, parsed the slow way once for the session."""
    return use_m3_cache.package_load(threads=1)


@pytest.fixture
def fresh_cache(tmp_path: Path, package_model: tuple[Any, Any], monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache root under tmp_path, built from the session's package model; rebuilding reuses that model."""
    monkeypatch.setattr(use_m3_cache, "package_load", lambda threads: package_model)
    root = tmp_path / "cache"
    use_m3_cache.build(use_m3_cache.cache_dir(root), *package_model)
    return root


def test_cached_tokenizer_gives_the_package_token_ids(package_model: tuple[Any, Any], embedder: UseM3Embedder) -> None:
    package_tokenizer, _ = package_model
    cached = embedder._model._tokenizer
    assert embedder.loaded_from in ("cache", "built")
    assert type(cached) is not type(package_tokenizer)  # really the cache's, not the package's own parse
    for text in TEXTS:
        assert cached.encode(text) == package_tokenizer.encode(text), text
        assert cached.encode(text, out_type=str) == package_tokenizer.encode(text, out_type=str), text
    assert cached.vocab_size == package_tokenizer.vocab_size == 128000


def test_cached_weights_are_mapped_and_give_the_package_vectors(package_model: tuple[Any, Any], embedder: UseM3Embedder) -> None:
    _, package_backend = package_model
    cached = embedder._model._backend
    assert isinstance(cached.table, np.memmap)
    assert np.array_equal(cached.encode(TEXTS), package_backend.encode(TEXTS))


def test_a_second_load_reads_the_cache(fresh_cache: Path) -> None:
    loaded = use_m3_cache.load(threads=1, root=fresh_cache)
    assert loaded.source == "cache"
    assert loaded.tokenizer.encode(TEXTS[1]) and loaded.backend.encode(TEXTS[:2]).shape == (2, 512)


def _truncate_table(folder: Path) -> None:
    table = folder / "table.npy"
    with table.open("r+b") as f:
        f.truncate(table.stat().st_size // 2)


def _corrupt_vocab(folder: Path) -> None:
    vocab = folder / "vocab.npz"
    data = bytearray(vocab.read_bytes())
    middle = len(data) // 2
    data[middle:middle + 64] = bytes(64)
    vocab.write_bytes(bytes(data))


def _garbage_manifest(folder: Path) -> None:
    (folder / "manifest.json").write_text('{"table_shape": [3, 4]}', encoding="utf-8")


def _no_manifest(folder: Path) -> None:
    (folder / "manifest.json").unlink()


@pytest.mark.parametrize("damage", [_truncate_table, _corrupt_vocab, _garbage_manifest, _no_manifest])
def test_a_damaged_cache_is_rebuilt(damage: Any, fresh_cache: Path, package_model: tuple[Any, Any]) -> None:
    damage(use_m3_cache.cache_dir(fresh_cache))
    rebuilt = use_m3_cache.load(threads=1, root=fresh_cache)
    assert rebuilt.source == "built"
    assert np.array_equal(rebuilt.backend.encode(TEXTS[:3]), package_model[1].encode(TEXTS[:3]))
    assert use_m3_cache.load(threads=1, root=fresh_cache).source == "cache"  # whole again


def test_a_search_over_a_damaged_cache_works(fresh_cache: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _truncate_table(use_m3_cache.cache_dir(fresh_cache))
    monkeypatch.setenv(user_cache.CACHE_ENV, str(fresh_cache))
    embedder = UseM3Embedder(threads=1)
    assert embedder.loaded_from == "built"
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "proxy.md").write_text("# Proxy\n\nSet Acquire::http::Proxy in /etc/apt/apt.conf.d to use an apt proxy.\n", encoding="utf-8")
    (docs / "ja.md").write_text("# 出張\n\n宿泊費の上限は一泊12,000円です。\n", encoding="utf-8")
    (docs / "zh.md").write_text("# 假期\n\n婚假为三天。\n", encoding="utf-8")
    with Bunko(tmp_path / ".bunko", config=Config(), embedder=embedder) as kb:
        kb.ingest([docs])
        for query, source in (("apt proxy setting", "proxy.md"), ("宿泊費の上限", "ja.md"), ("婚假几天", "zh.md")):
            assert kb.search(query, mode="dense", k=1)[0].chunk.source.endswith(source), query


def test_an_unwritable_cache_falls_back_to_the_package(package_model: tuple[Any, Any], monkeypatch: pytest.MonkeyPatch,
                                                       tmp_path: Path) -> None:
    monkeypatch.setattr(use_m3_cache, "package_load", lambda threads: package_model)
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    loaded = use_m3_cache.load(threads=1, root=blocker)
    assert loaded.source == "package" and loaded.tokenizer is package_model[0]


def test_a_changed_model_file_gets_another_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    resources = tmp_path / "resources"
    resources.mkdir()
    for name in ("sp.model", "weights.npz"):
        (resources / name).write_bytes(b"model")
    monkeypatch.setattr(use_m3_cache, "_resources", lambda: resources)
    before = use_m3_cache.cache_dir(tmp_path)
    assert use_m3_cache.cache_dir(tmp_path) == before
    stat = (resources / "sp.model").stat()
    os.utime(resources / "sp.model", ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert use_m3_cache.cache_dir(tmp_path) != before


def test_cache_root_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(user_cache.CACHE_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert user_cache.cache_root() == tmp_path / "xdg" / "bunko"
    monkeypatch.setenv(user_cache.CACHE_ENV, str(tmp_path / "own"))
    assert user_cache.cache_root() == tmp_path / "own"
