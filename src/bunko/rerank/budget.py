"""The context budget: how much evidence goes into a prompt, so it never overflows the model's window.

Hits are taken best first while they fit, in characters (``[answer]
context_chars``) and, for an LLM, in tokens (its window minus the answer's
``max_tokens`` and the prompt's own text). A first hit larger than the whole
budget is cut at a sentence boundary rather than dropped: the best evidence,
shortened, beats none.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from bunko.schema import Hit
from bunko.text.sentences import split_spans


def _truncate(text: str, fits: Callable[[str], bool]) -> str:
    spans = split_spans(text)
    cut = ""
    for _, end in spans:
        if not fits(text[:end]):
            break
        cut = text[:end]
    if cut:
        return cut
    low, high = 0, len(text)  # one sentence too long: the longest prefix that fits
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if fits(text[:middle]) else (low, middle - 1)
    return text[:low]


def fit_budget(
    hits: list[Hit], max_chars: int, max_tokens: int | None = None, count_tokens: Callable[[str], int] | None = None,
) -> list[Hit]:
    """Hits, best first, that fit both budgets; the first is truncated (``meta["truncated"]``) if it alone does not."""
    def cost(text: str) -> tuple[int, int]:
        return len(text), (count_tokens(text) if count_tokens and max_tokens is not None else 0)

    used_chars = used_tokens = 0
    kept: list[Hit] = []
    for hit in hits:
        chars, tokens = cost(hit.chunk.text)
        if used_chars + chars <= max_chars and (max_tokens is None or used_tokens + tokens <= max_tokens):
            kept.append(hit)
            used_chars += chars
            used_tokens += tokens
            continue
        if kept:
            continue  # a smaller, lower-ranked hit may still fit
        text = _truncate(hit.chunk.text, lambda t: _within(cost(t), (max_chars, max_tokens)))
        if text:
            chunk = replace(hit.chunk, text=text, meta={**hit.chunk.meta, "truncated": True})
            kept.append(replace(hit, chunk=chunk))
            used_chars, used_tokens = cost(text)
    return kept


def _within(cost: tuple[int, int], limits: tuple[int, int | None]) -> bool:
    return cost[0] <= limits[0] and (limits[1] is None or cost[1] <= limits[1])
