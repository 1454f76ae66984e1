"""Sentence-level evidence: how well each sentence or table row of the hits answers the question.

Shared by the light reranker (a chunk is as good as its best sentence) and the
extractive generator (which quotes the best sentences), so both judge evidence
the same way: embedding similarity of the unit (with its section heading, since
a table row such as "東京23区 / 12,000円" only means "hotel limit" under its
heading) plus idf-weighted keyword coverage of the question, nudged by what
kind of answer the question wants (`bunko.text.answer_types`: an option
question prefers a unit holding an option, a path question one holding a path;
a lead-in such as "…は次のとおりです。" points at the answer without being it)
and by language (a unit in the question's language is preferred when the
collection holds the same text in several). Units that read like instructions
to a model are data, never evidence: they are left out, so they neither steer
the answer nor lower the score of the true sentences beside them.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from bunko.embed.base import Embedder
from bunko.rerank.memo import TypedUnit, quotable_units
from bunko.retrieve.coverage import keyword_coverage
from bunko.retrieve.key_terms import katakana_subject, key_terms, names_term, rare_key_terms, rarest_term, writes_word
from bunko.schema import Hit
from bunko.text.analyzers import Analyzer, identifiers
from bunko.text.answer_types import CHECKABLE, NAMED_KINDS, AnswerType, holds_type, question_type, states_number, wants_quantity
from bunko.text.languages import query_language, text_language
from bunko.text.questions import asked_sentence, lookup_values, quoted_phrases
from bunko.text.scripts import has_ja_zh
from bunko.text.units import CODE, PROSE, ROW, Unit, row_cells

_LEAD_IN = re.compile(r"[:：]\s*$|次のとおり|以下のとおり|下記|如下|以下(?:几|各)|as follows|the following", re.IGNORECASE)
_SPACE = re.compile(r"\s+")

COVERAGE_WEIGHT = 0.5
RANK_BONUS = 0.03
RANK_DEPTH = 5
"""A unit of hit i gets RANK_BONUS * (RANK_DEPTH - i): retrieval order is a weak prior, not a verdict."""
IDENTIFIER_BONUS = 0.3
QUANTITY_BONUS = 0.12
LEAD_IN_PENALTY = 0.2
TYPE_BONUS = 0.1
TYPE_PENALTY = 0.15
"""A unit that holds the kind of answer asked for (an option for an option question) gains, one that cannot hold it loses."""
CODE_BONUS = 0.05
"""Commands and options are written in code blocks; for those questions a code line is the likelier answer."""
LANGUAGE_BONUS = 0.1
"""Same-language evidence wins over a translation of similar score; a better unit in another language still wins.
A sentence is judged by its own letters (a translated page keeps some paragraphs in English, and a page judged
English may hold the one translated sentence that answers); a code block or table row takes its chunk's language."""
QUOTED_BONUS = 0.3
"""Times the share of the question's quoted phrases the unit (with its heading) writes: the asker quoted a label or
message as the document shows it (“管理者 DN”), so the row or line that holds it is where its answer stands."""
LOOKUP_BONUS = 0.3
"""For a table row with a cell equal to a value or a name the question gives (`lookup_values`, `key_terms`): "level 3"
looks up the row whose value cell is 3, "the tool bar's Multi-Arch value" the row whose package cell is bar, not the
rows beside them that share the table's words. Such a row holds the asked kind in its other cells."""
UNLOOKED = frozenset({AnswerType.REASON, AnswerType.YES_NO, AnswerType.WHICH_DOCUMENT})
"""Kinds of question a table row does not answer: "why is umask 0002 safe here?" names the value it asks about."""
KEY_TERM_BONUS = 0.15
"""Times the idf-weighted share of the question's rare named things (`rare_key_terms`) the unit's chunk holds:
an answer about fcitx5 comes from a passage that names fcitx5, even when another passage is closer in wording."""


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


SAME_LANGUAGE_SUFFICES = 0.85
"""A unit in the question's language is quoted when it scores within this share of the best unit in any language."""


SUBJECT_SUFFICES = 0.85
"""A unit whose passage names the question's rarest key term is quoted when it scores within this share of the best
unit, which does not: the grade refuses a quote whose passage does not name it (`grade.grade_answer`)."""


def best_unit(scored: Sequence[ScoredUnit], question: str) -> ScoredUnit:
    """The unit to quote: the best one, unless one about the question's subject, then one in the question's language,
    comes close enough.

    Cross-language evidence is used only when nothing in the question's language suffices; the
    answer then says so. Shared by the extractive answer and the grade, so the grade judges what is quoted.
    """
    best = max(scored, key=lambda s: s.score)
    about = [s for s in scored if s.names_subject]
    if not best.names_subject and about and max(s.score for s in about) >= SUBJECT_SUFFICES * best.score:
        scored = about
        best = max(scored, key=lambda s: s.score)
    asked = query_language(question)
    same = [s for s in scored if s.language == asked]
    if best.language == asked or not same:
        return best
    closest = max(same, key=lambda s: s.score)
    return closest if closest.score >= SAME_LANGUAGE_SUFFICES * best.score else best


