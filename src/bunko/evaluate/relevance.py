"""Which retrieved chunks (or cited chunks) count as relevant to a golden question.

A golden item names its evidence at one of three grains; the most specific one given is used,
because a chunk id says more than a page and a page more than a file:

- ``relevant_chunk_ids`` — a hit is relevant when its chunk id is listed; units are chunk ids;
- ``relevant_pages`` — a hit is relevant when one of its pages is listed (and, for a page given
  with a source, or when ``relevant_sources`` is also given, the hit comes from that source);
  units are the listed pages;
- ``relevant_sources`` — a hit is relevant when its source is listed; units are sources.

Sources match by path suffix at a ``/`` boundary, so a golden set can say
``travel-expense-policy-ja.md`` whatever folder the documents were ingested from.

Each hit maps to the set of *units* it covers; recall counts distinct units found,
precision counts hits that cover any unit (see metrics.py).
"""

from __future__ import annotations

from collections.abc import Sequence

from bunko.evaluate.golden import GoldenItem


def source_matches(source: str, wanted: str) -> bool:
    source = source.replace("\\", "/")
    wanted = wanted.replace("\\", "/").removeprefix("./")
    return source == wanted or source.endswith("/" + wanted.lstrip("/"))


def grain(item: GoldenItem) -> str:
    if item.relevant_chunk_ids:
        return "chunk"
    if item.relevant_pages:
        return "page"
    if item.relevant_sources:
        return "source"
    return "none"


def relevant_units(item: GoldenItem) -> frozenset[str]:
    level = grain(item)
    if level == "chunk":
        return frozenset(item.relevant_chunk_ids)
    if level == "page":
        return frozenset(p.key() for p in item.relevant_pages)
    if level == "source":
        return frozenset(item.relevant_sources)
    return frozenset()


def matched_units(item: GoldenItem, chunk_id: str, source: str, pages: Sequence[int]) -> frozenset[str]:
    """The relevant units one hit (or citation) covers; empty when it is not relevant."""
    level = grain(item)
    if level == "chunk":
        return frozenset({chunk_id}) if chunk_id in item.relevant_chunk_ids else frozenset()
    if level == "page":
        return frozenset(
            ref.key() for ref in item.relevant_pages if ref.page in pages and page_source_ok(item, ref.source, source)
        )
    if level == "source":
        return frozenset(wanted for wanted in item.relevant_sources if source_matches(source, wanted))
    return frozenset()


def page_source_ok(item: GoldenItem, ref_source: str | None, source: str) -> bool:
    if ref_source is not None:
        return source_matches(source, ref_source)
    return not item.relevant_sources or any(source_matches(source, wanted) for wanted in item.relevant_sources)


def page_hit(item: GoldenItem, source: str, pages: Sequence[int]) -> bool:
    """Whether a chunk lies on a relevant page (whatever grain the item's relevance uses)."""
    return any(ref.page in pages and page_source_ok(item, ref.source, source) for ref in item.relevant_pages)
