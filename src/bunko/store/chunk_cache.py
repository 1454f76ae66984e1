"""Chunk rows read back for hits, kept per index generation so a search does not read them again.

A search returns its hits as `Chunk`s: one SQLite read per window and five JSON decodes per row
were half of a hybrid search at 13k chunks (bench/results/pages.md). Chunks only change with a
write, and every write bumps the collection's generation, so the cache is keyed by generation and
emptied when it moves. It keeps each chunk's row as SQLite returned it (strings and numbers, which
nothing can edit) and decodes a new `Chunk` for every caller, since hit code edits chunk meta
(parent expansion, grouping): a chunk read for the first time is decoded once, not decoded and then
copied (~0.01 ms of a keyword search at 10k chunks, where most hits are read for the first time).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

from bunko.schema import Chunk

CACHED_CHUNKS = 20_000

Row = Sequence[Any]
"""A chunk's row as read, its chunk id first."""


class ChunkCache:
    def __init__(self, decode: Callable[[Row], Chunk], capacity: int = CACHED_CHUNKS) -> None:
        """`decode` makes a new Chunk of a row each call: what a caller gets is its own."""
        self.decode = decode
        self.capacity = capacity
        self.generation = -1
        self._rows: OrderedDict[str, Row] = OrderedDict()

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
        """The chunks of `chunk_ids`, in that order, decoded from `fetched` (rows read at `generation`) or the
        cache; an id in neither does not exist. `fetched` is kept, unless a bulk read that would only evict
        everything else."""
        read = {row[0]: row for row in fetched}
        cached = self._rows
        found = []
        for cid in chunk_ids:
            row = read.get(cid) or cached.get(cid)
            if row is not None:
                found.append(self.decode(row))
                if cid in cached:
                    cached.move_to_end(cid)
        if len(read) <= self.capacity:
            cached.update(read)
            while len(cached) > self.capacity:
                cached.popitem(last=False)
        return found
