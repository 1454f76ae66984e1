"""Sentence-level evidence: how well each sentence or table row of the hits answers the question.

Shared by the light reranker (a chunk is as good as its best sentence) and the extractive generator (which quotes
the best sentences), so both measure evidence the same way (`bunko.rerank.unit_features`): embedding similarity of
the unit with its section heading (a table row such as "東京23区 / 12,000円" only means "hotel limit" under its
heading), idf-weighted keyword coverage of the question, whether it holds the kind of answer the question wants
(`bunko.text.answer_types`), a value the question looks up, its language, its passage's key terms. The answer's
scorer is the learned reader (`bunko.rerank.reader`); the reranker keeps fixed weights. Units that read like
instructions to a model are data, never evidence: they are left out, so they neither steer the answer nor lower the
score of the true sentences beside them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from bunko.embed.base import Embedder
from bunko.rerank.memo import TypedUnit, quotable_units
from bunko.rerank.query_passage import QueryPassageSimilarity
from bunko.rerank.reader import QUERY_PASSAGE_MODEL, READER_MODEL, ReaderModel, UnitScorer
from bunko.rerank.unit_features import UnitFeatures, folded, is_lead_in, is_list_item, length_feature, position_feature
from bunko.retrieve.coverage import keyword_coverage
from bunko.retrieve.key_terms import katakana_subject, names_term, rare_key_terms, rarest_term, writes_word
from bunko.retrieve.question import QuestionFacts
from bunko.schema import Hit
from bunko.text.analyzers import Analyzer, identifiers
from bunko.text.answer_types import CHECKABLE, AnswerType, holds_type, states_number
from bunko.text.dimensions import states_quantity
from bunko.text.languages import text_language
from bunko.text.scripts import has_ja_zh
from bunko.text.units import CODE, PROSE, ROW, Unit, definition_terms, row_cells

UNLOOKED = frozenset({AnswerType.REASON, AnswerType.YES_NO, AnswerType.WHICH_DOCUMENT})
"""Kinds of question a table row does not answer: "why is umask 0002 safe here?" names the value it asks about."""


@dataclass
class ScoredUnit:
    unit: Unit
    similarity: float
    coverage: float
    score: float
    typed: bool = True
    """The unit holds an answer of the kind the question asks for (true when the kind has no surface form)."""
    language: str = "en"
    names_subject: bool = True
    """The unit's chunk names the question's rarest key term (`rarest_term`); true when the question names none."""
    looked_up: bool = False
    """A table row the question looks up (`looked_up_rows`): a cell equal to a value or, with a named column, a name it gives."""
    features: UnitFeatures | None = None
    """What the score was computed from (`bunko.rerank.unit_features`)."""


SAME_LANGUAGE_SUFFICES = 0.85
"""A unit in the question's language is quoted when the reader rates it within this share of the best unit in any
language: the answer is written in the asker's language whenever the documents allow (a product rule, not a fitted
one; the reader itself is fitted without the language feature, so it rates a unit and its translation alike)."""


def best_unit(scored: Sequence[ScoredUnit], language: str | None = None) -> ScoredUnit:
    """The unit to quote: the one the reader rates highest, or one in the question's language that comes close.

    Whether its passage names the question's subject is a feature the reader weighs (`UnitFeatures.names_subject`),
    not a rule after it. Shared by the extractive answer and the grade, so the grade judges what is quoted.
    `language`: the question's (`QuestionFacts.language`); None takes the best unit's.
    """
    best = max(scored, key=lambda s: s.score)
    asked = language or best.language
    same = [s for s in scored if s.language == asked]
    if best.language == asked or not same:
        return best
    closest = max(same, key=lambda s: s.score)
    return closest if closest.score >= SAME_LANGUAGE_SUFFICES * best.score else best


def unit_context(hit: Hit, unit: Unit) -> str:
    """What a unit is read with: its section's heading, and the definition-list term it describes (`Unit.term`)."""
    return " > ".join([*hit.chunk.section_path[-1:], *([unit.term] if unit.term else [])])


