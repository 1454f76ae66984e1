"""The typed states one ask passes through: what each step of `generate/steps/` reads and hands on.

`AskState` is the question as posed (the user's words, what is searched, its language, the analysis) with the
record every step appends to (agent steps, stage seconds). `Retrieved` is the evidence for one query.
`Gathered` is the evidence the answer is drawn from and whether to answer at all; `Composed` is what the generator
wrote, as the sentence pipeline kept it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from bunko.generate.analysis import Analysis
from bunko.generate.conversation import Turn
from bunko.generate.sentence_pipeline import SentencePipeline
from bunko.rerank.evidence import ScoredUnit
from bunko.retrieve.searcher import SearchResult
from bunko.schema import AnswerSentence, Hit
from bunko.text.injection import looks_like_instruction
from bunko.text.numbers import normalize
from bunko.trace import AgentStep, Condensed, Evidence, Generation, Grade, LLMGrade, TracedHit


@dataclass
class AskState:
    """One question on its way through the steps."""

    asked: str
    """What the user asked: the answer takes its language, and the answer and the trace keep it."""
    question: str
    """What is searched: `asked`, or the standalone question a follow-up was made into."""
    filters: Mapping[str, Any] | None
    k: int
    stream: bool
    mode: str | None
    """A forced search mode (`graph`, say) where the router would otherwise choose."""
    history: Sequence[Turn] | None
    language: str = "en"
    condensed: Condensed | None = None
    analysis: Analysis | None = None
    steps: list[AgentStep] = field(default_factory=list)
    """The agent's steps around retrieval, in the order they ran (the trace's ``steps``)."""
    stage_timings: dict[str, float] = field(default_factory=dict)
    started: float = field(default_factory=time.perf_counter)

    @property
    def follow_up(self) -> str | None:
        """The user's own words when the searched question was made from the conversation, else None."""
        return self.asked if self.condensed is not None else None

    def seconds(self) -> float:
        return time.perf_counter() - self.started


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


TABLE_CANNOT_RANK = "table_cannot_rank"
"""The abstain reason of a question the table step declined (`Gathered.declined`)."""


@dataclass(frozen=True)
class Declined:
    """A table the question asks to rank the rows of, which has no column to rank them by."""

    message: str
    """Why, in the answer's language: said after the abstention."""
    chunks: frozenset[str]
    """The chunks that hold the table (its rows' chunks and the chunks they sit in)."""
    title: str
    """The table's caption or sheet: a quote of it is of the table too."""

    def covers(self, sentences: list[AnswerSentence]) -> bool:
        """Whether the sentences quote nothing but this table: its rows (cited with their cells) or its caption."""
        caption = _squashed(self.title)
        return bool(sentences) and all(
            sentence.citations and all(
                citation.chunk_id in self.chunks and (bool(citation.cells) or _squashed(citation.quote).rstrip(".。") in caption)
                for citation in sentence.citations)
            for sentence in sentences)


def _squashed(text: str) -> str:
    return "".join(normalize(text).split()).lower()


@dataclass
class Gathered:
    """The evidence the answer is drawn from, and why not to answer (None: answer)."""

    first: Retrieved
    """The evidence for the question itself: what the trace's ``evidence`` shows."""
    evidence: Retrieved
    """The evidence that decided: `first`, or a rewritten query's when its grade was kept."""
    abstain_reason: str | None = None
    declined: Declined | None = None
    """A ranking asked of a table that cannot rank its rows (`steps/table.declined_ranking`): the answer abstains
    if it would quote nothing but that table."""
    llm_grade: LLMGrade | None = None
    summary: list[AnswerSentence] | None = None
    """For an overview question, the central sentences that answer it (`steps/summary.py`); None otherwise."""

    @property
    def rewritten(self) -> Retrieved | None:
        return self.evidence if self.evidence is not self.first else None


@dataclass
class Composed:
    """What the generator wrote through the sentence pipeline, and the trace's record of it."""

    pipeline: SentencePipeline
    generation: Generation
