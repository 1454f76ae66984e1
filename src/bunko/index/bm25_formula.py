"""BM25 as Lucene scores it, each part a named formula, written once for every place that scores or weighs terms.

Laid out as bm25s's scoring module is (an idf function, a term-frequency function, the
constants beside them): the local index applies these to numpy arrays, the PostgreSQL
store runs the SQL `sql_term_score` writes from the same constants, and coverage fusion
and the answer's confidence weigh terms by the same idf. Were one of them to keep its own
copy, the stores would rank the same corpus differently.

Lucene's variant (bm25s ``method="lucene"``): idf = ln(1 + (N − df + 0.5) / (df + 0.5)),
positive for every df, and the term-frequency part tf / (tf + k1·(1 − b + b·dl/avgdl))
without the constant factor (k1 + 1), which Lucene ≥ 8 drops since it changes no ranking.
Each distinct query term counts once.
"""

from __future__ import annotations

import math
from typing import TypeVar

import numpy as np

K1 = 1.5
"""Term-frequency saturation: Lucene's default."""
B = 0.75
"""Length normalisation: Lucene's default."""

Number = TypeVar("Number", float, np.ndarray)


def idf(df: Number, n: float) -> Number:
    """Inverse document frequency of a term in `df` of `n` documents (a term no document holds has df = 0)."""
    return np.log(1.0 + (n - df + 0.5) / (df + 0.5))


def share_idf(share: float) -> float:
    """The idf of a term held by `share` of the documents in a large collection (the limit of idf(share·n, n)).

    A threshold on this is the same in every collection, where a threshold on df would not be.
    """
    return math.log(1.0 + (1.0 - share) / share)


def length_norm(doc_len: Number, avg_len: float, k1: float = K1, b: float = B) -> Number:
    """k1·(1 − b + b·dl/avgdl): how many occurrences it takes a document of this length to reach half the score."""
    return k1 * (1.0 - b + b * doc_len / avg_len)


def tf_component(tf: Number, norm: Number, out: np.ndarray | None = None) -> Number:
    """tf / (tf + norm), with `norm` from `length_norm`.

    With `out` (it may be `norm` itself) the result is computed in place: the local index
    applies this to every posting, and a second posting-sized temporary costs GBs at a million chunks.
    """
    if out is None:
        return tf / (tf + norm)
    np.add(tf, norm, out=out)
    return np.divide(tf, out, out=out)


def term_score(tf: Number, df: Number, n: float, doc_len: Number, avg_len: float, k1: float = K1, b: float = B) -> Number:
    """One term's BM25 score in one document; a document's score is the sum over the distinct query terms it holds."""
    return idf(df, n) * tf_component(tf, length_norm(doc_len, avg_len, k1, b))


def sql_term_score(*, tf: str, df: str, n: str, doc_len: str, avg_len: str, k1: float = K1, b: float = B) -> str:
    """`term_score` as a SQL expression over the given column expressions (PostgreSQL's ``ln``)."""
    return (
        f"ln(1.0 + ({n} - {df} + 0.5) / ({df} + 0.5))"
        f" * {tf} / ({tf} + {k1!r} * (1.0 - {b!r} + {b!r} * {doc_len} / {avg_len}))"
    )
