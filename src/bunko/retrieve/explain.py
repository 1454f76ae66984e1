"""Why a hit is where it is, in words: what `bunko search --explain` prints and the HTTP search's `explanation`.

The route that found the hit reads its own signals (`Retriever.explain`: the hybrid route
restates its fusion formula); the limits every route shares are read here. The CLI and the
API both call `Bunko.explain`, so they keep saying the same.
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
