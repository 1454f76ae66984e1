"""Why a hit is where it is, in words: what `bunko search --explain` prints and the HTTP search's `explanation`.

The text restates the fusion formula, so it lives beside fusion: when the
formula changes, the CLI and the API change with it and keep saying the same.
"""

from __future__ import annotations

from typing import TypedDict

from bunko.config import RetrieveConfig
from bunko.retrieve.fusion import BM25_SHARE
from bunko.schema import Hit


class Thresholds(TypedDict):
    max_distance: float | None
    min_score: float | None


def thresholds(config: RetrieveConfig) -> Thresholds:
    """The limits a hit had to pass, as reported beside the explanation."""
    return {"max_distance": config.max_distance, "min_score": config.min_score}


def explain_hit(hit: Hit, limits: Thresholds, filtered: bool) -> list[str]:
    """Each retriever's rank and score, and why the hit passed the filter and thresholds."""
    lines = [
        f"{name}: " + ", ".join(f"{key} {value:.4g}" for key, value in signal.items()) for name, signal in hit.signals.items()
    ]
    if "coverage" in hit.signals:
        coverage = hit.signals["coverage"]
        lines.append(f"holds {coverage['score']:.0%} of the query's idf-weighted terms; keyword evidence {coverage['evidence']:.3f} = "
                     f"that share + {BM25_SHARE:.2f} × relative BM25 {coverage['relative_bm25']:.3f}; "
                     "fused score = dense weight × cosine + keyword weight × evidence (weights: the route above)")
    if hit.distance is not None:
        limit = limits["max_distance"]
        verdict = "no limit" if limit is None else f"≤ max_distance {limit}"
        lines.append(f"dense distance (1 − cosine) {hit.distance:.4f}: {verdict}")
    else:
        lines.append("not among the dense candidates within max_distance; found by keyword search")
    if limits["min_score"] is not None:
        lines.append(f"fused score {hit.score:.4g} ≥ min_score {limits['min_score']}")
    if filtered:
        lines.append("matches the filter (source " + hit.chunk.source + ", section " + " > ".join(hit.chunk.section_path) + ")")
    return lines
