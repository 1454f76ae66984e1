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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import fields
from typing import Any

from bunko.retrieve.fusion import Fused, OneList
from bunko.retrieve.made_on_read import MadeOnRead
from bunko.schema import SEARCHABLE_KEY, Chunk, Hit, RankSignal, Signals
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


def _hit_meta(chunk: KeptChunk) -> dict[str, Any]:
    """The chunk's meta, its own (a copy that shares no list or object with the kept row), or, for a parent standing in
    for the child that matched, the parent's without ``searchable`` and labelled with that child as
    `retrieve/parents._expanded` labels it."""
    row, child = chunk._row, chunk._child
    meta = _own(row[_META]) if row[_NESTS] else dict(row[_META])
    if child is not None:
        meta.pop(SEARCHABLE_KEY, None)
        meta.update(matched_child=child[_ID], child_text=child[_TEXT], child_element_ids=list(child[_ELEMENTS]),
                    child_pages=list(child[_PAGES]), children_hit=chunk._children)
    return meta


_CHUNK_FIELDS = tuple(f.name for f in fields(Chunk))
_HIT_FIELDS = tuple(f.name for f in fields(Hit))


class KeptChunk(Chunk):
    """A hit's chunk made from a kept row (a parent's labelled with the child that matched, or the row's own), its id,
    source and text set at once and its four lists and meta made, its own, the first time each is read. A keyword search's caller reads the
    hits' sources and texts; copying every hit's lists and meta up front was half of making its 30-odd hits. Equal to a
    `Chunk` with the same fields; `dataclasses.replace` and the dataclass's `__init__` make one with every field set."""

    _row: Kept
    _child: Kept | None
    _children: list[str] | None
    element_ids = MadeOnRead(lambda chunk: list(chunk._row[_ELEMENTS]))
    pages = MadeOnRead(lambda chunk: list(chunk._row[_PAGES]))
    section_path = MadeOnRead(lambda chunk: list(chunk._row[_SECTION]))
    kinds = MadeOnRead(lambda chunk: list(chunk._row[_KINDS]))
    meta = MadeOnRead(_hit_meta)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Chunk):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in _CHUNK_FIELDS)

    def _from(self, row: Kept, child: Kept | None, children: list[str] | None) -> KeptChunk:
        """Set on a new instance (`kept_chunk`): attributes set in a method are set at half the cost of the same
        settings in a function."""
        self.chunk_id = row[_ID]
        self.doc_id = row[_DOC]
        self.source = row[_SOURCE]
        self.ordinal = row[_ORDINAL]
        self.text = row[_TEXT]
        self.embed_text = row[_EMBED]
        self.parent_id = row[_PARENT]
        self._row = row
        self._child = child
        self._children = children
        return self


_new = object.__new__


def kept_chunk(row: Kept, child: Kept | None = None, children: list[str] | None = None) -> KeptChunk:
    """`row`'s chunk, or with `child` the parent `row` labelled with the child that matched, its ``children_hit``
    `children` (the list itself: children found later are appended to it)."""
    return _new(KeptChunk)._from(row, child, children)


class KeptHit(Hit):
    """A hit of one ranked list (`fusion.OneList`) whose signals are the list's entry, made the first time they are
    read (with the fused rank `rank_hits` gave it), and whose distance and ``also_at`` are made when read: a
    caller of keyword search reads a hit's chunk and score. Equal to a `Hit` with the same fields."""

    _listed: OneList
    _position: int
    _signals: Signals | None = None
    _fusion_rank: int | None = None
    _fusion_score: float = 0.0
    distance = MadeOnRead(lambda hit: hit_distance(hit.signals))
    also_at: MadeOnRead[list[str]] = MadeOnRead(lambda hit: [])

    @property
    def signals(self) -> Signals:
        signals = self._signals
        if signals is None:
            signals = self._signals = self._listed.entry(self._position)[2]
            if self._fusion_rank is not None:
                signals.fusion = RankSignal(float(self._fusion_rank), self._fusion_score)
        return signals

    @signals.setter
    def signals(self, signals: Signals) -> None:
        self._signals = signals

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Hit):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in _HIT_FIELDS)

    def _from(self, chunk: Chunk, listed: OneList, position: int) -> KeptHit:
        self.chunk = chunk
        self.score = listed.fused_score(position)
        self._listed = listed
        self._position = position
        return self


