"""The question read once: `QuestionFacts`, what every later stage asks of a question's words.

The router, the retrievers, the evidence scorer, the extractive answer and the grade all ask the same things of a
question: its language, the kind of answer it wants, the things it names, the phrases it quotes, the values it looks
up, the sentence that asks. Reading them once, after a follow-up is made standalone, gives every stage the same
reading (one rule, one answer) and spares re-parsing the string at each stage. Each field comes from the rule that
owns it (`text/questions.py`, `text/answer_types.py`, `text/languages.py`, `retrieve/key_terms.py`); this module
only gathers them. What needs the collection (which key terms are rare, which the collection writes) is not a fact of
the question and is read where the collection is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bunko.retrieve.key_terms import key_terms
from bunko.retrieve.made_on_read import MadeOnRead
from bunko.text.analyzers import Analyzer, query_text
from bunko.text.answer_types import NAMED_KINDS, AnswerType, question_type, wants_quantity
from bunko.text.entities import entity_keys
from bunko.text.languages import language_parts, query_language
from bunko.text.questions import (
    about_collection,
    asked_sentence,
    asks_for_overview,
    lookup_values,
    named_beyond_collection,
    names_topic,
    question_parts,
    quoted_phrases,
)
from bunko.text.table_questions import TableIntent, table_intent


@dataclass(frozen=True)
class QuestionFacts:
    """One question's reading, shared by every stage after condensing. Each fact is read the first time a stage asks
    for it and kept: a keyword search reads the few its router needs, an answer the rest, and no fact twice."""

    text: str
    """The question as searched (a follow-up already made standalone)."""
    tokens: tuple[str, ...]
    """Its keyword tokens (the collection's analyzer over `query_text`)."""

    @MadeOnRead
    def language(self) -> str:
        """"en", "ja" or "zh" (`query_language`: one kana is decisive in a question)."""
        return query_language(self.text)

    @MadeOnRead
    def kind(self) -> AnswerType:
        """The kind of answer it wants (`question_type`); NONE when no pattern speaks for one."""
        return question_type(self.text)

    @MadeOnRead
    def asks_quantity(self) -> bool:
        """It asks how many, how long, how much, and the answer is a number rather than a named thing."""
        return wants_quantity(self.text) and self.kind not in NAMED_KINDS

    @MadeOnRead
    def asking(self) -> str | None:
        """The sentence that asks, when a scene is set before it (`asked_sentence`); None when all of it asks."""
        return asked_sentence(self.text)

    @MadeOnRead
    def quoted(self) -> tuple[str, ...]:
        """The phrases it quotes ("Manager DN", 「管理者 DN」)."""
        return tuple(quoted_phrases(self.text))

    @MadeOnRead
    def looked_up(self) -> tuple[str, ...]:
        """The values a table row may be keyed by: quoted phrases and numbers standing alone."""
        return tuple(lookup_values(self.text))

    @MadeOnRead
    def key_terms(self) -> tuple[str, ...]:
        """The named things a passage must mention (`key_terms`), as tokens."""
        return tuple(key_terms(self.text, self.tokens))

    @MadeOnRead
    def named_outside_examples(self) -> tuple[str, ...]:
        """The key terms outside an example the question gives ("e.g. Spanish"): what the answer's passage must name."""
        return tuple(key_terms(self.text, self.tokens, examples=False))

    @MadeOnRead
    def parts(self) -> tuple[str, ...]:
        """Its requests when it asks several things at once (`question_parts`); one part otherwise."""
        return tuple(question_parts(self.text))

    @MadeOnRead
    def language_parts(self) -> tuple[str, ...]:
        """One part per language when it asks in several (`language_parts`); the whole question otherwise."""
        return tuple(language_parts(self.text))

    @MadeOnRead
    def table(self) -> TableIntent | None:
        """A count, sum, average, ranking or filter over table rows that it asks for (`table_intent`)."""
        return table_intent(self.text)

    @MadeOnRead
    def overview(self) -> bool:
        """It asks what a document or section is about, or for a summary (`asks_for_overview`)."""
        return asks_for_overview(self.text)

    @MadeOnRead
    def about_collection(self) -> str | None:
        """The words by which it asks about the whole collection ("the main topics"), or None (`about_collection`)."""
        return about_collection(self.text)

    @MadeOnRead
    def named_beyond_collection(self) -> tuple[str, ...]:
        """The entity keys it names beyond the collection once those words are taken out (`named_beyond_collection`):
        a question naming any asks about what it names, not about the whole collection."""
        return tuple(named_beyond_collection(self.text))

    @MadeOnRead
    def names_topic(self) -> bool:
        """It is a short phrase naming a topic rather than a question (`names_topic`)."""
        return names_topic(self.text)

    @MadeOnRead
    def entities(self) -> tuple[str, ...]:
        """The entity keys it names (`entity_keys`, as the entity graph keys its nodes): the graph route's seeds."""
        return tuple(entity_keys(self.text))


def read_question(text: str, tokens: Sequence[str]) -> QuestionFacts:
    """`text`'s reading, with `tokens` its analyzer tokens (`analysed_question` makes both)."""
    return QuestionFacts(text, tuple(tokens))


def analysed_question(text: str, analyzer: Analyzer) -> QuestionFacts:
    """`text` read with the collection's analyzer: its tokens are the keyword query's."""
    return read_question(text, analyzer(query_text(text)))
