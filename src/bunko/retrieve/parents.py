"""Parent expansion: a child chunk is found, its parent is read.

`parent_child` chunking indexes small children (sharp matches) and keeps their
larger parents out of the index (context). Here a child hit is given its
parent's text, so the answer step and the user see the whole passage, while
the hit keeps the child's id, element ids, pages and section: the citation
still points at the exact place that matched. Several children of one parent
become one hit (the best-ranked), or the top k would repeat one passage.
"""

from __future__ import annotations

from dataclasses import replace

from bunko.schema import Chunk, Hit
from bunko.store.base import Store

WINDOW = 4
"""Fused candidates fetched per requested hit: children of one parent collapse, so look a little further."""


def _expanded(child: Chunk, parent: Chunk) -> Chunk:
    meta = {**child.meta, "parent_expanded": parent.chunk_id, "child_text": child.text, "children_hit": [child.chunk_id]}
    return replace(child, text=parent.text, embed_text=parent.embed_text, meta=meta)


def expand_parents(hits: list[Hit], store: Store, k: int) -> list[Hit]:
    """The first ``k`` hits after swapping children for their parents (one hit per parent)."""
    wanted = list(dict.fromkeys(h.chunk.parent_id for h in hits if h.chunk.parent_id))
    if not wanted:
        return hits[:k]
    parents = {c.chunk_id: c for c in store.get_chunks(wanted)}
    out: list[Hit] = []
    by_parent: dict[str, Hit] = {}
    for hit in hits:
        parent = parents.get(hit.chunk.parent_id or "")
        if parent is None:
            out.append(hit)
        elif parent.chunk_id in by_parent:
            by_parent[parent.chunk_id].chunk.meta["children_hit"].append(hit.chunk.chunk_id)
            continue
        else:
            expanded = replace(hit, chunk=_expanded(hit.chunk, parent))
            by_parent[parent.chunk_id] = expanded
            out.append(expanded)
        if len(out) == k:
            break
    return out
