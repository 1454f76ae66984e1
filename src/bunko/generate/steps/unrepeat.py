"""Step 3b: a condensed follow-up whose answer would repeat the previous answer word for word is read again.

The rules make a follow-up standalone by carrying the previous question's words into it; when those words outweigh
the follow-up's own (a short contrast, an item asked about in the previous question's frame), the search finds the
previous evidence and the reader quotes the same sentences again: the user asked something new and gets the last
answer back. That is a failure to condense, and it shows before anything is written: the extractive reader's pick for
the condensed question is compared with the previous answer. When it is the same, word for word, and the previous
answer does not already hold most of the follow-up's own terms (an answer quoting a whole table row may have answered
the next question too), the follow-up is read again three ways: the same hits graded and read for the follow-up as
asked (the condensed search found the subject's passages; the follow-up's own words pick among them), a search
merged after the previous question, and a search of the follow-up as asked. Of those whose grade is sufficient,
whose hits still hold the first search's document (a follow-up asks about the conversation's subject; a search that
lost it found another subject, not a better reading) and whose quotes are new, the one whose first hit is that
document is kept, then the one quoting most of the follow-up's own terms (those the previous question did not have),
then the earlier in that order. The trace's ``condensed`` says what was read and why; when none does better, the
first search stands. A chat model's answer is not previewed (that would cost a call): the check applies to the
extractive reader, whose repeats are deterministic.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from bunko.generate.citations import without_markers
from bunko.generate.steps.analyse import analyse
from bunko.generate.steps.retrieve import retrieve
from bunko.generate.steps.state import AskState, Gathered
from bunko.generate.steps.summary import summarise
from bunko.text.lazy_regex import lazy_compile
from bunko.text.units import readable_row

if TYPE_CHECKING:
    from bunko.generate.answerer import Answerer

REPEATED = "the answer repeated the previous one"
SUBJECT_HITS = 5
"""A search again must keep the first search's first document among this many hits: the conversation's subject."""
_NOT_WORD = lazy_compile(r"[\W_]+")


def previous_answer(state: AskState) -> str | None:
    """The assistant's last answer in the conversation, None when it has none."""
    for turn in reversed(state.history or []):
        if turn.role == "assistant" and turn.text.strip():
            return turn.text
    return None


def repeats(sentences: list[str], previous: str) -> bool:
    """Whether the sentences are `previous` word for word (citation markers, spaces and punctuation aside, which the
    rendering adds): the same answer again. An answer that quotes part of the previous one and nothing else is not a
    repeat: a follow-up may ask for one of the things an answer listed."""
    said = _NOT_WORD.sub("", without_markers(previous))
    return bool(sentences) and _NOT_WORD.sub("", "".join(without_markers(s) for s in sentences)) == said


def _read(answerer: Answerer, state: AskState, gathered: Gathered) -> list[str]:
    """What the extractive reader would quote, as the answer shows it (a table row made readable)."""
    evidence = gathered.evidence
    if not evidence.hits:
        return []
    return [readable_row(s.text, state.language) for s in answerer.extractive.answer(answerer.read(state.question), evidence.hits, evidence.scored)]


def unrepeated(answerer: Answerer, state: AskState, gathered: Gathered) -> tuple[AskState, Gathered]:
    """`state` and its evidence, or the follow-up read again (the same hits for its own words, or a search merged with
    the previous question, or as asked) when the condensed one would repeat the previous answer (see the module)."""
    condensed, previous = state.condensed, previous_answer(state)
    if (condensed is None or not condensed.changed or previous is None or gathered.summary is not None
            or answerer.generator_name != "extractive" or not repeats(_read(answerer, state, gathered), previous)):
        return state, gathered
    earlier = condensed.previous or next((t.text for t in reversed(state.history or []) if t.role == "user"), "")
    own = set(answerer.analyzer(state.asked)) - set(answerer.analyzer(earlier))
    if len(own & set(answerer.analyzer(previous))) * 2 > len(own):
        condensed.reason = f"{condensed.reason}; {REPEATED}, which already holds most of the follow-up's terms"
        return state, gathered
    first_source = gathered.evidence.hits[0].chunk.source if gathered.evidence.hits else None
    best: tuple[tuple[bool, int], AskState, Gathered] | None = None
    ways = (("read as asked over the same hits", state.asked, True),
            ("merged with the previous question", f"{earlier} {state.asked}", False), ("searched as asked", state.asked, False))
    for how, question, same_hits in ways:
        retried = replace(condensed, standalone=question, reason=f"{condensed.reason}; {REPEATED}: {how}")
        alternative = replace(state, question=question, condensed=retried, steps=list(state.steps),
                              stage_timings=dict(state.stage_timings))
        if same_hits:  # the condensed search found the subject's passages; the follow-up's own words pick among them
            first = gathered.evidence
            again = answerer.judged_against(question, first, first.hits, state.filters, state.k,
                                            (first.grade.key_terms, first.grade.missing_key_terms))
            found = Gathered(again, again)
        else:  # a search reads the question's analysis (its parts); re-judging the same hits does not
            alternative = analyse(answerer, alternative)
            found = summarise(answerer, alternative, retrieve(answerer, alternative))
        grade = found.evidence.grade
        if not grade.sufficient or grade.reason is not None:
            continue
        if first_source not in [h.chunk.source for h in found.evidence.hits[:SUBJECT_HITS]]:
            continue  # it left the conversation's document: another subject, not a better reading of this one
        sentences = _read(answerer, alternative, found)
        if not sentences or repeats(sentences, previous):
            continue
        quoted = set(answerer.analyzer(" ".join(sentences)))
        # the search whose first hit is the conversation's document, then the one quoting most of the follow-up's terms
        score = (found.evidence.hits[0].chunk.source == first_source, len(own & quoted))
        if best is None or score > best[0]:
            best = (score, alternative, found)
    if best is None:
        condensed.reason = f"{condensed.reason}; {REPEATED}, and no other search found new sentences"
        return state, gathered
    return best[1], best[2]
