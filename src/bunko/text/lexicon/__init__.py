"""Language knowledge: every word list and phrase pattern bunko recognises, one module per language.

``en.py``, ``ja.py`` and ``zh.py`` (the file name is the rule) hold the words; ``common.py`` the symbols no
language owns (currency signs, ISO codes). A module reads them by module (``from bunko.text.lexicon import en, ja,
zh``: ``f"{en.GREETING}|{ja.GREETING}|{zh.GREETING}"``) or, when it holds one rule per language, by language key
(``for_language(language).ADDRESS_MARKERS``). Nothing outside this package defines a word list:
tests/test_word_lists_live_in_lexicon.py fails when one appears elsewhere. This package imports nothing from
bunko, so every layer can read it.
"""

from __future__ import annotations

from typing import Protocol

from bunko.text.lexicon import common, en, ja, zh

LANGUAGES = ("en", "ja", "zh")
"""The languages with a lexicon: the ones bunko answers in (`bunko.text.languages.LANGUAGES`)."""


class Lexicon(Protocol):
    """What a module reads from a language's lexicon by language key: names every one of en, ja and zh defines.

    Add a name here when a module starts reading it by key; a module that joins the three languages reads their
    modules directly."""

    ADDRESS_MARKERS: str


_BY_LANGUAGE: dict[str, Lexicon] = {"en": en, "ja": ja, "zh": zh}
"""mypy checks each module against `Lexicon` here."""


def for_language(language: str) -> Lexicon:
    """The lexicon of `language` ("en", "ja" or "zh"); KeyError for any other."""
    return _BY_LANGUAGE[language]


__all__ = ["LANGUAGES", "Lexicon", "common", "en", "for_language", "ja", "zh"]
