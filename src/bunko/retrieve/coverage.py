"""How much of a question a text holds: the idf-weighted share of the question's distinct terms.

One measure, used where retrieval fuses (coverage fusion), where the reranker scores
sentences, and where the grader decides whether the evidence suffices.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np


def keyword_coverage(query_tokens: Iterable[str], text_tokens: set[str], weights: Mapping[str, float] | None = None) -> float:
    """Share of the question's terms found in the text, each weighted by its idf (1 where no weights are given).

    Weighting matters: "What is the … of Aozora Sync?" shares its common words
    with every document; only the rare terms say whether this text is about it.
    """
    distinct = list(dict.fromkeys(query_tokens))  # summed in the question's order: the same sum in every process
    if not distinct:
        return 0.0
    weight = (lambda t: weights.get(t, 1.0)) if weights else (lambda t: 1.0)
    total = sum(weight(t) for t in distinct)
    return sum(weight(t) for t in distinct if t in text_tokens) / total if total else 0.0


def term_coverage(matched: Mapping[str, set[str]], idf: Mapping[str, float]) -> dict[str, float]:
    """`keyword_coverage` of many chunks at once, from the query terms each holds, in [0, 1].

    `idf` holds every distinct query term (a term the corpus lacks still counts
    against coverage: nothing can match it); `matched` the terms each chunk holds.
    """
    total = sum(idf.values())
    if not total:
        return {chunk_id: 0.0 for chunk_id in matched}
    # keyword_coverage(idf, terms, idf) for each chunk, with the query's total weight summed once (100+ candidates a query)
    # summed in the question's order (idf's), not the set's: the same sum in every process
    return {chunk_id: sum(weight for term, weight in idf.items() if term in terms) / total for chunk_id, terms in matched.items()}


def matrix_coverage(chunk_ids: Sequence[str], terms: Sequence[str], held: np.ndarray, idf: Mapping[str, float]) -> dict[str, float]:
    """`term_coverage` from a boolean matrix (held[chunk, term], as the local store's index gives it): one
    product instead of a set and a sum per chunk. Equal to `term_coverage` up to the order of the sum (1e-15)."""
    total = sum(idf.values())
    if not total or not len(chunk_ids):
        return {chunk_id: 0.0 for chunk_id in chunk_ids}
    weights = np.array([idf.get(term, 0.0) for term in terms], dtype=np.float64)
    shares = (held @ weights if len(terms) else np.zeros(len(chunk_ids))) / total
    return dict(zip(chunk_ids, shares.tolist(), strict=True))
