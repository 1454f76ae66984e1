"""What one `ask` did, stage by stage: the typed record `Answerer` builds, `ask` returns and the store keeps as JSON.

Callers (the server's metrics, the evaluator) take timings and token use from
the `Trace` attached to the answer instead of reading the stored JSON back.
`Trace.to_dict()` writes exactly the JSON stored before these types existed,
so saved collections, ``bunko trace`` and ``/traces/{id}`` keep working;
`Trace.from_dict()` reads traces of every version, keeping keys it does not
know so that nothing is lost on the way back out. Timings are seconds, as
they have been stored from the start and as the server's metrics and the
evaluator's records take them.

This module sits beside `bunko.schema` at the bottom of the layers: it
imports nothing from bunko but its step records (`bunko.trace_steps`), so the chat models (which report `Usage`) and
`Answer` (which carries its `Trace`) can both use it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, TypeGuard

from bunko.trace_steps import StepOutput, read_step_output

EVIDENCE_STAGES = ("search", "rerank", "grade")
"""Timings an `Evidence` owns; ``search.<step>`` keys (the searcher's own steps) belong to it too."""
GENERATION_STAGES = ("generate", "check")
EVIDENCE_KEYS = frozenset({"query", "route", "query_tokens", "candidates", "hits", "rerank", "grade"})
"""Keys of an `Evidence` in the stored JSON: at the top level for the question, under ``rewrite`` for its rewrite."""
REWRITE_PREFIX = "rewrite."
CONDENSE_STAGE = "condense"
"""Seconds spent making a follow-up standalone; it runs first, so it comes first in the flat timings."""
"""Timings of the second retrieval after an LLM grade asked for a rewritten query."""


def _known(cls: type) -> frozenset[str]:
    return frozenset(f.name for f in fields(cls))


def _extra(data: Mapping[str, Any], known: frozenset[str] | set[str]) -> dict[str, Any]:
    """Keys a newer or older version wrote that this one does not model, kept to be written back."""
    return {k: v for k, v in data.items() if k not in known}


@dataclass
class Usage:
    """Tokens one or more model calls took, and what they cost when the configuration gives prices."""

    prompt_tokens: int
    completion_tokens: int
    estimated: bool = False
    """True when counted here (see `bunko.llm.base.estimate_tokens`), not reported by the model."""
    cost: float | None = None
    """None when no price is configured: an unknown cost is not a zero cost."""
    other: dict[str, int] = field(default_factory=dict)
    """Further token counts a server reported (e.g. cached prompt tokens), as it named them."""

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def priced(self, prompt_per_1k: float | None, completion_per_1k: float | None) -> Usage:
        """This usage with its cost; both prices are needed, a missing one leaves the cost unknown."""
        if prompt_per_1k is None or completion_per_1k is None:
            return self
        cost = (self.prompt_tokens * prompt_per_1k + self.completion_tokens * completion_per_1k) / 1000
        return Usage(self.prompt_tokens, self.completion_tokens, self.estimated, cost, dict(self.other))

    def __add__(self, other: Usage) -> Usage:
        cost = None if self.cost is None or other.cost is None else self.cost + other.cost
        counts = dict(self.other)
        for key, value in other.other.items():
            counts[key] = counts.get(key, 0) + value
        return Usage(
            self.prompt_tokens + other.prompt_tokens, self.completion_tokens + other.completion_tokens,
            self.estimated or other.estimated, cost, counts,
        )

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens, "total_tokens": self.total_tokens,
            **self.other, "estimated": self.estimated,
        }
        if self.cost is not None:
            data["cost"] = self.cost
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Usage | None:
        """OpenAI's ``prompt_tokens``/``completion_tokens`` or Anthropic's ``input_tokens``/``output_tokens``; None without counts."""
        prompt = data.get("prompt_tokens", data.get("input_tokens"))
        completion = data.get("completion_tokens", data.get("output_tokens"))
        if not _is_count(prompt) or not _is_count(completion):
            return None
        named = {"prompt_tokens", "completion_tokens", "input_tokens", "output_tokens", "total_tokens"}
        other = {k: int(v) for k, v in data.items() if k.endswith("_tokens") and k not in named and _is_count(v)}
        cost = data.get("cost")
        return cls(int(prompt), int(completion), bool(data.get("estimated", False)),
                   float(cost) if _is_number(cost) else None, other)


