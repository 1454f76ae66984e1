"""Near-identical chunks, dropped before they crowd the context.

The same paragraph often lives in two documents (a policy and its FAQ, v1 and
v2 of a manual). Two copies in the top k waste half the prompt and make the
answer cite the same fact twice; the better-ranked copy is kept.
"""

from __future__ import annotations

from bunko.schema import Hit
from bunko.text.analyzers import Analyzer


def jaccard(a: set[str], b: set[str]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def dedup_hits(hits: list[Hit], analyzer: Analyzer, threshold: float = 0.9) -> tuple[list[Hit], list[str]]:
    """(kept hits in order, chunk ids of the dropped duplicates). Token-set Jaccard ≥ threshold is a duplicate."""
    kept: list[Hit] = []
    kept_tokens: list[set[str]] = []
    dropped: list[str] = []
    for hit in hits:
        tokens = set(analyzer(hit.chunk.text))
        if any(jaccard(tokens, other) >= threshold for other in kept_tokens):
            dropped.append(hit.chunk.chunk_id)
            continue
        kept.append(hit)
        kept_tokens.append(tokens)
    return kept, dropped