def _folded(text: str) -> str:
    """Text compared as written whatever its width, case and spacing (NFKC, case-folded, no whitespace)."""
    return _SPACE.sub("", unicodedata.normalize("NFKC", text).casefold())


def section_context(hit: Hit) -> str:
    return " > ".join(hit.chunk.section_path[-1:])


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
        units.extend(Unit(text, hit_index, position, kind) for position, (text, kind) in enumerate(typed))
    return units[:max_units]


def most_covering(
    question: str, hits: Sequence[Hit], units: Sequence[Unit], query_tokens: Sequence[str], weights: Mapping[str, float] | None,
    analyzer: Analyzer, per_hit: int,
) -> list[Unit]:
    """Each hit's `per_hit` units sharing most of the question's terms, and every table row the question looks up
    (`looked_up_rows`), in reading order.

    Embedding units is most of an ask's cost; a unit sharing none of the question's words
    rarely answers it, and a long chunk is judged by its relevant part, not its start. A looked-up row is the
    exception: "man 手册页第 5 节是放什么内容的？" shares only "5" with the row that answers it, "Section: 5 /
    Description: File formats", and twelve sentences about manual pages share more.
    """
    by_hit: dict[int, list[tuple[float, Unit]]] = {}
    for unit in units:
        tokens = set(analyzer(f"{section_context(hits[unit.hit_index])} {unit.text}"))
        by_hit.setdefault(unit.hit_index, []).append((keyword_coverage(query_tokens, tokens, weights), unit))
    kept = {id(u): u for pairs in by_hit.values() for _, u in sorted(pairs, key=lambda p: -p[0])[:per_hit]}
    for index in looked_up_rows(units, question, question_type(question), query_tokens, analyzer):
        kept.setdefault(id(units[index]), units[index])
    return sorted(kept.values(), key=lambda u: (u.hit_index, u.position))


def _asked_keys(question: str, keys: Sequence[str], analyzer: Analyzer) -> list[str] | None:
    """The key terms the asking sentence writes, when the question sets a scene before it (`asked_sentence`); None
    when it does not."""
    asking = asked_sentence(question)
    if asking is None:
        return None
    written = set(analyzer(asking))
    return [key for key in keys if key in written]


def _subjects(question: str, keys: Sequence[str], weights: Mapping[str, float] | None, analyzer: Analyzer) -> list[str]:
    """What a passage may name to be about the question: its rarest key term, or when a scene comes before the asking
    sentence, the rarest of the asking sentence's too. "Squid is our proxy. Where should system-wide variables such as
    HTTP_PROXY go?" is answered by a passage about HTTP_PROXY that never names Squid."""
    if not keys:
        return []
    asked = _asked_keys(question, keys, analyzer)
    return list(dict.fromkeys([rarest_term(keys, weights), *([rarest_term(asked, weights)] if asked else [])]))


def asks_beside_scene(question: str, keys: Sequence[str], analyzer: Analyzer) -> bool:
    """Whether the question names its things only in a scene before an asking sentence that names none: "my CPU is
    slow and apt update merges diffs slowly. Which setting turns that off?" The scene's things are not what is asked,
    so a passage that does not name them is still preferred less but not refused (`generate/grade.py`)."""
    return bool(keys) and _asked_keys(question, keys, analyzer) == []


def _names_subject(
    question: str, subjects: Sequence[str], weights: Mapping[str, float] | None, hits: Sequence[Hit],
    chunk_tokens: Mapping[int, set[str]], hit_indices: set[int],
) -> dict[int, bool]:
    """Whether each hit's chunk names the question's subject: one of its `subjects` (`_subjects`), or for a Japanese
    question naming no rare Latin key term its rare katakana word (`katakana_subject`). All true when the question
    names neither, or when no hit writes that word: a word the evidence never writes may be the question's paraphrase
    ("ツール" for a passage that says "コマンド"), which only the passages that do write it can show to be a name."""
    if subjects:
        return {i: any(names_term(chunk_tokens[i], subject) for subject in subjects) for i in hit_indices}
    word = katakana_subject(question, weights)
    writes = {i: word is None or writes_word(hits[i].chunk.embed_text, word) for i in hit_indices}
    return writes if any(writes.values()) else dict.fromkeys(hit_indices, True)