def listed_hit(chunk: Chunk, listed: OneList, position: int) -> KeptHit:
    """The hit of `listed`'s entry at `position`, its signals made when first read."""
    return _new(KeptHit)._from(chunk, listed, position)


def rank_hits(hits: Sequence[Hit]) -> None:
    """Each hit's fused rank (1 = first) and score in its signals; a `KeptHit` whose signals are not made yet keeps
    them to be written when they are."""
    for rank, hit in enumerate(hits, start=1):
        if type(hit) is KeptHit and hit._signals is None:
            hit._fusion_rank, hit._fusion_score = rank, hit.score
        else:
            hit.signals.fusion = RankSignal(float(rank), hit.score)


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
        missing = [cid for cid in chunk_ids if cid not in found]
        if missing:
            missing = list(dict.fromkeys(missing))
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
        `expand_parents` over them make, each hit's chunk its own (`KeptChunk`) and, from one ranked list, each hit's
        signals made when read (`KeptHit`). A candidate whose chunk is gone (deleted since it was ranked) is left out;
        one whose parent is gone stays itself. When every chunk and parent is kept (a search after the first of a
        generation), the hits are made in one pass over the kept rows, without gathering them first."""
        listed = fused if isinstance(fused, OneList) else None
        ids = listed.ids[:limit] if listed is not None else [cid for cid, _, _ in fused[:limit]]
        kept = self._kept
        made = _made(fused, listed, ids, kept, kept, every_row=True)
        if made is None:  # a chunk or a parent not kept (or let go meanwhile): read them, then make the hits
            rows = self.kept(ids, generation)
            wanted = [parent for cid in ids if (row := rows.get(cid)) is not None and (parent := row[_PARENT])]
            made = _made(fused, listed, ids, rows, self.kept(wanted, generation) if wanted else {}, every_row=False)
        assert made is not None
        return made


def _made(fused: Sequence[Fused], listed: OneList | None, ids: list[str], rows: Mapping[str, Kept],
          parents: Mapping[str, Kept], every_row: bool) -> list[Hit] | None:
    """`HitChunks.hits` from the rows and parents at hand; None, with `every_row`, as soon as one is not at hand."""
    out: list[Hit] = []
    children_of: dict[str, list[str]] = {}
    for position, cid in enumerate(ids):
        row = rows.get(cid)
        if row is None:
            if every_row:
                return None
            continue
        parent_id = row[_PARENT]
        if not parent_id:
            chunk = _new(KeptChunk)._from(row, None, None)  # kept_chunk, one call fewer
        elif parent_id in children_of:
            children_of[parent_id].append(cid)
            continue
        elif (parent := parents.get(parent_id)) is not None:
            children_of[parent_id] = children = [cid]
            chunk = _new(KeptChunk)._from(parent, row, children)
        elif every_row:
            return None
        else:
            chunk = _new(KeptChunk)._from(row, None, None)
        if listed is not None:
            out.append(_new(KeptHit)._from(chunk, listed, position))  # listed_hit
        else:
            _, score, signals = fused[position]
            out.append(Hit(chunk, score, hit_distance(signals), signals))
    return out


def hit_distance(signals: Signals) -> float | None:
    """Cosine distance from dense search's score, or from the similarity fusion computed for a chunk dense search missed."""
    if signals.dense is not None:
        return 1.0 - signals.dense.score
    return None if signals.similarity is None else 1.0 - signals.similarity
