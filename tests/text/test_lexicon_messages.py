"""What bunko says lives in each language's lexicon, under the same names, read by the answer's language."""

from __future__ import annotations

import pytest

from bunko.text.languages import text_language
from bunko.text.lexicon import LANGUAGES, en, for_language, ja, speaking, zh
from bunko.text.table_questions import AVG, BOTTOM, COUNT, DIFFERENCE, GROWTH, LIST, MAX, MIN, SUM, TOP

SENTENCES = ("ABSTAIN_MESSAGE", "UNVERIFIED_NOTICE", "GREETING_REPLY", "NO_CONVERSATION", "NOT_ADVICE", "NEEDS_REVIEW")


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_message_is_written_in_its_own_language(language: str) -> None:
    """A Chinese notice in ja.py would be said to a Japanese user: each sentence reads as its module's language."""
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
