"""One question, end to end: retrieve → rerank → grade → generate → check citations → policy → trace.

`Bunko.ask` and `Bunko.ask_stream` are thin calls into `Answerer`, and so are
the HTTP server and the evaluation runner, so every caller gets the same
answer, the same guardrails and the same trace.

Whatever the generator, its output goes through one sentence pipeline: split
into sentences, each sentence's ``[n]`` markers checked against the chunks
they name, the policy applied (strict drops what is not supported, masks
personal data), and the kept sentences rendered with citation numbers in
order of first use. Streaming runs the same pipeline sentence by sentence,
so what a user watches appear is exactly the final ``Answer.text``.

Each stage hands back a typed output (`bunko.trace`: `Evidence` with its
`Grade`, `LLMGrade`, `Generation`); `run` alone puts them into the `Trace`
that is attached to the answer and saved.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from bunko.config import Config
from bunko.embed.base import Embedder, embed_queries
from bunko.generate.analysis import Analysis, analyze, certain
from bunko.generate.citation_marks import CitationNumbers, render_sentence, separator
from bunko.generate.citations import SUPPORTED, UNCITED, CheckedSentence, CitationChecker, parse_sentences
from bunko.generate.confidence import REVIEW_BELOW, ConfidenceModel, load_confidence
from bunko.generate.conversation import Turn, condense
from bunko.generate.crag import NOT_FOUND, REWRITE, llm_grade
from bunko.generate.expansion import expanded, feedback_terms, hypothetical_passage
from bunko.generate.extractive import ExtractiveGenerator, citation_for
from bunko.generate.grade import grade_answer, unnamed_key_terms
from bunko.generate.guardrails import STANDARD, guard_text, mask_pii, masks_personal_data, regulated_notices, source_date
from bunko.generate.kind_classifier import KindClassifier
from bunko.generate.language import abstain_message, cited_languages, cross_language_note, direct_reply, is_abstention
from bunko.generate.prompts import build_messages, critique_prompt, prompt_overhead
from bunko.generate.recall import recall
from bunko.generate.retrieval_grade import RETRIEVAL_THRESHOLD, junction_pairs
from bunko.generate.table_answer import TableAnswerer
from bunko.llm.base import ChatModel, LLMError, Message, estimate_tokens, reported_usage
from bunko.rerank.base import Reranker, RerankQuery
from bunko.rerank.budget import fit_budget
from bunko.rerank.dedup import dedup_hits
from bunko.rerank.evidence import ScoredUnit
from bunko.rerank.light import CachingEmbedder
from bunko.rerank.memo import CachingAnalyzer, UnitSplitter
from bunko.rerank.registry import build_reranker
from bunko.rerank.unit_vectors import UnitVectorFile
from bunko.retrieve.base import read_term_weights
from bunko.retrieve.key_terms import key_terms, unlisted_words
from bunko.retrieve.searcher import Searcher, SearchResult
from bunko.retrieve.table_route import TABLE
from bunko.schema import Answer, AnswerSentence, Hit, to_dict
from bunko.store.base import Store
from bunko.text.analyzers import Analyzer, query_text
from bunko.text.injection import escape_control, looks_like_instruction, neutralise
from bunko.text.languages import query_language as detect_language
from bunko.text.units import readable_row
from bunko.trace import (
    CONDENSE_STAGE,
    AgentStep,
    Condensed,
    Evidence,
    Generation,
    Grade,
    LLMGrade,
    Trace,
    TracedHit,
    Usage,
    total_usage,
)

TOKEN_MARGIN = 64
"""Tokens kept free beyond the estimate: chat templates add role markers the estimate does not see."""

@dataclass
class Retrieved:
    """Retrieval, rerank and the score grade for one query, with what generation still needs (vector, scored units)."""

    query: str
    result: SearchResult
    query_vector: np.ndarray
    weights: dict[str, float]
    candidates: list[Hit]
    hits: list[Hit]
    duplicates: list[str]
    grade: Grade
    scored: list[ScoredUnit] = field(default_factory=list)
    """The hits' quotable units, scored against the query: what the grade judged and the extractive answer quotes."""
    rerank_notes: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    instructs: Callable[[str], bool] = looks_like_instruction
    """How a chunk is flagged as addressing a model in the trace: `looks_like_instruction` or the answerer's memo of it."""

    def record(self) -> Evidence:
        """The stage output the trace keeps (no vectors, no chunk text but the one unit the grade judged)."""
        route = asdict(self.result.route) if self.result.route else {}
        return Evidence(
            query=self.query, route={"mode": self.result.mode, **route}, query_tokens=self.result.query_tokens,
            candidates=[traced_hit(h, self.instructs) for h in self.candidates], hits=[traced_hit(h, self.instructs) for h in self.hits],
            grade=self.grade,
            duplicates_dropped=self.duplicates, rerank_notes=self.rerank_notes, timings=self.timings,
        )


