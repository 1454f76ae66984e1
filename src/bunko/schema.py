"""The one vocabulary every stage speaks (see DESIGN.md, "The data model").

Stages exchange these plain dataclasses and nothing else, so any stage can be
replaced, tested or run in another process without knowing its neighbours.
"""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from bunko.trace import Trace


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
    images: dict[str, bytes] = field(default_factory=dict, repr=False)
    """Figure id → the figure's picture (PNG, `parse/figures.py`): handed from the parser to the ingest pipeline,
    which keeps thumbnails of them in the collection (`store/figure_files.py`); never stored in the database."""


class ChunkRole(enum.StrEnum):
    """A chunk's part in `parent_child`: the child is searched, its parent is what the reader gets."""

    PARENT = "parent"
    CHILD = "child"


ROLE_KEY = "role"
SEARCHABLE_KEY = "searchable"
"""The `Chunk.meta` keys a role is stored under, as collections already on disk hold it: a parent is
{"role": "parent", "searchable": false}. Stores filter on SEARCHABLE_KEY in SQL (`store.local.SEARCHABLE`,
`store.postgres.schema.searchable_sql`), so it stays in meta rather than becoming a column of its own."""


LANG_KEY = "lang"
"""The `Chunk.meta` and document meta key of the detected language ("en", "ja", "zh"): a chunk's is its text's
(`bunko.text.languages.text_language`), a document's the language most of its text is in. The filter field of the
same name reads it; `store/languages.py` sets it whenever a document is written."""
LANGUAGES_KEY = "languages"
"""Document meta: the share of the document's text in each language, largest first ({"ja": 0.8, "en": 0.2})."""
DUPLICATE_OF_KEY = "duplicate_of"
"""Document meta: the doc id of the document this one is a copy of (identical or near-identical text), set at
ingest and kept in step by the stores when that document is deleted or rewritten (`store/copies.py`); absent
for a document that copies none (an original)."""
FINGERPRINT_KEY = "fingerprint"
"""Document meta: what the document's text is compared by (`text/near_duplicates.Fingerprint.to_meta`)."""
FOLDER_LANG_KEY = "folder_lang"
"""Document meta: the language the document's folder names (`text/languages.folder_language`), when one does."""


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

    @property
    def lang(self) -> str | None:
        """The chunk's detected language ("en", "ja", "zh"); None for a chunk written before languages were recorded."""
        value = self.meta.get(LANG_KEY)
        return None if value is None else str(value)

    def with_meta(self, meta: dict[str, Any]) -> Chunk:
        """This chunk under other meta, its lists shared: how a search labels a hit's chunk (parent expansion,
        grouping). The constructor, because dataclasses.replace costs about 10 µs a call, twice per hit."""
        return Chunk(self.chunk_id, self.doc_id, self.source, self.ordinal, self.text, self.embed_text, self.element_ids,
                     self.pages, self.section_path, self.kinds, self.parent_id, meta)


@dataclass
class RankSignal:
    """A hit's place in one ranked list: its rank (1 = first) and that list's score (min-max or max normalised too
    under weighted fusion)."""

    rank: float
    score: float
    normalized: float | None = None

    def to_dict(self) -> dict[str, float]:
        return {"rank": self.rank, "score": self.score, **({"normalized": self.normalized} if self.normalized is not None else {})}


@dataclass
class CoverageSignal:
    """Coverage fusion's keyword and document evidence for one chunk (retrieve/fusion.py says how each is made)."""

    score: float
    relative_bm25: float
    evidence: float
    document: float | None = None
    document_similarity: float | None = None
    document_opening: float | None = None
    document_opening_keyword: float | None = None
    document_sentence: float | None = None
    """The cosine of the document's best sentence, where it took a share of the chunk's (retrieve/document_sentences.py)."""

    def to_dict(self) -> dict[str, float]:
        return {key: value for key, value in asdict(self).items() if value is not None}


@dataclass
class GraphPath:
    """How the graph route reached a passage: the question's seed entities, the entities it walked in through
    (with their walk mass), and the seed passages it shares them with."""

    seeds: list[str]
    via: list[tuple[str, float]]
    from_passages: list[str]
    bridges: list[str] = field(default_factory=list)
    """The entities searched in the second hop."""
    community: int | None = None
    """The topic (community of the entity graph) a global-mode hit represents."""

    def to_dict(self) -> dict[str, Any]:
        return {"seeds": self.seeds, "via": [[key, round(mass, 6)] for key, mass in self.via], "from_passages": self.from_passages,
                "bridges": self.bridges, **({"community": self.community} if self.community is not None else {})}


