"""Document-level access, enforced inside retrieval and checked again on the way out.

The retrieval filter is the primary control: a restricted caller's filter is
``{"$and": [<their filter>, {"groups": {"$in": <their groups>}}]}``, so a
caller's ``$or`` or ``$not`` can only narrow what they may see, never widen it,
and the forbidden chunks never reach fusion, grading or the answer. The output
checks (`visible_hits`, `redact_answer`, `trace_sources`) are a second wall: if
anything upstream ever changes, a forbidden chunk is dropped rather than sent.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from bunko.generate.citation_marks import render_answer, unverified_mark
from bunko.generate.language import abstain_message
from bunko.schema import Answer, DocumentInfo, Hit
from bunko.server.auth import Principal

MATCH_NOTHING: dict[str, Any] = {"doc_id": {"$in": []}}
"""A valid filter that no chunk satisfies: used when no document carries a ``groups`` field yet."""


def document_groups(doc: DocumentInfo) -> Any:
    return (doc.meta.get("fields") or {}).get("groups")


def access_filter(principal: Principal, known_fields: set[str] | frozenset[str]) -> dict[str, Any] | None:
    """The filter every retrieval of this caller is ANDed with; None for unrestricted callers."""
    if principal.unrestricted:
        return None
    if "groups" not in known_fields:
        return MATCH_NOTHING
    return {"groups": {"$in": list(principal.groups or ())}}


def combine(user_filter: Mapping[str, Any] | None, guard: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if guard is None:
        return dict(user_filter) if user_filter else None
    if not user_filter:
        return dict(guard)
    return {"$and": [dict(user_filter), dict(guard)]}


def visible_hits(hits: list[Hit], visible: Callable[[str], bool]) -> list[Hit]:
    return [h for h in hits if visible(h.chunk.doc_id)]


def redact_answer(answer: Answer, visible_source: Callable[[str], bool]) -> Answer:
    """Drop every sentence that cites a document the caller may not see; abstain if none is left."""
    kept = [s for s in answer.sentences if all(visible_source(c.source) for c in s.citations)]
    if len(kept) == len(answer.sentences):
        return answer
    answer.sentences = kept
    answer.abstained = not kept
    marked = unverified_mark(answer.language) in answer.text  # a model's answer showed its unverified sentences marked
    answer.text = render_answer(kept, answer.language, marked) if kept else abstain_message(answer.language)
    return answer


def trace_sources(trace: Any) -> set[str]:
    """Every document a trace names, wherever the engine put it (hits, candidates, rewrites, citations, prompts)."""
    found: set[str] = set()
    stack = [trace]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if isinstance(item.get("source"), str):
                found.add(item["source"])
            if isinstance(item.get("chunk_id"), str):
                found.add(item["chunk_id"].rsplit("#", 1)[0])
            stack.extend(v for k, v in item.items() if k != "filters")  # a filter names what was asked for, not what was seen
        elif isinstance(item, list):
            stack.extend(item)
    return found
