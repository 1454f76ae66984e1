"""Language knowledge: every word list and phrase pattern bunko recognises, one package per language.

``en/``, ``ja/`` and ``zh/`` (the package name is the rule) hold the words, and what bunko says in that
language (abstentions, notices, table-answer wording, masks); ``common.py`` the symbols no language owns (currency
signs, ISO codes). A module reads them by module (``from bunko.text.lexicon import en, ja, zh``:
``f"{en.GREETING}|{ja.GREETING}|{zh.GREETING}"``) or, when it holds one rule per language, by language key
(``for_language(language).ADDRESS_MARKERS``); a message is read by the language of the answer
(``speaking(language).ABSTAIN_MESSAGE``), English for a language bunko does not speak. Nothing outside this package
defines a word list or a message table: tests/test_word_lists_live_in_lexicon.py fails when one appears elsewhere.
This package imports nothing from bunko, so every layer can read it.
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
    ADDITIVE: str

    # what bunko says in the language
    ABSTAIN_MESSAGE: str
    CROSS_LANGUAGE_NOTE: str
    LANGUAGE_NAMES: dict[str, str]
    NAME_JOINER: str
    UNVERIFIED_NOTICE: str
    UNVERIFIED_MARK: str
    SOURCES_HEADING: str
    GREETING_REPLY: str
    CALCULATED_REPLY: str
    NO_CONVERSATION: str
    RECALLED: dict[str, str]
    MASKS: dict[str, str]
    NOT_ADVICE: str
    NEEDS_REVIEW: str
    SOURCE_UPDATED: str
    NAME_IN_ENGLISH: str
    NAME_FOR_A_MODEL: str
    OCR_MODELS: tuple[str, ...]
    ROW_SEPARATORS: tuple[str, str]
    TABLE_OPERATIONS: dict[str, str]
    TABLE_DECLINE: str
    TABLE_LOWEST_CHANGE: str
    TABLE_LATEST: str
    TABLE_EARLIEST: str
    TABLE_CANNOT_RANK: str
    TABLE_GROUPED: str
    TABLE_IN: str
    TABLE_FROM: str
    TABLE_WHERE: str
    TABLE_AND: str
    TABLE_CONTAINS: str
    TABLE_ROWS: str
    TABLE_LOOKUP: str
    TABLE_MODEL_QUERY: str
    COLON: str
    TABLE_END: str
    CURRENCY_AMOUNTS: dict[str, str]


_BY_LANGUAGE: dict[str, Lexicon] = {"en": en, "ja": ja, "zh": zh}
"""mypy checks each module against `Lexicon` here."""


def for_language(language: str) -> Lexicon:
    """The lexicon of `language` ("en", "ja" or "zh"); KeyError for any other."""
    return _BY_LANGUAGE[language]


def speaking(language: str) -> Lexicon:
    """The lexicon bunko says things in for an answer in `language`: its own for en, ja and zh, English for any
    other (bunko answers a question in another language in English)."""
    return _BY_LANGUAGE.get(language, en)


__all__ = ["LANGUAGES", "Lexicon", "common", "en", "for_language", "ja", "speaking", "zh"]