def _is_number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_count(value: Any) -> bool:
    return _is_number(value) and float(value) == int(value)


def total_usage(usages: list[Usage | None]) -> Usage | None:
    known = [u for u in usages if u is not None]
    if not known:
        return None
    total = known[0]
    for usage in known[1:]:
        total = total + usage
    return total


@dataclass
class TracedHit:
    """One hit as the trace shows it: where it is, how each retriever scored it, whether it reads like an instruction."""

    chunk_id: str
    source: str
    section_path: list[str] = field(default_factory=list)
    score: float = 0.0
    distance: float | None = None
    signals: dict[str, dict[str, float]] = field(default_factory=dict)
    instruction_like: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "chunk_id": self.chunk_id, "source": self.source, "section_path": self.section_path, "score": self.score,
            "distance": self.distance, "signals": self.signals, "instruction_like": self.instruction_like, **self.extra,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TracedHit:
        return cls(
            str(data.get("chunk_id", "")), str(data.get("source", "")), list(data.get("section_path") or []),
            float(data.get("score") or 0.0), data.get("distance"), dict(data.get("signals") or {}),
            bool(data.get("instruction_like", False)), _extra(data, _known(cls)),
        )


@dataclass
class Grade:
    """Whether the evidence is enough to answer, as `bunko.generate.grade.grade_answer` judged it."""

    sufficient: bool
    confidence: float
    answer_type: str = "none"
    features: dict[str, float] = field(default_factory=dict)
    key_terms: list[str] = field(default_factory=list)
    missing_key_terms: list[str] = field(default_factory=list)
    """Key terms of the question that no chunk of the collection (within the filters) holds."""
    reason: str | None = None
    """Why the grade refused regardless of the confidence: KEY_TERM_ABSENT, KEY_TERM_NOT_IN_EVIDENCE or QUANTITY_NOT_STATED."""
    quoted: str = ""
    """The unit the extractive answer quotes, given or not: what a refused answer would have said, so that
    calibration can judge the confidence of an abstention too (`bunko.evaluate.calibration`)."""
    extra: dict[str, Any] = field(default_factory=dict)
    """What older grades recorded instead (``similarity``, ``coverage`` before the answer features)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "sufficient": self.sufficient, "confidence": self.confidence, "answer_type": self.answer_type,
            "features": self.features, "key_terms": self.key_terms, "missing_key_terms": self.missing_key_terms,
            "reason": self.reason, "quoted": self.quoted, **self.extra,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Grade:
        return cls(
            bool(data.get("sufficient", False)), float(data.get("confidence") or 0.0), str(data.get("answer_type", "none")),
            dict(data.get("features") or {}), list(data.get("key_terms") or []), list(data.get("missing_key_terms") or []),
            data.get("reason"), str(data.get("quoted") or ""), _extra(data, _known(cls)),
        )


@dataclass
class LLMGrade:
    """A model's CRAG verdict on the evidence: sufficient, rewrite (with `query`), not_found, or unknown."""

    verdict: str
    query: str | None = None
    raw: str = ""
    error: str | None = None
    usage: Usage | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"verdict": self.verdict, "query": self.query, "raw": self.raw, "error": self.error}
        if self.usage is not None:
            data["usage"] = self.usage.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LLMGrade:
        usage = data.get("usage")
        return cls(
            str(data.get("verdict", "")), data.get("query"), str(data.get("raw", "")), data.get("error"),
            Usage.from_dict(usage) if isinstance(usage, Mapping) else None,
        )


