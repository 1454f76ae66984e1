"""Step 4b: an overview asked of a named section or of the whole collection is answered by its most central
sentences, not by the one sentence closest to the question's words.

"What is chapter 8 about?", 第3章の概要, 主要内容是什么: the tree route finds the section the question names, the
graph route's global mode the collection's topics; what either found holds no sentence like the question. The
answer is extractive and cited: the prose sentences of that evidence nearest its centroid (the mean of their
vectors), at most one from each passage while others remain, in the order the evidence ranks them. Table rows,
code lines and short fragments are never a summary sentence. Whether to answer is decided as for every answer: the
confidence model's probability, here of those sentences as evidence for the subject the question names (the
section's title, or for the whole collection the topics' own words).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from bunko.generate.extractive import citation_for
from bunko.generate.steps.state import AskState, Gathered
from bunko.rerank.evidence import hit_units
from bunko.retrieve.tree import NAMED
from bunko.schema import AnswerSentence, Hit
from bunko.text.languages import text_language
from bunko.text.units import PROSE, Unit

if TYPE_CHECKING:
    from bunko.generate.answerer import Answerer

SUMMARY_SENTENCES = 3
"""Sentences in a summary answer."""
MIN_SUMMARY_CHARS = {"en": 30, "ja": 12, "zh": 12}
"""A shorter prose unit (a label, a caption, "See below.", 见下表。) does not summarise anything; a Japanese or
Chinese character carries about what an English word does."""
MAX_SUMMARY_UNITS = 120
OVERVIEW_RETRIEVERS = ("tree", "graph-global")


def summarise(answerer: Answerer, state: AskState, gathered: Gathered) -> Gathered:
    """`gathered` with its summary sentences (and the evidence they are graded as) when the question asks for an
    overview of what the tree or the global graph route found; unchanged otherwise."""
    evidence = gathered.evidence
    route = evidence.result.route
    if route is None or route.retriever not in OVERVIEW_RETRIEVERS or not answerer.read(state.question).overview:
        return gathered
    hits = overview_hits(evidence.hits, route.retriever)
    units = [u for u in hit_units(hits, MAX_SUMMARY_UNITS, answerer.split) if u.kind == PROSE and summarises(u.text)]
    if not units:
        return gathered
    vectors = answerer.embedder.embed([u.text for u in units])
    chosen = central_units(units, vectors, SUMMARY_SENTENCES)
    subject = overview_subject(hits)
    cited = sorted({u.hit_index for u in chosen})
    graded = answerer.judged_against(subject, evidence, [hits[i] for i in cited], state.filters, state.k, ([], []))
    gathered.summary = [AnswerSentence(text=u.text, citations=[citation_for(hits[u.hit_index], u.text)]) for u in chosen]
    gathered.evidence = graded
    gathered.first = graded if gathered.first is evidence else gathered.first
    return gathered


def summarises(text: str) -> bool:
    """Whether a prose unit is long enough to say something about its section."""
    return len(text) >= MIN_SUMMARY_CHARS[text_language(text)]


def overview_hits(hits: list[Hit], retriever: str | None) -> list[Hit]:
    """The passages an overview is drawn from: those inside the named section when the tree route found one."""
    if retriever == "tree":
        named = [h for h in hits if h.signals.list_signal(NAMED) is not None]
        return named or hits
    return hits


def central_units(units: list[Unit], vectors: np.ndarray, count: int) -> list[Unit]:
    """The `count` units nearest the centroid of all of them, one per passage while other passages remain."""
    centroid = vectors.mean(axis=0)
    norm = float(np.linalg.norm(centroid)) or 1.0
    centrality = vectors @ (centroid / norm)
    order = sorted(range(len(units)), key=lambda i: -float(centrality[i]))
    chosen: list[int] = []
    passages: set[int] = set()
    for index in order:
        if units[index].hit_index not in passages:
            chosen.append(index)
            passages.add(units[index].hit_index)
        if len(chosen) == count:
            break
    for index in order:
        if len(chosen) == count:
            break
        if index not in chosen:
            chosen.append(index)
    return [units[i] for i in sorted(chosen, key=lambda i: (units[i].hit_index, units[i].position))]


def overview_subject(hits: list[Hit]) -> str:
    """What the overview is of, as the passages name it: the deepest section title they all share, else each
    passage's own section title."""
    paths = [h.chunk.section_path for h in hits if h.chunk.section_path]
    if not paths:
        return " ".join(dict.fromkeys(h.chunk.source for h in hits))[:300]
    shared = [title for title, *others in zip(*paths, strict=False) if all(o == title for o in others)]
    return shared[-1] if shared else " ".join(dict.fromkeys(p[-1] for p in paths))[:300]
