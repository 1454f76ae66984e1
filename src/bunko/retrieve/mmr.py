"""Maximal marginal relevance (Carbonell & Goldstein 1998): relevant *and* different.

Picks, one at a time, the candidate maximising
λ · relevance − (1 − λ) · max cosine similarity to the ones already picked,
so five near-copies of one paragraph (a policy repeated in three manuals) do not
crowd out the second piece of evidence an answer needs. λ = 1 is plain ranking.
"""

from __future__ import annotations

import numpy as np


def mmr_order(relevance: np.ndarray, vectors: np.ndarray, k: int, lambda_: float) -> list[int]:
    """Indices of the chosen candidates, in pick order; relevance is rescaled to [0, 1] first."""
    n = len(relevance)
    if n == 0:
        return []
    span = float(relevance.max() - relevance.min())
    rel = (relevance - relevance.min()) / span if span > 0 else np.ones(n)
    similarity = vectors @ vectors.T
    chosen: list[int] = []
    redundancy = np.full(n, -np.inf)
    available = np.ones(n, dtype=bool)
    for _ in range(min(k, n)):
        penalty = np.where(np.isfinite(redundancy), redundancy, 0.0)
        scores = np.where(available, lambda_ * rel - (1.0 - lambda_) * penalty, -np.inf)
        pick = int(np.argmax(scores))
        chosen.append(pick)
        available[pick] = False
        redundancy = np.maximum(redundancy, similarity[pick])
    return chosen
