"""Combining ranked lists from several retrievers without hiding where a hit came from.

Reciprocal rank fusion (Cormack et al. 2009): score(d) = Σ_r w_r / (k + rank_r(d)),
ranks starting at 1; a chunk found by several retrievers is counted once with
every contribution summed. Each fused entry keeps every retriever's rank and
raw score in `signals`, so `--explain` can show why it ranked where it did.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

Ranked = Sequence[tuple[str, float]]


def reciprocal_rank_fusion(
    ranked: Mapping[str, Ranked], weights: Mapping[str, float] | None = None, k: int = 60
) -> list[tuple[str, float, dict[str, dict[str, float]]]]:
    fused: dict[str, float] = {}
    signals: dict[str, dict[str, dict[str, float]]] = {}
    for retriever, hits in ranked.items():
        weight = 1.0 if weights is None else weights.get(retriever, 1.0)
        seen: set[str] = set()
        for rank, (chunk_id, score) in enumerate(hits, start=1):
            if chunk_id in seen:
                continue
            seen.add(chunk_id)
            fused[chunk_id] = fused.get(chunk_id, 0.0) + weight / (k + rank)
            signals.setdefault(chunk_id, {})[retriever] = {"rank": float(rank), "score": float(score)}
    order = sorted(fused, key=lambda cid: (-fused[cid], cid))
    return [(cid, fused[cid], signals[cid]) for cid in order]


def _normalise(scores: list[float], method: str) -> list[float]:
    if not scores:
        return []
    high, low = max(scores), min(scores)
    if method == "max":
        return [s / high if high > 0 else 0.0 for s in scores]
    if high == low:
        return [1.0 for _ in scores]
    return [(s - low) / (high - low) for s in scores]


def weighted_score_fusion(
    ranked: Mapping[str, Ranked], weights: Mapping[str, float] | None = None, normalization: str = "minmax"
) -> list[tuple[str, float, dict[str, dict[str, float]]]]:
    """Σ_r w_r · norm_r(score), each retriever's scores normalised over its own list.

    BM25 scores are unbounded and cosine similarities are not, so raw scores
    cannot be added; "max" divides by the list's best score, "minmax" maps the
    list onto [0, 1] (as Neo4j's hybrid query does). A chunk missing from one
    list gets 0 from it.
    """
    if normalization not in ("max", "minmax"):
        raise ValueError(f"unknown score normalization {normalization!r}; use max or minmax")
    fused: dict[str, float] = {}
    signals: dict[str, dict[str, dict[str, float]]] = {}
    for retriever, hits in ranked.items():
        weight = 1.0 if weights is None else weights.get(retriever, 1.0)
        unique: dict[str, float] = {}
        for chunk_id, score in hits:
            unique.setdefault(chunk_id, score)
        for rank, ((chunk_id, score), norm) in enumerate(zip(unique.items(), _normalise(list(unique.values()), normalization), strict=True), start=1):
            fused[chunk_id] = fused.get(chunk_id, 0.0) + weight * norm
            signals.setdefault(chunk_id, {})[retriever] = {"rank": float(rank), "score": float(score), "normalized": norm}
    order = sorted(fused, key=lambda cid: (-fused[cid], cid))
    return [(cid, fused[cid], signals[cid]) for cid in order]
