"""The default generator: answers with the evidence's own sentences, each cited. No LLM.

Every sentence of an extractive answer is a verbatim unit of the chunk it
cites, so its citation is correct by construction; the work is choosing which
units answer the question (`bunko.rerank.evidence`, the same scoring the light
reranker uses) and putting them in reading order. Units that instruct a model
(`bunko.text.injection`) or read as an abstention ("The documents do not contain
this.") are never scored, so neither is quoted nor graded.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace

import numpy as np

from bunko.embed.base import Embedder
from bunko.generate.language import is_abstention
from bunko.rerank.evidence import ScoredUnit, best_unit, hit_units, most_covering, score_units
from bunko.rerank.memo import TypedUnit, quotable_units
from bunko.rerank.query_passage import QueryPassageSimilarity
from bunko.rerank.reader import UnitScorer
from bunko.retrieve.question import QuestionFacts
from bunko.schema import AnswerSentence, Citation, Hit
from bunko.text.analyzers import Analyzer
from bunko.text.answer_types import CHECKABLE, short_answer
from bunko.text.entities import entity_keys
from bunko.text.languages import text_language
from bunko.text.units import CODE, ROW

MAX_EVIDENCE_HITS = 5
MAX_UNITS = 80
UNITS_PER_HIT = 12
"""Units of each evidence hit that are scored: those sharing most of the question's terms (see `most_covering`)."""
KEEP_RATIO = 0.85
"""Another unit joins the answer only when the reader rates it within this fraction of the best one."""
LINK_MISSING_SHARE = 0.25
"""Share of the question's entities the quoted passage must leave unnamed before another hop is quoted to link it."""
LINK_COVERAGE = 0.5
"""Share of those unnamed entities the linking passage must name: the other half of the question, not one name of it."""
FOLLOWER_SPAN = 2
"""How many units after a restating best unit its answer may come: "Avoid bashisms to stay portable. You can check
it using checkbashisms(1)." — the sentence that matches the question best only restates it, the next one answers."""

__all__ = ["ExtractiveGenerator", "ScoredUnit", "citation_for"]


def citation_for(hit: Hit, quote: str) -> Citation:
    chunk = hit.chunk
    return Citation(
        chunk_id=chunk.chunk_id, source=chunk.source, page=chunk.pages[0] if chunk.pages else None,
        section_path=list(chunk.section_path), element_ids=list(chunk.element_ids), quote=quote,
        figures=[str(f) for f in chunk.meta.get("figures") or []], also_at=list(hit.also_at),
    )


