"""What only the postgres store has: migrations, writer liveness, the HNSW path, dimensions, NUL, DSNs."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

pytest.importorskip("psycopg")

from bunko.errors import CollectionError, ConfigError
from bunko.schema import Chunk, ChunkRole, IngestJob, JobStatus, ParsedDocument, doc_id_for, role_meta
from bunko.store.base import StoredChunk
from bunko.store.postgres import PostgresStore
from bunko.store.postgres.schema import LATEST_VERSION
from bunko.store.postgres.sql_filters import glob_to_regex
from bunko.store.registry import split_dsn
from bunko.text.analyzers import multilingual


@pytest.fixture
def pg(pg_dsn: str, pg_schema: str) -> Iterator[PostgresStore]:
    store = PostgresStore(pg_dsn, pg_schema)
    yield store
    store.close()


def write(store: PostgresStore, n_docs: int, per_doc: int, dim: int, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    vectors = {}
    for d in range(n_docs):
        source = f"bulk/{d:03d}.md"
        doc = ParsedDocument(doc_id_for(source), source, source, "text/markdown", "test", [], {})
        stored = []
        for i in range(per_doc):
            v = rng.standard_normal(dim).astype(np.float32)
            v /= np.linalg.norm(v)
            chunk = Chunk(f"{source}#{i}", doc.doc_id, source, i, f"chunk {d} {i}", f"chunk {d} {i}")
            stored.append(StoredChunk(chunk, v, multilingual(chunk.text), f"h{d}-{i}"))
            vectors[chunk.chunk_id] = v
        store.replace_document(doc, "x", stored)
    return vectors


def test_migrations_are_recorded_once_and_newer_schemas_refused(pg_dsn: str, pg_schema: str) -> None:
    import psycopg

    PostgresStore(pg_dsn, pg_schema).close()
    PostgresStore(pg_dsn, pg_schema).close()  # reopening applies nothing twice
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        rows = conn.execute(f"SELECT version FROM {pg_schema}.schema_version ORDER BY version").fetchall()
        assert [r[0] for r in rows] == list(range(1, LATEST_VERSION + 1))
        conn.execute(f"INSERT INTO {pg_schema}.schema_version (version, description) VALUES (999, 'from the future')")
    with pytest.raises(CollectionError, match="newer than this bunko"):
        PostgresStore(pg_dsn, pg_schema)


def test_a_store_written_before_openings_were_flagged_gets_them_when_opened(pg_dsn: str, pg_schema: str) -> None:
    """Migration 7 flags each document's first two searchable chunks in stores written before it (schema 6), so the
    openings' BM25 is what a store written since gives; parents (never searchable) are passed over."""
    import psycopg

    store = PostgresStore(pg_dsn, pg_schema)
    for number, texts in enumerate((["宿泊費の上限", "婚假三天", "rate limit"], ["rate limit per key"], ["年假", "宿泊費", "API"])):
        source = f"docs/{number}.md"
        doc = ParsedDocument(doc_id_for(source), source, source, "text/markdown", "test", [], {})
        parent = Chunk(f"{source}#p", doc.doc_id, source, 0, " ".join(texts), " ".join(texts), meta=role_meta(ChunkRole.PARENT))
        children = [Chunk(f"{source}#{i}", doc.doc_id, source, i + 1, t, t) for i, t in enumerate(texts)]
        store.replace_document(doc, "x", [
            StoredChunk(c, np.ones(4, dtype=np.float32) / 2, multilingual(c.text), f"h{c.chunk_id}") for c in [parent, *children]
        ])
    ids = [f"docs/{n}.md#{i}" for n, size in ((0, 3), (1, 1), (2, 3)) for i in range(size)]
    tokens = multilingual("宿泊費 rate limit 年假")
    written = store.search().document_opening_keyword_scores(ids, tokens)
    assert written["docs/0.md#0"] > 0 and written["docs/2.md#0"] > 0 and written["docs/1.md#0"] > 0
    store.close()
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute(f"SET search_path TO {pg_schema}, public")
        conn.execute("DROP INDEX chunks_openings")
        conn.execute("ALTER TABLE chunks DROP COLUMN opening")
        conn.execute("DELETE FROM schema_version WHERE version >= 7")
    upgraded = PostgresStore(pg_dsn, pg_schema)
    try:
        assert upgraded.search().document_opening_keyword_scores(ids, tokens) == pytest.approx(written, rel=1e-6)
    finally:
        upgraded.close()


