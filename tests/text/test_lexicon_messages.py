"""What bunko says lives in each language's lexicon, under the same names, read by the answer's language."""

from __future__ import annotations

import pytest

from bunko.text.languages import text_language
from bunko.text.lexicon import LANGUAGES, en, for_language, ja, speaking, zh
from bunko.text.table_questions import AVG, BOTTOM, COUNT, DIFFERENCE, GROWTH, LIST, MAX, MIN, SUM, TOP

SENTENCES = ("ABSTAIN_MESSAGE", "UNVERIFIED_NOTICE", "GREETING_REPLY", "NO_CONVERSATION", "NOT_ADVICE", "NEEDS_REVIEW")


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_message_is_written_in_its_own_language(language: str) -> None:
    """A Chinese notice in ja/messages.py would be said to a Japanese user: each sentence reads as its module's language."""
    lexicon = for_language(language)
    assert {name: text_language(getattr(lexicon, name)) for name in SENTENCES} == dict.fromkeys(SENTENCES, language)


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_table_answer_has_words_for_every_operation_a_question_can_ask(language: str) -> None:
    """The lexicon keys its table wording by the operation names of text/table_questions.py, which it cannot import."""
    operations = {COUNT, SUM, AVG, MAX, MIN, TOP, BOTTOM, GROWTH, DIFFERENCE, LIST}
    assert set(for_language(language).TABLE_OPERATIONS) == operations


def test_a_language_bunko_does_not_speak_is_answered_in_english() -> None:
    assert speaking("ja") is ja and speaking("zh") is zh and speaking("en") is en
    assert speaking("ko") is en and speaking("") is en
    with pytest.raises(KeyError):
        for_language("ko")


def test_each_language_is_a_package_of_the_same_parts_and_its_messages_are_in_one() -> None:
    """en, ja and zh are split alike (a part named for what it holds), and what bunko says is all in `messages.py`."""
    from importlib import import_module
    from pathlib import Path

    from bunko.text.lexicon import Lexicon

    parts = {language: sorted(p.stem for p in Path(for_language(language).__file__ or "").parent.glob("*.py") if p.stem != "__init__")
             for language in LANGUAGES}
    assert parts == {language: ["documents", "messages", "questions"] for language in LANGUAGES}
    said = {name for name in Lexicon.__annotations__ if name not in ("ADDRESS_MARKERS", "ADDITIVE")}
    for language in LANGUAGES:
        messages = vars(import_module(f"bunko.text.lexicon.{language}.messages"))
        assert said <= set(messages), (language, said - set(messages))
        for part in ("documents", "questions"):
            assert not said & set(vars(import_module(f"bunko.text.lexicon.{language}.{part}"))), (language, part)
