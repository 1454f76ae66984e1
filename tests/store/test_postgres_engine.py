"""A postgres-backed Bunko answers like a local one; two processes ingesting one folder never duplicate."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from bunko import Bunko, Config

QUERIES = [
    ("東京23区に出張する一般社員の宿泊費の上限はいくらですか？", "travel-expense-policy-ja.md"),
    ("婚假有几天？", "leave-policy-zh.md"),
    ("P1 级别工单的首次响应时间是多少？", "customer-support-sla-zh.md"),
    ("How many requests per minute does the API allow per key?", "api-quickstart-en.md"),
    ("エラーコード E-1024 の意味は？", None),
    ("What is the retention period for invoices?", "data-retention-policy-en.md"),
]


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory, embedder, samples_dir: Path, pg_dsn: str, with_schema):
    """The bundled samples ingested into a local and a postgres collection side by side."""
    import psycopg

    root = tmp_path_factory.mktemp("pair")
    local = Bunko(root / "local", embedder=embedder)
    remote = Bunko(root / "pg", config=Config(store=with_schema(pg_dsn, "engine_pair")), embedder=embedder)
    for kb in (local, remote):
        report = kb.ingest(samples_dir)
        assert report.ok, [(j.source, j.error_detail) for j in report.failed]
    yield local, remote
    local.close()
    remote.close()
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute("DROP SCHEMA engine_pair CASCADE")


@pytest.mark.parametrize(("query", "source"), QUERIES)
@pytest.mark.parametrize("mode", ["hybrid", "dense", "keyword"])
def test_postgres_collection_ranks_like_the_local_one(pair, query: str, source: str | None, mode: str) -> None:
    local, remote = pair
    ours = local.search(query, k=5, mode=mode)
    theirs = remote.search(query, k=5, mode=mode)
    assert [h.chunk.chunk_id for h in theirs] == [h.chunk.chunk_id for h in ours]
    assert [h.score for h in theirs] == pytest.approx([h.score for h in ours], rel=1e-5)
    for a, b in zip(ours, theirs, strict=True):
        for name, signal in a.signals.to_dict().items():
            assert b.signals.to_dict()[name]["score"] == pytest.approx(signal["score"], rel=1e-4, abs=1e-6)
    if source and mode == "hybrid":
        assert Path(theirs[0].chunk.source).name == source


@pytest.mark.parametrize("query", ["出張の宿泊費の上限", "婚假的天数", "API rate limits per key"])
def test_postgres_collection_judges_documents_by_their_best_sentence_like_the_local_one(pair, query: str) -> None:
    """The best sentence is read from the collection's unit-vector file through the store's chunks, whichever store."""
    local, remote = pair
    ours = local.search(query, k=5, group_by="document")
    theirs = remote.search(query, k=5, group_by="document")
    assert [h.chunk.chunk_id for h in theirs] == [h.chunk.chunk_id for h in ours]
    sentences = [h.signals.coverage.document_sentence if h.signals.coverage else None for h in ours]
    assert all(sentence is not None for sentence in sentences)
    assert [h.signals.coverage.document_sentence if h.signals.coverage else None for h in theirs] == pytest.approx(sentences)
    assert [h.score for h in theirs] == pytest.approx([h.score for h in ours], rel=1e-5)


@pytest.mark.parametrize("query", [q for q, _ in QUERIES])
@pytest.mark.parametrize("mode", ["graph", "graph-local", "graph-global"])
def test_postgres_collection_walks_the_entity_graph_like_the_local_one(pair, query: str, mode: str) -> None:
    local, remote = pair
    ours = local.search(query, k=5, mode=mode)
    theirs = remote.search(query, k=5, mode=mode)
    assert [h.chunk.chunk_id for h in theirs] == [h.chunk.chunk_id for h in ours]
    for a, b in zip(ours, theirs, strict=True):
        if a.signals.path is None:
            assert b.signals.path is None
            continue
        assert b.signals.path is not None
        mine, other = a.signals.path.to_dict(), b.signals.path.to_dict()
        assert [key for key, _ in other.pop("via")] == [key for key, _ in mine.pop("via")]
        assert other == mine


def test_status_documents_and_answers_match(pair) -> None:
    local, remote = pair
    assert [(d.source, d.chunk_count, d.content_hash) for d in remote.documents()] == [
        (d.source, d.chunk_count, d.content_hash) for d in local.documents()
    ]
    assert remote.status()["chunks"] == local.status()["chunks"] and remote.status()["dimension"] == 512
    question = QUERIES[1][0]
    a, b = local.ask(question), remote.ask(question)
    assert (b.text, b.abstained) == (a.text, a.abstained)
    assert remote.trace(b.trace_id)["question"] == question


def test_reingest_skips_unchanged_files(pair, samples_dir: Path) -> None:
    _, remote = pair
    report = remote.ingest(samples_dir)
    assert report.jobs and all(j.status == "SKIPPED" for j in report.jobs)


WRITER = textwrap.dedent("""
    import hashlib, sys
    from pathlib import Path
    import numpy as np
    from bunko import Bunko

    class HashEmbedder:
        name = "hash-16"
        dimension = 16
        def embed(self, texts):
            rows = [np.frombuffer(hashlib.sha256(t.encode()).digest()[:16], dtype=np.uint8).astype(np.float32) - 127.5 for t in texts]
            m = np.vstack(rows)
            return m / np.linalg.norm(m, axis=1, keepdims=True)

    kb = Bunko(Path(sys.argv[1]), embedder=HashEmbedder())
    report = kb.ingest(Path(sys.argv[2]))
    print(sum(j.status == "READY" for j in report.jobs), sum(j.status == "FAILED" for j in report.jobs))
    kb.close()