def traced_hit(hit: Hit, instructs: Callable[[str], bool] = looks_like_instruction) -> TracedHit:
    return TracedHit(
        hit.chunk.chunk_id, hit.chunk.source, hit.chunk.section_path, hit.score, hit.distance, hit.signals.to_dict(),
        instructs(hit.chunk.text),
    )


LOOKUP_EVIDENCE_RANK = 3
"""A cell is read as the answer when its row's chunk is among this many best hits, or when the passages could not
answer (the grade is insufficient): on real manuals a table that merely shares a word with the question ("root",
GNOME, 端口) otherwise answered questions the passages answered right (7 of the Debian Reference set's 120 at 78d15ac)."""
LOOKUP_SURE_SCORE = 3.0
"""…or when the question names the cell this plainly: its row, its column and its sheet (`TablePlanner.plan_lookup`'s
score; row and column alone score about 1.8–2.6, the sheet adds 2)."""


class Answerer:
    """The answer pipeline over one collection's store, searcher and config; models are loaded once."""

    def __init__(
        self, store: Store, searcher: Searcher, embedder: Embedder, analyzer: Analyzer, config: Config,
        chat_model: ChatModel | None = None, reranker: Reranker | None = None, confidence: ConfidenceModel | None = None,
        tables: TableAnswerer | None = None, unit_vectors: UnitVectorFile | None = None,
    ) -> None:
        """`tables` answers aggregate questions from the collection's tables (the table route); without it they are
        answered from the passages like any other. `unit_vectors`: the collection's stored unit vectors, which spare
        the reranker and the extractive answer embedding the units at every question."""
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
        self.extractive = ExtractiveGenerator(self.embedder, self.analyzer, config.answer.max_sentences, self.split)
        self.confidence = confidence or load_confidence(config.answer.confidence)
        self._kind_classifier: KindClassifier | None = None

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

    def condense(self, question: str, history: Sequence[Turn] | None) -> Condensed | None:
        """The question to search for `question` asked after `history`; None when there is no history to read."""
        if not history:
            return None
        setting = self.config.answer.condense
        if setting == "off":
            return Condensed(question, question, "condensing is off", history_turns=len(history))
        condensed = condense(history, question, self.analyzer, self.chat_model if setting == "auto" else None)
        if condensed.usage is not None:
            condensed.usage = self._priced(condensed.usage)
        return condensed

    # -- retrieval ----------------------------------------------------------
    def evidence(
        self, query: str, filters: Mapping[str, Any] | None, k: int, mode: str | None = None, judged_as: str | None = None,
    ) -> Retrieved:
        """Search with `query`; rerank and grade against `judged_as` (the question, when `query` is its rewrite or
        expansion: added words must not make the evidence look better than it is)."""
        question = judged_as or query
        result, vector, weights, kept, duplicates, notes, timings = self._reranked(query, filters, k, mode, judged_as)
        return self._judged(question, result, vector, weights, kept[:k], duplicates, notes, filters, k, timings)

    def _reranked(
        self, query: str, filters: Mapping[str, Any] | None, k: int, mode: str | None, judged_as: str | None,
        question_part: bool = False,
    ) -> tuple[SearchResult, np.ndarray, dict[str, float], list[Hit], list[str], list[str], dict[str, float]]:
        """Search and rerank, not yet graded: a part of a several-part question needs only its best hits."""
        timings: dict[str, float] = {}
        started = time.perf_counter()
        depth = max(k, self.config.rerank.candidates) if self.reranker.name != "none" else k
        result = self.searcher.search(query, k=depth, where=filters, mode=mode, question_part=question_part)
        question = judged_as or query
        if judged_as is not None:
            result.query_tokens = self.analyzer(query_text(question))
            result.term_weights = None
            if judged_as != query:  # the searcher embedded `query` the same way: a part judged as itself keeps it
                result.query_vector = None
        vector = result.query_vector if result.query_vector is not None else embed_queries(self.embedder, [question])[0]
        if result.term_weights is None or result.unseen_idf is None:
            result.term_weights, result.unseen_idf = read_term_weights(self.store, result.query_tokens)
        weights = result.term_weights
        timings["search"] = time.perf_counter() - started
        for name, seconds in result.timings.items():
            timings[f"search.{name}"] = seconds

        started = time.perf_counter()
        reranked = self.reranker.rerank(RerankQuery(question, vector, result.query_tokens, weights), result.hits)
        kept, duplicates = dedup_hits(reranked, self.analyzer, self.config.rerank.dedup_similarity)
        timings["rerank"] = time.perf_counter() - started
        notes = list(getattr(self.reranker, "failures", []))
        return result, vector, weights, kept, duplicates, notes, timings

    def _judged(
        self, question: str, result: SearchResult, vector: np.ndarray, weights: dict[str, float], hits: list[Hit],
        duplicates: list[str], notes: list[str], filters: Mapping[str, Any] | None, k: int, timings: dict[str, float],
    ) -> Retrieved:
        """The grade of `hits` as evidence for `question`."""
        started = time.perf_counter()
        tokens = result.query_tokens
        scored = self.extractive.score_units(question, hits, vector, tokens, weights)
        keys = key_terms(question, tokens)
        unnamed = [word for word in unlisted_words(question, tokens) if word not in keys]
        missing = [term for term in [*keys, *unnamed] if not self.store.keyword_search([term], 1, filters)]
        keys += [word for word in unnamed if word in missing]
        verdict = grade_answer(
            question, tokens, hits, scored, keys, missing, self.analyzer, weights, self.confidence,
            self.min_confidence(detect_language(question)),
            retrieved=result.hits[:k], unseen=junction_pairs(question, tokens, weights, result.unseen_idf),
        )
        timings["grade"] = time.perf_counter() - started
        return Retrieved(question, result, vector, weights, result.hits, hits, duplicates, verdict, scored, notes, timings,
                         self.split.addresses_model)

    # -- the agent's steps around retrieval (config [agent]) --------------------------------------
    def _analysis(self, question: str, steps: list[AgentStep], asked: str | None = None) -> Analysis | None:
        if not self.config.agent.analysis:
            return None
        started = time.perf_counter()
        model = self.chat_model if self.config.agent.llm_analysis else None
        analysis = analyze(question, self.analyzer, asked, self.kind_classifier, model)
        output: dict[str, Any] = {"kind": analysis.kind, "reason": analysis.reason, "parts": analysis.parts}
        if analysis.request is not None:
            output["request"] = analysis.request
        if analysis.classifier is not None:
            output.update({"rule_kind": analysis.rule_kind, "classifier": analysis.classifier, "decided_by": analysis.decided_by})
        if analysis.llm is not None:
            output.update({"rule_kind": analysis.rule_kind, "llm": analysis.llm, "decided_by": analysis.decided_by})
        steps.append(AgentStep("analysis", asked or question, output, time.perf_counter() - started))
        return analysis

    def _retrieved(
        self, question: str, filters: Mapping[str, Any] | None, k: int, mode: str | None, analysis: Analysis | None,
        steps: list[AgentStep],
    ) -> Retrieved:
        """The question's evidence; for a multi-part or comparison question (`[agent] decompose`), each part's best
        passages interleaved into it, judged against the whole question."""
        whole = self.evidence(question, filters, k, mode)
        if analysis is None or not analysis.parts or not self.config.agent.decompose:
            return whole
        started = time.perf_counter()
        # each part's best hits only: its own grade would be thrown away, the merged hits are graded against the whole
        per_part = [self._reranked(part, filters, k, mode, judged_as=part, question_part=True)[3][:k] for part in analysis.parts]
        merged: dict[str, Hit] = {}
        for rank in range(k):
            for hits in [whole.hits, *per_part]:
                if rank < len(hits):
                    merged.setdefault(hits[rank].chunk.chunk_id, hits[rank])
        hits = list(merged.values())[: k + len(per_part)]
        whole_ids = {h.chunk.chunk_id for h in whole.hits}
        judged = self._judged(question, whole.result, whole.query_vector, whole.weights, hits, whole.duplicates,
                              whole.rerank_notes, filters, k, dict(whole.timings))
        steps.append(AgentStep("decompose", question, {
            "parts": analysis.parts, "added": [h.chunk.chunk_id for h in hits if h.chunk.chunk_id not in whole_ids],
            "confidence": {"whole": whole.grade.confidence, "merged": judged.grade.confidence},
        }, time.perf_counter() - started))
        return judged

    def _second_search(
        self, question: str, evidence: Retrieved, filters: Mapping[str, Any] | None, k: int, mode: str | None,
        steps: list[AgentStep],
    ) -> Retrieved | None:
        """`[agent] rewrite` prf or hyde: one more search when the grade found the evidence insufficient; its result
        is kept only when its own grade (against the question) says sufficient."""
        method = self.config.agent.rewrite
        started = time.perf_counter()
        detail: dict[str, Any]
        if method == "prf":
            terms = feedback_terms(evidence.result.query_tokens, evidence.hits, self.analyzer, self.store.term_weights,
                                   self.config.agent.expansion_terms)
            query, detail = expanded(question, terms), {"terms": terms}
        elif method == "hyde" and self.chat_model is not None:
            try:
                passage = hypothetical_passage(self.chat_model, question)
            except LLMError as exc:
                steps.append(AgentStep("rewrite", question, {"method": method, "error": str(exc)}, time.perf_counter() - started))
                return None
            query, detail = f"{question}\n{passage}", {"passage": passage}
        else:
            return None
        retried = self.evidence(query, filters, k, mode, judged_as=question)
        kept = retried.grade.sufficient and retried.grade.reason is None
        steps.append(AgentStep("rewrite", question, {
            "method": method, **detail, "query": query, "confidence": {"before": evidence.grade.confidence, "after": retried.grade.confidence},
            "kept": kept,
        }, time.perf_counter() - started))
        return retried if kept else None

    def _critiqued(
        self, question: str, pipeline: _SentencePipeline, generation: Generation, steps: list[AgentStep],
    ) -> _SentencePipeline:
        """`[agent] critique`: the sentences the citation check rejected are named to the model, which writes the answer
        once more; the new answer is kept when the check rejects fewer of its sentences and supports as many."""
        rejected = [v["text"] for v in pipeline.verdicts if v.get("verdict") not in (SUPPORTED, "abstention")]
        if not rejected or self.chat_model is None or generation.prompt is None:
            return pipeline
        started = time.perf_counter()
        messages = [*generation.prompt, {"role": "assistant", "content": pipeline.raw},
                    {"role": "user", "content": critique_prompt(rejected)}]
        try:
            output = self.chat_model.complete(messages)
        except LLMError as exc:
            steps.append(AgentStep("critique", question, {"rejected": rejected, "error": str(exc)}, time.perf_counter() - started))
            return pipeline
        second = _SentencePipeline(self, pipeline.hits, pipeline.language)
        list(second.feed_text(iter([output]), stream=False))
        still = [v["text"] for v in second.verdicts if v.get("verdict") not in (SUPPORTED, "abstention")]
        better = len(still) < len(rejected) and _supported(second) >= _supported(pipeline)
        steps.append(AgentStep("critique", question, {"rejected": rejected, "rewritten": output, "still_rejected": still, "kept": better},
                               time.perf_counter() - started))
        if not better:
            return pipeline
        generation.raw_output = second.raw
        generation.usage = total_usage([generation.usage, self._priced(token_usage(self.chat_model, messages, second.raw))])
        return second

    def _direct(
        self, question: str, language: str, analysis: Analysis, steps: list[AgentStep], started: float, condensed: Condensed | None,
        history: Sequence[Turn] | None = None,
    ) -> Answer:
        """A greeting, a sum or a question about the conversation: answered without the documents, saying so, and
        traced like any answer."""
        timer = time.perf_counter()
        generation = Generation("none")
        output: dict[str, Any] = {"kind": analysis.kind}
        if analysis.kind == "conversation" and analysis.request is not None:
            model = self.chat_model if self.config.answer.generator != "extractive" else None
            recalled = recall(history, question, analysis.request, language, model)
            text = guard_text(recalled.text, self.config.answer.policy, language)  # a model's recall may repeat what was masked
            output.update({"request": recalled.request, "history_turns": recalled.history_turns, "quoted": recalled.quoted,
                           "used_llm": recalled.raw is not None and recalled.llm_error is None})
            if recalled.llm_error:
                output["llm_error"] = recalled.llm_error
            if recalled.prompt is not None and model is not None:
                generation = Generation(model.name, prompt=recalled.prompt, raw_output=recalled.raw)
                if recalled.raw is not None:
                    generation.usage = self._priced(token_usage(model, recalled.prompt, recalled.raw))
        else:
            text = direct_reply(language, analysis.kind, analysis.value)
        answer = Answer(question=question, text=text, sentences=[], abstained=False, confidence=1.0,
                        trace_id=uuid.uuid4().hex[:16], language=language, policy=self.config.answer.policy)
        output["text"] = text
        steps.append(AgentStep("direct_answer", question, output, time.perf_counter() - timer))
        empty = Evidence(question, {"mode": "none", "reason": analysis.reason}, [], [], [], Grade(True, 1.0))
        answer.trace = Trace(
            question=question, trace_id=answer.trace_id, language=language, policy=self.config.answer.policy,
            reranker=self.reranker.name, evidence=empty, generation=generation, steps=steps, condensed=condensed,
            answer=to_dict(answer),
            stage_timings={"total": time.perf_counter() - started},
        )
        self.store.save_trace(answer.trace_id, question, answer.trace.to_dict())
        return answer

    # -- the pipeline -------------------------------------------------------
    def run(
        self, question: str, filters: Mapping[str, Any] | None = None, k: int | None = None, stream: bool = False,
        mode: str | None = None, history: Sequence[Turn] | None = None,
    ) -> Iterator[str | Answer]:
        """From here on `question` is what is searched (a follow-up made standalone); `asked` is what the user asked,
        whose language the answer takes and which the answer and the trace keep."""
        started = time.perf_counter()
        config = self.config.answer
        k = k or self.searcher.config.k
        stage_timings: dict[str, float] = {}
        direct = self.config.agent.analysis and self.config.agent.retrieve_or_not and certain(question) is not None
        asked, condensed = question, None if direct else self.condense(question, history)  # nothing to search for
        if condensed is not None:
            question = condensed.standalone
            stage_timings[CONDENSE_STAGE] = time.perf_counter() - started
        language = detect_language(asked)
        steps: list[AgentStep] = []
        analysis = self._analysis(question, steps, asked)
        if analysis is not None and not analysis.retrieves and self.config.agent.retrieve_or_not:
            answer = self._direct(asked, language, analysis, steps, started, condensed, history)
            if stream:
                yield answer.text
            yield answer
            return
        first = evidence = self._retrieved(question, filters, k, mode, analysis, steps)
        computed = self._table_answer(question, language, filters, evidence, steps)
        if computed is None and self.generator_name == "extractive":  # a model reads the row from the passages itself
            computed = self._table_lookup(question, language, filters, steps, evidence, asked if condensed is not None else None)
        if computed is not None:
            answer = yield from self._computed(asked, language, evidence, computed, stream, steps, started, stage_timings, condensed, filters)
            yield answer
            return
        abstain_reason = None if evidence.hits else "no_hits"

        graded: LLMGrade | None = None
        if self.chat_model is not None and config.llm_grader and evidence.hits:
            timer = time.perf_counter()
            graded = llm_grade(self.chat_model, question, evidence.hits)
            stage_timings["llm_grade"] = time.perf_counter() - timer
            if graded.usage is not None:
                graded.usage = self._priced(graded.usage)
            if graded.verdict == REWRITE and graded.query:
                evidence = self.evidence(graded.query, filters, k, mode)
                abstain_reason = None if evidence.hits else "no_hits"
            elif graded.verdict == NOT_FOUND:
                abstain_reason = "llm_grade_not_found"
        if abstain_reason is None and evidence.grade.reason:
            abstain_reason = evidence.grade.reason
        if abstain_reason is None and not evidence.grade.sufficient:
            abstain_reason = "low_confidence"
        if abstain_reason == "low_confidence" and evidence is first:
            retried = self._second_search(question, evidence, filters, k, mode, steps)
            if retried is not None:
                evidence, abstain_reason = retried, None

        hits = evidence.hits
        pipeline = _SentencePipeline(self, hits, language)
        generation = Generation(self.generator_name)
        timer = time.perf_counter()
        if abstain_reason is None:
            if self.generator_name == "extractive":
                yield from pipeline.feed_checked(self._extractive(question, evidence), stream)
            else:
                try:
                    yield from self._generate(question, hits, language, pipeline, generation, stream)
                except LLMError as exc:
                    if pipeline.raw:  # part of the model's answer is already out: nothing to fall back to
                        raise
                    generation.generator, generation.fallback, pipeline.hits = "extractive", str(exc), hits
                    yield from pipeline.feed_checked(self._extractive(question, evidence), stream)
        if not stream and generation.mode == "llm" and generation.prompt and self.config.agent.critique:
            pipeline = self._critiqued(question, pipeline, generation, steps)
        generation.timings = {"generate": time.perf_counter() - timer - pipeline.check_seconds, "check": pipeline.check_seconds}
        generation.sentences, generation.removed, generation.pii_masked = pipeline.verdicts, pipeline.removed, dict(pipeline.masked)
        if abstain_reason is None and not pipeline.kept:
            abstain_reason = "model_abstained" if pipeline.model_abstained else "no_supported_sentence"

        if masks_personal_data(config.policy):
            guard_trace_texts(generation, graded, steps, config.policy, language, [first.grade, evidence.grade])
        self._cite_cells(pipeline)
        answer = self._finish(asked, language, evidence, pipeline, abstain_reason)
        if stream:
            tail = answer.text[len(pipeline.text):] if answer.text.startswith(pipeline.text) else ""
            if tail:
                yield tail
        stage_timings["total"] = time.perf_counter() - started
        answer.trace = Trace(
            question=asked, trace_id=answer.trace_id, language=language, policy=config.policy, reranker=self.reranker.name,
            evidence=first.record(), generation=generation, filters=dict(filters or {}), llm_grade=graded,
            rewrite=evidence.record() if evidence is not first else None, abstain_reason=abstain_reason,
            answer=to_dict(answer), stage_timings=stage_timings, steps=steps, condensed=condensed,
        )
        self.store.save_trace(answer.trace_id, asked, answer.trace.to_dict())
        yield answer

    # -- the table route -----------------------------------------------------
    def _table_answer(
        self, question: str, language: str, filters: Mapping[str, Any] | None, evidence: Retrieved, steps: list[AgentStep],
    ) -> list[AnswerSentence] | None:
        """The computed answer when the router chose the table route and a table fits; the step says why not otherwise."""
        if self.tables is None or evidence.result.mode != TABLE:
            return None
        started = time.perf_counter()
        outcome, detail = self.tables.answer(question, language, filters)
        if outcome is not None and (unnamed := self._unnamed_by_table(question, evidence, outcome.sentences, detail)):
            outcome, detail = None, {**detail, "outcome": f"not used: the table does not name {', '.join(unnamed)}"}
        steps.append(AgentStep("table", question, detail, time.perf_counter() - started))
        return outcome.sentences if outcome is not None else None

    def _table_lookup(
        self, question: str, language: str, filters: Mapping[str, Any] | None, steps: list[AgentStep],
        evidence: Retrieved, follow_up: str | None = None,
    ) -> list[AnswerSentence] | None:
        """The table cell a question names by its row and column: read from the table, not quoted from a passage
        (a row cut from its header, a merged header, a long table's far rows are where passages fail). `follow_up`:
        the user's own words when `question` was made standalone from the conversation, whose column wins."""
        if self.tables is None:
            return None
        started = time.perf_counter()
        outcome, detail = self.tables.lookup(question, language, filters, focus=follow_up)
        leading = {hit.chunk.chunk_id for hit in evidence.hits[:LOOKUP_EVIDENCE_RANK]}
        cited = {c.chunk_id for s in outcome.sentences for c in s.citations} if outcome is not None else set()
        sure = float(detail.get("score", 0.0)) >= LOOKUP_SURE_SCORE
        if outcome is not None and (unnamed := self._unnamed_by_table(question, evidence, outcome.sentences, detail)):
            outcome, detail = None, {**detail, "outcome": f"not used: the table does not name {', '.join(unnamed)}"}
        if outcome is not None and evidence.grade.sufficient and not cited & leading and not sure:
            # a table that shares a word with the question ("root", GNOME, 端口) is not the evidence the search found,
            # and the passages that are can answer
            outcome, detail = None, {**detail, "outcome": f"not used: the row is not among the top {LOOKUP_EVIDENCE_RANK} hits"}
        steps.append(AgentStep("table_lookup", question, detail, time.perf_counter() - started))
        return outcome.sentences if outcome is not None else None

    def _unnamed_by_table(
        self, question: str, evidence: Retrieved, sentences: list[AnswerSentence], detail: Mapping[str, Any],
    ) -> list[str]:
        """The question's rare key terms that neither the table (source, title, section, columns) nor the cells the
        answer read name (`unnamed_key_terms`)."""
        table = detail.get("table") or {}
        named = [str(table.get("title") or ""), str(table.get("sheet") or ""), str(table.get("source") or "")]
        for sentence in sentences:
            for citation in sentence.citations:
                named += [citation.source, " ".join(citation.section_path), citation.quote]
                named += [f"{cell.column} {cell.text}" for cell in citation.cells]
        return unnamed_key_terms(question, evidence.result.query_tokens, evidence.weights, self.analyzer, "\n".join(named))

    def _computed(
        self, asked: str, language: str, evidence: Retrieved, sentences: list[AnswerSentence], stream: bool, steps: list[AgentStep],
        started: float, stage_timings: dict[str, float], condensed: Condensed | None, filters: Mapping[str, Any] | None,
    ) -> Generator[str, None, Answer]:
        """An answer computed from a table: its sentences are the evidence itself (the cells they cite), so they are
        not checked against passages, and the grade the trace keeps is the table's (confidence 1, the passages'
        own confidence kept beside it)."""
        timer = time.perf_counter()
        pipeline = _SentencePipeline(self, evidence.hits, language)
        yield from pipeline.feed_computed(sentences, stream)
        retrieval = evidence.grade
        evidence.grade = Grade(True, 1.0, "table", {**retrieval.features, "retrieval_confidence": retrieval.confidence}, retrieval.key_terms,
                               retrieval.missing_key_terms)
        generation = Generation("table")
        generation.sentences = pipeline.verdicts
        generation.timings = {"generate": time.perf_counter() - timer, "check": 0.0}
        if masks_personal_data(self.config.answer.policy):
            guard_trace_texts(generation, None, steps, self.config.answer.policy, language)
        answer = self._finish(asked, language, evidence, pipeline, None)
        stage_timings["total"] = time.perf_counter() - started
        answer.trace = Trace(
            question=asked, trace_id=answer.trace_id, language=language, policy=self.config.answer.policy, reranker=self.reranker.name,
            evidence=evidence.record(), generation=generation, filters=dict(filters or {}), answer=to_dict(answer),
            stage_timings=stage_timings, steps=steps, condensed=condensed,
        )
        self.store.save_trace(answer.trace_id, asked, answer.trace.to_dict())
        return answer

    def _cite_cells(self, pipeline: _SentencePipeline) -> None:
        """A sentence quoting a table row cites that row's cells (a lookup: "the hotel limit for London")."""
        if self.tables is None:
            return
        table_chunks = {h.chunk.chunk_id for h in pipeline.hits if "table" in h.chunk.kinds}
        for sentence in pipeline.kept:
            for citation in sentence.citations:
                if citation.chunk_id in table_chunks and not citation.cells:
                    citation.cells = self.tables.cells_for_quote(citation)

    def _generate(
        self, question: str, hits: list[Hit], language: str, pipeline: _SentencePipeline, generation: Generation, stream: bool,
    ) -> Iterator[str]:
        """The chat model's answer over the evidence that fits its window, through the sentence pipeline."""
        hits = self._budget(question, hits, language)
        pipeline.hits = hits
        messages = build_messages(question, hits, language, self.config.answer.max_sentences)
        assert self.chat_model is not None
        deltas = self.chat_model.stream(messages) if stream else iter([self.chat_model.complete(messages)])
        yield from pipeline.feed_text(deltas, stream)
        generation.prompt = messages
        generation.raw_output = pipeline.raw
        generation.usage = self._priced(token_usage(self.chat_model, messages, pipeline.raw))
        generation.budget = [h.chunk.chunk_id for h in hits]

    def _priced(self, usage: Usage) -> Usage:
        return usage.priced(self.config.llm.prompt_price_per_1k, self.config.llm.completion_price_per_1k)

    def _extractive(self, question: str, evidence: Retrieved) -> list[CheckedSentence]:
        sentences = self.extractive.answer(question, evidence.hits, evidence.scored)
        index = {h.chunk.chunk_id: i + 1 for i, h in enumerate(evidence.hits)}
        language = detect_language(question)
        pairs = [(readable_row(s.text, language), [index[c.chunk_id] for c in s.citations]) for s in sentences]
        checked = self.checker.check_sentences(pairs, evidence.hits)
        for item, sentence in zip(checked, sentences, strict=True):
            item.quotes = {index[c.chunk_id]: c.quote for c in sentence.citations}
        return checked

    def _budget(self, question: str, hits: list[Hit], language: str) -> list[Hit]:
        """Evidence that fits `context_chars` and the model's window after the prompt and the answer."""
        model = self.chat_model
        assert model is not None
        count = getattr(model, "count_tokens", None) or estimate_tokens
        overhead = count(prompt_overhead(question, language, self.config.answer.max_sentences))
        per_block = 24  # the fence and its location line
        room = model.context_tokens - self.config.llm.max_tokens - overhead - TOKEN_MARGIN - per_block * len(hits)
        return fit_budget(hits, self.config.answer.context_chars, max(room, 0), count)

    def _finish(
        self, question: str, language: str, evidence: Retrieved, pipeline: _SentencePipeline, abstain_reason: str | None,
    ) -> Answer:
        config = self.config.answer
        policy = config.policy
        confidence = evidence.grade.confidence
        sentences = pipeline.kept if abstain_reason is None else []
        abstained = not sentences
        text = abstain_message(language) if abstained else pipeline.text
        needs_review = False
        notices: list[str] = []
        if not abstained:
            note = self._language_note(language, sentences, pipeline.hits)
            if note:
                notices.append(note)
                text = text + ("\n\n" if "\n" in text else " ") + note
        if policy == "regulated":
            needs_review = confidence < self.review_below(language) or bool(pipeline.removed)
            if not abstained:
                dates = self._source_dates(sentences)
                notices = regulated_notices(language, dates, needs_review)
                text = text + "\n\n" + "\n".join(notices)
        return Answer(
            question=question, text=text, sentences=sentences, abstained=abstained, confidence=confidence,
            trace_id=uuid.uuid4().hex[:16], language=language, needs_review=needs_review, notices=notices, policy=policy,
        )

    @staticmethod
    def _language_note(language: str, sentences: list[AnswerSentence], hits: list[Hit]) -> str | None:
        """Cross-language evidence is used only when nothing in the question's language answered; the answer says so."""
        cited = {c.chunk_id for s in sentences for c in s.citations}
        languages = cited_languages(sentences, {h.chunk.chunk_id: h.chunk.text for h in hits if h.chunk.chunk_id in cited})
        return cross_language_note(language, languages) if languages and language not in languages else None

    def _source_dates(self, sentences: list[AnswerSentence]) -> dict[str, str]:
        documents = {d.source: d for d in self.store.documents()}
        dates: dict[str, str] = {}
        for sentence in sentences:
            for citation in sentence.citations:
                doc = documents.get(citation.source)
                day = source_date(doc.meta.get("fields") if doc else None, doc.ingested_at if doc else None)
                citation.updated = day
                if day:
                    dates.setdefault(citation.source, day)
        return dates


