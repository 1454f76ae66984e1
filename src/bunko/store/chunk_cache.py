"""Chunk records read back for hits, kept per index generation so a search does not re-read and re-decode them.

A search returns its hits as `Chunk`s: one SQLite read per window and five JSON decodes per row
were half of a hybrid search at 13k chunks (bench/results/pages.md). Chunks only change with a
write, and every write bumps the collection's generation, so the cache is keyed by generation and
emptied when it moves. Callers get copies: hit code edits chunk meta (parent expansion, grouping).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence

from bunko.schema import Chunk

CACHED_CHUNKS = 20_000


class ChunkCache:
    def __init__(self, capacity: int = CACHED_CHUNKS) -> None:
        self.capacity = capacity
        self.generation = -1
        self._chunks: OrderedDict[str, Chunk] = OrderedDict()

    def get(self, generation: int, chunk_ids: Sequence[str], read: Callable[[list[str]], list[Chunk]]) -> list[Chunk]:
        """The chunks of `chunk_ids` that exist, in that order; `read` fetches the ones not cached."""
        self.at(generation)
        missing = self.missing(chunk_ids)
        return self.take(chunk_ids, read(missing) if missing else [])

    def at(self, generation: int) -> None:
        """Empty the cache when `generation` is not the one its chunks were read at."""
        if generation != self.generation:
            self._chunks.clear()
            self.generation = generation

    def missing(self, chunk_ids: Sequence[str]) -> list[str]:
        """The distinct ids of `chunk_ids` not cached, in order: the ones to read."""
        return [cid for cid in dict.fromkeys(chunk_ids) if cid not in self._chunks]

    def take(self, chunk_ids: Sequence[str], fetched: Sequence[Chunk]) -> list[Chunk]:
        """Copies of the chunks of `chunk_ids`, in that order, from `fetched` (read at `generation`) or the cache;
        an id in neither does not exist. `fetched` is kept, unless a bulk read that would only evict everything else."""
        read = {chunk.chunk_id: chunk for chunk in fetched}
        found = []
        for cid in chunk_ids:
            chunk = read.get(cid) or self._chunks.get(cid)
            if chunk is not None:
                found.append(_copy(chunk))
                if cid in self._chunks:
                    self._chunks.move_to_end(cid)
        if len(read) <= self.capacity:
            self._chunks.update(read)
            while len(self._chunks) > self.capacity:
                self._chunks.popitem(last=False)
        return found


def _copy(chunk: Chunk) -> Chunk:
    """A copy whose lists and meta the caller may edit (the constructor: dataclasses.replace costs 30 µs a chunk)."""
    return Chunk(
        chunk.chunk_id, chunk.doc_id, chunk.source, chunk.ordinal, chunk.text, chunk.embed_text, list(chunk.element_ids),
        list(chunk.pages), list(chunk.section_path), list(chunk.kinds), chunk.parent_id, dict(chunk.meta),
    )
