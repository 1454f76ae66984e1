"""The chunks a search's hits are made of, kept per store generation, and each hit's own copy of its chunk.

A keyword search ranks its 50 candidates in about 0.1 ms; making them into hits cost three times that. Each
candidate's chunk was copied out of the store's chunk cache, and with `parent_child` chunking most were then
dropped for their parents, copied out in turn, relabelled and copied a third time. Here the chunks are kept once per
generation (as tuples, `Kept`: no hit ever holds one) and a hit gets one new chunk: its parent's, labelled with the
child that matched (`retrieve/parents.py` says why), or the candidate's own. A child that only names where a
parent matched again (``children_hit``) is never made into a chunk, and its candidate's signals are not made either.

The generation is read once per search (`begin`): every write bumps it, so a moved generation empties what is kept.
Chunks read while a write commits are kept under the generation read before it, which the next search finds moved.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from bunko.retrieve.fusion import Fused, OneList
from bunko.schema import SEARCHABLE_KEY, Chunk, Hit, Signals
from bunko.store.search_backend import SearchBackend

KEPT_CHUNKS = 20_000
"""Chunks kept at most (the store's chunk cache holds as many); past it the first kept go first."""

Kept = tuple[Any, ...]
"""A chunk as kept: its fields in order, its four lists as tuples, then whether its meta nests (a list or an object
in it, which a copy must copy too). Tuples, and dicts of strings and numbers, drop out of the garbage collector's
lists, so thousands kept cost a full collection nothing (`store/chunk_cache.py`)."""

_ID, _DOC, _SOURCE, _ORDINAL, _TEXT, _EMBED, _ELEMENTS, _PAGES, _SECTION, _KINDS, _PARENT, _META, _NESTS = range(13)


def keep(chunk: Chunk) -> Kept:
    nests = any(isinstance(value, dict | list) for value in chunk.meta.values())
    return (chunk.chunk_id, chunk.doc_id, chunk.source, chunk.ordinal, chunk.text, chunk.embed_text, tuple(chunk.element_ids),
            tuple(chunk.pages), tuple(chunk.section_path), tuple(chunk.kinds), chunk.parent_id, chunk.meta, nests)


def _own(value: Any) -> Any:
    """A JSON value whose lists and objects are new at every depth (scalars are shared: nothing can edit them)."""
    if isinstance(value, dict):
        return {key: _own(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_own(item) for item in value]
    return value


def own_chunk(kept: Kept, meta: dict[str, Any] | None = None) -> Chunk:
    """A chunk that shares nothing editable with `kept` (its lists new, its meta `meta` or a copy of its own)."""
    if meta is None:
        meta = _own(kept[_META]) if kept[_NESTS] else dict(kept[_META])
    return Chunk(kept[_ID], kept[_DOC], kept[_SOURCE], kept[_ORDINAL], kept[_TEXT], kept[_EMBED], list(kept[_ELEMENTS]),
                 list(kept[_PAGES]), list(kept[_SECTION]), list(kept[_KINDS]), kept[_PARENT], meta)


def expanded_chunk(child: Kept, parent: Kept) -> Chunk:
    """The parent's chunk labelled with the child that matched: `retrieve/parents._expanded`, made once from the kept
    rows instead of from two copies."""
    meta = _own(parent[_META]) if parent[_NESTS] else dict(parent[_META])
    meta.pop(SEARCHABLE_KEY, None)
    meta.update(matched_child=child[_ID], child_text=child[_TEXT], child_element_ids=list(child[_ELEMENTS]),
                child_pages=list(child[_PAGES]), children_hit=[child[_ID]])
    return own_chunk(parent, meta)


class HitChunks:
    def __init__(self, store: SearchBackend, generation: Callable[[], int] | None = None, capacity: int = KEPT_CHUNKS) -> None:
        """`generation` reads the store's generation (one statement); without it nothing is kept from one search to
        the next."""
        self.store = store
        self._read_generation = generation
        self.capacity = capacity
        self.generation: int | None = None
        self._kept: dict[str, Kept] = {}
        self._lock = threading.Lock()

    def begin(self) -> int | None:
        """The generation this search reads at; what was kept under another is dropped."""
        if self._read_generation is None:
            with self._lock:
                self._kept = {}
            return None
        generation = self._read_generation()
        if generation != self.generation:
            with self._lock:
                self._kept = {}
                self.generation = generation
        return generation

    def kept(self, chunk_ids: Sequence[str], generation: int | None) -> dict[str, Kept]:
        """The kept rows of `chunk_ids` that exist; the ones not kept are read from the store and kept under
        `generation` (the one `begin` read), unless a newer search has moved it since."""
        store = self._kept
        found = {cid: row for cid in chunk_ids if (row := store.get(cid)) is not None}
        missing = [cid for cid in dict.fromkeys(chunk_ids) if cid not in found]
        if missing:
            read = {chunk.chunk_id: keep(chunk) for chunk in self.store.get_chunks(missing)}
            found.update(read)
            with self._lock:
                if generation == self.generation and self._kept is store:
                    store.update(read)
                    while len(store) > self.capacity:
                        del store[next(iter(store))]
        return found

    def hits(self, fused: Sequence[Fused], limit: int, generation: int | None) -> list[Hit]:
        """The hits of the first `limit` candidates with children swapped for their parents, one hit per parent (the
        best-ranked child's; ``children_hit`` names them all): what making a `Hit` per candidate and
        `expand_parents` over them make, each hit's chunk its own. A candidate whose chunk is gone (deleted since it
        was ranked) is left out; one whose parent is gone stays itself."""
        one_list = fused if isinstance(fused, OneList) else None
        ids = one_list.ids[:limit] if one_list is not None else [cid for cid, _, _ in fused[:limit]]
        rows = self.kept(ids, generation)
        wanted = list(dict.fromkeys(parent for cid in ids if (row := rows.get(cid)) is not None and (parent := row[_PARENT])))
        parents = self.kept(wanted, generation) if wanted else {}
        out: list[Hit] = []
        by_parent: dict[str, Hit] = {}
        for position, cid in enumerate(ids):
            row = rows.get(cid)
            if row is None:
                continue
            parent = parents.get(row[_PARENT] or "")
            if parent is not None and parent[_ID] in by_parent:
                by_parent[parent[_ID]].chunk.meta["children_hit"].append(cid)
                continue
            _, score, signals = one_list.entry(position) if one_list is not None else fused[position]
            hit = Hit(own_chunk(row) if parent is None else expanded_chunk(row, parent), score, hit_distance(signals), signals)
            if parent is not None:
                by_parent[parent[_ID]] = hit
            out.append(hit)
        return out


def hit_distance(signals: Signals) -> float | None:
    """Cosine distance from dense search's score, or from the similarity fusion computed for a chunk dense search missed."""
    if signals.dense is not None:
        return 1.0 - signals.dense.score
    return None if signals.similarity is None else 1.0 - signals.similarity
