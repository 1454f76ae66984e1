"""Templates: which strategy chunks which document.

Documents differ in what holds their meaning together: an FAQ's unit is a
question with its answer, a slide deck's is the slide, a manual's is the
section, a table-heavy report's is the table with its header. With
``[chunk] strategy = "auto"`` each document's kind is detected and
``[chunk.templates]`` maps it to a strategy; ``[[chunk.rules]]`` (a glob over
the source path and a strategy) override both the templates and a fixed
strategy, per folder or file pattern:

    [chunk]
    strategy = "auto"
    [chunk.templates]
    manual = "heading"
    [[chunk.rules]]
    glob = "faq/*"
    strategy = "qa_pairs"

The kind, the strategy and why it was chosen are recorded in the document's
meta (``doc_kind``, ``chunk_strategy``, ``chunk_reason``), so `bunko docs
--json` and `bunko chunks` can explain every document's chunks.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from pathlib import PurePosixPath

from bunko.chunk.base import Chunker
from bunko.chunk.qa_pairs import is_question
from bunko.config import ChunkConfig
from bunko.embed.base import Embedder
from bunko.schema import Chunk, ElementKind, ParsedDocument

AUTO = "auto"
SLIDE_MIMES = frozenset({
    "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    "application/vnd.ms-powerpoint",
})
TABLE_KINDS = frozenset({ElementKind.TABLE, ElementKind.SHEET})
MIN_QUESTIONS = 3
"""Fewer question-like lines than this is a document that asks a few things, not an FAQ."""
MIN_MANUAL_HEADINGS = 3


@dataclass(frozen=True)
class Choice:
    strategy: str
    kind: str
    reason: str


def rule_matches(glob: str, source: str) -> bool:
    """A glob matches the whole source path ("faq/*") or its tail ("faq/*" matches "docs/faq/a.md")."""
    return fnmatch.fnmatchcase(source, glob) or PurePosixPath(source).match(glob)


def detect_kind(doc: ParsedDocument, config: ChunkConfig) -> str:
    """slides, scanned, faq, tables, manual or default — from the mime type, OCR, questions, tables and headings."""
    elements = [e for e in doc.elements if e.text.strip()]
    if doc.mime in SLIDE_MIMES or any(e.kind == ElementKind.SLIDE for e in elements):
        return "slides"
    body = [e for e in elements if e.kind != ElementKind.HEADING]
    if body and sum(e.meta.get("method") == "ocr" for e in body) * 2 >= len(body):
        return "scanned"
    prose = [e for e in elements if e.kind in (ElementKind.HEADING, ElementKind.PARAGRAPH)]
    questions = sum(is_question(e) for e in prose)
    if questions >= MIN_QUESTIONS and questions >= config.faq_share * len(prose):
        return "faq"
    if body and sum(e.kind in TABLE_KINDS for e in body) >= config.table_share * len(body):
        return "tables"
    if sum(e.kind == ElementKind.HEADING for e in elements) >= MIN_MANUAL_HEADINGS:
        return "manual"
    return "default"


def choose(doc: ParsedDocument, config: ChunkConfig, strategy: str | None = None) -> Choice:
    """Rules first, then a fixed strategy, then the template for the detected kind."""
    strategy = strategy or config.strategy
    kind = detect_kind(doc, config)
    for rule in config.rules:
        if rule_matches(rule.glob, doc.source):
            return Choice(rule.strategy, kind, f"rule {rule.glob}")
    if strategy != AUTO:
        return Choice(strategy, kind, "config")
    return Choice(config.templates.get(kind) or config.templates["default"], kind, f"template {kind}")


def resolve_chunker(doc: ParsedDocument, config: ChunkConfig, default: Chunker) -> Chunker:
    """The chunker for this document (``default`` unless a rule or template says otherwise); recorded in doc.meta."""
    from bunko.chunk.registry import get_chunker  # the registry imports this module

    choice = choose(doc, config, default.name)
    doc.meta.update(doc_kind=choice.kind, chunk_strategy=choice.strategy, chunk_reason=choice.reason)
    return default if choice.strategy == default.name else get_chunker(choice.strategy)


class AutoChunker:
    """``strategy = "auto"``: each document chunked by the strategy its kind calls for."""

    name = AUTO

    def chunk(self, doc: ParsedDocument, config: ChunkConfig, embedder: Embedder | None = None) -> list[Chunk]:
        return resolve_chunker(doc, config, self).chunk(doc, config, embedder)
