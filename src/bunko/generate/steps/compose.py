"""Step 6: the answer's sentences, written by the extractive reader or the chat model, through the sentence
pipeline; a model's answer may be critiqued once (`[agent] critique`)."""

from __future__ import annotations

import time
from collections.abc import Generator, Iterator
from typing import TYPE_CHECKING

from bunko.generate.citations import SUPPORTED, CheckedSentence
from bunko.generate.prompts import build_messages, critique_prompt, prompt_overhead
from bunko.generate.sentence_pipeline import REPEATED, SentencePipeline, supported_count
from bunko.generate.steps.state import AskState, Composed, Gathered, Retrieved
from bunko.generate.usage import token_usage
from bunko.llm.base import LLMError, estimate_tokens, model_step_on
from bunko.rerank.budget import fit_budget
from bunko.schema import AnswerSentence, Hit
from bunko.text.units import readable_row
from bunko.trace import AgentStep, Generation, total_usage
from bunko.trace_steps import CritiqueStep

if TYPE_CHECKING:
    from bunko.generate.answerer import Answerer

TOKEN_MARGIN = 64
"""Tokens kept free beyond the estimate: chat templates add role markers the estimate does not see."""
TOKENS_PER_SENTENCE = 96
"""What one short answer sentence may take (about 70 English words, or 90 Japanese or Chinese characters)."""


def answer_tokens(answerer: Answerer) -> int:
    """The most tokens the model may write for an answer: the `[answer] max_sentences` it is asked for at
    `TOKENS_PER_SENTENCE` each, within `[llm] max_tokens`. A model that runs on past what it was asked for (a small
    local one repeating a line until the limit) costs time on every token, and the pipeline keeps at most twice
    the sentences asked for anyway: SmolLM2 writing to 512 tokens, twice with the critique, took minutes per answer
    on a busy 2-core machine."""
    config = answerer.config
    return min(config.llm.max_tokens, TOKENS_PER_SENTENCE * config.answer.max_sentences + 32)


def compose(answerer: Answerer, state: AskState, gathered: Gathered) -> Generator[str, None, Composed]:
    """Text deltas as sentences pass the check (when streaming); then what was written and kept. Nothing is written
    when the evidence was judged not enough; a model that fails before writing falls back to the extractive reader."""
    evidence = gathered.evidence
    pipeline = new_pipeline(answerer, evidence.hits, state.language)
    generation = Generation(answerer.generator_name)
    timer = time.perf_counter()
    if gathered.abstain_reason is None:
        if gathered.summary is not None:
            yield from pipeline.feed_checked(checked(answerer, gathered.summary, evidence.hits, state.language), state.stream)
        elif answerer.generator_name == "extractive":
            yield from pipeline.feed_checked(extractive(answerer, state.question, evidence), state.stream)
        else:
            try:
                yield from generate(answerer, state, evidence.hits, pipeline, generation)
            except LLMError as exc:
                if pipeline.raw:  # part of the model's answer is already out: nothing to fall back to
                    raise
                generation.generator, generation.fallback, pipeline.hits = "extractive", str(exc), evidence.hits
                yield from pipeline.feed_checked(extractive(answerer, state.question, evidence), state.stream)
    critique = model_step_on(answerer.config.agent.critique, answerer.chat_model)  # "auto": an endpoint's model only
    if not state.stream and generation.mode == "llm" and generation.prompt and critique:
        pipeline = critiqued(answerer, state, pipeline, generation)
    generation.timings = {"generate": time.perf_counter() - timer - pipeline.check_seconds, "check": pipeline.check_seconds}
    generation.sentences, generation.removed, generation.pii_masked = pipeline.verdicts, pipeline.removed, dict(pipeline.masked)
    return Composed(pipeline, generation)


def new_pipeline(answerer: Answerer, hits: list[Hit], language: str) -> SentencePipeline:
    answer = answerer.config.answer
    return SentencePipeline(answerer.checker, hits, language, answer.policy, answer.max_sentences)


def extractive(answerer: Answerer, question: str, evidence: Retrieved) -> list[CheckedSentence]:
    """The reader's quoted units, each checked against the chunk it quotes (rows made readable first)."""
    facts = answerer.read(question)
    route = evidence.result.route
    bridges = answerer.store.search().entity_graph().specificity if route is not None and route.retriever == "graph" else None
    sentences = answerer.extractive.answer(facts, evidence.hits, evidence.scored, bridges)
    return checked(answerer, sentences, evidence.hits, facts.language)


