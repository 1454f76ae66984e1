"""Is the evidence enough to answer? One `Grade`, from one of three confidences (``[answer] confidence``).

- ``fitted`` (the default): the probability that the answer the reader would quote is right — `AnswerFeatures` of
  that unit (the reader's rating, its lead over other documents, the retrieval grade, key terms present) through the
  `ConfidenceModel` fitted by ``bench/fit_reader.py``, judged on corpora left out of its fit.
- ``calibrated``: the retrieval grade below alone, mapped onto the same probability.
- ``retrieval``: the logistic over the top hits' similarity and keyword coverage
  (`bunko.generate.retrieval_grade`), centred on the samples, uncalibrated.

Either way the grade runs after the units are scored, traces the features of the unit that would be quoted, and
refuses a question whose key term no chunk holds, whose rarest key term the quoted chunk lacks (a passage naming only
the common things around the question's subject is not about it), or that asks for a kind of quantity (minutes, a
time of day, a month, a size, a percentage, a key combination: `bunko.text.dimensions`) the quoted unit and its
neighbours do not state. The same grade gates LLM generators, which answer from the same hits.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from bunko.generate.confidence import AnswerFeatures, ConfidenceModel, features_dict, typed_feature
from bunko.generate.retrieval_grade import grade_hits
from bunko.rerank.evidence import ScoredUnit, asks_beside_scene, best_unit
from bunko.retrieve.coverage import keyword_coverage
from bunko.retrieve.key_terms import names_term, rare_key_terms
from bunko.retrieve.question import QuestionFacts
from bunko.schema import Hit
from bunko.text.analyzers import Analyzer
from bunko.text.answer_types import AnswerType
from bunko.text.dimensions import asked_dimension, states_dimension
from bunko.trace import Grade

MAX_MARGIN = 0.3
"""A lead this large already means "no other document competes"; larger ones add nothing."""
KEY_TERM_ABSENT = "key_term_absent"
KEY_TERM_NOT_IN_EVIDENCE = "key_term_not_in_evidence"
QUANTITY_NOT_STATED = "quantity_not_stated"


def answer_features(
    question: QuestionFacts, hits: Sequence[Hit], scored: Sequence[ScoredUnit], keys: Sequence[str],
    analyzer: Analyzer, weights: Mapping[str, float] | None, retrieval: float = 0.0,
) -> AnswerFeatures | None:
    """Features of the best-scored unit; None when there is nothing to quote."""
    if not scored:
        return None
    language = question.language
    best = best_unit(scored, language)
    chunk = hits[best.unit.hit_index].chunk
    chunk_tokens = set(analyzer(chunk.embed_text))
    rivals = [s.score for s in scored if s.language == best.language and hits[s.unit.hit_index].chunk.source != chunk.source]
    margin = min(best.score - max(rivals), MAX_MARGIN) if rivals else MAX_MARGIN
    others = [s.score for s in scored if hits[s.unit.hit_index].chunk.source != chunk.source]
    return AnswerFeatures(
        similarity=best.similarity,
        coverage=best.coverage,
        chunk_coverage=keyword_coverage(question.tokens, chunk_tokens, weights),
        typed=typed_feature(question.kind, best.typed),
        key_terms=keyword_coverage(keys, chunk_tokens, weights) if keys else 1.0,
        margin=margin,
        same_language=float(best.language == language),
        retrieval=retrieval,
        japanese=float(language == "ja"),
        chinese=float(language == "zh"),
        reader=best.score,
        reader_margin=best.score - max(others) if others else best.score,
    )


def grade_answer(
    question: QuestionFacts, hits: Sequence[Hit], scored: Sequence[ScoredUnit], keys: Sequence[str],
    missing: Sequence[str], analyzer: Analyzer, weights: Mapping[str, float] | None, model: ConfidenceModel | None,
    min_confidence: float, retrieved: Sequence[Hit] = (), unseen: Collection[str] = (),
) -> Grade:
    """`model` None grades by the raw retrieval grade over `retrieved` (fusion order, the order its logistic was centred
    on); a model maps the features (for the calibrated grade, that retrieval grade alone) onto a probability."""
    kind = str(question.kind)
    graded = [t for t in question.tokens if t not in unseen]
    retrieval = grade_hits(list(retrieved), graded, weights, analyzer, min_confidence).confidence
    features = answer_features(question, hits, scored, keys, analyzer, weights, retrieval)
    if features is None:
        return Grade(False, 0.0, kind, {}, list(keys), list(missing))
    confidence = retrieval if model is None else model.probability(features)
    quoted = best_unit(scored, question.language)
    reason = None
    if missing:
        reason = KEY_TERM_ABSENT
    elif not quoted.names_subject and not asks_beside_scene(question, keys, analyzer):
        reason = KEY_TERM_NOT_IN_EVIDENCE
    elif kind == AnswerType.VALUE and (dimension := asked_dimension(question.text)) and not states_dimension(
        quoted_neighbourhood(quoted, scored), dimension,
    ):
        reason = QUANTITY_NOT_STATED
    confidence = 0.0 if reason else confidence
    return Grade(
        confidence >= min_confidence, round(confidence, 4), kind, dict(features_dict(features)), list(keys), list(missing), reason,
        quoted.unit.text,
    )


def unnamed_key_terms(
    question: QuestionFacts, weights: Mapping[str, float] | None, analyzer: Analyzer, evidence: str,
) -> list[str]:
    """The question's rare key terms (outside its examples) that `evidence` never names. A computed table answer must
    name every one: it reads only the rows and columns the plan chose, so a question about a thing the table does not
    hold ("which archive area is virtualbox in?" over a table of areas and package counts, "ext4's largest file" over
    a table of package sizes) gets a number about something else, with the certainty of a computation."""
    present = set(analyzer(evidence))
    return [term for term in rare_key_terms(question.named_outside_examples, weights) if not names_term(present, term)]


def quoted_neighbourhood(quoted: ScoredUnit, scored: Sequence[ScoredUnit]) -> str:
    """The quoted unit with the units just before and after it in its passage: where the number a quantity question
    asks for must stand (the sentence, or the code line or table row beside it)."""
    best = quoted.unit
    return "\n".join(
        s.unit.text for s in scored if s.unit.hit_index == best.hit_index and abs(s.unit.position - best.position) <= 1
    )
