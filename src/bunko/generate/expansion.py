"""A second search when the evidence is graded insufficient (CRAG's corrective step), with or without an LLM.

- Pseudo-relevance feedback (RM3's idea, no model): the terms that weigh most in the
  best passages — frequent there, rare in the collection — and that the question did not
  use are added to it. A question worded unlike its answer ("stop the machine" for a page
  on "shutdown") reaches the page through the words of its neighbours.
- HyDE: the LLM writes a short passage that would answer the question; the search runs with
  the question and that passage, so the embedding looks like an answer, not a question.

The result is judged against the original question, never the expanded one: added words
must not make thin evidence look sufficient.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from bunko.llm.base import ChatModel, Message
from bunko.schema import Hit
from bunko.text.analyzers import Analyzer

FEEDBACK_PASSAGES = 3
HYDE_TOKENS = 160
HYDE_PROMPT = (
    "Write a short passage (two or three sentences) that would answer the question below, in the question's language, "
    "as a technical document would state it. It is used only to search; do not say that you are guessing."
)


def feedback_terms(
    question_tokens: Sequence[str], hits: Sequence[Hit], analyzer: Analyzer, idf: Callable[[list[str]], dict[str, float]],
    count: int,
) -> list[str]:
    """The `count` terms of the best passages with the most weight (rank-discounted frequency × idf) that the
    question lacks; single characters and bare numbers carry no topic and are left out."""
    asked = set(question_tokens)
    weight: dict[str, float] = {}
    for rank, hit in enumerate(hits[:FEEDBACK_PASSAGES]):
        tokens = analyzer(hit.chunk.text)
        if not tokens:
            continue
        for term, n in Counter(tokens).items():
            weight[term] = weight.get(term, 0.0) + n / len(tokens) / (rank + 1)
    candidates = [t for t in weight if t not in asked and len(t) > 1 and not t.replace(".", "").isdigit()]
    rarity = idf(candidates)
    return sorted(candidates, key=lambda t: -weight[t] * rarity.get(t, 0.0))[:count]


def expanded(question: str, terms: Sequence[str]) -> str:
    return f"{question} {' '.join(terms)}" if terms else question


def hypothetical_passage(model: ChatModel, question: str) -> str:
    messages: list[Message] = [{"role": "system", "content": HYDE_PROMPT}, {"role": "user", "content": question}]
    return model.complete(messages, max_tokens=HYDE_TOKENS).strip()
