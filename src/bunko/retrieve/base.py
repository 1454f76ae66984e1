"""The one interface every retrieval route implements: dense, keyword, hybrid today; graph and tree next.

A retriever ranks chunk ids; it does not fetch chunk text, expand parents or group
hits. `Searcher` does that once for every route, fetching only the rows the top k
needs, so a new route is one class with a `retrieve` and an `explain` and is picked
by its name (`bunko search --mode NAME`, `[retrieve] mode`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from bunko.config import RetrieveConfig
from bunko.retrieve.fusion import Fused
from bunko.retrieve.question import QuestionFacts
from bunko.retrieve.router import Route
from bunko.schema import Signals
from bunko.store.search_backend import SearchBackend


@dataclass
class Query:
    """A question as every retriever sees it, analysed once: its reading (`QuestionFacts`), its keyword tokens, its
    vector (None when no retriever of the route needs one), the filter applied before top-k, and the language to
    prefer."""

    facts: QuestionFacts
    tokens: list[str]
    vector: np.ndarray | None
    where: Mapping[str, Any] | None
    route: Route
    language: str | None = None
    timings: dict[str, float] = field(default_factory=dict)
    """Seconds per retrieval step, written by the retrievers as they run (the trace's timings)."""
    term_weights: dict[str, float] | None = None
    """The tokens' idf in this collection, once a retriever has read it: the answer's grade reuses it."""
    unseen_idf: float | None = None
    """The idf of a term no passage holds, read with `term_weights` (`read_term_weights`)."""
    group_by: str = "chunk"
    """What the hits will be grouped into ("chunk", "section", "document"): hybrid ranks documents by their own
    evidence when the caller asked for documents."""

    @property
    def text(self) -> str:
        return self.facts.text


UNSEEN_PROBE = " "
"""A token no analyzer makes (analyzers split on whitespace; PostgreSQL text holds no NUL): the store's idf of it is
the idf of a term no passage holds."""


def read_term_weights(store: SearchBackend, tokens: Sequence[str]) -> tuple[dict[str, float], float]:
    """The tokens' idf and the idf of a term no passage holds, in one read of the store: the grade tells the
    question's words the collection never writes by it (`generate/retrieval_grade.junction_pairs`)."""
    weights = store.term_weights([*tokens, UNSEEN_PROBE])
    return weights, weights.pop(UNSEEN_PROBE)


class Retriever(Protocol):
    name: str
    needs_vector: bool
    """Whether `retrieve` reads `query.vector`: the searcher embeds the question only for routes that do."""

    def retrieve(self, query: Query, k: int) -> Sequence[Fused]:
        """The best `k` or more candidates, best first, each with the signals that ranked it (a list, or a sequence
        that makes each entry as it is read: `fusion.OneList`)."""
        ...

    def explain(self, signals: Signals) -> list[str]:
        """What this route's signals of one hit mean, one line each, for `--explain`."""
        ...


def signal_lines(signals: Signals) -> list[str]:
    """Each signal as `name: key value, …`: the raw record every route's explanation starts from."""
    return [
        f"{name}: " + ", ".join(f"{key} {value:.4g}" for key, value in signal.items())
        for name, signal in signals.to_dict().items()
        if name != "path"  # the graph route words its own path
    ]


RetrieverFactory = Callable[[Any, RetrieveConfig], Retriever]
"""How the engine is given a route: it builds the retriever over its own store (the whole `Store`: a route of the
caller's may read what it likes; the built-in ones read its `SearchBackend`) and retrieve config."""