def guard_trace_texts(
    generation: Generation, graded: LLMGrade | None, steps: list[AgentStep], policy: str, language: str,
    grades: Sequence[Grade] = (),
) -> None:
    """The document text a trace keeps (prompt, model output, checked and removed sentences, what the agent steps
    wrote and rejected, the unit each grade judged) as the policy lets the answer out: a stored trace is an output
    too (`bunko trace`, HTTP ``traces/{id}``)."""

    def guard(text: str) -> str:
        return guard_text(text, policy, language)

    def guard_value(value: Any) -> Any:
        if isinstance(value, str):
            return guard(value)
        if isinstance(value, list):
            return [guard_value(v) for v in value]
        if isinstance(value, dict):
            return {k: guard_value(v) for k, v in value.items()}
        return value

    for step in steps:
        step.output = guard_value(step.output)

    generation.sentences = [{**v, "text": guard(v["text"])} if isinstance(v.get("text"), str) else v for v in generation.sentences]
    generation.removed = [guard(text) for text in generation.removed]
    if generation.raw_output is not None:
        generation.raw_output = guard(generation.raw_output)
    if generation.prompt is not None:
        generation.prompt = [{**m, "content": guard(m["content"])} if isinstance(m.get("content"), str) else m for m in generation.prompt]
    if graded is not None:
        graded.raw = guard(graded.raw)
    for grade in grades:
        grade.quoted = guard(grade.quoted)