def test_unreachable_server_is_a_collection_error() -> None:
    with pytest.raises(CollectionError, match="cannot connect"):
        PostgresStore("postgresql://nobody:secret@127.0.0.1:1/nothing?connect_timeout=2")


def test_only_jobs_of_a_writer_that_is_gone_are_failed(pg_dsn: str, pg_schema: str) -> None:
    first = PostgresStore(pg_dsn, pg_schema)
    second = PostgresStore(pg_dsn, pg_schema)
    second.save_job(IngestJob("busy", "a.md", JobStatus.EMBEDDING, created_at=1.0, updated_at=1.0), "run-2")
    assert first.fail_unfinished_jobs("stopped") == 0, "a live writer's job was failed"
    assert first.jobs()[0].status == "EMBEDDING"
    second.close()  # the writer goes away mid-job, as a killed process would
    assert first.fail_unfinished_jobs("stopped") == 1
    assert (first.jobs()[0].status, first.jobs()[0].error_code) == ("FAILED", "INTERRUPTED")
    first.close()


def test_hnsw_search_with_and_without_filters(pg_dsn: str, pg_schema: str) -> None:
    store = PostgresStore(pg_dsn, pg_schema, exact_below=0)
    vectors = write(store, n_docs=40, per_doc=50, dim=32)
    ids = list(vectors)
    matrix = np.vstack([vectors[i] for i in ids])
    rng = np.random.default_rng(11)
    recall = []
    for _ in range(10):
        q = rng.standard_normal(32).astype(np.float32)
        q /= np.linalg.norm(q)
        exact = [ids[i] for i in np.argsort(-(matrix @ q))[:10]]
        hits = store.search().dense_search(q, 10)
        assert len(hits) == 10
        recall.append(len({h for h, _ in hits} & set(exact)) / 10)
        # a filter matching 2% of rows: the index walk finds too few, the exact fallback fills k
        where = {"source": {"$in": ["bulk/007.md", "bulk/031.md"]}}
        allowed = [i for i, cid in enumerate(ids) if cid.split("#")[0] in ("bulk/007.md", "bulk/031.md")]
        expected = [ids[allowed[i]] for i in np.argsort(-(matrix[allowed] @ q))[:10]]
        assert [h for h, _ in store.search().dense_search(q, 10, where)] == expected
    assert np.mean(recall) >= 0.9
    assert store.has_index()
    store.close()


def test_index_is_built_when_exact_search_is_outgrown_and_once_after_a_bulk_load(pg_dsn: str, pg_schema: str) -> None:
    store = PostgresStore(pg_dsn, pg_schema, exact_below=100)
    write(store, n_docs=2, per_doc=50, dim=8)
    assert not store.has_index(), "100 chunks are searched exactly; no index to maintain"
    write(store, n_docs=3, per_doc=50, dim=8, seed=1)
    assert store.has_index()
    with store.bulk_load():
        assert not store.has_index()
        vectors = write(store, n_docs=4, per_doc=50, dim=8, seed=2)
        assert not store.has_index()
    assert store.has_index() and store.chunk_count() == 200
    target = next(iter(vectors))
    assert store.search().dense_search(vectors[target], 1)[0][0] == target
    store.close()


def test_reembedding_with_another_dimension_retypes_the_column(pg: PostgresStore) -> None:
    vectors = write(pg, n_docs=2, per_doc=3, dim=8)
    rng = np.random.default_rng(2)
    new = {cid: (v := rng.standard_normal(12).astype(np.float32)) / np.linalg.norm(v) for cid in vectors}
    with pytest.raises(ValueError, match="another dimension"):
        pg.replace_vectors(dict(list(new.items())[:2]), {cid: "n" for cid in new})
    assert pg.search().dense_search(next(iter(vectors.values())), 1)[0][1] == pytest.approx(1.0, abs=1e-5)  # unchanged
    pg.replace_vectors(new, {cid: "n" + cid for cid in new})
    target = next(iter(new))
    assert pg.search().dense_search(new[target], 1)[0][0] == target
    with pytest.raises(ValueError, match="dimension"):
        pg.search().dense_search(np.ones(8, dtype=np.float32), 1)