RANKED_LISTS = ("dense", "keyword", "document")
"""The built-in retrievers' lists a hit can be found in; a route added beside them records under its own name."""


@dataclass
class Signals:
    """Why a hit ranked where it did, one field per kind of evidence, for `--explain`, traces and the grade.

    `to_dict` is the JSON the CLI, the HTTP API and saved traces show ({"dense": {"rank": 1, "score": 0.8}, …}).
    """

    dense: RankSignal | None = None
    keyword: RankSignal | None = None
    document: RankSignal | None = None
    routes: dict[str, RankSignal] = field(default_factory=dict)
    """Lists of routes added beside the built-in ones (a graph or tree retriever), by route name."""
    coverage: CoverageSignal | None = None
    similarity: float | None = None
    """The cosine computed for a chunk that dense search did not return."""
    language: float | None = None
    """1 when the chunk is in the preferred language, 0 when not; None when no language was preferred."""
    translation: float | None = None
    """1 when the chunk's document only translates another candidate's in the question's language, and was ranked
    below it for that (`retrieve/fusion.py`); None otherwise."""
    fusion: RankSignal | None = None
    mmr_rank: float | None = None
    mmr_lambda: float | None = None
    rerank: RankSignal | None = None
    path: GraphPath | None = None
    """Set by the graph route: the entities and passages its walk reached this hit through."""

    def found_in(self, name: str, rank: float, score: float, normalized: float | None = None) -> None:
        signal = RankSignal(rank, score, normalized)
        if name in RANKED_LISTS:
            setattr(self, name, signal)
        else:
            self.routes[name] = signal

    def list_signal(self, name: str) -> RankSignal | None:
        return getattr(self, name) if name in RANKED_LISTS else self.routes.get(name)

    def to_dict(self) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for name in RANKED_LISTS:
            if (signal := getattr(self, name)) is not None:
                out[name] = signal.to_dict()
        out.update((name, signal.to_dict()) for name, signal in self.routes.items())
        if self.coverage is not None:
            out["coverage"] = self.coverage.to_dict()
        if self.similarity is not None:
            out["similarity"] = {"score": self.similarity}
        if self.language is not None:
            out["language"] = {"score": self.language}
        if self.translation is not None:
            out["translation"] = {"score": self.translation}
        if self.fusion is not None:
            out["fusion"] = self.fusion.to_dict()
        if self.mmr_rank is not None:
            out["mmr"] = {"rank": self.mmr_rank, "lambda": self.mmr_lambda or 0.0}
        if self.rerank is not None:
            out["rerank"] = self.rerank.to_dict()
        if self.path is not None:
            out["path"] = self.path.to_dict()
        return out


@dataclass
class Hit:
    chunk: Chunk
    score: float
    distance: float | None = None
    signals: Signals = field(default_factory=Signals)
    also_at: list[str] = field(default_factory=list)
    """The other documents (sources) holding a copy of this hit's document: shown once, named here
    (`retrieve/copies.py`)."""


