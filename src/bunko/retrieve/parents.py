"""Parent expansion: a child chunk is found, its parent is read.

`parent_child` chunking indexes small children (sharp matches) and keeps their
larger parents out of the index (context). Here a child hit becomes its
parent: the answer step and the user get the whole passage. The hit takes the
parent's id, element ids and pages too, because an answer may quote any
sentence of the passage and a citation must point at a chunk that holds its
quote (`Citation` is checked that way end to end); where the match was stays
in the hit's meta: ``matched_child`` (its id), ``child_text``,
``child_element_ids``, ``child_pages``. Several children of one parent become
one hit (the best-ranked; ``children_hit`` lists them all), or the top k
would repeat one passage.
"""

from __future__ import annotations

from bunko.schema import SEARCHABLE_KEY, Chunk, Hit
from bunko.store.search_backend import SearchBackend

WINDOW = 4
"""Fused candidates fetched per requested hit: children of one parent collapse, so look a little further."""


def _expanded(child: Chunk, parent: Chunk) -> Chunk:
    meta = {
        **{k: v for k, v in parent.meta.items() if k != SEARCHABLE_KEY},
        "matched_child": child.chunk_id, "child_text": child.text, "child_element_ids": list(child.element_ids),
        "child_pages": list(child.pages), "children_hit": [child.chunk_id],
    }
    return parent.with_meta(meta)


def expand_parents(hits: list[Hit], store: SearchBackend, k: int) -> list[Hit]:
    """The first ``k`` hits after swapping children for their parents (one hit per parent). The `Searcher` makes its
    hits by this rule from the chunks it keeps (`retrieve/hit_chunks.HitChunks.hits`), which
    tests/retrieve/test_hit_chunks.py holds equal to this."""
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
            expanded = Hit(_expanded(hit.chunk, parent), hit.score, hit.distance, hit.signals)
            by_parent[parent.chunk_id] = expanded
            out.append(expanded)
        if len(out) == k:
            break
    return out