def token_usage(model: ChatModel, messages: Sequence[Message], output: str) -> Usage:
    """The model's own token counts when it reported them, else a (high) estimate, marked as such."""
    reported = reported_usage(model)
    if reported is not None:
        return reported
    return Usage(sum(estimate_tokens(str(m.get("content", ""))) for m in messages), estimate_tokens(output), estimated=True)


def _supported(pipeline: _SentencePipeline) -> int:
    return sum(1 for v in pipeline.verdicts if v.get("verdict") == SUPPORTED)


class _SentencePipeline:
    """Checks, filters, masks and renders sentences one at a time, so streaming and `ask` agree."""

    def __init__(self, answerer: Answerer, hits: list[Hit], language: str) -> None:
        self.answerer = answerer
        self.hits = hits
        self.language = language
        self.policy = answerer.config.answer.policy
        self.max_sentences = answerer.config.answer.max_sentences
        self.kept: list[AnswerSentence] = []
        self.numbers = CitationNumbers()
        self.text = ""
        self.raw = ""
        self.verdicts: list[dict[str, Any]] = []
        self.removed: list[str] = []
        self.masked: dict[str, int] = {}
        self.model_abstained = False
        self.check_seconds = 0.0

    def feed_checked(self, checked: list[CheckedSentence], stream: bool) -> Iterator[str]:
        for item in checked:
            piece = self._accept(item)
            if piece and stream:
                yield piece

    def feed_computed(self, sentences: list[AnswerSentence], stream: bool) -> Iterator[str]:
        """Sentences computed from a table: rendered with their citations, personal data masked as the policy says."""
        for sentence in sentences:
            self.verdicts.append({"text": sentence.text, "sources": [c.chunk_id for c in sentence.citations], "verdict": SUPPORTED})
            if masks_personal_data(self.policy):
                sentence.text, found = mask_pii(sentence.text, self.language)
                for kind, count in found.items():
                    self.masked[kind] = self.masked.get(kind, 0) + count
            previous = self.kept[-1] if self.kept else None
            piece = separator(previous, sentence, self.language) + render_sentence(sentence, self.numbers, self.language)
            self.kept.append(sentence)
            self.text += piece
            if stream:
                yield piece

    def feed_text(self, deltas: Iterator[str], stream: bool) -> Iterator[str]:
        """Sentences are final once the next one has begun (a trailing "[1]" still belongs to its sentence)."""
        done = 0
        for delta in deltas:
            self.raw += delta
            parsed = parse_sentences(self.raw)
            while done < len(parsed) - 1:
                yield from self._one(parsed[done], stream)
                done += 1
        for pair in parse_sentences(self.raw)[done:]:
            yield from self._one(pair, stream)

    def _one(self, pair: tuple[str, list[int]], stream: bool) -> Iterator[str]:
        text, _ = pair
        if is_abstention(text):
            self.model_abstained = True
            self.verdicts.append({"text": text, "verdict": "abstention"})
            return
        timer = time.perf_counter()
        [item] = self.answerer.checker.check_sentences([pair], self.hits)
        self.check_seconds += time.perf_counter() - timer
        piece = self._accept(item)
        if piece and stream:
            yield piece

    def _accept(self, item: CheckedSentence) -> str:
        """Record the verdict; under strict/regulated drop what is not supported and mask personal data."""
        verdict = item.verdict if item.source_ids else UNCITED
        self.verdicts.append({
            "text": item.text, "sources": item.source_ids, "invalid_sources": item.invalid_ids, "lexical": item.lexical,
            "semantic": item.semantic, "numbers_ok": item.numbers_ok, "verdict": verdict,
        })
        guarded = self.policy != STANDARD
        if guarded and verdict != SUPPORTED:
            self.removed.append(item.text)
            return ""
        if len(self.kept) >= max(self.max_sentences * 2, self.max_sentences + 2):
            return ""  # a runaway model; the prompt asked for max_sentences
        text = neutralise(item.text)
        citations = [
            citation_for(self.hits[i - 1], escape_control(item.quotes.get(i, self.hits[i - 1].chunk.text))) for i in item.source_ids
        ]
        if masks_personal_data(self.policy):
            text, found = mask_pii(text, self.language)
            for citation in citations:
                citation.quote, quote_found = mask_pii(citation.quote, self.language)
                found.update(quote_found)
            for kind, count in found.items():
                self.masked[kind] = self.masked.get(kind, 0) + count
        sentence = AnswerSentence(text=text, citations=citations, support=item.support, verdict=verdict)
        previous = self.kept[-1] if self.kept else None
        piece = separator(previous, sentence, self.language) + render_sentence(sentence, self.numbers, self.language)
        self.kept.append(sentence)
        self.text += piece
        return piece