def unit_text(context: str, unit: str) -> str:
    """What is embedded for a unit: its section heading, a newline, the unit (the heading alone carries a row's meaning).
    One rule for scoring and for the stored unit vectors (`bunko.rerank.unit_vectors`), so a stored vector is found."""
    return f"{context}\n{unit}" if context else unit


def hit_units(hits: Sequence[Hit], max_units: int, split: Callable[[str], list[TypedUnit]] = quotable_units) -> list[Unit]:
    """Quotable units of the hits that are not injected instructions, in rank then reading order; `split` is
    `quotable_units` or the answerer's memo of it (`UnitSplitter`)."""
    units: list[Unit] = []
    for hit_index, hit in enumerate(hits):
        typed = split(hit.chunk.text)
        terms = definition_terms(hit.chunk.text, typed)
        units.extend(Unit(text, hit_index, position, kind, term)
                     for position, ((text, kind), term) in enumerate(zip(typed, terms, strict=True)))
    return units[:max_units]


def most_covering(
    question: QuestionFacts, hits: Sequence[Hit], units: Sequence[Unit], weights: Mapping[str, float] | None,
    analyzer: Analyzer, per_hit: int,
) -> list[Unit]:
    """Each hit's `per_hit` units sharing most of the question's terms, and every table row the question looks up
    (`looked_up_rows`), in reading order.

    Embedding units is most of an ask's cost; a unit sharing none of the question's words
    rarely answers it, and a long chunk is judged by its relevant part, not its start. A looked-up row is the
    exception: "man 手册页第 5 节是放什么内容的？" shares only "5" with the row that answers it, "Section: 5 /
    Description: File formats", and twelve sentences about manual pages share more.
    """
    query_tokens = question.tokens
    by_hit: dict[int, list[tuple[float, Unit]]] = {}
    for unit in units:
        tokens = set(analyzer(f"{unit_context(hits[unit.hit_index], unit)} {unit.text}"))
        by_hit.setdefault(unit.hit_index, []).append((keyword_coverage(query_tokens, tokens, weights), unit))
    kept = {id(u): u for pairs in by_hit.values() for _, u in sorted(pairs, key=lambda p: -p[0])[:per_hit]}
    for index in looked_up_rows(units, question, analyzer):
        kept.setdefault(id(units[index]), units[index])
    return sorted(kept.values(), key=lambda u: (u.hit_index, u.position))


def _asked_keys(question: QuestionFacts, keys: Sequence[str], analyzer: Analyzer) -> list[str] | None:
    """The key terms the asking sentence writes, when the question sets a scene before it (`asked_sentence`); None
    when it does not."""
    asking = question.asking
    if asking is None:
        return None
    written = set(analyzer(asking))
    return [key for key in keys if key in written]


def _subjects(question: QuestionFacts, keys: Sequence[str], weights: Mapping[str, float] | None, analyzer: Analyzer) -> list[str]:
    """What a passage may name to be about the question: its rarest key term, or when a scene comes before the asking
    sentence, the rarest of the asking sentence's too. "Squid is our proxy. Where should system-wide variables such as
    HTTP_PROXY go?" is answered by a passage about HTTP_PROXY that never names Squid."""
    if not keys:
        return []
    asked = _asked_keys(question, keys, analyzer)
    return list(dict.fromkeys([rarest_term(keys, weights), *([rarest_term(asked, weights)] if asked else [])]))


def asks_beside_scene(question: QuestionFacts, keys: Sequence[str], analyzer: Analyzer) -> bool:
    """Whether the question names its things only in a scene before an asking sentence that names none: "my CPU is
    slow and apt update merges diffs slowly. Which setting turns that off?" The scene's things are not what is asked,
    so a passage that does not name them is still preferred less but not refused (`generate/grade.py`)."""
    return bool(keys) and _asked_keys(question, keys, analyzer) == []


