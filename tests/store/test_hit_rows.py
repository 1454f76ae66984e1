"""The rows a search returns: read with the generation in one statement, their JSON columns packed into one array,
and the same chunks, bit for bit, as the plain column read gives."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from bunko.schema import Chunk, ParsedDocument, doc_id_for
from bunko.store.base import StoredChunk
from bunko.store.local import LocalStore
from bunko.store.rows import CHUNK_COLUMNS, PACKED_CHUNK_COLUMNS, chunk_from_packed_row, chunk_from_row
from bunko.text.analyzers import multilingual


def varied_chunks(source: str, word: str) -> list[Chunk]:
    """Every JSON column empty and full: unicode, escapes, nested meta, ints and floats, a parent."""
    doc_id = doc_id_for(source)
    return [
        Chunk(f"{source}#0", doc_id, source, 0, f"{word} 出張の宿泊費", f"規程 > {word}"),
        Chunk(f"{source}#1", doc_id, source, 1, f"{word} 差旅住宿费", f"{word} 差旅", ["e1", "e\"2\\"], [3, 4], ["第1章", "a/b"],
              ["table", "paragraph"], f"{source}#0", {"n": 1, "x": 1.5, "nested": {"l": [1, "二", None, True]}, "q": "\"'\u2028"}),
        Chunk(f"{source}#2", doc_id, source, 2, f"{word} hotel limit", f"{word} hotel", [], [7], [], [], None, {"role": "child"}),
    ]


def write(store: LocalStore, source: str, word: str) -> list[Chunk]:
    chunks = varied_chunks(source, word)
    doc = ParsedDocument(doc_id_for(source), source, source, "text/markdown", "test", [], {})
    rng = np.random.default_rng(7)
    store.replace_document(doc, f"hash-{source}-{word}", [
        StoredChunk(c, rng.standard_normal(8).astype(np.float32), multilingual(c.embed_text), f"h-{c.chunk_id}-{word}") for c in chunks
    ])
    return chunks


def statements(store: LocalStore) -> list[str]:
    seen: list[str] = []
    store._db.set_trace_callback(seen.append)
    return seen


def test_a_packed_row_is_the_chunk_its_columns_give(tmp_path: Path) -> None:
    store = LocalStore(tmp_path / "kb")
    write(store, "a.md", "one")
    plain = store._db.execute(f"SELECT {CHUNK_COLUMNS} FROM chunks ORDER BY chunk_id").fetchall()
    packed = store._db.execute(f"SELECT {PACKED_CHUNK_COLUMNS} FROM chunks ORDER BY chunk_id").fetchall()
    assert [repr(chunk_from_packed_row(row)) for row in packed] == [repr(chunk_from_row(row)) for row in plain]
    ids = [row[0] for row in plain]
    assert repr(store.get_chunks(ids[::-1])) == repr(store.chunks()[::-1])  # repr: 1 and 1.0 differ
    store.close()


def test_a_damaged_json_column_raises_as_it_did(tmp_path: Path) -> None:
    store = LocalStore(tmp_path / "kb")
    write(store, "a.md", "one")
    store._db.execute("UPDATE chunks SET meta = '{\"n\": 1' WHERE chunk_id = 'a.md#1'")
    with pytest.raises(json.JSONDecodeError):
        store.chunks()
    with pytest.raises(json.JSONDecodeError):
        store.get_chunks(["a.md#1"])
    store._db.execute("UPDATE chunks SET meta = '{} {}' WHERE chunk_id = 'a.md#1'")  # two values where one belongs
    with pytest.raises(ValueError):
        store.get_chunks(["a.md#1"])
    store.close()


def test_hits_cost_one_statement_and_a_write_from_another_process_is_seen(tmp_path: Path) -> None:
    reader, writer = LocalStore(tmp_path / "kb"), LocalStore(tmp_path / "kb")
    write(writer, "a.md", "old")
    seen = statements(reader)
    assert [c.text for c in reader.get_chunks(["a.md#2", "a.md#0"])] == ["old hotel limit", "old 出張の宿泊費"]
    assert len(seen) == 1  # the rows and the generation together
    seen.clear()
    assert [c.text for c in reader.get_chunks(["a.md#0", "a.md#1"])] == ["old 出張の宿泊費", "old 差旅住宿费"]
    assert len(seen) == 1  # one cached, one read with the generation
    seen.clear()
    assert [c.text for c in reader.get_chunks(["a.md#1"])] == ["old 差旅住宿费"]
    assert seen == ["PRAGMA data_version", "SELECT value FROM meta WHERE key = 'generation'"]  # all cached: the generation
    seen.clear()
    assert [c.text for c in reader.get_chunks(["a.md#0"])] == ["old 出張の宿泊費"]
    assert seen == ["PRAGMA data_version"]  # read again only when a commit moved it
    write(writer, "a.md", "new")
    assert [c.text for c in reader.get_chunks(["a.md#0", "a.md#2"])] == ["new 出張の宿泊費", "new hotel limit"]
    assert [c.text for c in reader.get_chunks(["a.md#1"])] == ["new 差旅住宿费"]  # the cache was emptied
    reader.close()
    writer.close()


def test_a_write_between_two_reads_drops_the_cached_chunks_and_reads_them_again(tmp_path: Path) -> None:
    reader, writer = LocalStore(tmp_path / "kb"), LocalStore(tmp_path / "kb")
    write(writer, "a.md", "old")
    write(writer, "b.md", "old")
    reader.get_chunks(["a.md#0"])
    write(writer, "a.md", "new")  # a.md#0 cached at the old generation; b.md#0 read at the new one
    assert [c.text for c in reader.get_chunks(["a.md#0", "b.md#0"])] == ["new 出張の宿泊費", "old 出張の宿泊費"]
    writer.delete_document("b.md")
    assert [c.chunk_id for c in reader.get_chunks(["b.md#0", "a.md#1"])] == ["a.md#1"]  # deleted: skipped
    assert reader.get_chunks(["b.md#1"]) == []  # no row read: the generation on its own
    reader.close()
    writer.close()


def test_more_ids_than_one_statement_binds_are_read_in_batches(tmp_path: Path) -> None:
    store = LocalStore(tmp_path / "kb")
    chunks = write(store, "a.md", "one")
    ids = [chunk.chunk_id for chunk in chunks] + [f"gone#{i}" for i in range(600)]
    assert [c.chunk_id for c in store.get_chunks(ids)] == ids[:3]
    store.close()


def test_every_chunk_of_an_ingested_collection_reads_back_as_the_plain_read_gives(make_kb, samples_dir: Path) -> None:
    """parent_child chunks of the samples: parents and children, element ids, kinds and meta as ingest writes them."""
    kb = make_kb()
    kb.ingest(samples_dir)
    store = kb.store
    assert isinstance(store, LocalStore)
    plain = store.chunks()
    assert any(chunk.parent_id for chunk in plain) and any(chunk.element_ids for chunk in plain) and any(chunk.kinds for chunk in plain)
    ids = [chunk.chunk_id for chunk in plain]
    assert repr(store.get_chunks(ids)) == repr(plain)  # read in one statement per 500, then from the cache
    assert repr(store.get_chunks(ids[::-1])) == repr(plain[::-1])