def checked(answerer: Answerer, sentences: list[AnswerSentence], hits: list[Hit], language: str) -> list[CheckedSentence]:
    """Quoted sentences checked against the chunks they cite, keeping each citation's quote."""
    index = {h.chunk.chunk_id: i + 1 for i, h in enumerate(hits)}
    pairs = [(readable_row(s.text, language), [index[c.chunk_id] for c in s.citations]) for s in sentences]
    verdicts = answerer.checker.check_sentences(pairs, hits)
    for item, sentence in zip(verdicts, sentences, strict=True):
        item.quotes = {index[c.chunk_id]: c.quote for c in sentence.citations}
    return verdicts


def generate(
    answerer: Answerer, state: AskState, hits: list[Hit], pipeline: SentencePipeline, generation: Generation,
) -> Iterator[str]:
    """The chat model's answer over the evidence that fits its window, through the sentence pipeline."""
    model = answerer.chat_model
    assert model is not None
    hits = budget(answerer, state.question, hits, state.language)
    pipeline.hits = hits
    messages = build_messages(state.question, hits, state.language, answerer.config.answer.max_sentences)
    limit = answer_tokens(answerer)
    # A model on this machine is streamed even when the caller waits for the whole answer: the pipeline stops it once
    # it holds what the answer keeps, instead of paying this CPU for every token up to the limit. An endpoint is asked
    # for a whole reply, whose usage the server reports (a stream's usage needs an option not every server knows).
    if state.stream or getattr(model, "runs_locally", False):
        deltas = model.stream(messages, max_tokens=limit)
    else:
        deltas = iter([model.complete(messages, max_tokens=limit)])
    yield from pipeline.feed_text(deltas, state.stream)
    generation.prompt = messages
    generation.raw_output = pipeline.raw
    generation.stopped = pipeline.stopped
    generation.usage = answerer.priced(token_usage(model, messages, pipeline.raw))
    generation.budget = [h.chunk.chunk_id for h in hits]


def budget(answerer: Answerer, question: str, hits: list[Hit], language: str) -> list[Hit]:
    """Evidence that fits `context_chars` and the model's window after the prompt and the answer."""
    model = answerer.chat_model
    assert model is not None
    config = answerer.config
    count = getattr(model, "count_tokens", None) or estimate_tokens
    overhead = count(prompt_overhead(question, language, config.answer.max_sentences))
    per_block = 24  # the fence and its location line
    room = model.context_tokens - answer_tokens(answerer) - overhead - TOKEN_MARGIN - per_block * len(hits)
    return fit_budget(hits, config.answer.context_chars, max(room, 0), count)



def critiqued(answerer: Answerer, state: AskState, pipeline: SentencePipeline, generation: Generation) -> SentencePipeline:
    """`[agent] critique`: the sentences the citation check rejected are named to the model, which writes the answer
    once more; the new answer is kept when the check rejects fewer of its sentences and supports as many."""
    question = state.question
    rejected = [v["text"] for v in pipeline.verdicts if v.get("verdict") not in (SUPPORTED, "abstention", REPEATED)]
    model = answerer.chat_model
    if not rejected or model is None or generation.prompt is None:
        return pipeline
    started = time.perf_counter()
    messages = [*generation.prompt, {"role": "assistant", "content": pipeline.raw},
                {"role": "user", "content": critique_prompt(rejected)}]
    try:
        output = model.complete(messages, max_tokens=answer_tokens(answerer))
    except LLMError as exc:
        state.steps.append(AgentStep("critique", question, CritiqueStep(rejected, error=str(exc)), time.perf_counter() - started))
        return pipeline
    second = new_pipeline(answerer, pipeline.hits, pipeline.language)
    list(second.feed_text(iter([output]), stream=False))
    still = [v["text"] for v in second.verdicts if v.get("verdict") not in (SUPPORTED, "abstention", REPEATED)]
    better = len(still) < len(rejected) and supported_count(second) >= supported_count(pipeline)
    record = CritiqueStep(rejected, rewritten=output, still_rejected=still, kept=better)
    state.steps.append(AgentStep("critique", question, record, time.perf_counter() - started))
    if not better:
        return pipeline
    generation.raw_output = second.raw
    generation.usage = total_usage([generation.usage, answerer.priced(token_usage(model, messages, second.raw))])
    return second