""")


@pytest.mark.slow
def test_two_processes_ingesting_one_folder_never_duplicate(tmp_path: Path, pg_store_dsn: str) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(40):
        body = "\n\n".join(f"## 第{j}節\n\n規程{i}の第{j}節。出張の宿泊費は{i * 100 + j}円まで。Section {j} of rule {i}." for j in range(3))
        (docs / f"rule-{i:02d}.md").write_text(f"# 規程 {i}\n\n{body}\n", encoding="utf-8")
    collection = tmp_path / ".bunko"
    Bunko(collection, config=Config(store=pg_store_dsn)).close()
    script = tmp_path / "writer.py"
    script.write_text(WRITER, encoding="utf-8")
    procs = [subprocess.Popen([sys.executable, str(script), str(collection), str(docs)], stdout=subprocess.PIPE, text=True) for _ in range(2)]
    outputs = [p.communicate(timeout=300)[0].split() for p in procs]
    assert all(p.returncode == 0 for p in procs), outputs
    assert all(failed == "0" for _, failed in outputs), outputs

    kb = Bunko(collection, create=False, allow_embedder_change=True)
    store = kb.store
    chunks = store.chunks()
    assert len(store.documents()) == 40
    assert len(chunks) == len({c.chunk_id for c in chunks}) == store.chunk_count()
    assert sum(d.chunk_count for d in store.documents()) == len(chunks)
    with store._pool.connection() as conn:  # type: ignore[attr-defined]
        actual = conn.execute("SELECT count(*), coalesce(sum(dl), 0) FROM chunks").fetchone()
        corpus = conn.execute("SELECT chunks, tokens FROM corpus").fetchone()
        postings = conn.execute("SELECT count(*) FROM postings p LEFT JOIN chunks c ON c.id = p.chunk WHERE c.id IS NULL").fetchone()
    assert tuple(actual) == tuple(corpus)
    assert postings[0] == 0, "postings of replaced chunks were left behind"
    assert not [j for j in kb.jobs(all_runs=True) if j.status not in ("READY", "SKIPPED")]
    hits = store.search().keyword_search(["宿泊"], 500)
    assert len(hits) == len({cid for cid, _ in hits}) == sum("宿泊" in c.embed_text for c in chunks)
    kb.close()


def test_store_key_is_validated(tmp_path: Path) -> None:
    from bunko.errors import ConfigError

    with pytest.raises(ConfigError, match="store"):
        Config.from_dict({"store": "mysql://x"})
    (tmp_path / "c").mkdir()
    Config(store="postgresql://u@h/db?schema=kb1").save(tmp_path / "c" / "bunko.toml")
    assert Config.load(tmp_path / "c" / "bunko.toml").store == "postgresql://u@h/db?schema=kb1"
    assert json.loads(Config().model_dump_json())["store"] == "local"