@dataclass
class Condensed:
    """A follow-up question in a conversation turned into one that can be searched alone (`generate/conversation.py`).

    `standalone` is what retrieval and generation use; the trace's and the answer's
    question stay the one the user asked. Equal to `question` when the question
    was not a follow-up (or there was no history).
    """

    question: str
    standalone: str
    reason: str
    """Why: the follow-up marker the rules found (``anaphora: それの``, ``ellipsis: 呢``, ``short``…), ``not a follow-up``, or the LLM's."""
    used_llm: bool = False
    history_turns: int = 0
    """Turns of history the question came with."""
    previous: str | None = None
    """The previous user question, as the rules read it (itself condensed when it was a follow-up)."""
    referent: str | None = None
    """What a pronoun was replaced with, when the rules could tell."""
    carried: list[str] = field(default_factory=list)
    """Terms of the previous question carried over into the standalone question."""
    llm_error: str | None = None
    """The chat model's error or unusable reply; the rule result was used instead."""
    raw: str | None = None
    """The chat model's reply as written."""
    usage: Usage | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def changed(self) -> bool:
        return self.standalone != self.question

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "question": self.question, "standalone": self.standalone, "reason": self.reason, "used_llm": self.used_llm,
            "history_turns": self.history_turns, "previous": self.previous, "referent": self.referent, "carried": self.carried,
            "llm_error": self.llm_error, "raw": self.raw,
        }
        if self.usage is not None:
            data["usage"] = self.usage.to_dict()
        return {**data, **self.extra}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Condensed:
        usage = data.get("usage")
        question = str(data.get("question", ""))
        return cls(
            question, str(data.get("standalone", question)), str(data.get("reason", "")), bool(data.get("used_llm", False)),
            int(data.get("history_turns") or 0), data.get("previous"), data.get("referent"), list(data.get("carried") or []),
            data.get("llm_error"), data.get("raw"), Usage.from_dict(usage) if isinstance(usage, Mapping) else None,
            _extra(data, _known(cls) | {"usage"}),
        )


@dataclass
class Evidence:
    """What retrieval, rerank and the score grade produced for one query (the question, or its rewrite)."""

    query: str
    route: dict[str, Any]
    """``mode`` (hybrid, dense, keyword) and the router's choice: ``name``, ``weights``, ``reason``."""
    query_tokens: list[str]
    candidates: list[TracedHit]
    """Everything retrieval returned, in fusion order, before rerank and dedup."""
    hits: list[TracedHit]
    """The evidence after rerank, dedup and the cut to k: what the grade judged and the generator saw."""
    grade: Grade
    duplicates_dropped: list[str] = field(default_factory=list)
    rerank_notes: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    """Seconds: search (and its ``search.<step>``), rerank, grade."""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def hit_ids(self) -> list[str]:
        return [h.chunk_id for h in self.hits]

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "route": self.route,
            "query_tokens": self.query_tokens,
            "candidates": [h.to_dict() for h in self.candidates],
            "hits": [h.to_dict() for h in self.hits],
            "rerank": {"order": self.hit_ids, "duplicates_dropped": self.duplicates_dropped, "notes": self.rerank_notes},
            "grade": self.grade.to_dict(),
            **self.extra,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], timings: Mapping[str, float] | None = None) -> Evidence:
        rerank = data.get("rerank") or {}
        return cls(
            str(data.get("query", "")), dict(data.get("route") or {}), list(data.get("query_tokens") or []),
            [TracedHit.from_dict(h) for h in data.get("candidates") or []], [TracedHit.from_dict(h) for h in data.get("hits") or []],
            Grade.from_dict(data.get("grade") or {}), list(rerank.get("duplicates_dropped") or []), list(rerank.get("notes") or []),
            dict(timings or {}), _extra(data, EVIDENCE_KEYS),
        )