def test_nul_characters_are_stored_not_refused(pg: PostgresStore) -> None:
    source = "odd/nul.txt"
    doc = ParsedDocument(doc_id_for(source), source, "nul\x00title", "text/plain", "text", [], {"fields": {"tag": "a\x00b"}})
    chunk = Chunk(f"{source}#0", doc.doc_id, source, 0, "before\x00after", "before\x00after", meta={"k": "v\x00"})
    pg.replace_document(doc, "x", [StoredChunk(chunk, np.ones(4, dtype=np.float32) / 2, ["before", "after"], "h")])
    stored = pg.chunks(source)[0]
    assert stored.text == "before\ufffdafter" and stored.meta == {"k": "v\ufffd", "lang": "en"}
    assert pg.search().keyword_search(["after"], 1, {"tag": {"$glob": "a*b"}})[0][0] == chunk.chunk_id


def test_dsn_schema_parameter_is_bunkos_not_libpqs() -> None:
    assert split_dsn("postgresql://u@h:5/db?sslmode=require&schema=team_a") == ("postgresql://u@h:5/db?sslmode=require", "team_a")
    assert split_dsn("postgresql://u@h/db") == ("postgresql://u@h/db", "bunko")
    with pytest.raises(ConfigError, match="schema"):
        split_dsn("postgresql://u@h/db?schema=a;drop")


@pytest.mark.parametrize(
    ("pattern", "text", "matches"),
    [("*.md", "a/b.md", True), ("a?c", "abc", True), ("a?c", "ac", False), ("[!a-c]x", "dx", True), ("[!a-c]x", "bx", False),
     ("[z-a]", "z", False), ("[", "[", True), ("a.b", "axb", False), ("規程 > *", "規程 > 第1章", True), ("(x)+", "(x)+", True),
     ("[]]", "]", True), ("*\n*", "a\nb", True)],
)
def test_glob_translation_agrees_with_fnmatch(pg: PostgresStore, pattern: str, text: str, matches: bool) -> None:
    import fnmatch

    assert fnmatch.fnmatchcase(text, pattern) is matches
    with pg._pool.connection() as conn:
        assert conn.execute("SELECT %s ~ %s", (text, glob_to_regex(pattern))).fetchone()[0] is matches


BM25_CORPUS = {
    "travel-ja.md": ["東京23区に出張する一般社員の宿泊費の上限は一泊一万二千円です。", "宿泊費の上限を超える場合は事前承認が必要です。"],
    "travel-zh.md": ["差旅住宿费上限为每晚八百元，超出部分需要审批。", "年假天数按司龄计算，司龄满五年的员工每年十五天。"],
    "travel-en.md": ["The hotel limit is 120 euros per night; a higher rate needs approval.",
                     "Each API key may send 60 requests per minute; error E-1024 means the limit was hit.", "Hotel receipts are required."],
}
BM25_QUERIES = ["宿泊費の上限", "住宿费上限", "hotel limit per night", "E-1024 错误 エラー", "年假 annual leave"]


def test_keyword_scores_equal_the_local_stores_on_a_ja_zh_en_corpus(pg: PostgresStore, tmp_path) -> None:
    """The SQL BM25 and the in-memory one are generated from the same formula: same corpus, same scores."""
    from bunko.store.local import LocalStore

    local = LocalStore(tmp_path / "local")
    rng = np.random.default_rng(0)
    for source, texts in BM25_CORPUS.items():
        doc = ParsedDocument(doc_id_for(source), source, source, "text/markdown", "test", [], {})
        stored = []
        for i, text in enumerate(texts):
            vector = rng.standard_normal(8).astype(np.float32)
            chunk = Chunk(f"{source}#{i}", doc.doc_id, source, i, text, text)
            stored.append(StoredChunk(chunk, vector / np.linalg.norm(vector), multilingual(text), f"{source}-{i}"))
        for store in (local, pg):
            store.replace_document(doc, "x", stored)
    try:
        for query in BM25_QUERIES:
            tokens = multilingual(query)
            expected = dict(local.search().keyword_search(tokens, 10))
            assert expected
            assert dict(pg.search().keyword_search(tokens, 10)) == pytest.approx(expected, rel=1e-5)
            assert pg.search().term_weights(tokens) == pytest.approx(local.search().term_weights(tokens), rel=1e-9)
            local_documents = {m.doc_id: m.score for m in local.search().document_keyword_search(tokens, 10)}
            assert {m.doc_id: m.score for m in pg.search().document_keyword_search(tokens, 10)} == pytest.approx(local_documents, rel=1e-5)
    finally:
        local.close()


