"""What one evaluated question leaves behind: its hits, its answer, the passages it cites, its timings, a judge's verdict.

Plain JSON-ready dataclasses, so a run can be written to ``results.json``, reported,
exported to Ragas, or re-scored later without the collection it came from.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class HitRecord:
    chunk_id: str
    source: str
    section_path: list[str] = field(default_factory=list)
    pages: list[int] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)
    score: float = 0.0
    text: str = ""


@dataclass
class CitationRecord:
    chunk_id: str
    source: str
    page: int | None = None


@dataclass
class SentenceRecord:
    text: str
    verdict: str = "supported"
    support: float | None = None
    citations: list[CitationRecord] = field(default_factory=list)


@dataclass
class PassageRecord:
    """A passage the answer cites, with its text: what an LLM judge holds the answer against.

    ``number`` is the answer's own ``[n]`` for it (chunks numbered in order of first citation).
    """

    number: int
    chunk_id: str
    source: str
    section_path: list[str] = field(default_factory=list)
    pages: list[int] = field(default_factory=list)
    text: str = ""

    def location(self) -> str:
        """Where the passage is (source > section > p.N), as the answer prompt names a source."""
        parts = [self.source, *self.section_path]
        if self.pages:
            parts.append("p." + ",".join(map(str, self.pages)))
        return " > ".join(parts)


@dataclass
class JudgeRecord:
    """An LLM judge's verdict on one answered question (`bunko eval run --judge`, evaluate/judge.py).

    ``status``: "ok" (both scores), "partial" (one score; ``problem`` says what was wrong with the
    other), "unparsed" (the reply held no usable verdict: no score), "error" (the call failed).
    A score is None unless the judge gave it in 0–1: an unreadable verdict is never read as a number.
    """

    status: str
    faithfulness: float | None = None
    relevance: float | None = None
    unsupported: list[str] = field(default_factory=list)
    reason: str = ""
    problem: str | None = None
    prompt: list[dict[str, str]] = field(default_factory=list)
    raw: str = ""
    """The judge's reply exactly as it came back."""
    usage: dict[str, float] = field(default_factory=dict)
    """The judge call's own prompt_tokens, completion_tokens, total_tokens (and cost when priced), apart from the answer's."""
    seconds: float | None = None
    scored_by: str = "llm"
    """Where the two scores come from: "llm" (the model's verdict), or "lexical" when fewer than half of the run's
    verdicts could be read and every question of the run was scored by the lexical judge instead (judge.py)."""


@dataclass
class QuestionRecord:
    item_id: str
    question: str
    hits: list[HitRecord] = field(default_factory=list)
    answer: str = ""
    abstained: bool = False
    confidence: float = 0.0
    draft: str = ""
    """When abstained: the passage the answer would have quoted (`Grade.quoted`), which calibration judges the
    confidence of the refusal against."""
    sentences: list[SentenceRecord] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    """Seconds per stage of `ask` as its trace records them (embed_query, dense, keyword, …, total)."""
    usage: dict[str, float] = field(default_factory=dict)
    """LLM use when the trace reports it: prompt_tokens, completion_tokens, total_tokens, cost."""
    trace_id: str | None = None
    error: str | None = None
    cited: list[PassageRecord] = field(default_factory=list)
    """The passages the answer cites, numbered as in its text, with their text."""
    judge: JudgeRecord | None = None
    """The LLM judge's verdict; None when not judged (no --judge, an abstention, an error)."""
    evidence: list[HitRecord] | None = None
    """The passages the answer was drawn from, with their text: its trace's evidence (after rerank and dedup; the
    rewrite's when the grade asked for one), then any other chunk it cites. Whether the expected answer is among them
    tells a retrieval miss from an answer miss (`fact_in_evidence`). None in runs recorded before it was kept."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> QuestionRecord:
        data = dict(data)
        data["hits"] = [HitRecord(**h) for h in data.get("hits", [])]
        data["sentences"] = [
            SentenceRecord(**{**s, "citations": [CitationRecord(**c) for c in s.get("citations", [])]})
            for s in data.get("sentences", [])
        ]
        data["cited"] = [PassageRecord(**p) for p in data.get("cited", [])]
        evidence = data.get("evidence")
        data["evidence"] = [HitRecord(**h) for h in evidence] if evidence is not None else None
        judge = data.get("judge")
        data["judge"] = JudgeRecord(**judge) if isinstance(judge, dict) else None
        return cls(**data)
