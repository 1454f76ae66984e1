"""How big a chunk may be: characters always, the embedder's tokens optionally, and its hard input limit.

A chunk longer than its embedder reads is embedded from its first part only,
and nothing says so: retrieval then misses whatever the tail said. Chunkers
size in characters (``max_chars``), and also in the embedder's own tokens when
``max_tokens`` is set; `mark_truncated` checks every chunk against what the
embedder really reads and flags the ones it would cut.

Embedders describe their limit with optional attributes (none is required):
``max_input_chars`` (USE clips its input there), ``max_input_tokens`` with
``count_tokens(text)`` (models with a fixed sequence length).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bunko.config import ChunkConfig
from bunko.embed.base import Embedder
from bunko.schema import Chunk

log = logging.getLogger("bunko.chunk")

TokenCounter = Callable[[str], int]


@dataclass(frozen=True)
class Sizer:
    """A size budget: at most ``max_chars`` characters and, with a counter, ``max_tokens`` tokens."""

    max_chars: int
    max_tokens: int | None = None
    count_tokens: TokenCounter | None = None

    def fits(self, text: str) -> bool:
        if len(text) > self.max_chars:
            return False
        if self.max_tokens is None or self.count_tokens is None:
            return True
        return self.count_tokens(text) <= self.max_tokens

    def prefix_end(self, text: str, start: int = 0) -> int:
        """The largest end such that text[start:end] fits (at least start + 1: progress is guaranteed)."""
        end = min(len(text), start + self.max_chars)
        if self.fits(text[start:end]):
            return end
        low, high = start + 1, end  # text[start:low] is assumed to fit; text[start:high] does not
        while high - low > 1:
            middle = (low + high) // 2
            if self.fits(text[start:middle]):
                low = middle
            else:
                high = middle
        return low

    def with_chars(self, max_chars: int) -> Sizer:
        return Sizer(max_chars, self.max_tokens, self.count_tokens)


def token_counter(embedder: Embedder | None) -> TokenCounter | None:
    counter = getattr(embedder, "count_tokens", None)
    return counter if callable(counter) else None


def sizer_for(config: ChunkConfig, embedder: Embedder | None = None, max_chars: int | None = None) -> Sizer:
    """The budget a strategy packs to; ``max_tokens`` needs an embedder that can count its tokens."""
    chars = max_chars or config.max_chars
    if config.max_tokens is None:
        return Sizer(chars)
    counter = token_counter(embedder)
    if counter is None:
        name = getattr(embedder, "name", None) if embedder is not None else None
        raise ValueError(
            f"[chunk] max_tokens is set but the embedder {name or '(none given)'} cannot count tokens; "
            "remove max_tokens or use an embedder with count_tokens"
        )
    return Sizer(chars, config.max_tokens, counter)


def input_limit(embedder: Embedder | None) -> Sizer | None:
    """What the embedder reads whole, or None when it reads anything (windows, no clipping)."""
    if embedder is None:
        return None
    chars = getattr(embedder, "max_input_chars", None)
    tokens = getattr(embedder, "max_input_tokens", None)
    counter = token_counter(embedder)
    if tokens is not None and counter is None:
        tokens = None
    if chars is None and tokens is None:
        return None
    return Sizer(int(chars) if chars is not None else 1 << 62, tokens, counter)


def mark_truncated(chunks: Sequence[Chunk], embedder: Embedder | None, source: str = "") -> int:
    """Flag (meta["truncated"]) and count the searchable chunks the embedder would cut, with a warning."""
    limit = input_limit(embedder)
    if limit is None:
        return 0
    cut = [c for c in chunks if c.searchable and not limit.fits(c.embed_text)]
    for chunk in cut:
        chunk.meta["truncated"] = True
    if cut:
        log.warning(
            "%s: %d chunk(s) longer than the embedder %s reads; their tails are not embedded (%s)",
            source or cut[0].source, len(cut), getattr(embedder, "name", "?"), ", ".join(c.chunk_id for c in cut[:5]),
        )
    return len(cut)