class ExtractiveGenerator:
    name = "extractive"

    def __init__(
        self, embedder: Embedder, analyzer: Analyzer, max_sentences: int = 3, split: Callable[[str], list[TypedUnit]] = quotable_units,
        query_passage: QueryPassageSimilarity | None = None, scorer: UnitScorer | None = None,
    ) -> None:
        """`split`: how a chunk becomes units, `quotable_units` or the answerer's memo of it; `query_passage`: the
        asymmetric model the reader's `query_passage` features need (`[answer] query_passage`); `scorer`: the reader
        (the packaged one when None, `[answer] models` otherwise)."""
        self.embedder = embedder
        self.analyzer = analyzer
        self.max_sentences = max_sentences
        self.split = split
        self.query_passage = query_passage
        self.scorer = scorer

    def score_units(
        self, question: QuestionFacts, hits: list[Hit], query_vector: np.ndarray, weights: Mapping[str, float] | None = None
    ) -> list[ScoredUnit]:
        evidence = hits[:MAX_EVIDENCE_HITS]
        quotable = [u for u in hit_units(evidence, MAX_UNITS, self.split) if not is_abstention(u.text)]
        units = most_covering(question, evidence, quotable, weights, self.analyzer, UNITS_PER_HIT)
        scored = score_units(
            question, evidence, units, query_vector, self.embedder, self.analyzer, weights, self.scorer, self.query_passage,
        )
        return once_per_text(scored, evidence, question.language)

    def answer(
        self, question: QuestionFacts, hits: list[Hit], scored: list[ScoredUnit],
        bridges: Callable[[Iterable[str]], Mapping[str, float]] | None = None,
    ) -> list[AnswerSentence]:
        """The unit the reader rates most likely to hold the answer, after a short typed answer when one stands out,
        and up to `max_sentences` − 1 others the reader rates close to it, in reading order.

        A companion must be as answer-like as the best unit (hold the asked kind when it does), in its language (the
        same sentence from a translation is not more evidence), about the question's subject when it comes from
        another document, and not another row beside a row the question looks up. Every extra unit makes the answer
        longer, and a longer answer contains an expected fact more often by its length alone: `bunko eval` reports
        answer lengths beside fact_match for that reason.

        `bridges` (the entity graph's specificity, when the graph route found the evidence): the answer also quotes
        the unit of the other hop that links the quoted passage to what the question describes (`linked_hop_unit`).
        """
        if not scored:
            return []
        best = quoted_unit(scored, question)
        kind = question.kind
        others = sorted((s for s in scored if s is not best and s.language == best.language), key=lambda s: -s.score)
        companions = [
            s for s in others
            if s.score >= KEEP_RATIO * best.score and (s.typed or not best.typed) and _on_subject(s, best, hits)
            and not _another_row(s, best)
        ][: self.max_sentences - 1]
        chosen = sorted([best, *companions], key=lambda s: (s.unit.hit_index, s.unit.position))
        leads = {s.unit.text.split("\n", 1)[0] for s in chosen if s.unit.kind == CODE}
        chosen = [s for s in chosen if s.unit.kind == CODE or s.unit.text not in leads]
        hop = linked_hop_unit(best, scored, hits, question, bridges) if bridges is not None else None
        if hop is not None and all(hop.unit.text != s.unit.text for s in chosen):
            # after the answer's own units ("…/etc/postfix/main.cf", then "…the main creator of Postfix"); it replaces
            # none of them: a companion may be the one holding the fact
            chosen = [*chosen, hop]
        sentences = [
            AnswerSentence(
                text=s.unit.text, citations=[citation_for(hits[s.unit.hit_index], s.unit.text)],
                support=round(s.score, 4), verdict="supported",
            )
            for s in chosen
        ]
        short = short_answer(best.unit.text, kind, question.text) if best.typed and kind in CHECKABLE else None
        if short and all(short != s.text for s in sentences):
            citation = citation_for(hits[best.unit.hit_index], best.unit.text)
            sentences.insert(0, AnswerSentence(text=short, citations=[citation], support=round(best.score, 4), verdict="supported"))
        return sentences


def linked_hop_unit(
    best: ScoredUnit, scored: Sequence[ScoredUnit], hits: Sequence[Hit], question: QuestionFacts,
    specific: Callable[[Iterable[str]], Mapping[str, float]],
) -> ScoredUnit | None:
    """The unit of the other hop of a two-document answer: a question that describes a thing ("the mail server the
    tcpd author created") is answered by a passage about that thing that never repeats the description, so the
    answer quotes the sentence holding the fact and the one that links it to the description, and cites both.

    Only when the quoted passage leaves out a real part of what the question names (LINK_MISSING_SHARE of its
    entities) and another document's passage names most of that part (LINK_COVERAGE): a passage that answers the
    whole question needs no link, and one sharing a single name with the rest is no second hop. The unit quoted from
    that passage is in the answer's language and names a bridge — an entity the quoted passage names too, the
    question does not, and that says something about a passage (`specific`: the entity graph's idf of a key that is
    not a hub); of those, the one naming most of the missing part. None when nothing qualifies."""
    asked = set(question.entities)
    answering = hits[best.unit.hit_index]
    named = set(entity_keys(answering.chunk.text))
    bridges = named - asked
    missing = asked - named
    if not asked or len(missing) < LINK_MISSING_SHARE * len(asked):
        return None
    link: tuple[int, float, ScoredUnit] | None = None
    covers: dict[int, bool] = {}  # hit index → whether its passage names enough of the missing part: once per passage
    for candidate in scored:
        index = candidate.unit.hit_index
        hit = hits[index]
        if hit.chunk.source == answering.chunk.source or candidate.language != best.language:
            continue
        if index not in covers:
            covers[index] = len(missing & set(entity_keys(hit.chunk.text))) >= LINK_COVERAGE * len(missing)
        if not covers[index]:
            continue
        keys = set(entity_keys(candidate.unit.text))
        if not specific(bridges & keys):
            continue
        rank = (len(missing & keys), candidate.score)
        if link is None or rank > link[:2]:
            link = (*rank, candidate)
    return link[2] if link is not None else None


