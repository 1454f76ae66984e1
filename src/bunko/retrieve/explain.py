"""Why a hit is where it is, in words: what `bunko search --explain` prints and the HTTP search's `explanation`.

Two depths. `why` is one line per hit, for `--explain`: the lists that found it with its rank in each, the share
of the query's terms it holds, where fusion (and a reranker) put it, and any language or translation adjustment.
`explain_hit` is the full breakdown, for `--explain full` and the API: the route that found the hit reads its own
signals (`Retriever.explain`: the hybrid route restates its fusion formula), and the limits every route shares are
read here. The CLI and the API both call `Bunko.explain`, so they keep saying the same.
"""

from __future__ import annotations

from typing import TypedDict

from bunko.config import RetrieveConfig
from bunko.schema import RANKED_LISTS, Hit


class Thresholds(TypedDict):
    max_distance: float | None
    min_score: float | None


def thresholds(config: RetrieveConfig) -> Thresholds:
    """The limits a hit had to pass, as reported beside the explanation."""
    return {"max_distance": config.max_distance, "min_score": config.min_score}


def why(hit: Hit) -> str:
    """One line: why the hit ranked where it did ("keyword #1, dense #2 · holds 100% of the query's terms · fused #1")."""
    signals = hit.signals
    found = [
        f"{name} #{signal.rank:.0f}" for name in (*RANKED_LISTS, *signals.routes)
        if (signal := signals.list_signal(name)) is not None
    ]
    found.sort(key=lambda text: float(text.rsplit("#", 1)[1]))
    parts = [", ".join(found) if found else "found by its route"]
    if hit.distance is None and signals.dense is None and signals.similarity is not None:
        parts.append(f"cosine {signals.similarity:.3f}, not a dense candidate")
    if signals.coverage is not None:
        parts.append(f"holds {signals.coverage.score:.0%} of the query's terms")
    if signals.path is not None and signals.path.via:
        parts.append("via " + ", ".join(key for key, _ in signals.path.via[:3]))
    if signals.language is not None:
        parts.append("in the preferred language" if signals.language else "not in the preferred language")
    if signals.translation:
        parts.append("a translation, ranked below its original")
    placed = [f"fused #{signals.fusion.rank:.0f}"] if signals.fusion is not None else []
    if signals.rerank is not None:
        placed.append(f"reranked #{signals.rerank.rank:.0f}")
    if signals.mmr_rank is not None:
        placed.append(f"diversified #{signals.mmr_rank:.0f}")
    if placed:
        parts.append(" → ".join(placed))
    return " · ".join(parts)


def explain_hit(hit: Hit, route_lines: list[str], limits: Thresholds, filtered: bool) -> list[str]:
    """The route's reading of the hit's signals (`route_lines`), then why the hit passed the filter and thresholds."""
    lines = list(route_lines)
    if hit.distance is not None:
        limit = limits["max_distance"]
        verdict = "no limit" if limit is None else f"≤ max_distance {limit}"
        lines.append(f"dense distance (1 − cosine) {hit.distance:.4f}: {verdict}")
    else:
        found_by = [name for name in (*RANKED_LISTS, *hit.signals.routes) if hit.signals.list_signal(name) is not None]
        lines.append("not among the dense candidates within max_distance; found by " + (", ".join(found_by) or "its route"))
    if limits["min_score"] is not None:
        lines.append(f"fused score {hit.score:.4g} ≥ min_score {limits['min_score']}")
    if filtered:
        lines.append("matches the filter (source " + hit.chunk.source + ", section " + " > ".join(hit.chunk.section_path) + ")")
    return lines
