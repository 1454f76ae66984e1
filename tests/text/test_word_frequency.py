"""English word frequencies from the cached table are wordfreq's own, and a bad table file costs time, never a value."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from wordfreq import zipf_frequency

from bunko import user_cache
from bunko.text import word_frequency

WORDS = ["the", "tarball", "refurbish", "debhelper", "zzzqqqxx", "Debian", "x86-64", "naïve", "東京", "数据库", "apt-get"]


class _Planted:
    """Unpickling it creates the marker file: proof that loading ran code from the file."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[Path]]:
        return Path.touch, (self.marker,)


@pytest.fixture(scope="module")
def built_table(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One table built for the module (about 2 s), in a cache folder of its own."""
    root = tmp_path_factory.mktemp("cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(user_cache.CACHE_ENV, str(root))
        patch.setattr(word_frequency, "_table", None)
        patch.setattr(word_frequency, "_unavailable", False)
        word_frequency.zipf_en("the")
        path = word_frequency.table_path()
    assert path is not None and path.is_file() and path.parent == root / "wordfreq"
    return path


@pytest.fixture
def fresh_process(monkeypatch: pytest.MonkeyPatch, built_table: Path) -> Path:
    """The module as a new process finds it: nothing loaded, the cache folder holding the built table."""
    monkeypatch.setenv(user_cache.CACHE_ENV, str(built_table.parent.parent))
    monkeypatch.setattr(word_frequency, "_table", None)
    monkeypatch.setattr(word_frequency, "_unavailable", False)
    return built_table


def test_every_word_gets_wordfreqs_own_value(fresh_process: Path) -> None:
    assert [word_frequency.zipf_en(w) for w in WORDS] == [zipf_frequency(w, "en") for w in WORDS]


def test_a_later_process_reads_the_table_without_building_it(
    fresh_process: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_build(path: Path) -> None:
        raise AssertionError("the table was built again")

    monkeypatch.setattr(word_frequency, "_build", no_build)
    assert word_frequency.zipf_en("tarball") == zipf_frequency("tarball", "en") > 1.0
    assert word_frequency.zipf_en("zzzqqqxx") == 0.0


@pytest.mark.parametrize("damage", ["garbage", "pickle", "truncated", "unsorted"])
def test_a_damaged_table_is_never_trusted_and_runs_no_code(fresh_process: Path, tmp_path: Path, damage: str) -> None:
    good = np.load(fresh_process, allow_pickle=False)
    bad = tmp_path / "en.npy"
    if damage == "garbage":
        bad.write_bytes(b"\x93NUMPY not really")
    elif damage == "pickle":
        np.save(bad, np.array([_Planted(tmp_path / "ran")], dtype=object), allow_pickle=True)
    elif damage == "truncated":
        bad.write_bytes(fresh_process.read_bytes()[: 1000])
    else:
        np.save(bad, good[:, ::-1].copy(), allow_pickle=False)
    assert word_frequency._read(bad) is None
    assert not (tmp_path / "ran").exists()


def test_an_unwritable_cache_still_gives_wordfreqs_values(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("")
    monkeypatch.setenv(user_cache.CACHE_ENV, str(blocked))
    monkeypatch.setattr(word_frequency, "_table", None)
    monkeypatch.setattr(word_frequency, "_unavailable", False)
    assert [word_frequency.zipf_en(w) for w in WORDS] == [zipf_frequency(w, "en") for w in WORDS]
    assert not any(blocked.parent.glob("**/*.tmp"))
