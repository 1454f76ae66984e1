"""The entity graph the graph route walks, as `bunko graph` shows it: stats, and one entity's neighbours and mentions.

A restricted key sees the graph of the passages its groups may read: counts,
neighbours, top entities and suggestions are computed over those passages only.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query

from bunko.retrieve.graph_lookup import EntityPassage
from bunko.server.deps import ApiError, Caller, caller
from bunko.server.models import GraphEntity, GraphEntityCount, GraphMention, GraphNeighbour, GraphStats

router = APIRouter(prefix="/api/collections/{name}/graph", tags=["graph"])
Reader = Annotated[Caller, Depends(caller("reader"))]


@router.get("/stats", summary="Passages, entities and the most mentioned entities of the entity graph")
def graph_stats(c: Reader, limit: Annotated[int, Query(ge=1, le=200, description="How many top entities.")] = 20) -> GraphStats:
    lookup = c.served.graph(c.who)
    entities = lookup.entities()
    top = lookup.top_entities(limit) if entities else []
    return GraphStats(
        passages=lookup.passage_count, entities=len(entities),
        top_entities=[GraphEntityCount(key=key, passages=count) for key, count in top],
    )


def _mention(passage: EntityPassage) -> GraphMention:
    chunk, mention, parts = passage.chunk, passage.mention, passage.snippet
    return GraphMention(
        chunk_id=chunk.chunk_id, doc_id=chunk.doc_id, source=chunk.source, pages=chunk.pages, section_path=chunk.section_path,
        snippet_before=parts.before, mention=parts.mention, snippet_after=parts.after,
        start=None if mention is None else mention.start, end=None if mention is None else mention.end,
    )


@router.get("/entity", summary="One entity: its passage count, neighbours, and each mention in context; 404 lists close keys")
def graph_entity(
    c: Reader,
    entity: Annotated[str, Query(alias="name", min_length=1, max_length=200, description="The entity as written (case, width, plurals and ー don't matter).")],
    limit: Annotated[int, Query(ge=1, le=100, description="How many mentions and neighbours.")] = 10,
) -> GraphEntity:
    lookup = c.served.graph(c.who)
    key = lookup.resolve(entity)
    if key is None:
        close = lookup.suggestions(entity)
        hint = f"; close: {', '.join(close)}" if close else ""
        raise ApiError(404, "ENTITY_NOT_FOUND", f"no entity {entity!r} in the graph{hint}", suggestions=close)
    found = lookup.entity(c.served.kb.store.search(), key, limit)
    visible = c.served.visible_documents(c.who)  # a second wall, as for hits: never a passage of a hidden document
    return GraphEntity(
        query=entity, key=key, passages=len(found.passage_ids), hub=found.hub,
        neighbours=[GraphNeighbour(key=other, shared=shared) for other, shared in found.neighbours],
        mentions=[_mention(p) for p in found.passages if p.chunk.doc_id in visible],
    )
