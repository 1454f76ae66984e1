"""Sentence splitting that knows 。！？ as well as . ! ? — used by chunkers and answers.

English needs care that CJK does not: "e.g." or "v2.3" must not end a
sentence, so a Latin stop ends a sentence only when whitespace and an
uppercase letter, digit, quote or CJK character follow. CJK stops always end one.
"""

from __future__ import annotations

from bunko.text.lazy_regex import lazy_compile
from bunko.text.scripts import JA_ZH

_SENTENCE_END = lazy_compile(
    r"(?<=[。！？])[」』）\)\"']*"  # CJK stop, with any closing brackets
    r"|(?<=[.!?])[\"')\]]*(?=\s+[\"'(\[A-Z0-9" + JA_ZH + r"])"  # Latin stop before a new sentence
    r"|\n{2,}"
    r"|\n(?=\s*(?:[-*+•・]|\d+[.)、])\s)"  # list items
)


_ENDS_SENTENCE = lazy_compile(r"[.!?。！？][\"'”’」』）)\]]*\s*$")
"""A sentence's last stop, with any closing quotes or brackets after it."""


def ends_sentence(text: str) -> bool:
    """Whether `text` ends as a sentence does: a caption, a heading, a link or a lead-in ending in a colon does not."""
    return _ENDS_SENTENCE.search(text) is not None


_ENUMERATOR = lazy_compile(r"\s*(?:\d{1,3}|[A-Za-z])[.)]")
"""A line that so far holds only a list item's number ("1.", "a)"): its stop numbers the step, it ends no sentence."""


def _numbers_a_step(text: str, end: int) -> bool:
    return bool(_ENUMERATOR.fullmatch(text, text.rfind("\n", 0, end) + 1, end))


_SECTION_NUMBER = lazy_compile(r"(?<![\w.])\d+(?:\.\d+)+\.$")
_TITLE_QUOTE = lazy_compile(r"\s*[\"“'「『]")


def _numbers_a_reference(text: str, end: int) -> bool:
    """Whether the stop ends a section number before its quoted title ("the Developer's Reference, 5.8. "Handling
    bugs""): a cross-reference as DocBook prints it, one sentence with what refers to it."""
    return bool(_SECTION_NUMBER.search(text, max(0, end - 24), end)) and bool(_TITLE_QUOTE.match(text, end))


def split_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of each sentence, whitespace trimmed — for quoting exact passages. A numbered step
    ("1. You log in to the remote machine.") is one sentence with its number, not "1." and the step; so is a
    cross-reference with its section number and title."""
    spans: list[tuple[int, int]] = []
    start = 0
    boundaries = [
        m.end() for m in _SENTENCE_END.finditer(text) if not _numbers_a_step(text, m.end()) and not _numbers_a_reference(text, m.end())
    ] + [len(text)]
    for end in boundaries:
        segment = text[start:end]
        left = len(segment) - len(segment.lstrip())
        right = len(segment.rstrip())
        if right > left:
            spans.append((start + left, start + right))
        start = end
    return spans


def split_sentences(text: str) -> list[str]:
    return [text[start:end] for start, end in split_spans(text)]
