"""The local store: results survive close and reopen; a changed embedder is refused until reembed."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from bunko import Bunko, CollectionError


def test_results_identical_after_close_and_reopen(make_kb, tmp_path: Path, samples_dir: Path, embedder) -> None:
    kb = make_kb()
    kb.ingest(samples_dir)
    queries = ["宿泊費の上限", "年假有几天", "API rate limit", "E-1024"]
    before = [[(h.chunk.chunk_id, round(h.score, 6)) for h in kb.search(q, k=5)] for q in queries]
    kb.close()
    reopened = Bunko(tmp_path / ".bunko", embedder=embedder)
    after = [[(h.chunk.chunk_id, round(h.score, 6)) for h in reopened.search(q, k=5)] for q in queries]
    reopened.close()
    assert before == after


class ReversedUse:
    """A genuinely different embedder: USE vectors with the dimensions reversed."""

    name = "use-m3-reversed"
    dimension = 512

    def __init__(self, inner) -> None:
        self.inner = inner

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.ascontiguousarray(self.inner.embed(texts)[:, ::-1])


def test_other_embedder_is_refused_until_reembed(make_kb, tmp_path: Path, embedder) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\n経費精算は三十日以内に行います。\n", encoding="utf-8")
    make_kb().ingest(docs)
    with pytest.raises(CollectionError, match="bunko reembed"):
        Bunko(tmp_path / ".bunko", embedder=ReversedUse(embedder))
    kb = Bunko(tmp_path / ".bunko", embedder=ReversedUse(embedder), allow_embedder_change=True)
    assert kb.reembedder.run().chunks == 1
    assert kb.store.get_meta("embedder") == "use-m3-reversed"
    hit = kb.search("経費精算", mode="dense")[0]
    assert hit.chunk.source == "docs/a.md" and hit.distance is not None and hit.distance < 0.5
    kb.close()
    Bunko(tmp_path / ".bunko", embedder=ReversedUse(embedder)).close()  # now accepted


def test_hnsw_past_the_threshold_finds_what_exact_search_finds(make_kb, samples_dir: Path) -> None:
    from bunko import Config

    config = Config()
    config.retrieve.ann_threshold = 10
    ann_kb = make_kb(config=config, name="ann")
    exact_kb = make_kb(name="exact")
    ann_kb.ingest(samples_dir)
    exact_kb.ingest(samples_dir)
    queries = ["宿泊費の上限", "年假有几天", "API rate limit", "E-1024 同步冲突", "パスワードの長さ"]
    for query in queries:
        ann = [h.chunk.chunk_id for h in ann_kb.search(query, k=5, mode="dense")]
        exact = [h.chunk.chunk_id for h in exact_kb.search(query, k=5, mode="dense")]
        assert ann == exact
    assert ann_kb.store._index.ann_active and not exact_kb.store._index.ann_active
    filtered = ann_kb.search("休暇", k=3, mode="dense", filters={"source": {"$glob": "*-zh.md"}})
    assert len(filtered) == 3 and all(h.chunk.source.endswith("-zh.md") for h in filtered)


def test_status_shows_the_calibrated_hnsw_recall_without_loading_the_index(make_kb, tmp_path: Path, samples_dir: Path, embedder) -> None:
    from bunko import Config

    config = Config()
    config.retrieve.ann_threshold = 10
    kb = make_kb(config=config, name="ann")
    kb.ingest(samples_dir)
    kb.search("宿泊費の上限", mode="dense")
    index = kb.status()["index"]
    assert index["dense_index"] == "hnsw"
    assert index["hnsw"]["ef_search"] >= 160 and index["hnsw"]["recall@10"] >= 0.98 and index["hnsw"]["target_recall"] == 0.98
    folder = kb.path
    kb.close()
    reopened = Bunko(folder, config=config, embedder=embedder)
    assert reopened.status()["index"]["hnsw"] == index["hnsw"]
    assert reopened.store._index.generation < 0, "status read the graph's meta file, it did not load the index"
    reopened.close()
    exact = make_kb(name="exact")
    assert exact.status()["index"]["dense_index"] == "exact"


def test_a_configured_ef_search_is_used_instead_of_the_calibration_and_status_says_so(
    make_kb, samples_dir: Path, embedder
) -> None:
    from bunko import Config

    config = Config()
    config.retrieve.ann_threshold = 10
    kb = make_kb(config=config, name="ann")
    kb.ingest(samples_dir)
    kb.search("宿泊費の上限", mode="dense")
    calibrated = kb.status()["index"]["hnsw"]
    assert calibrated["ef_search_source"] == "calibrated"
    folder = kb.path
    kb.close()

    config.retrieve.ann_ef_search = 24
    fixed = Bunko(folder, config=config, embedder=embedder)
    before = fixed.status()["index"]["hnsw"]
    assert before["ef_search"] == 24 and before["ef_search_source"] == "retrieve.ann_ef_search" and before["recall@10"] is None
    assert fixed.store._index.generation < 0, "status says which ef is in force without loading the index"
    hits = fixed.search("宿泊費の上限", k=3, mode="dense")
    assert hits and fixed.store._index.ann_active and fixed.store._index.ann.ef_search == 24
    after = fixed.status()["index"]["hnsw"]
    assert after["ef_search"] == 24 and not fixed.store._index.ann.calibrated
    assert after["calibration"]["ef_search"] == calibrated["ef_search"], "the earlier calibration is kept, not applied"
    fixed.close()

    config.retrieve.ann_ef_search = None
    again = Bunko(folder, config=config, embedder=embedder)
    again.search("宿泊費の上限", mode="dense")
    assert again.status()["index"]["hnsw"]["ef_search_source"] == "calibrated"
    assert again.store._index.ann.ef_search == calibrated["ef_search"] and not again.store._index.ann.calibrated
    again.close()


@pytest.mark.parametrize("concurrent_rows", [0, 10**9])  # at once (a helper thread) and one after the other
def test_hybrid_search_runs_both_retrievers_with_the_same_results(make_kb, samples_dir: Path, concurrent_rows: int) -> None:
    from bunko.retrieve.searcher import Searcher
    from bunko.store.search_fallbacks import BasicReadsOnly

    kb = make_kb()
    kb.ingest(samples_dir)
    store = kb.store
    store.concurrent_rows = concurrent_rows
    for query, where in (("宿泊費の上限", None), ("年假有几天", {"source": {"$glob": "*-zh.md"}}), ("API rate limit", None)):
        vector = kb.embedder.embed([query])[0]
        tokens = kb.analyzer(query)
        dense, keyword = store.search().hybrid_search(vector, tokens, 20, where)
        assert dense == store.search().dense_search(vector, 20, where)
        assert keyword == store.search().keyword_search(tokens, 20, where)

    together = kb.searcher
    apart = Searcher(  # the shared fallbacks: dense, then keyword, on this thread
        BasicReadsOnly(store.search()), together.embedder, together.analyzer, together.config, together.rules, sentences=together.sentences,
        copies=together.copies,
    )
    for query in ("宿泊費の上限", "E-1024 同步冲突", "パスワードの長さ"):
        a, b = together.search(query, k=5), apart.search(query, k=5)
        assert [(h.chunk.chunk_id, h.score) for h in a.hits] == [(h.chunk.chunk_id, h.score) for h in b.hits]
        assert "retrieve" in a.timings and "retrieve" in b.timings
        assert {"document_search", "evidence", "fusion", "fuse"} <= a.timings.keys()  # hybrid's stages, each timed
    assert (store.search()._helper is not None) == (concurrent_rows == 0)


def test_index_load_reads_one_snapshot_while_another_process_commits(tmp_path: Path) -> None:
    """A document committed by another connection mid-load must not tear the load (count vs rows)."""
    from bunko.schema import Chunk, ParsedDocument, doc_id_for
    from bunko.store.base import StoredChunk
    from bunko.store.local import LocalStore
    from bunko.text.analyzers import multilingual

    def write(store: LocalStore, source: str, texts: list[str]) -> None:
        doc = ParsedDocument(doc_id_for(source), source, source, "text/markdown", "test", [], {})
        rng = np.random.default_rng(len(texts))
        chunks = [StoredChunk(Chunk(f"{source}#{i}", doc.doc_id, source, i, t, t), rng.standard_normal(8).astype(np.float32),
                              multilingual(t), f"h-{source}-{i}") for i, t in enumerate(texts)]
        store.replace_document(doc, f"hash-{source}", chunks)

    reader, writer = LocalStore(tmp_path / "kb"), LocalStore(tmp_path / "kb")
    write(writer, "first.md", ["出張の宿泊費", "差旅住宿费", "hotel limit"])
    interleaved: list[str] = []

    def commit_after_count(statement: str) -> None:  # between the row count and the row scan
        if statement.startswith("SELECT chunk_id, doc_id") and not interleaved:
            interleaved.append(statement)
            write(writer, "second.md", [f"row {i}" for i in range(50)])

    reader._db.set_trace_callback(commit_after_count)
    hits = reader.search().keyword_search(multilingual("宿泊費"), 3)
    reader._db.set_trace_callback(None)
    assert interleaved and hits and hits[0][0] == "first.md#0"
    assert len(reader.search().keyword_search(["row"], 100)) == 50  # the next search sees the new generation
    reader.close()
    writer.close()


@pytest.mark.parametrize("damage", ["truncate-vocab", "truncate-matrix", "truncate-documents", "truncate-openings", "garbage", "no-openings"])
def test_a_damaged_bm25_cache_is_rebuilt_not_fatal(make_kb, tmp_path: Path, samples_dir: Path, embedder, damage: str) -> None:
    kb = make_kb()
    kb.ingest(samples_dir)
    queries = ["宿泊費の上限", "年假有几天", "API rate limit"]
    before = [[(h.chunk.chunk_id, round(h.score, 6)) for h in kb.search(q, k=5)] for q in queries]
    kb.close()
    cache = sorted((tmp_path / ".bunko").rglob("bm25-*"))
    assert {p.name.split(".", 1)[1] for p in cache} == {"npz", "vocab.json", "documents.npz", "openings.npz"}
    target = {"truncate-vocab": "vocab.json", "truncate-matrix": "npz", "truncate-documents": "documents.npz",
              "truncate-openings": "openings.npz", "garbage": "npz", "no-openings": "openings.npz"}[damage]
    path = next(p for p in cache if p.name.split(".", 1)[1] == target)
    if damage == "no-openings":  # a cache written before openings were indexed
        path.unlink()
    elif damage == "garbage":
        path.write_bytes(b"not a numpy file at all")
    else:
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    reopened = Bunko(tmp_path / ".bunko", embedder=embedder)
    after = [[(h.chunk.chunk_id, round(h.score, 6)) for h in reopened.search(q, k=5)] for q in queries]
    reopened.close()
    assert before == after


def test_migrating_from_a_local_store_of_another_schema_is_refused_with_its_version(tmp_path: Path) -> None:
    from bunko.errors import CollectionError
    from bunko.store.local import SCHEMA_VERSION, LocalStore
    from bunko.store.migrate import open_endpoint

    store = LocalStore(tmp_path / "store")
    store.set_meta("schema_version", "0")
    store.close()
    with pytest.raises(CollectionError, match=rf"store: local store schema 0 is not {SCHEMA_VERSION}"):
        open_endpoint("local", tmp_path)


def test_a_store_from_before_the_entity_graph_is_upgraded_and_reindex_builds_its_graph(tmp_path: Path, embedder) -> None:
    import sqlite3

    from bunko.store.local import SCHEMA_VERSION

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "en.md").write_text("# Disks\n\nThe mdadm tool manages software RAID arrays.\n", encoding="utf-8")
    (docs / "ja.md").write_text("# ディスク\n\nソフトウェアRAIDはmdadmで管理します。サーバーの設定です。\n", encoding="utf-8")
    (docs / "zh.md").write_text("# 磁盘\n\n软件RAID阵列由mdadm管理，配置文件在服务器上。\n", encoding="utf-8")
    kb = Bunko(tmp_path / ".bunko", embedder=embedder)
    assert kb.ingest(docs).ok
    before = kb.search("mdadm RAID", k=3)
    kb.close()
    with sqlite3.connect(tmp_path / ".bunko" / "store" / "bunko.db") as db:  # what a version-1 store looked like
        db.execute("ALTER TABLE chunks DROP COLUMN entity_spans")
        db.execute("ALTER TABLE chunks DROP COLUMN entities")
        db.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")

    kb = Bunko(tmp_path / ".bunko", embedder=embedder)
    assert kb.store.get_meta("schema_version") == SCHEMA_VERSION
    assert kb.store.search().entity_graph().passages_of("mdadm") == []
    assert [h.chunk.chunk_id for h in kb.search("mdadm RAID", k=3)] == [h.chunk.chunk_id for h in before]
    assert kb.search("mdadm RAID", k=3, mode="graph")  # an empty graph falls back to hybrid
    kb.reindex()
    assert len(kb.store.search().entity_graph().passages_of("mdadm")) == 3
    assert kb.store.search().entity_graph().passages_of("サーバ")
    kb.close()


def test_a_version_3_store_gets_the_job_progress_column_and_keeps_its_jobs(tmp_path: Path) -> None:
    import sqlite3

    from bunko.schema import IngestJob, JobProgress, JobStatus
    from bunko.store.local import SCHEMA_VERSION, LocalStore

    store = LocalStore(tmp_path / "store")
    store.save_job(IngestJob("old", "規程.md", JobStatus.READY, created_at=1.0, updated_at=1.0), "run-1")
    store.close()
    with sqlite3.connect(tmp_path / "store" / "bunko.db") as db:  # what a version-3 store looked like
        db.execute("ALTER TABLE jobs DROP COLUMN progress")
        db.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")
    store = LocalStore(tmp_path / "store")
    assert store.get_meta("schema_version") == SCHEMA_VERSION == "4"
    assert [(j.job_id, j.progress) for j in store.jobs()] == [("old", None)]
    store.save_job(IngestJob("new", "说明.pdf", JobStatus.EMBEDDING, created_at=2.0, updated_at=2.0,
                             progress=JobProgress("embedding", 640, 2421, "chunks")), "run-2")
    assert store.get_job("new").progress.describe() == "embedding 640/2,421 chunks"
    store.close()


def test_the_generation_read_moves_with_every_commit_of_this_connection_or_another(tmp_path: Path) -> None:
    """`generation` reads the meta row again only when `PRAGMA data_version` or this connection's changes moved."""
    from bunko.schema import Chunk, ParsedDocument, doc_id_for
    from bunko.store.base import StoredChunk
    from bunko.store.local import LocalStore
    from bunko.text.analyzers import multilingual

    def write(store: LocalStore, source: str, text: str) -> None:
        doc = ParsedDocument(doc_id_for(source), source, source, "text/markdown", "test", [], {})
        chunk = StoredChunk(Chunk(f"{source}#0", doc.doc_id, source, 0, text, text), np.ones(8, dtype=np.float32),
                            multilingual(text), f"h-{source}")
        store.replace_document(doc, f"hash-{source}", [chunk])

    reader, writer = LocalStore(tmp_path / "kb"), LocalStore(tmp_path / "kb")
    first = reader.generation()
    assert reader.generation() == first
    write(writer, "ja.md", "出張の宿泊費の上限")  # another connection's commit
    second = reader.generation()
    assert second > first and reader.generation() == second == writer.generation()
    write(reader, "zh.md", "差旅住宿费的上限")  # this connection's own
    third = reader.generation()
    assert third > second and writer.generation() == third
    with reader._lock:  # a write that bumps the counter and is rolled back leaves it where it was
        reader._db.execute("BEGIN")
        reader._bump_generation()
        assert reader.generation() == third + 1
        reader._db.execute("ROLLBACK")
    assert reader.generation() == third == writer.generation()
    assert reader.search().keyword_search(multilingual("宿泊費"), 3)[0][0] == "ja.md#0"
    reader.close()
    writer.close()
