"""English plural folding for entity keys (issue 50, item 4): "alias" stays "alias", "aliases" is "alias" too.

The word list `english_plurals.tsv` holds singular words ending in s, regular plurals of each ending and irregular
ones; most of its words are not in the package's own list (`lexicon/en/singulars.txt`), so the rules are what it tests.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bunko.text.entities import entity_key, entity_keys
from bunko.text.inflection import _lists, singular

WORDS = Path(__file__).with_name("english_plurals.tsv")


def _pairs() -> list[tuple[str, str]]:
    rows = [line.split("\t") for line in WORDS.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]
    return [(word, expected) for word, expected in rows]


def test_the_word_list_folds_as_written() -> None:
    wrong = [(word, singular(word), expected) for word, expected in _pairs() if singular(word) != expected]
    assert not wrong, wrong


def test_the_word_list_mostly_tests_rules_not_the_package_list() -> None:
    invariant, irregular = _lists()
    listed = [word for word, _ in _pairs() if word in invariant or word in irregular]
    assert len(listed) < len(_pairs()) / 3


def test_a_singular_is_its_own_singular() -> None:
    """Folding twice changes nothing: a key looked up again is the same key."""
    for word, expected in _pairs():
        assert singular(expected) == expected, (word, expected)


@pytest.mark.parametrize(("spellings", "key"), [
    (["alias", "Alias", "aliases", "ALIASES"], "alias"),
    (["status", "statuses"], "status"),
    (["bus", "buses"], "bus"),
    (["lens", "lenses"], "lens"),
    (["news"], "news"),
    (["series"], "series"),
    (["species"], "species"),
    (["shell alias", "shell aliases", "shell-aliases"], "shell alias"),
    (["cache", "caches"], "cache"),
    (["API", "APIs", "api"], "api"),
    (["URL", "URLs"], "url"),
])
def test_spellings_merge_and_keep_their_s(spellings: list[str], key: str) -> None:
    assert {entity_key(s) for s in spellings} == {key}


@pytest.mark.parametrize(("written", "key"), [("DNS", "dns"), ("HTTPS", "https"), ("AWS", "aws"), ("macOS", "macos"), ("iOS", "ios")])
def test_an_acronym_keeps_its_final_s(written: str, key: str) -> None:
    assert entity_key(written) == key


@pytest.mark.parametrize("text", [
    "Define an alias for the command. Aliases are read at login.",
    "コマンドに alias を定義します。aliases はログイン時に読み込まれます。",
    "为命令定义一个 alias。所有 aliases 在登录时读取。",
])
def test_text_in_each_language_yields_alias_not_alia(text: str) -> None:
    keys = entity_keys(text)
    assert "alias" in keys and "alia" not in keys and "aliase" not in keys, keys