@dataclass
class CitedCell:
    """One table cell an answer used: its column, its row as the source numbers it, and where the row is."""

    column: str
    row: int
    """The spreadsheet's row number, else the data row's place in its table (1 = first)."""
    text: str
    page: int | None = None
    sheet: str | None = None

    def label(self) -> str:
        where = f"sheet {self.sheet}, " if self.sheet else (f"p.{self.page}, " if self.page is not None else "")
        return f"{where}row {self.row}, {self.column}: {self.text}"


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
    cells: list[CitedCell] = field(default_factory=list)
    """The table cells this citation stands for (an aggregate's inputs, a looked-up row); empty for prose."""
    figures: list[str] = field(default_factory=list)
    """Ids of the figures the cited chunk holds (its `meta["figures"]`): the thumbnails a reader is shown with it."""
    also_at: list[str] = field(default_factory=list)
    """The other documents holding a copy of the cited one (its hit's `also_at`)."""

    def label(self) -> str:
        """Human-readable pointer: source > section > page, and the table cells when it cites some."""
        parts = [self.source, *self.section_path]
        if self.page is not None:
            parts.append(f"p.{self.page}")
        return " > ".join(parts) + (f" · {self.cells_label()}" if self.cells else "")

    def cells_label(self) -> str:
        """The cited cells in short: "sheet 関西, rows 3, 4, 5: 製品, 2024年 / Q3"."""
        rows = sorted({c.row for c in self.cells})
        shown = ", ".join(map(str, rows)) if len(rows) <= 6 else f"{rows[0]}–{rows[-1]} ({len(rows)} rows)"
        sheets = sorted({c.sheet for c in self.cells if c.sheet})
        columns = ", ".join(dict.fromkeys(c.column for c in self.cells))
        where = f"sheet {', '.join(sheets)}, " if sheets else ""
        return f"{where}{'row' if len(rows) == 1 else 'rows'} {shown}: {columns}"


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
    trace: Trace | None = field(default=None, repr=False, compare=False)
    """What each stage did (timings, evidence, grade, token use); not part of the answer's JSON, which links it by `trace_id`."""


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
    """Past a size limit: file, unpacked package, memory while parsing, pixels of a rendered page, characters."""
    TOO_COMPLEX = "TOO_COMPLEX"
    """Past a count limit: rows, pages, zip members, nesting depth, elements, front-matter values."""
    TIMEOUT = "TIMEOUT"
    """Parsing took longer than ingest.max_parse_seconds; the parser was stopped."""
    NOT_A_FILE = "NOT_A_FILE"
    """A named pipe, socket or device found where files are ingested: never opened."""
    BROKEN_LINK = "BROKEN_LINK"
    """A symbolic link to nothing, or a loop of links."""
    OUTSIDE_FOLDER = "OUTSIDE_FOLDER"
    """A link to a file outside the folder being ingested or watched ([ingest] follow_links = "inside", the default)."""
    ENCODING = "ENCODING"
    NOT_FOUND = "NOT_FOUND"
    OCR_UNAVAILABLE = "OCR_UNAVAILABLE"
    EMBED_FAILED = "EMBED_FAILED"
    INDEX_FAILED = "INDEX_FAILED"
    INTERRUPTED = "INTERRUPTED"
    FETCH_FAILED = "FETCH_FAILED"
    """A synced source's item could not be read (the server, bucket or repository refused or failed); its stored
    document, if any, is kept as it was."""


@dataclass
class JobProgress:
    """Where a running job is inside its stage: `done` of `total` `unit` (pages parsed, chunks embedded); `total`
    is None while unknown. Kept on the job row so `bunko jobs` and the server's job endpoint show the work in hand."""

    stage: str
    done: int = 0
    total: int | None = None
    unit: str = ""

    def describe(self) -> str:
        """E.g. "parsing page 57/272", "embedding 640/2,421 chunks", or the stage alone."""
        if not self.unit or (self.total is None and not self.done):
            return self.stage
        if self.total is None:
            return f"{self.stage} {self.unit} {self.done:,}"
        if self.unit == "page":
            return f"{self.stage} page {self.done:,}/{self.total:,}"
        return f"{self.stage} {self.done:,}/{self.total:,} {self.unit}"


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
    fields: dict[str, Any] | None = None
    """The caller-given fields the file was ingested with (`Bunko.ingest(fields=…)`, e.g. the server's access
    groups); `Bunko.retry` ingests the file with them again."""
    progress: JobProgress | None = None
    """The stage in hand and how far it is (None before the first stage and once the job is finished)."""


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

    @property
    def lang(self) -> str | None:
        """The language most of the document's text is in; `languages` has each one's share."""
        value = self.meta.get(LANG_KEY)
        return None if value is None else str(value)

    @property
    def languages(self) -> dict[str, float]:
        return dict(self.meta.get(LANGUAGES_KEY) or {})

    @property
    def duplicate_of(self) -> str | None:
        """The doc id of the document this one copies, or None for an original."""
        value = self.meta.get(DUPLICATE_OF_KEY)
        return None if value is None else str(value)

    @property
    def folder_lang(self) -> str | None:
        value = self.meta.get(FOLDER_LANG_KEY)
        return None if value is None else str(value)


def to_dict(obj: Any) -> Any:
    """JSON-ready form of any schema object (for `--json` and the HTTP API); an answer without its `trace`."""
    if isinstance(obj, Answer):
        data = asdict(replace(obj, trace=None))
        del data["trace"]
        return data
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
