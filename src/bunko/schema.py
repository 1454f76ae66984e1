"""The one vocabulary every stage speaks (see DESIGN.md, "The data model").

Stages exchange these plain dataclasses and nothing else, so any stage can be
replaced, tested or run in another process without knowing its neighbours.
"""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any


class ElementKind(enum.StrEnum):
    HEADING = "heading"
    PARAGRAPH = "paragraph"
    LIST = "list"
    TABLE = "table"
    FIGURE = "figure"
    CAPTION = "caption"
    CODE = "code"
    EQUATION = "equation"
    SLIDE = "slide"
    SHEET = "sheet"
    EMAIL_HEADER = "email_header"
    RECORD = "record"
    NOTE = "note"
    FOOTNOTE = "footnote"


ATOMIC_KINDS = frozenset({ElementKind.TABLE, ElementKind.CODE, ElementKind.EQUATION, ElementKind.FIGURE})
"""Kinds whose text loses its meaning when cut, so chunkers never split them."""


@dataclass
class Element:
    element_id: str
    kind: ElementKind
    """Stored and serialised as its string value; a string read back from a store becomes the member."""
    text: str
    page: int | None = None
    section_path: list[str] = field(default_factory=list)
    bbox: tuple[float, float, float, float] | None = None
    parent_id: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.kind = ElementKind(self.kind)


@dataclass
class ParsedDocument:
    doc_id: str
    source: str
    title: str
    mime: str
    parser: str
    elements: list[Element]
    meta: dict[str, Any] = field(default_factory=dict)


class ChunkRole(enum.StrEnum):
    """A chunk's part in `parent_child`: the child is searched, its parent is what the reader gets."""

    PARENT = "parent"
    CHILD = "child"


ROLE_KEY = "role"
SEARCHABLE_KEY = "searchable"
"""The `Chunk.meta` keys a role is stored under, as collections already on disk hold it: a parent is
{"role": "parent", "searchable": false}. Stores filter on SEARCHABLE_KEY in SQL (`store.local.SEARCHABLE`,
`store.postgres.searchable_sql`), so it stays in meta rather than becoming a column of its own."""


def role_meta(role: ChunkRole) -> dict[str, Any]:
    """The meta that gives a chunk its role: a parent is kept for context and left out of every search index."""
    return {ROLE_KEY: role.value, SEARCHABLE_KEY: False} if role is ChunkRole.PARENT else {ROLE_KEY: role.value}


def meta_searchable(meta: Mapping[str, Any]) -> bool:
    """Whether a chunk with this meta is indexed: every chunk is but one marked {"searchable": false}."""
    return meta.get(SEARCHABLE_KEY, True) is not False


@dataclass
class Chunk:
    chunk_id: str
    doc_id: str
    source: str
    ordinal: int
    text: str
    embed_text: str
    element_ids: list[str] = field(default_factory=list)
    pages: list[int] = field(default_factory=list)
    section_path: list[str] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)
    parent_id: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def role(self) -> ChunkRole | None:
        value = self.meta.get(ROLE_KEY)
        return None if value is None else ChunkRole(value)

    @property
    def searchable(self) -> bool:
        return meta_searchable(self.meta)


@dataclass
class Hit:
    chunk: Chunk
    score: float
    distance: float | None = None
    signals: dict[str, dict[str, float]] = field(default_factory=dict)
    """Per retriever: {"dense": {"rank": 1, "score": 0.8}, "keyword": {...}, "fusion": {...}}."""


@dataclass
class Citation:
    chunk_id: str
    source: str
    page: int | None
    section_path: list[str]
    element_ids: list[str]
    quote: str
    updated: str | None = None
    """The source's update date (front-matter date or ingest day); set under the regulated policy."""

    def label(self) -> str:
        """Human-readable pointer: source > section > page."""
        parts = [self.source, *self.section_path]
        if self.page is not None:
            parts.append(f"p.{self.page}")
        return " > ".join(parts)


@dataclass
class AnswerSentence:
    text: str
    citations: list[Citation] = field(default_factory=list)
    support: float | None = None
    verdict: str = "supported"
    """supported | unsupported (the cited chunks do not back it) | uncited (no valid [n] marker)."""


@dataclass
class Answer:
    question: str
    text: str
    sentences: list[AnswerSentence]
    abstained: bool
    confidence: float
    trace_id: str
    language: str = "en"
    needs_review: bool = False
    """regulated policy: low confidence or removed sentences; a person should check before use."""
    notices: list[str] = field(default_factory=list)
    """Lines the policy appended to `text` (source dates, not-advice notice)."""
    policy: str = "standard"


class JobStatus(enum.StrEnum):
    PENDING = "PENDING"
    PARSING = "PARSING"
    CHUNKING = "CHUNKING"
    EMBEDDING = "EMBEDDING"
    INDEXING = "INDEXING"
    READY = "READY"
    SKIPPED = "SKIPPED"
    FAILED = "FAILED"


TERMINAL_STATUSES = frozenset({JobStatus.READY, JobStatus.SKIPPED, JobStatus.FAILED})


class ErrorCode(enum.StrEnum):
    UNSUPPORTED_FORMAT = "UNSUPPORTED_FORMAT"
    PARSE_FAILED = "PARSE_FAILED"
    ENCRYPTED = "ENCRYPTED"
    EMPTY = "EMPTY"
    TOO_LARGE = "TOO_LARGE"
    ENCODING = "ENCODING"
    NOT_FOUND = "NOT_FOUND"
    OCR_UNAVAILABLE = "OCR_UNAVAILABLE"
    EMBED_FAILED = "EMBED_FAILED"
    INDEX_FAILED = "INDEX_FAILED"
    INTERRUPTED = "INTERRUPTED"


@dataclass
class IngestJob:
    job_id: str
    source: str
    status: str = JobStatus.PENDING
    error_code: str | None = None
    error_detail: str | None = None
    created_at: float = 0.0
    updated_at: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)


@dataclass
class DocumentInfo:
    """A stored document as listed by `Bunko.documents()`."""

    doc_id: str
    source: str
    title: str
    mime: str
    parser: str
    content_hash: str
    chunk_count: int
    ingested_at: float
    meta: dict[str, Any] = field(default_factory=dict)


def to_dict(obj: Any) -> Any:
    """JSON-ready form of any schema object (for `--json` and the HTTP API)."""
    return asdict(obj)


def doc_id_for(source: str) -> str:
    """A document's id: stable for its source, so a re-ingest replaces the document instead of adding a copy."""
    return hashlib.sha1(source.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class DocumentMatch:
    """A document found by its text as a whole, and the chunk that stands for it among chunk hits."""

    doc_id: str
    score: float
    best_chunk_id: str
