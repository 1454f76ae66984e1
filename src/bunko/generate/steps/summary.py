"""Step 4b: an overview asked of a named section or of the whole collection is answered by its most central
sentences, not by the one sentence closest to the question's words.

"What is chapter 8 about?", 第3章の概要, 主要内容是什么: the tree route finds the section the question names, the
graph route's global mode the collection's topics; what either found holds no sentence like the question. The
answer is extractive and cited: the prose sentences of that evidence nearest its centroid (the mean of their
vectors), at most one from each passage while others remain, in the order the evidence ranks them. Table rows,
code lines, short fragments and lines that end no sentence (a caption, a link) are never a summary sentence.

A section's overview is graded as every answer is: the confidence model's probability of those sentences as
evidence for the section's title. The collection's overview is made of its topics (the communities the global
graph route chose): from each topic, of the sentences its retrieved passages hold (in the question's language when
the topic has any), the one nearest the topic's centroid (the mean vector of its passages that mention the most of
its entities), from a document not cited yet while one remains, one topic per sentence. Its confidence is what those
sentences can speak for: the share of the wanted topics that gave a sentence, times the mean of two shares, how much
of the collection (its passages in the question's language) mentions an entity of one of those topics
(`retrieve/topics.py`) and how close the sentences stand to their topics' centroids (their mean cosine). Coverage
alone says little in a small collection, where a few topics mention everything; closeness alone says nothing of
the topics left out. A reader-and-retrieval probability fitted on fact questions says nothing here: no passage is
like "what are the main topics?".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from bunko.generate.extractive import citation_for
from bunko.generate.steps.state import AskState, Gathered, Retrieved
from bunko.rerank.evidence import hit_units
from bunko.retrieve.graph_global import CANDIDATES, TOPICS
from bunko.retrieve.topics import Topics, collection_topics
from bunko.retrieve.tree import NAMED
from bunko.schema import AnswerSentence, Hit, Signals
from bunko.text.languages import text_language
from bunko.text.sentences import ends_sentence
from bunko.text.units import PROSE, Unit
from bunko.trace import Grade

if TYPE_CHECKING:
    from bunko.generate.answerer import Answerer

SUMMARY_SENTENCES = 3
"""Sentences in a summary answer."""
MIN_SUMMARY_CHARS = {"en": 30, "ja": 12, "zh": 12}
"""A shorter prose unit (a label, a caption, "See below.", 见下表。) does not summarise anything; a Japanese or
Chinese character carries about what an English word does."""
MAX_SUMMARY_UNITS = 120
"""Units embedded for one summary (for the collection's, shared among its topics): embedding is its cost."""
OVERVIEW_RETRIEVERS = ("tree", "graph-global")
GLOBAL_ROUTE = "global"
"""The router's rule for a question about the whole collection: an overview whatever else its words ask."""


def summarise(answerer: Answerer, state: AskState, gathered: Gathered) -> Gathered:
    """`gathered` with its summary sentences (and the evidence they are graded as) when the question asks for an
    overview of what the tree or the global graph route found; unchanged otherwise."""
    evidence = gathered.evidence
    route = evidence.result.route
    if route is None or route.retriever not in OVERVIEW_RETRIEVERS:
        return gathered
    if route.retriever == "graph-global" and answerer.read(state.question).named_beyond_collection:
        return gathered  # about named things ("an overview of the leave days"): answered from what names them
    if not answerer.read(state.question).overview and route.name != GLOBAL_ROUTE:
        return gathered
    if route.retriever == "graph-global" and any(topic_of(h) is not None for h in evidence.hits):
        return topic_summary(answerer, state, gathered)
    hits = overview_hits(evidence.hits, route.retriever)
    units = summary_units(answerer, hits)
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


def summary_units(answerer: Answerer, hits: list[Hit], limit: int | None = MAX_SUMMARY_UNITS) -> list[Unit]:
    """The hits' prose sentences that can stand in a summary, of their first `limit` units (None: all)."""
    units = hit_units(hits, limit if limit is not None else sum(len(h.chunk.text) for h in hits), answerer.split)
    return [u for u in units if u.kind == PROSE and summarises(u.text)]


def summarises(text: str) -> bool:
    """Whether a prose unit is a sentence long enough to say something about its section."""
    return len(text) >= MIN_SUMMARY_CHARS[text_language(text)] and ends_sentence(text)


def topic_of(hit: Hit) -> int | None:
    path = hit.signals.path
    return None if path is None else path.community


def topic_units(answerer: Answerer, hits: list[Hit]) -> dict[int, list[Unit]]:
    """The summary sentences of the hits, by the topic each hit stands for."""
    by_topic: dict[int, list[Unit]] = {}
    for unit in summary_units(answerer, hits, limit=None):
        topic = topic_of(hits[unit.hit_index])
        if topic is not None:
            by_topic.setdefault(topic, []).append(unit)
    return by_topic


def further_passages(
    answerer: Answerer, topics: Topics, lacking: list[Hit], language: str, filters: Mapping[str, Any] | None, seen: set[str],
) -> list[Hit]:
    """More of each lacking topic's passages (those mentioning the most of its entities, in the question's language),
    inside the ask's filter, as hits standing for that topic."""
    paths = {topic_of(h): h.signals.path for h in lacking}
    wanted = {cid: topic for topic in paths if topic is not None for cid in topics.passages(topic, language, CANDIDATES)
              if cid not in seen}
    ids = list(wanted)
    if filters:
        allowed = answerer.store.search().allowed_chunks(ids, filters)
        ids = [cid for cid in ids if cid in allowed]
    out: list[Hit] = []
    for chunk in answerer.store.get_chunks(ids):
        signals = Signals()
        signals.path = paths[wanted[chunk.chunk_id]]
        out.append(Hit(chunk, 0.0, signals=signals))
    return out


def topic_summary(answerer: Answerer, state: AskState, gathered: Gathered) -> Gathered:
    """The collection's overview: each topic's central sentence, cited, and a confidence from what they cover."""
    evidence = gathered.evidence
    shown = {h.chunk.chunk_id for h in evidence.hits}
    hits = [*evidence.hits, *(h for h in evidence.candidates if h.chunk.chunk_id not in shown and topic_of(h) is not None)]
    language = answerer.read(state.question).language
    search = answerer.store.search()
    topics = collection_topics(search, search.entity_graph())
    by_topic = topic_units(answerer, hits)
    lacking = [h for h in hits if topic_of(h) is not None and topic_of(h) not in by_topic]
    if lacking:  # a topic whose retrieved passages are tables or code: read on into its central passages
        hits.extend(further_passages(answerer, topics, lacking, language, state.filters, {h.chunk.chunk_id for h in hits}))
        by_topic = topic_units(answerer, hits)
    for topic, units in by_topic.items():
        own = [u for u in units if text_language(u.text) == language]
        by_topic[topic] = (own or units)[: MAX_SUMMARY_UNITS // TOPICS]
    chosen: list[tuple[int, Unit]] = []
    centralities: list[float] = []
    if by_topic:
        every = [u for units in by_topic.values() for u in units]
        vectors = answerer.embedder.embed([u.text for u in every])
        vectors = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        vector_of = dict(zip((id(u) for u in every), vectors, strict=True))
        sources: set[str] = set()
        for topic, units in by_topic.items():
            centroid = search.vectors_for(topics.passages(topic, language, CANDIDATES)).mean(axis=0)
            centroid /= max(float(np.linalg.norm(centroid)), 1e-12)
            centrality = np.array([float(vector_of[id(u)] @ centroid) for u in units])
            fresh = [i for i, u in enumerate(units) if hits[u.hit_index].chunk.source not in sources]
            best = max(fresh or range(len(units)), key=lambda i: centrality[i])
            chosen.append((topic, units[best]))
            centralities.append(float(centrality[best]))
            sources.add(hits[units[best].hit_index].chunk.source)
    order = sorted(range(len(chosen)), key=lambda i: (chosen[i][1].hit_index, chosen[i][1].position))
    chosen, centralities = [chosen[i] for i in order], [centralities[i] for i in order]
    wanted = min(TOPICS, sum(1 for c in topics.communities if c.passages))
    answered = [topic for topic, _ in chosen]
    share = len(answered) / max(wanted, 1)
    coverage = topics.coverage(answered, language)
    central = float(np.clip(np.mean(centralities), 0.0, 1.0)) if centralities else 0.0
    confidence = round(share * (coverage + central) / 2, 4)
    grade = Grade(
        confidence >= answerer.min_confidence(language), confidence, evidence.grade.answer_type,
        {"topics_answered": round(share, 4), "collection_covered": round(coverage, 4), "centrality": round(central, 4)},
        quoted=chosen[0][1].text if chosen else "",
    )
    cited = {hits[u.hit_index].chunk.chunk_id for _, u in chosen}
    graded: Retrieved = replace(evidence, grade=grade, hits=[*evidence.hits, *(h for h in hits[len(evidence.hits):] if h.chunk.chunk_id in cited)])
    gathered.summary = [AnswerSentence(text=u.text, citations=[citation_for(hits[u.hit_index], u.text)]) for _, u in chosen] or None
    gathered.evidence = graded
    gathered.first = graded if gathered.first is evidence else gathered.first
    return gathered


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
