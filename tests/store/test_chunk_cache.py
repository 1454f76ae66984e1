"""Chunks read for hits are cached per generation: never stale after a write, never shared with callers."""

from __future__ import annotations

from bunko.store.chunk_cache import ChunkCache, Row
from bunko.store.rows import chunk_from_packed_row


def row(cid: str, text: str = "text") -> Row:
    """A row as the local store reads it for hits (PACKED_CHUNK_COLUMNS)."""
    return (cid, "doc", "a.md", 0, text, text, None, '[["e1"],[1],["規程"],["paragraph"],{"n":1,"nested":{"l":[1]}}]')


def test_cached_chunks_are_read_once_per_generation_and_dropped_when_it_moves() -> None:
    reads: list[list[str]] = []
    store = {"a#0": row("a#0", "東京"), "a#1": row("a#1", "北京")}

    def read(ids: list[str]) -> list[Row]:
        reads.append(ids)
        return [store[i] for i in ids if i in store]

    cache = ChunkCache(chunk_from_packed_row)
    assert [c.text for c in cache.get(1, ["a#1", "a#0", "gone"], read)] == ["北京", "東京"]
    assert [c.text for c in cache.get(1, ["a#0", "a#1"], read)] == ["東京", "北京"]
    assert reads == [["a#1", "a#0", "gone"]]
    store["a#0"] = row("a#0", "Tokyo")
    assert [c.text for c in cache.get(2, ["a#0"], read)] == ["Tokyo"]  # a write bumped the generation


def test_callers_get_their_own_chunks_and_a_bulk_read_does_not_evict_everything() -> None:
    cache = ChunkCache(chunk_from_packed_row, capacity=2)
    read = lambda ids: [row(i) for i in ids]  # noqa: E731
    first = cache.get(1, ["x#0"], read)[0]
    first.meta["children_hit"] = ["y"]
    first.meta["nested"]["l"].append(2)
    first.pages.append(9)
    first.element_ids.append("e9")
    again = cache.get(1, ["x#0"], read)[0]
    assert again.meta == {"n": 1, "nested": {"l": [1]}} and again.pages == [1] and again.element_ids == ["e1"]
    again.meta["nested"]["l"].append(3)  # a copy from the cache is as much the caller's own as a freshly decoded one
    assert cache.get(1, ["x#0"], read)[0].meta == {"n": 1, "nested": {"l": [1]}}
    bulk = cache.get(1, [f"b#{i}" for i in range(5)], read)
    assert len(bulk) == 5 and "x#0" in cache._rows and len(cache._rows) <= 2
