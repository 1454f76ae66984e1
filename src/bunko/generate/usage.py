"""Token counts of a model call, as the trace records them."""

from __future__ import annotations

from collections.abc import Sequence

from bunko.llm.base import ChatModel, Message, estimate_tokens, reported_usage
from bunko.trace import Usage


def token_usage(model: ChatModel, messages: Sequence[Message], output: str) -> Usage:
    """The model's own token counts when it reported them, else a (high) estimate, marked as such."""
    reported = reported_usage(model)
    if reported is not None:
        return reported
    return Usage(sum(estimate_tokens(str(m.get("content", ""))) for m in messages), estimate_tokens(output), estimated=True)