def _names_subject(
    question: QuestionFacts, subjects: Sequence[str], weights: Mapping[str, float] | None, hits: Sequence[Hit],
    chunk_tokens: Mapping[int, set[str]], hit_indices: set[int],
) -> dict[int, bool]:
    """Whether each hit's chunk names the question's subject: one of its `subjects` (`_subjects`), or for a Japanese
    question naming no rare Latin key term its rare katakana word (`katakana_subject`). All true when the question
    names neither, or when no hit writes that word: a word the evidence never writes may be the question's paraphrase
    ("ツール" for a passage that says "コマンド"), which only the passages that do write it can show to be a name."""
    if subjects:
        return {i: any(names_term(chunk_tokens[i], subject) for subject in subjects) for i in hit_indices}
    word = katakana_subject(question.text, weights)
    writes = {i: word is None or writes_word(hits[i].chunk.embed_text, word) for i in hit_indices}
    return writes if any(writes.values()) else dict.fromkeys(hit_indices, True)


def looked_up_rows(units: Sequence[Unit], question: QuestionFacts, analyzer: Analyzer) -> set[int]:
    """Indexes of the table rows the question looks up: a row with a cell equal to a value the question gives (a
    quoted phrase, a number standing alone), or the one row of its passage with a cell equal to a thing the question
    names (a key term, or a cell it writes as it stands) when the question also names a whole other column of it ("the
    Multi-Arch value of the tool bar", "東京23区の一般社員の宿泊費"). A name
    alone does not look a row up — a package list's row for virtualbox is not an answer about virtualbox — nor does
    a name several rows share (coreutils, one row per command)."""
    if question.kind in UNLOOKED:
        return set()
    values = {folded(value) for value in question.looked_up}
    names = set(question.key_terms)
    written = folded(question.text)
    asked = set(question.tokens)
    by_value: set[int] = set()
    by_name: dict[int, list[int]] = {}
    for index, unit in enumerate(units):
        if unit.kind != ROW:
            continue
        cells = row_cells(unit.text)
        cells_folded = [folded(cell) for _, cell in cells]
        if any(cell in values for cell in cells_folded):
            by_value.add(index)
        elif any(
            (cell in names or _written_name(cell, written))
            and any(_named_column(header, asked, analyzer) for other, (header, _) in enumerate(cells) if other != position)
            for position, cell in enumerate(cells_folded)
        ):
            by_name.setdefault(unit.hit_index, []).append(index)
    return by_value | {rows[0] for rows in by_name.values() if len(rows) == 1}


def _written_name(cell: str, written: str) -> bool:
    """A Japanese or Chinese cell the question writes as it stands ("東京23区", 上海): such a name is no key term, its
    tokens being bigrams. A Latin cell must be a key term: "bash" is written in "bashisms"."""
    return len(cell) >= 2 and has_ja_zh(cell) and cell in written


def _named_column(header: str, asked: set[str], analyzer: Analyzer) -> bool:
    tokens = set(analyzer(header))
    return bool(tokens) and tokens <= asked


