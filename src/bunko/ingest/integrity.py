"""Chunk integrity: how often chunking broke what a reader needs kept together.

Retrieval quality depends on chunks that make sense on their own, and the
ways they fail are countable: a table cut into parts (worse, without its header
row), a chunk running across a heading into another topic, a caption apart
from its figure, a chunk longer than the embedder reads (its tail is never
embedded), text that is in no chunk at all. `report` computes these shares and
the size distribution for any collection, from the stored elements and chunks,
whatever strategy made them (`bunko inspect`).

Only searchable chunks count: parents of `parent_child` are context, not
what retrieval matches.
"""

from __future__ import annotations

import fnmatch
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from itertools import pairwise
from typing import Any

import numpy as np

from bunko.chunk.blocks import caption_side, table_rows
from bunko.chunk.sizing import Sizer
from bunko.schema import ATOMIC_KINDS, Chunk, Element, ElementKind
from bunko.store.base import DocumentStore

SIZE_BINS = (0, 100, 200, 400, 800, 1600, 3200)
"""Histogram edges in characters; the last bin is open."""


@dataclass
class DocumentIntegrity:
    source: str
    strategy: str
    chunks: int = 0
    parents: int = 0
    tables: int = 0
    tables_split: int = 0
    tables_split_without_header: int = 0
    headings_crossed: int = 0
    captions: int = 0
    captions_separated: int = 0
    truncated: int = 0
    oversized: int = 0
    elements: int = 0
    elements_missing: int = 0
    sizes: list[int] = field(default_factory=list, repr=False)


def caption_owner(elements: Sequence[Element], i: int) -> Element | None:
    """The figure or table a caption names: its parent_id, else the adjacent atomic element."""
    caption = elements[i]
    if caption.parent_id:
        return next((e for e in elements if e.element_id == caption.parent_id), None)
    side = caption_side(elements, i)
    if side and 0 <= i + side < len(elements) and elements[i + side].kind in ATOMIC_KINDS:
        return elements[i + side]
    return None


def document_integrity(
    source: str, elements: Sequence[Element], chunks: Sequence[Chunk], limit: Sizer | None = None, strategy: str = ""
) -> DocumentIntegrity:
    searchable = [c for c in chunks if c.searchable]
    result = DocumentIntegrity(source, strategy, chunks=len(searchable), parents=len(chunks) - len(searchable))
    by_id = {e.element_id: e for e in elements}
    holding: dict[str, list[Chunk]] = {}
    for chunk in searchable:
        for element_id in chunk.element_ids:
            holding.setdefault(element_id, []).append(chunk)
        paths = {tuple(by_id[i].section_path) for i in chunk.element_ids if i in by_id}
        result.headings_crossed += len(paths) > 1
        result.truncated += bool(chunk.meta.get("truncated")) or (limit is not None and not limit.fits(chunk.embed_text))
        result.oversized += bool(chunk.meta.get("oversized"))
        result.sizes.append(len(chunk.text))
    for i, element in enumerate(elements):
        if element.kind == ElementKind.TABLE and element.text.strip():
            result.tables += 1
            parts = holding.get(element.element_id, [])
            if len(parts) > 1:
                result.tables_split += 1
                header = table_rows(element).header.split("\n")[0]
                result.tables_split_without_header += any(header not in part.text for part in parts)
        elif element.kind == ElementKind.CAPTION and element.text.strip():
            owner = caption_owner(elements, i)
            if owner is not None:
                result.captions += 1
                together = {c.chunk_id for c in holding.get(element.element_id, [])} & {
                    c.chunk_id for c in holding.get(owner.element_id, [])
                }
                result.captions_separated += not together
        if element.kind != ElementKind.HEADING and element.text.strip():
            result.elements += 1
            result.elements_missing += element.element_id not in holding
    return result


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def size_summary(sizes: Sequence[int]) -> dict[str, Any]:
    if not sizes:
        return {"count": 0}
    values = np.asarray(sizes)
    edges = [*SIZE_BINS, np.inf]
    counts, _ = np.histogram(values, bins=edges)
    labels = [f"{lo}-{hi}" for lo, hi in pairwise(SIZE_BINS)] + [f"{SIZE_BINS[-1]}+"]
    return {
        "count": len(sizes), "min": int(values.min()), "p10": float(np.percentile(values, 10)),
        "median": float(np.median(values)), "mean": round(float(values.mean()), 1), "p90": float(np.percentile(values, 90)),
        "max": int(values.max()), "histogram": dict(zip(labels, (int(c) for c in counts), strict=True)),
    }


def summarize(documents: Iterable[DocumentIntegrity]) -> dict[str, Any]:
    """Totals, shares and the size distribution over documents, overall and per strategy."""
    documents = list(documents)
    total = Counter[str]()
    sizes: list[int] = []
    for doc in documents:
        total.update({k: v for k, v in asdict(doc).items() if isinstance(v, int)})
        sizes.extend(doc.sizes)
    return {
        "documents": len(documents),
        "chunks": total["chunks"],
        "parents": total["parents"],
        "tables": total["tables"],
        "tables_split": total["tables_split"],
        "tables_split_share": _share(total["tables_split"], total["tables"]),
        "tables_split_without_header": total["tables_split_without_header"],
        "chunks_crossing_headings": total["headings_crossed"],
        "headings_crossed_share": _share(total["headings_crossed"], total["chunks"]),
        "captions": total["captions"],
        "captions_separated": total["captions_separated"],
        "captions_separated_share": _share(total["captions_separated"], total["captions"]),
        "chunks_truncated": total["truncated"],
        "truncated_share": _share(total["truncated"], total["chunks"]),
        "chunks_oversized": total["oversized"],
        "elements_missing": total["elements_missing"],
        "elements_missing_share": _share(total["elements_missing"], total["elements"]),
        "sizes": size_summary(sizes),
    }


def report(documents: Iterable[DocumentIntegrity]) -> dict[str, Any]:
    """The integrity report: overall, per strategy, and per document (without the raw sizes)."""
    documents = list(documents)
    strategies = sorted({d.strategy for d in documents})
    return {
        **summarize(documents),
        "by_strategy": {s: summarize(d for d in documents if d.strategy == s) for s in strategies},
        "by_document": [{k: v for k, v in asdict(d).items() if k != "sizes"} for d in documents],
    }


def inspect_store(store: DocumentStore, limit: Sizer | None = None, source_glob: str | None = None) -> dict[str, Any]:
    """The integrity report of a stored collection (or of the sources matching a glob)."""
    documents = []
    for info in store.documents():
        if source_glob and not fnmatch.fnmatchcase(info.source, source_glob):
            continue
        strategy = str(info.meta.get("chunk_strategy") or "unknown")
        documents.append(document_integrity(info.source, store.elements(info.source), store.chunks(info.source), limit, strategy))
    return report(documents)
