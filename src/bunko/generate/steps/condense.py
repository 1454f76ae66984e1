"""Step 1: the question as it will be searched, its language, and how a follow-up was made standalone."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bunko.generate.analysis import certain
from bunko.generate.conversation import Turn, condense
from bunko.generate.steps.state import AskState
from bunko.text.languages import query_language
from bunko.trace import CONDENSE_STAGE, Condensed

if TYPE_CHECKING:
    from bunko.generate.answerer import Answerer


def pose(
    answerer: Answerer, question: str, filters: Mapping[str, Any] | None, k: int, stream: bool, mode: str | None,
    history: Sequence[Turn] | None,
) -> AskState:
    """The ask's state: a follow-up is made standalone from `history` (unless it is a greeting or a sum, which
    searches nothing); the language is always the user's own words'."""
    state = AskState(question, question, filters, k, stream, mode, history)
    agent = answerer.config.agent
    direct = agent.analysis and agent.retrieve_or_not and certain(question) is not None
    condensed = None if direct else standalone(answerer, question, history)
    if condensed is not None:
        state.question, state.condensed = condensed.standalone, condensed
        state.stage_timings[CONDENSE_STAGE] = state.seconds()
    state.language = query_language(question)
    return state


def standalone(answerer: Answerer, question: str, history: Sequence[Turn] | None) -> Condensed | None:
    """The question to search for `question` asked after `history`; None when there is no history to read."""
    if not history:
        return None
    setting = answerer.config.answer.condense
    if setting == "off":
        return Condensed(question, question, "condensing is off", history_turns=len(history))
    condensed = condense(history, question, answerer.analyzer, answerer.chat_model if setting == "auto" else None)
    if condensed.usage is not None:
        condensed.usage = answerer.priced(condensed.usage)
    return condensed