def score_units(
    question: QuestionFacts,
    hits: Sequence[Hit],
    units: Sequence[Unit],
    query_vector: np.ndarray,
    embedder: Embedder,
    analyzer: Analyzer,
    weights: Mapping[str, float] | None = None,
    scorer: UnitScorer | None = None,
    query_passage: QueryPassageSimilarity | None = None,
) -> list[ScoredUnit]:
    """Each unit's `UnitFeatures` against the question, and its score by `scorer` (the learned reader by default).
    `query_passage`: the asymmetric model that measures `UnitFeatures.query_passage`; without it that is 0."""
    if not units:
        return []
    scorer = scorer or default_reader(query_passage is not None)
    contexts = [unit_context(hits[u.hit_index], u) for u in units]
    texts = [unit_text(c, u.text) for c, u in zip(contexts, units, strict=True)]
    vectors = embedder.embed(texts)
    similarities = [float(v) for v in vectors @ np.asarray(query_vector, dtype=np.float32)]
    answering = [float(v) for v in query_passage.similarities(question.text, texts)] if query_passage else [0.0] * len(units)
    best_answering = max(answering)
    kind, quantity, asked_language, query_tokens = question.kind, question.asks_quantity, question.language, list(question.tokens)
    languages = {i: text_language(hits[i].chunk.text) for i in {u.hit_index for u in units}}
    codes = identifiers(query_tokens)
    quoted = [folded(phrase) for phrase in question.quoted]
    lookups = looked_up_rows(units, question, analyzer)
    keys = rare_key_terms(question.named_outside_examples, weights)
    chunk_tokens = {i: set(analyzer(hits[i].chunk.embed_text)) for i in {u.hit_index for u in units}} if keys else {}
    key_share = {i: keyword_coverage(keys, held, weights) for i, held in chunk_tokens.items()}
    names_subject = _names_subject(question, _subjects(question, keys, weights, analyzer), weights, hits, chunk_tokens,
                                   {u.hit_index for u in units})
    unit_tokens = [set(analyzer(f"{context} {unit.text}")) for unit, context in zip(units, contexts, strict=True)]
    coverages = [keyword_coverage(query_tokens, tokens, weights) for tokens in unit_tokens]
    coverage_at = {(u.hit_index, u.position): c for u, c in zip(units, coverages, strict=True)}
    unit_at = {(u.hit_index, u.position): u for u in units}
    best_similarity, best_coverage = max(similarities), max(coverages)
    asked_terms = set(query_tokens)
    scored = []
    for index, (unit, context, similarity) in enumerate(zip(units, contexts, similarities, strict=True)):
        tokens, coverage = unit_tokens[index], coverages[index]
        looked_up = index in lookups
        typed = kind not in CHECKABLE or looked_up or holds_type(unit.text, kind, code=unit.kind == CODE, question=question.text, row=unit.kind == ROW)
        language = languages[unit.hit_index] if unit.kind != PROSE else text_language(unit.text)
        subject = names_subject.get(unit.hit_index, True)
        stated = quantity and (states_number(unit.text) or states_quantity(unit.text))
        written = folded(f"{context} {unit.text}") if quoted else ""
        own = analyzer(unit.text)
        features = UnitFeatures(
            similarity=similarity,
            coverage=coverage,
            similarity_gap=similarity - best_similarity,
            coverage_gap=coverage - best_coverage,
            hit_rank=float(unit.hit_index),
            identifiers=len(codes & tokens) / len(codes) if codes else 0.0,
            quoted=sum(phrase in written for phrase in quoted) / len(quoted) if quoted else 0.0,
            looked_up=float(looked_up),
            states_quantity=float(stated),
            quantity_missing=float(quantity and not stated),
            lead_in=float(is_lead_in(unit.text)),
            introduces=float(_introduces(unit, unit_at.get((unit.hit_index, unit.position + 1)))),
            type_held=float(kind in CHECKABLE and typed),
            type_missing=float(kind in CHECKABLE and not typed),
            code_for_command=float(unit.kind == CODE and kind in (AnswerType.COMMAND, AnswerType.OPTION)),
            key_share=key_share.get(unit.hit_index, 0.0),
            names_subject=float(subject),
            same_language=float(language == asked_language),
            is_row=float(unit.kind == ROW),
            is_code=float(unit.kind == CODE),
            length=length_feature(unit.text),
            position=position_feature(unit.position),
            after_match=max((coverage_at.get((unit.hit_index, unit.position - back), 0.0) for back in (1, 2)), default=0.0),
            new_identifiers=float(bool(identifiers(own) - asked_terms)),
            novelty=_novelty(own, asked_terms),
            query_passage=answering[index],
            query_passage_gap=answering[index] - best_answering,
        )
        scored.append(ScoredUnit(unit, similarity, coverage, scorer.score(features), typed, language, subject, looked_up, features))
    return scored


def _introduces(unit: Unit, next_unit: Unit | None) -> bool:
    """A prose sentence, not itself a list item, whose next unit in the passage is a list item, a row or code."""
    if next_unit is None or unit.kind != PROSE or is_list_item(unit.text):
        return False
    return next_unit.kind != PROSE or is_list_item(next_unit.text)


def _novelty(tokens: Sequence[str], asked: set[str]) -> float:
    own = set(tokens)
    return len(own - asked) / len(own) if own else 0.0


@cache
def default_reader(query_passage: bool = False) -> ReaderModel:
    """The packaged reader model, loaded once per process: the one fitted with the `query_passage` features when they
    are measured."""
    return ReaderModel.load(packaged=QUERY_PASSAGE_MODEL if query_passage else READER_MODEL)
