"""What one evaluated question leaves behind: its hits, its answer, its timings.

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
class QuestionRecord:
    item_id: str
    question: str
    hits: list[HitRecord] = field(default_factory=list)
    answer: str = ""
    abstained: bool = False
    confidence: float = 0.0
    sentences: list[SentenceRecord] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    """Seconds per stage of `ask` as its trace records them (embed_query, dense, keyword, …, total)."""
    usage: dict[str, float] = field(default_factory=dict)
    """LLM use when the trace reports it: prompt_tokens, completion_tokens, total_tokens, cost."""
    trace_id: str | None = None
    error: str | None = None

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
        return cls(**data)
