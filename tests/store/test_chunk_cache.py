"""Chunks read for hits are cached per generation: never stale after a write, never shared with callers."""

from __future__ import annotations

from bunko.schema import Chunk
from bunko.store.chunk_cache import ChunkCache


def chunk(cid: str, text: str = "text") -> Chunk:
    return Chunk(cid, "doc", "a.md", 0, text, text, ["e1"], [1], ["規程"], ["paragraph"], None, {"n": 1})


def test_cached_chunks_are_read_once_per_generation_and_dropped_when_it_moves() -> None:
    reads: list[list[str]] = []
    store = {"a#0": chunk("a#0", "東京"), "a#1": chunk("a#1", "北京")}

    def read(ids: list[str]) -> list[Chunk]:
        reads.append(ids)
        return [store[i] for i in ids if i in store]

    cache = ChunkCache()
    assert [c.text for c in cache.get(1, ["a#1", "a#0", "gone"], read)] == ["北京", "東京"]
    assert [c.text for c in cache.get(1, ["a#0", "a#1"], read)] == ["東京", "北京"]
    assert reads == [["a#1", "a#0", "gone"]]
    store["a#0"] = chunk("a#0", "Tokyo")
    assert [c.text for c in cache.get(2, ["a#0"], read)] == ["Tokyo"]  # a write bumped the generation


def test_callers_get_copies_and_a_bulk_read_does_not_evict_everything() -> None:
    cache = ChunkCache(capacity=2)
    read = lambda ids: [chunk(i) for i in ids]  # noqa: E731
    first = cache.get(1, ["x#0"], read)[0]
    first.meta["children_hit"] = ["y"]
    first.pages.append(9)
    again = cache.get(1, ["x#0"], read)[0]
    assert again.meta == {"n": 1} and again.pages == [1]
    bulk = cache.get(1, [f"b#{i}" for i in range(5)], read)
    assert len(bulk) == 5 and "x#0" in cache._chunks and len(cache._chunks) <= 2