def once_per_text(scored: list[ScoredUnit], hits: list[Hit], asked: str) -> list[ScoredUnit]:
    """Each unit text once, from the passage in the question's language when one holds it, at the best score any
    copy got. A translated manual keeps its code, tables and untranslated notes word for word in every language:
    an English question quoted the same code line three times, citing the Japanese and Chinese pages beside the
    English one."""
    languages = {i: hits[i].chunk.lang or text_language(hits[i].chunk.text) for i in {s.unit.hit_index for s in scored}}
    copies: dict[str, list[ScoredUnit]] = {}
    for unit in scored:
        copies.setdefault(_copy_key(unit), []).append(unit)
    kept = []
    for same in copies.values():
        chosen = max(same, key=lambda s: (languages[s.unit.hit_index] == asked, s.score))
        best_score = max(s.score for s in same)
        kept.append(chosen if chosen.score == best_score else replace(chosen, score=best_score))
    return kept


def _copy_key(scored: ScoredUnit) -> str:
    """What two copies of a unit share: its text, spacing aside; for code, the lines after its lead-in sentence,
    which each translation writes in its own language (`text.units.code_units`)."""
    text = scored.unit.text
    if scored.unit.kind == CODE and "\n" in text:
        text = text.split("\n", 1)[1]
    return " ".join(text.split())


def _on_subject(companion: ScoredUnit, best: ScoredUnit, hits: list[Hit]) -> bool:
    """A companion from another document must name the question's subject when the best unit does: a sentence
    of a page about something else, close in wording, adds a citation of an irrelevant document."""
    same_document = hits[companion.unit.hit_index].chunk.source == hits[best.unit.hit_index].chunk.source
    return companion.names_subject or not best.names_subject or same_document


def _another_row(companion: ScoredUnit, best: ScoredUnit) -> bool:
    """A row the question does not look up, beside the row it does: "東京23区の一般社員の宿泊費の上限は？" is answered by
    the Tokyo row, and the Osaka and Shanghai rows of the same table, close in score, answer other questions."""
    return best.looked_up and companion.unit.kind == ROW and not companion.looked_up


def quoted_unit(scored: Sequence[ScoredUnit], question: QuestionFacts) -> ScoredUnit:
    """The unit an extractive answer states first: the reader's best (`best_unit`, which the grade judges), or, when
    that one only restates a question of a checkable kind, the typed unit right after it (`answering_follower`)."""
    best = best_unit(scored, question.language)
    if question.kind in CHECKABLE and not best.typed:
        return answering_follower(best, list(scored)) or best
    return best


def answering_follower(best: ScoredUnit, scored: list[ScoredUnit]) -> ScoredUnit | None:
    """The first unit within FOLLOWER_SPAN after `best` in its passage that holds the asked kind: when the best unit
    only restates a question of a checkable kind, the answer is most often the next sentence or code line. A table row
    of the passage that the question looks up (`ScoredUnit.looked_up`) comes first: "I set level 3 with dmesg -n3; what
    is that level called?" restates the command, and the table after it answers in the row for 3, not its first row."""
    looked_up = [s for s in scored if s.unit.hit_index == best.unit.hit_index and s.looked_up and s.typed]
    if looked_up:
        return max(looked_up, key=lambda s: s.score)
    after = [
        s for s in scored
        if s.unit.hit_index == best.unit.hit_index and 0 < s.unit.position - best.unit.position <= FOLLOWER_SPAN and s.typed
    ]
    return min(after, key=lambda s: s.unit.position, default=None)