def looked_up_rows(
    units: Sequence[Unit], question: str, kind: AnswerType, query_tokens: Sequence[str], analyzer: Analyzer,
) -> set[int]:
    """Indexes of the table rows the question looks up: a row with a cell equal to a value the question gives (a
    quoted phrase, a number standing alone), or the one row of its passage with a cell equal to a thing the question
    names (a key term, or a cell it writes as it stands) when the question also names a whole other column of it ("the
    Multi-Arch value of the tool bar", "東京23区の一般社員の宿泊費"). A name
    alone does not look a row up — a package list's row for virtualbox is not an answer about virtualbox — nor does
    a name several rows share (coreutils, one row per command)."""
    if kind in UNLOOKED:
        return set()
    values = {_folded(value) for value in lookup_values(question)}
    names = set(key_terms(question, query_tokens))
    written = _folded(question)
    asked = set(query_tokens)
    by_value: set[int] = set()
    by_name: dict[int, list[int]] = {}
    for index, unit in enumerate(units):
        if unit.kind != ROW:
            continue
        cells = row_cells(unit.text)
        folded = [_folded(cell) for _, cell in cells]
        if any(cell in values for cell in folded):
            by_value.add(index)
        elif any(
            (cell in names or _written_name(cell, written))
            and any(_named_column(header, asked, analyzer) for other, (header, _) in enumerate(cells) if other != position)
            for position, cell in enumerate(folded)
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
    question: str,
    hits: Sequence[Hit],
    units: Sequence[Unit],
    query_vector: np.ndarray,
    query_tokens: list[str],
    embedder: Embedder,
    analyzer: Analyzer,
    weights: Mapping[str, float] | None = None,
    rank_prior: bool = True,
) -> list[ScoredUnit]:
    """Score each unit against the question; `rank_prior` adds the small bonus for the hit's retrieval rank.

    The reranker turns the rank prior off: it exists to overrule retrieval order.
    """
    if not units:
        return []
    contexts = [section_context(hits[u.hit_index]) for u in units]
    vectors = embedder.embed([unit_text(c, u.text) for c, u in zip(contexts, units, strict=True)])
    similarities = vectors @ np.asarray(query_vector, dtype=np.float32)
    kind = question_type(question)
    # "which command lists how long each unit took?" asks for the command: its "how long" describes what the command does
    quantity = wants_quantity(question) and kind not in NAMED_KINDS
    asked_language = query_language(question)
    languages = {i: text_language(hits[i].chunk.text) for i in {u.hit_index for u in units}}
    codes = identifiers(query_tokens)
    quoted = [_folded(phrase) for phrase in quoted_phrases(question)]
    lookups = looked_up_rows(units, question, kind, query_tokens, analyzer)
    keys = rare_key_terms(question, query_tokens, weights)
    chunk_tokens = {i: set(analyzer(hits[i].chunk.embed_text)) for i in {u.hit_index for u in units}} if keys else {}
    key_share = {i: keyword_coverage(keys, held, weights) for i, held in chunk_tokens.items()}
    names_subject = _names_subject(question, _subjects(question, keys, weights, analyzer), weights, hits, chunk_tokens,
                                   {u.hit_index for u in units})
    scored = []
    for index, (unit, context, similarity) in enumerate(zip(units, contexts, similarities, strict=True)):
        unit_tokens = set(analyzer(f"{context} {unit.text}"))
        coverage = keyword_coverage(query_tokens, unit_tokens, weights)
        score = float(similarity) + COVERAGE_WEIGHT * coverage
        if rank_prior:
            score += RANK_BONUS * (RANK_DEPTH - unit.hit_index)
        if codes:
            score += IDENTIFIER_BONUS * len(codes & unit_tokens) / len(codes)
        if quoted:
            written = _folded(f"{context} {unit.text}")
            score += QUOTED_BONUS * sum(phrase in written for phrase in quoted) / len(quoted)
        looked_up = index in lookups
        if looked_up:
            score += LOOKUP_BONUS
        if quantity and states_number(unit.text):
            score += QUANTITY_BONUS
        if _LEAD_IN.search(unit.text):
            score -= LEAD_IN_PENALTY
        typed = kind not in CHECKABLE or looked_up or holds_type(unit.text, kind, code=unit.kind == CODE, question=question, row=unit.kind == ROW)
        if kind in CHECKABLE:
            score += TYPE_BONUS if typed else -TYPE_PENALTY
        if unit.kind == CODE and kind in (AnswerType.COMMAND, AnswerType.OPTION):
            score += CODE_BONUS
        score += KEY_TERM_BONUS * key_share.get(unit.hit_index, 0.0)
        language = languages[unit.hit_index] if unit.kind != PROSE else text_language(unit.text)
        if language == asked_language:
            score += LANGUAGE_BONUS
        scored.append(
            ScoredUnit(unit, float(similarity), coverage, score, typed, language, names_subject.get(unit.hit_index, True), looked_up),
        )
    return scored