@dataclass
class Generation:
    """What the generator wrote and what the citation check and the policy kept of it."""

    generator: str
    """``extractive``, or the chat model's name (``openai:qwen2.5-7b``, ``llamacpp:model.gguf``)."""
    prompt: list[dict[str, str]] | None = None
    """The chat messages sent; None when no model was asked (extractive, or the grade abstained first)."""
    raw_output: str | None = None
    usage: Usage | None = None
    """Tokens of the answer's model call: reported by the model when it does, else estimated."""
    budget: list[str] | None = None
    """Chunk ids of the evidence that fit the prompt; None when no prompt was built."""
    sentences: list[dict[str, Any]] = field(default_factory=list)
    """The citation check's verdict on every sentence, kept or not (text, sources, lexical, semantic, verdict)."""
    removed: list[str] = field(default_factory=list)
    """Sentences the strict and regulated policies dropped as not supported by their citations."""
    pii_masked: dict[str, int] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    """Seconds: generate (the model or the extractive scorer) and check (the citation check)."""
    fallback: str | None = None
    """The chat model's error when it failed before writing and the extractive generator answered instead."""
    stopped: str | None = None
    """Why the model was stopped before it ended (``enough_sentences``: the answer held what it asked for;
    ``repeating``: it wrote a sentence again), or None when it ended by itself or by its token limit."""
    checked_confidence: dict[str, float] | None = None
    """A model's answer: the grade's confidence, the sentences the check supported of those it judged, and the
    answer's confidence from them (`generate.sentence_pipeline.checked_confidence`); None for other generators."""

    @property
    def mode(self) -> str:
        """extractive | table (computed from a table's cells) | llm."""
        return self.generator if self.generator in ("extractive", "table") else "llm"


@dataclass
class AgentStep:
    """One step the answerer took around retrieval (analysis, decomposition, rewrite, direct answer, critique):
    what it was given, what it decided, and how long it took."""

    name: str
    input: str
    output: StepOutput
    """The step's typed record (`bunko.trace_steps`), one kind per step name."""
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "input": self.input, "output": self.output.to_dict(), "seconds": self.seconds}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AgentStep:
        name, output = str(data.get("name", "")), data.get("output")
        return cls(name, str(data.get("input", "")), read_step_output(name, output if isinstance(output, Mapping) else {}),
                   float(data.get("seconds") or 0.0))