def test_document_facts_are_what_the_fallbacks_compute_after_writes_re_embeds_deletes_and_an_upgrade(pg_dsn: str, pg_schema: str) -> None:
    """Each document's centroid and language are stored by the write (`document_facts`), not computed at query time;
    they must stay what the shared fallbacks compute from the chunks: after a rewrite, a re-embed (new vectors for
    some chunks), a delete, and in a store written before them (schema 7), which the upgrade fills."""
    import psycopg

    from bunko.store.search_fallbacks import BasicReadsOnly

    rng = np.random.default_rng(11)
    pages = {"ja": ["出張の宿泊費の上限は一泊一万円です。", "領収書を添えて申請します。"],
             "zh": ["婚假为三天，需提前申请。", "产假按国家规定执行。"],
             "en": ["The rate limit is sixty requests per minute.", "Keys are rotated every ninety days."]}
    store = PostgresStore(pg_dsn, pg_schema)

    def write_page(language: str, texts: list[str]) -> str:
        source = f"docs/{language}.md"
        doc = ParsedDocument(doc_id_for(source), source, source, "text/markdown", "test", [], {})
        parent = Chunk(f"{source}#p", doc.doc_id, source, 0, " ".join(texts), " ".join(texts), meta=role_meta(ChunkRole.PARENT))
        children = [Chunk(f"{source}#{i}", doc.doc_id, source, i + 1, t, t) for i, t in enumerate(texts)]
        store.replace_document(doc, "x", [
            StoredChunk(c, (v := rng.standard_normal(8).astype(np.float32)) / np.linalg.norm(v), multilingual(c.text), f"h{c.chunk_id}")
            for c in [parent, *children]
        ])
        return doc.doc_id

    docs = [write_page(language, texts) for language, texts in pages.items()]

    def assert_facts_are_the_fallbacks(search, present: list[str]) -> None:
        plain = BasicReadsOnly(search)
        stored, centroids = search.document_centroids(docs)
        computed, expected = plain.document_centroids(docs)
        assert stored == computed == present
        assert centroids == pytest.approx(expected, abs=1e-6)
        assert search.document_language_indexes(docs) == plain.document_language_indexes(docs)

    search = store.search()
    assert_facts_are_the_fallbacks(search, docs)
    assert search.document_language_indexes(docs) == {docs[0]: 1, docs[1]: 2, docs[2]: 0}
    write_page("ja", ["宿泊費の上限が変わりました。", "新しい上限は一泊一万二千円です。"])  # rewritten: other vectors
    assert_facts_are_the_fallbacks(search, docs)
    store.replace_vectors({"docs/zh.md#1": np.ones(8, dtype=np.float32) / np.sqrt(8)}, {"docs/zh.md#1": "new"})  # a re-embed
    assert_facts_are_the_fallbacks(search, docs)
    store.delete_document("docs/en.md")
    assert_facts_are_the_fallbacks(search, docs[:2])
    centroids = search.document_centroids(docs)[1]
    store.close()
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute(f"SET search_path TO {pg_schema}, public")
        assert conn.execute("SELECT count(*) FROM document_facts").fetchone()[0] == 2  # type: ignore[index]
        conn.execute("DROP TABLE document_facts")
        conn.execute("DELETE FROM schema_version WHERE version >= 8")
    upgraded = PostgresStore(pg_dsn, pg_schema)
    try:
        assert_facts_are_the_fallbacks(upgraded.search(), docs[:2])
        assert upgraded.search().document_centroids(docs)[1] == pytest.approx(centroids, abs=1e-6)
    finally:
        upgraded.close()
