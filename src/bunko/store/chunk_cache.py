"""Chunk rows read back for hits, kept per index generation so a search does not read or decode them again.

A search returns its hits as `Chunk`s: one SQLite read per window and five JSON decodes per row
were half of a hybrid search at 13k chunks (bench/results/pages.md). Chunks only change with a
write, and every write bumps the collection's generation, so the cache is keyed by generation and
emptied when it moves. It keeps each chunk decoded once (as a tuple, `Kept`), never handed out, and gives every
caller its own copy (its lists and meta copied, nested meta values too), since hit code edits chunk meta
(parent expansion, grouping): copying is about half the cost of decoding the row again (~3 against ~6.5 µs a
chunk on a loaded machine). A keyword search of 50 hits over the handbook pages (13k chunks, every hit cached) went
from 552 and 643 to 519 and 543 µs (median over 300 questions of the fastest of 7 runs, two alternating rounds).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

from bunko.schema import Chunk


def _own(value: Any) -> Any:
    """A JSON value whose lists and objects are new, at every depth (scalars are shared: nothing can edit them)."""
    if isinstance(value, dict):
        return {key: _own(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_own(item) for item in value]
    return value


Kept = tuple[Any, ...]
"""A chunk as the cache keeps it: its fields in order, its four lists as tuples. Tuples and dicts that hold only
strings and numbers drop out of the garbage collector's lists, so 20,000 kept chunks cost a collection nothing, where
as many `Chunk`s (five containers each) made every full collection slower than the decoding they saved."""


def keep(chunk: Chunk) -> Kept:
    return (chunk.chunk_id, chunk.doc_id, chunk.source, chunk.ordinal, chunk.text, chunk.embed_text, tuple(chunk.element_ids),
            tuple(chunk.pages), tuple(chunk.section_path), tuple(chunk.kinds), chunk.parent_id, chunk.meta)


def copy_chunk(kept: Kept) -> Chunk:
    """A chunk that shares nothing editable with the kept one, as if its row were decoded again (its four lists hold
    strings and numbers; its meta may nest)."""
    meta = kept[11]
    for value in meta.values():
        if isinstance(value, (dict, list)):
            meta = _own(meta)
            break
    else:
        meta = dict(meta)
    return Chunk(kept[0], kept[1], kept[2], kept[3], kept[4], kept[5], list(kept[6]), list(kept[7]), list(kept[8]), list(kept[9]),
                 kept[10], meta)


CACHED_CHUNKS = 20_000

Row = Sequence[Any]
"""A chunk's row as read, its chunk id first."""


class ChunkCache:
    def __init__(self, decode: Callable[[Row], Chunk], capacity: int = CACHED_CHUNKS) -> None:
        """`decode` makes a Chunk of a row; the cache keeps it and hands out copies (`copy_chunk`)."""
        self.decode = decode
        self.capacity = capacity
        self.generation = -1
        self._rows: OrderedDict[str, Kept] = OrderedDict()
        """Chunk id → the chunk decoded from its row (`keep`), never handed out."""

    def get(self, generation: int, chunk_ids: Sequence[str], read: Callable[[list[str]], Sequence[Row]]) -> list[Chunk]:
        """The chunks of `chunk_ids` that exist, in that order; `read` fetches the rows of the ones not cached."""
        self.at(generation)
        missing = self.missing(chunk_ids)
        return self.take(chunk_ids, read(missing) if missing else [])

    def at(self, generation: int) -> None:
        """Empty the cache when `generation` is not the one its rows were read at."""
        if generation != self.generation:
            self._rows.clear()
            self.generation = generation

    def missing(self, chunk_ids: Sequence[str]) -> list[str]:
        """The distinct ids of `chunk_ids` not cached, in order: the ones to read."""
        return [cid for cid in dict.fromkeys(chunk_ids) if cid not in self._rows]

    def take(self, chunk_ids: Sequence[str], fetched: Sequence[Row]) -> list[Chunk]:
        """The chunks of `chunk_ids`, in that order, decoded from `fetched` (rows read at `generation`) or copied from
        the cache; an id in neither does not exist. `fetched` is kept, unless a bulk read that would only evict
        everything else."""
        read = {row[0]: keep(self.decode(row)) for row in fetched}
        cached = self._rows
        found = []
        for cid in chunk_ids:
            chunk = read.get(cid) or cached.get(cid)
            if chunk is not None:
                found.append(copy_chunk(chunk))
                if cid in cached:
                    cached.move_to_end(cid)
        if len(read) <= self.capacity:
            cached.update(read)
            while len(cached) > self.capacity:
                cached.popitem(last=False)
        return found
