from __future__ import annotations

from pathlib import Path

import pytest

from bunko import Bunko, Config, ConfigError


def test_defaults_are_written_and_reloaded(tmp_path: Path) -> None:
    path = tmp_path / "bunko.toml"
    Config().save(path)
    assert Config.load(path) == Config()


def test_unknown_key_is_refused_with_its_name(tmp_path: Path) -> None:
    path = tmp_path / "bunko.toml"
    path.write_text("[retrieve]\nmax_distanse = 0.5\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"retrieve\.max_distanse: unknown key"):
        Config.load(path)


def test_bad_value_is_refused_with_its_name(tmp_path: Path) -> None:
    path = tmp_path / "bunko.toml"
    path.write_text('[chunk]\nmax_chars = "big"\n[retrieve]\nmode = "fuzzy"\n', encoding="utf-8")
    with pytest.raises(ConfigError) as error:
        Config.load(path)
    assert "chunk.max_chars" in str(error.value) and "retrieve.mode" in str(error.value)


def test_collection_with_invalid_config_does_not_open(tmp_path: Path) -> None:
    folder = tmp_path / ".bunko"
    folder.mkdir()
    (folder / "bunko.toml").write_text("[embed]\nthreads = 0\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"embed\.threads"):
        Bunko(folder)

