"""Chunking strategies by name, as `[chunk] strategy = "…"` (and templates and rules) select them.

Adding a strategy is adding a module with a class that has ``name`` and
``chunk(doc, config, embedder=None)``, and one line here.
"""

from __future__ import annotations

from bunko.chunk.base import Chunker
from bunko.chunk.fixed import FixedChunker
from bunko.chunk.heading import HeadingChunker
from bunko.chunk.page import PageChunker
from bunko.chunk.parent_child import ParentChildChunker
from bunko.chunk.qa_pairs import QaPairsChunker
from bunko.chunk.recursive import RecursiveChunker
from bunko.chunk.semantic import SemanticChunker
from bunko.chunk.structure import StructureChunker
from bunko.chunk.templates import AUTO, AutoChunker

CHUNKERS: dict[str, type[Chunker]] = {
    chunker.name: chunker
    for chunker in (
        FixedChunker, RecursiveChunker, HeadingChunker, StructureChunker, SemanticChunker,
        ParentChildChunker, PageChunker, QaPairsChunker,
    )
}
"""Concrete strategies; "auto" is not one of them (a template cannot point back to it)."""


def get_chunker(name: str) -> Chunker:
    if name == AUTO:
        return AutoChunker()
    try:
        return CHUNKERS[name]()
    except KeyError:
        raise ValueError(f"unknown chunking strategy {name!r}; available: {AUTO}, {', '.join(sorted(CHUNKERS))}") from None

