"""How citations look in an answer: the numbers, the ``[n]`` marks, the joins between sentences, the source list.

The engine streams an answer sentence by sentence, ACL redaction re-renders
what is left of one, the HTTP API and the CLI list the sources: all of them
must agree on which chunk is [1], or a reader follows a mark to the wrong
document. So the rules live here once. A chunk's number is its rank in order
of first citation; a sentence's marks follow it (after a space in English,
directly after 。 in Japanese and Chinese), and marks a document wrote into
its own sentence are dropped (`bunko.text.injection.neutralise`) so none but
these point anywhere; prose flows on as a paragraph
while table rows and list items, having no sentence stop, take a line each.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from bunko.schema import AnswerSentence, Citation
from bunko.text.injection import escape_control, neutralise
from bunko.text.lexicon import speaking

CLOSERS = tuple("。！？.!?」）)\"'")
"""Endings that make a sentence prose; anything else (a table row, a list item) is put on its own line."""

UNVERIFIED = ("unsupported", "uncited")
"""Verdicts of a sentence the citation check did not support: the standard policy shows such a sentence of a model's
answer, but never unmarked (`unverified_mark`; strict drops it)."""


class CitationNumbers:
    """Numbers cited chunks 1, 2, … in order of first citation; a chunk cited again keeps its number."""

    def __init__(self) -> None:
        self._numbers: dict[str, int] = {}

    def number(self, chunk_id: str) -> int:
        return self._numbers.setdefault(chunk_id, len(self._numbers) + 1)

    def marks(self, citations: Iterable[Citation]) -> str:
        return "".join(f"[{self.number(c.chunk_id)}]" for c in citations)


def numbered_citations(sentences: Iterable[AnswerSentence]) -> list[tuple[int, Citation]]:
    """Each cited chunk once, with its number, in number order (the first citation of it stands for it)."""
    numbers = CitationNumbers()
    listed: list[tuple[int, Citation]] = []
    for sentence in sentences:
        for citation in sentence.citations:
            number = numbers.number(citation.chunk_id)
            if number > len(listed):
                listed.append((number, citation))
    return listed


def unverified_mark(language: str) -> str:
    """What follows a sentence the citation check did not support, wherever it is shown."""
    return speaking(language).UNVERIFIED_MARK


def render_sentence(sentence: AnswerSentence, numbers: CitationNumbers, language: str, unverified: bool = False) -> str:
    """The sentence, its ``[n]`` marks, and with `unverified` the unverified mark (a model's sentence the citation check
    did not support)."""
    marks = numbers.marks(sentence.citations)
    if unverified:
        marks = f"{marks} {unverified_mark(language)}".strip() if language == "en" else marks + unverified_mark(language)
    text = neutralise(sentence.text).rstrip()
    return f"{text} {marks}" if language == "en" and marks else f"{text}{marks}"


def _is_prose(text: str) -> bool:
    text = text.rstrip()
    return text.endswith(CLOSERS) and "\n" not in text


def separator(previous: AnswerSentence | None, sentence: AnswerSentence, language: str) -> str:
    """What goes between two sentences: nothing before the first, a line break beside a row or item, else a space in English."""
    if previous is None:
        return ""
    if not (_is_prose(previous.text) and _is_prose(sentence.text)):
        return "\n"
    return " " if language == "en" else ""


def render_answer(sentences: Sequence[AnswerSentence], language: str, marked: bool = False) -> str:
    """The answer text of these sentences: exactly what the engine builds while streaming them. `marked`: a model's
    answer whose unverified sentences carry the mark."""
    numbers = CitationNumbers()
    parts: list[str] = []
    previous: AnswerSentence | None = None
    for sentence in sentences:
        unverified = marked and sentence.verdict in UNVERIFIED
        parts.append(separator(previous, sentence, language) + render_sentence(sentence, numbers, language, unverified))
        previous = sentence
    return "".join(parts)


def source_lines(sentences: Iterable[AnswerSentence]) -> list[str]:
    """``[n] label`` for each cited chunk, in number order, and the other copies of its page ("also at …") when the
    same page sits in several folders (`Citation.also_at`)."""
    return [
        f"[{number}] {escape_control(citation.label())}"
        + (f" (also at {escape_control(', '.join(citation.also_at))})" if citation.also_at else "")
        for number, citation in numbered_citations(sentences)
    ]


def sources_block(sentences: Iterable[AnswerSentence], language: str) -> str:
    """The heading and numbered list a chat client shows under the answer; empty when nothing is cited."""
    lines = source_lines(sentences)
    if not lines:
        return ""
    return f"{speaking(language).SOURCES_HEADING}:\n" + "\n".join(lines)