@dataclass
class Trace:
    """One `ask`: the question, what each stage produced, the decision, and seconds per stage."""

    question: str
    trace_id: str
    language: str
    policy: str
    reranker: str
    evidence: Evidence
    generation: Generation
    filters: dict[str, Any] = field(default_factory=dict)
    llm_grade: LLMGrade | None = None
    rewrite: Evidence | None = None
    """The evidence for the rewritten query, when the LLM grade asked for one; it replaced `evidence`."""
    abstain_reason: str | None = None
    answer: dict[str, Any] = field(default_factory=dict)
    """The answer as returned (`schema.to_dict`), so a stored trace shows what the user saw."""
    stage_timings: dict[str, float] = field(default_factory=dict)
    """Seconds of the stages no part above owns: condense, llm_grade, total."""
    steps: list[AgentStep] = field(default_factory=list)
    """The answerer's steps around retrieval, in order (`[agent]`): analysis, decomposition, rewrite, critique."""
    condensed: Condensed | None = None
    """How a follow-up was made standalone from the conversation's history; None when the ask came without history."""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def grade(self) -> Grade:
        """The grade that decided: of the rewritten query's evidence when there was one."""
        return (self.rewrite or self.evidence).grade

    @property
    def usage(self) -> Usage | None:
        """Tokens (and cost) of every model call the answer took that the trace records: condensing, LLM grade, generation."""
        return total_usage([
            self.condensed.usage if self.condensed else None, self.llm_grade.usage if self.llm_grade else None, self.generation.usage,
        ])

    @property
    def timings(self) -> dict[str, float]:
        """Seconds per stage, flat, in the order they ran (the stored ``timings``); rewrite stages as ``rewrite.<stage>``."""
        flat = {CONDENSE_STAGE: self.stage_timings[CONDENSE_STAGE]} if CONDENSE_STAGE in self.stage_timings else {}
        flat.update(self.evidence.timings)
        flat.update({k: v for k, v in self.stage_timings.items() if k not in ("total", CONDENSE_STAGE)})
        if self.rewrite is not None:
            flat.update({REWRITE_PREFIX + k: v for k, v in self.rewrite.timings.items()})
        flat.update(self.generation.timings)
        if "total" in self.stage_timings:
            flat["total"] = self.stage_timings["total"]
        return flat

    def to_dict(self) -> dict[str, Any]:
        """The stored JSON: the keys and their order as the pipeline wrote them before it had types."""
        generation = self.generation
        data: dict[str, Any] = {
            "question": self.question, "language": self.language, "filters": self.filters, "policy": self.policy,
            "generator": generation.generator, "reranker": self.reranker,
        }
        if self.condensed is not None:
            data["condensed"] = self.condensed.to_dict()
        data.update(self.evidence.to_dict())
        if self.llm_grade is not None:
            data["llm_grade"] = self.llm_grade.to_dict()
        if self.rewrite is not None:
            data["rewrite"] = self.rewrite.to_dict()
        if generation.prompt is not None:
            data["prompt"] = generation.prompt
        if generation.raw_output is not None:
            data["raw_output"] = generation.raw_output
        if generation.usage is not None:
            data["usage"] = generation.usage.to_dict()
        if generation.checked_confidence is not None:
            data["checked_confidence"] = generation.checked_confidence
        if generation.stopped is not None:
            data["stopped"] = generation.stopped
        data.update({
            "abstain_reason": self.abstain_reason, "budget": generation.budget, "sentences": generation.sentences,
            "removed": generation.removed, "pii_masked": generation.pii_masked, "fallback": generation.fallback,
            "steps": [step.to_dict() for step in self.steps], "answer": self.answer, "timings": self.timings,
            **self.extra,
        })
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], trace_id: str | None = None) -> Trace:
        """A stored trace of any version; `trace_id` defaults to the one its answer carries."""
        timings = {str(k): float(v) for k, v in (data.get("timings") or {}).items() if _is_number(v)}
        evidence_timings: dict[str, float] = {}
        rewrite_timings: dict[str, float] = {}
        generation_timings: dict[str, float] = {}
        own: dict[str, float] = {}
        for stage, seconds in timings.items():
            if stage.startswith(REWRITE_PREFIX) and "rewrite" in data:
                rewrite_timings[stage[len(REWRITE_PREFIX):]] = seconds
            elif stage in EVIDENCE_STAGES or stage.startswith("search."):
                evidence_timings[stage] = seconds
            elif stage in GENERATION_STAGES:
                generation_timings[stage] = seconds
            else:
                own[stage] = seconds
        usage = data.get("usage")
        llm_grade = data.get("llm_grade")
        rewrite = data.get("rewrite")
        condensed = data.get("condensed")
        answer = dict(data.get("answer") or {})
        generation = Generation(
            generator=str(data.get("generator", "extractive")), prompt=data.get("prompt"), raw_output=data.get("raw_output"),
            usage=Usage.from_dict(usage) if isinstance(usage, Mapping) else None, sentences=list(data.get("sentences") or []),
            budget=data.get("budget"), removed=list(data.get("removed") or []), pii_masked=dict(data.get("pii_masked") or {}),
            timings=generation_timings, fallback=data.get("fallback"),
            stopped=str(stopped) if (stopped := data.get("stopped")) is not None else None,
            checked_confidence=dict(checked) if isinstance(checked := data.get("checked_confidence"), Mapping) else None,
        )
        known = EVIDENCE_KEYS | {
            "question", "language", "filters", "policy", "generator", "reranker", "llm_grade", "rewrite", "prompt", "raw_output",
            "usage", "abstain_reason", "budget", "sentences", "removed", "pii_masked", "fallback", "steps", "answer", "timings",
            "condensed", "checked_confidence", "stopped",
        }
        return cls(
            question=str(data.get("question", "")), trace_id=trace_id or str(answer.get("trace_id", "")),
            language=str(data.get("language", "")), policy=str(data.get("policy", "standard")),
            reranker=str(data.get("reranker", "none")),
            evidence=Evidence.from_dict({k: v for k, v in data.items() if k in EVIDENCE_KEYS}, evidence_timings),
            generation=generation, filters=dict(data.get("filters") or {}),
            llm_grade=LLMGrade.from_dict(llm_grade) if isinstance(llm_grade, Mapping) else None,
            rewrite=Evidence.from_dict(rewrite, rewrite_timings) if isinstance(rewrite, Mapping) else None,
            abstain_reason=data.get("abstain_reason"), answer=answer, stage_timings=own,
            steps=[AgentStep.from_dict(step) for step in data.get("steps") or [] if isinstance(step, Mapping)],
            condensed=Condensed.from_dict(condensed) if isinstance(condensed, Mapping) else None, extra=_extra(data, known),
        )
