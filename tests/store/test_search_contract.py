"""`SearchBackend`'s contract (`store/search_backend.py`), run against every store: local (SQLite) and postgres (pgvector).

The primitives are checked against references computed here from the written data (numpy
cosine, `BM25Index`, `compile_filter`), so both stores are held to the same meaning rather than
to each other's quirks; then every search mode, grouping and filter kind is asked of both over one
corpus in ja, zh and en, and both must rank alike, as must the shared fallbacks over either.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from store_contract_data import FILTERS, TEXTS, ExplodingVector, expected_dense, fill, make_doc, records, unit

from bunko.config import RetrieveConfig
from bunko.errors import FilterError
from bunko.index.bm25 import BM25Index
from bunko.index.filters import BUILTIN_FIELDS, compile_filter
from bunko.retrieve.base import read_term_weights
from bunko.retrieve.searcher import Searcher
from bunko.schema import Chunk, ChunkRole, Element, ParsedDocument, doc_id_for, role_meta
from bunko.store.base import Store, StoredChunk
from bunko.store.local import LocalStore
from bunko.store.search_backend import SearchBackend
from bunko.store.search_fallbacks import BasicReadsOnly, SearchFallbacks
from bunko.text.analyzers import multilingual
from bunko.text.entities import extract_entities
from bunko.text.languages import tokens_language


# -- search -----------------------------------------------------------------------
def test_dense_search_matches_exact_cosine(store: Store) -> None:
    written = fill(store)
    query = unit(np.random.default_rng(3))
    hits = store.search().dense_search(query, 7)
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
    hits = store.search().dense_search(query, k, where)
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
    hits = store.search().keyword_search(tokens, k, where)
    assert len(hits) == min(k, len(expected))
    assert [round(sc, 4) for _, sc in hits] == [round(sc, 4) for sc, _ in expected[: len(hits)]]
    for cid, _ in hits:
        assert predicate(recs[cid])


def test_keyword_search_counts_each_query_term_once_and_handles_cjk(store: Store) -> None:
    written = fill(store)
    once = store.search().keyword_search(multilingual("宿泊費"), 3)
    twice = store.search().keyword_search(multilingual("宿泊費 宿泊費"), 3)
    assert once == twice and once
    assert all("宿泊費" in c.text for c in store.get_chunks([cid for cid, _ in once]))
    assert store.search().keyword_search([], 5) == [] and store.search().keyword_search(["zzzz"], 5) == []
    weights = store.search().term_weights(["宿泊", "zzzz"])
    bm25 = BM25Index().build([s.tokens for _, stored in written for s in stored])
    assert weights == pytest.approx(bm25.idf(["宿泊", "zzzz"]))


def test_one_read_gives_the_term_weights_and_the_idf_of_a_term_no_passage_holds(store: Store) -> None:
    """The grade tells the question's pairs the collection never writes by this idf (`retrieve.base.read_term_weights`)."""
    fill(store)
    weights, unseen = read_term_weights(store.search(), ["宿泊", "zzzz", "出張"])
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
    found = store.search().document_keyword_search(tokens, 3, where)
    assert [(m.doc_id, round(m.score, 4)) for m in found] == [(d, round(sc, 4)) for d, sc in expected[:3]]
    recs = records(written)
    predicate = compile_filter(where, set(BUILTIN_FIELDS) | {key for r in recs.values() for key in r}) or (lambda r: True)
    for match in found:
        assert recs[match.best_chunk_id]["doc_id"] == match.doc_id and predicate(recs[match.best_chunk_id])
    chunk_ids = [s.chunk.chunk_id for _, stored in written for s in stored]
    by_document = dict(expected_documents(written, tokens, None))
    scores = store.search().document_keyword_scores(chunk_ids, tokens)
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
    assert store.search().document_similarities([*chunk_ids, "no/such#0"], query) == pytest.approx(expected, abs=1e-5)


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
    written = fill_with_a_long_and_a_one_chunk_document(store, docs=3)
    query = unit(np.random.default_rng(9))
    expected = {}
    for _, chunks in written:
        opening = [float(s.vector @ query) for s in chunks[:2]]
        expected |= {s.chunk.chunk_id: sum(opening) / len(opening) for s in chunks}
    chunk_ids = [s.chunk.chunk_id for _, chunks in written for s in chunks]
    assert store.search().document_opening_similarities([*chunk_ids, "no/such#0"], query) == pytest.approx(expected, abs=1e-5)


def test_document_opening_keyword_score_is_bm25_over_every_documents_first_two_chunks(store: Store) -> None:
    """The openings are scored as texts of their own (their count, their average length), in each document's order."""
    written = fill_with_a_long_and_a_one_chunk_document(store, docs=4)

    def check() -> None:
        openings = BM25Index().build([[t for s in chunks[:2] for t in s.tokens] for _, chunks in written])
        chunk_ids = [s.chunk.chunk_id for _, chunks in written for s in chunks]
        for question in ("宿泊費の上限", "婚假 产假", "requests per minute E-1024"):
            tokens = multilingual(question)
            scores = openings.scores(tokens)
            expected = {s.chunk.chunk_id: float(scores[number]) for number, (_, chunks) in enumerate(written) for s in chunks}
            assert 0 < sum(value > 0 for value in expected.values()) < len(expected)  # some openings hold the words, not all
            assert store.search().document_opening_keyword_scores([*chunk_ids, "no/such#0"], tokens) == pytest.approx(expected, rel=1e-5)

    check()
    doc = written[3][0]  # a write changes every opening's idf and the average opening: nothing kept from before is used
    written[3] = (doc, make_doc(3, np.random.default_rng(6), chunks=1)[1])
    store.replace_document(doc, "hash-short", written[3][1])
    check()


def test_each_chunk_is_mapped_to_its_document_and_unknown_ids_are_left_out(store: Store) -> None:
    written = fill(store)
    chunk_ids = [s.chunk.chunk_id for _, stored in written for s in stored]
    assert store.search().chunk_documents([*chunk_ids, "no/such#0"]) == {s.chunk.chunk_id: doc.doc_id for doc, stored in written for s in stored}
    assert store.search().chunk_documents([]) == {}


def test_chunk_languages_are_judged_from_tokens_alike(store: Store) -> None:
    written = fill(store)
    chunk_ids = [s.chunk.chunk_id for _, stored in written for s in stored]
    languages = store.search().chunk_languages([*chunk_ids, "no/such#0"])
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
        for match in store.search().document_keyword_search(tokens, 6, where, vector=query):
            stored = next(stored for doc, stored in written if doc.doc_id == match.doc_id)
            allowed = [s for s in stored if predicate(recs[s.chunk.chunk_id])]
            assert match.best_chunk_id == max(allowed, key=lambda s: float(s.vector @ query)).chunk.chunk_id
    assert store.search().document_keyword_search(["zzzz"], 3) == [] and store.search().document_keyword_search([], 3) == []


def test_unknown_filter_fields_and_operators_raise(store: Store) -> None:
    query = unit(np.random.default_rng(1))
    with pytest.raises(FilterError, match="unknown filter field"):
        store.search().dense_search(query, 3, {"colour": "red"})  # even on an empty store
    fill(store)
    for bad in ({"colour": "red"}, {"$or": [{"tags": "hr"}, {"colour": "red"}]}, {"pages": 1}):
        with pytest.raises(FilterError, match="unknown filter field"):
            store.search().dense_search(query, 3, bad)
        with pytest.raises(FilterError, match="unknown filter field"):
            store.search().keyword_search(["rate"], 3, bad)
    with pytest.raises(FilterError, match="unknown filter operator"):
        store.search().keyword_search(["rate"], 3, {"page": {"$regex": "1"}})
    with pytest.raises(FilterError, match="combinator"):
        store.search().dense_search(query, 3, {"$xor": [{"page": 1}]})
    assert len(store.search().dense_search(query, 3, {"owner": "総務部"})) == 3  # a document field is known once stored


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
    assert {cid for cid, _ in store.search().keyword_search(tokens, 10)} == {child.chunk_id}
    assert {cid for cid, _ in store.search().dense_search(stored[0].vector, 10)} == {child.chunk_id}


def test_search_on_an_empty_store(store: Store) -> None:
    assert store.search().dense_search(unit(np.random.default_rng(0)), 5) == []
    assert store.search().keyword_search(["rate"], 5) == []
    assert store.search().document_keyword_search(["rate"], 5) == [] and store.search().document_keyword_scores(["a#0"], ["rate"]) == {}
    assert store.chunk_count() == 0 and store.documents() == []


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
    mentions = store.search().mentions(list(expected))
    assert mentions.keys() == expected.keys()
    for chunk_id, found in mentions.items():
        assert found == expected[chunk_id].entities
        assert all(expected[chunk_id].chunk.text[m.start : m.end] == m.surface for m in found)
    assert any(m.key == "e-1024" for found in mentions.values() for m in found)


def test_the_entity_graph_follows_every_write_and_delete_document_by_document(store: Store) -> None:
    written = with_entities([make_doc(n, np.random.default_rng(n)) for n in range(4)])
    for doc, stored in written:
        store.replace_document(doc, f"hash-{doc.source}", stored)
    graph = store.search().entity_graph()
    assert sorted(graph.matrices.chunk_ids) == sorted(s.chunk.chunk_id for _, stored in written for s in stored)
    doc, _ = written[1]
    _, replacement = make_doc(1, np.random.default_rng(7), chunks=2, version="v2")
    replacement = [StoredChunk(s.chunk, s.vector, s.tokens, s.embed_hash, extract_entities("Run mdadm on ソフトウェアRAID 软件")) for s in replacement]
    store.replace_document(doc, "hash-v2", replacement)
    graph = store.search().entity_graph()
    assert sorted(graph.passages_of("mdadm")) == sorted(s.chunk.chunk_id for s in replacement)
    store.delete_document(written[2][0].source)
    graph = store.search().entity_graph()
    assert not {s.chunk.chunk_id for s in written[2][1]} & set(graph.matrices.chunk_ids)
    for chunk_id in graph.matrices.chunk_ids:
        assert sorted(graph.entities_of(chunk_id)) == sorted({m.key for m in store.search().mentions([chunk_id])[chunk_id]})


def test_a_failed_write_leaves_the_entity_graph_as_it_was(store: Store) -> None:
    written = with_entities([make_doc(n, np.random.default_rng(n)) for n in range(2)])
    for doc, stored in written:
        store.replace_document(doc, f"hash-{doc.source}", stored)
    before = {cid: store.search().entity_graph().entities_of(cid) for cid in store.search().entity_graph().matrices.chunk_ids}
    doc, old = written[0]
    broken = [StoredChunk(s.chunk, s.vector, s.tokens, s.embed_hash, extract_entities("mdadm")) for s in old]
    broken[1] = StoredChunk(broken[1].chunk, ExplodingVector(), broken[1].tokens, broken[1].embed_hash)  # type: ignore[arg-type]
    with pytest.raises(RuntimeError, match="write failed"):
        store.replace_document(doc, "hash-v2", broken)
    graph = store.search().entity_graph()
    assert {cid: graph.entities_of(cid) for cid in graph.matrices.chunk_ids} == before


@pytest.mark.parametrize("where", FILTERS[:12])
def test_allowed_chunks_applies_the_filter_language_like_search(store: Store, where: dict[str, Any]) -> None:
    written = fill(store)
    recs = records(written)
    known = set(BUILTIN_FIELDS) | {key for r in recs.values() for key in r}
    predicate = compile_filter(where, known) or (lambda r: True)
    asked = [*[cid for cid in recs][::2], "missing"]
    assert store.search().allowed_chunks(asked, where) == {cid for cid in asked if cid in recs and predicate(recs[cid])}


# -- both backends rank alike ----------------------------------------------------------
TOPICS = {
    "lodging": {
        "ja": ["出張時の宿泊費は一泊一万二千円までです。", "上限を超える場合は事前に部長の承認を得てください。", "領収書は出張から三十日以内に提出します。"],
        "zh": ["出差住宿费每晚不超过一万二千日元。", "超过上限时须事先获得部门经理批准。", "收据须在出差后三十天内提交。"],
        "en": ["Lodging on business trips is capped at 12,000 yen per night.", "Above the cap, get approval from your department head first.",
               "Submit receipts within thirty days of the trip."],
    },
    "passwords": {
        "ja": ["パスワードは九十日ごとに変更してください。", "パスワードを他人と共有してはいけません。", "十二文字以上の長さが必要です。"],
        "zh": ["密码每九十天必须更换一次。", "不得与他人共享密码。", "密码长度至少为十二个字符。"],
        "en": ["Passwords must be changed every ninety days.", "Never share a password with anyone.", "A password needs at least twelve characters."],
    },
    "leave": {
        "ja": ["年次有給休暇は入社半年後に十日付与されます。", "休暇の申請は一週間前までに行います。", "未使用の休暇は翌年に繰り越せます。"],
        "zh": ["入职半年后可获得十天带薪年假。", "请假须提前一周申请。", "未使用的年假可结转到下一年。"],
        "en": ["Ten days of paid annual leave are granted after six months.", "Request leave at least one week ahead.",
               "Unused leave carries over to the next year."],
    },
    "api": {
        "en": ["Each API key may send 60 requests per minute to Bunko Cloud.", "Error E-1024 means the rate limit was hit.",
               "The limit resets at the start of each minute.", "Contact Bunko Cloud support to raise the limit."],
    },
}
"""Pages of one handbook: three translated into ja, zh and en (a translation's vectors lie close to its original's,
as a multilingual embedder puts them), one in English only."""

PARITY_DIM = 24
PARITY_FILTERS: list[dict[str, Any]] = [
    {"lang": "ja"}, {"tags": {"$ne": "security"}}, {"tags": {"$in": ["security", "travel"]}}, {"tags": {"$nin": ["travel"]}},
    {"source": {"$glob": "handbook/zh/*"}}, {"priority": {"$gt": 1}}, {"priority": {"$gte": 2}}, {"priority": {"$lt": 2}},
    {"priority": {"$lte": 1}}, {"page": {"$gte": 2, "$lte": 3}}, {"draft": True}, {"owner": "総務部"},
    {"$and": [{"lang": {"$in": ["zh", "en"]}}, {"page": 1}]}, {"$or": [{"tags": "leave"}, {"lang": "ja"}]},
    {"$not": {"source": {"$glob": "*/en/*"}}},
]
"""A filter of every operator and combinator, over built-in fields (lang, source, page) and the documents' own."""
QUESTIONS = [("出張の宿泊費の上限", "lodging"), ("密码长度", "passwords"), ("paid annual leave days", "leave"),
             ("E-1024 rate limit", "api"), ("パスワードを共有", "passwords"), ("年假 结转", "leave")]
ASKED = [QUESTIONS[0], QUESTIONS[1], QUESTIONS[3]]
"""One question in each language, for the searches (each a dozen reads of every backend)."""


def parity_corpus() -> list[tuple[ParsedDocument, list[StoredChunk]]]:
    """The handbook's pages, their chunks' vectors built from a vector per topic and per paragraph."""
    rng = np.random.default_rng(49)
    written = []
    for number, (topic, languages) in enumerate(TOPICS.items()):
        base = rng.standard_normal(PARITY_DIM)
        paragraphs = [rng.standard_normal(PARITY_DIM) for _ in range(4)]
        for language, texts in languages.items():
            source = f"handbook/{language}/{topic}.md"
            fields: dict[str, Any] = {"tags": [topic, "travel" if topic == "lodging" else "security" if topic in ("passwords", "api") else "hr"],
                                      "priority": number, "draft": language == "zh"}
            if language == "ja":
                fields["owner"] = "総務部"
            doc = ParsedDocument(doc_id_for(source), source, f"{topic} ({language})", "text/markdown", "markdown",
                                 [Element(f"e{i}", "paragraph", text, page=i + 1) for i, text in enumerate(texts)], {"fields": fields})
            stored = []
            for i, text in enumerate(texts):
                vector = base + 0.6 * paragraphs[i] + 0.15 * rng.standard_normal(PARITY_DIM)
                chunk = Chunk(f"{source}#{i}", doc.doc_id, source, i, text, text, [f"e{i}"], [i + 1], [topic], ["paragraph"], None, {})
                stored.append(StoredChunk(chunk, (vector / np.linalg.norm(vector)).astype(np.float32), multilingual(text), f"{source}-{i}",
                                          extract_entities(text)))
            written.append((doc, stored))
    return written


PARITY = parity_corpus()
TOPIC_VECTORS = {topic: np.mean([s.vector for doc, stored in PARITY if doc.source.endswith(f"/{topic}.md") for s in stored], axis=0)
                 for topic in TOPICS}
TOPIC_VECTORS = {topic: (vector / np.linalg.norm(vector)).astype(np.float32) for topic, vector in TOPIC_VECTORS.items()}
"""Each topic's mean chunk vector, a unit vector as an embedder's queries are."""


@pytest.fixture(scope="module")
def backends(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, SearchBackend]]:
    """The handbook in a local and a PostgreSQL store, written once; and each one's basic reads under the shared fallbacks."""
    dsn = request.getfixturevalue("pg_dsn")
    from bunko.store.postgres import PostgresStore

    schema = "t_" + uuid.uuid4().hex[:12]
    stores: dict[str, Store] = {"local": LocalStore(tmp_path_factory.mktemp("search-contract") / "store"), "postgres": PostgresStore(dsn, schema)}
    for store in stores.values():
        for doc, stored in PARITY:
            store.replace_document(doc, f"hash-{doc.source}", stored)
    searches: dict[str, SearchBackend] = {name: store.search() for name, store in stores.items()}
    searches |= {f"{name}-fallbacks": BasicReadsOnly(search) for name, search in list(searches.items())}
    yield searches
    for store in stores.values():
        store.close()
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")


def assert_same_ranking(expected: list[tuple[str, float]], found: list[tuple[str, float]], what: object, tolerance: float = 1e-4) -> None:
    """The same ids in the same order, where ids whose scores tie (within `tolerance`) may come in either order."""
    assert len(found) == len(expected), (what, expected, found)
    for (_, want), (_, got) in zip(expected, found, strict=True):
        assert got == pytest.approx(want, abs=tolerance), (what, expected, found)
    start = 0
    while start < len(expected):
        end = start + 1
        while end < len(expected) and abs(expected[end][1] - expected[start][1]) <= tolerance:
            end += 1
        if end < len(expected):  # a tie cut by k may keep different members; one inside the list keeps the same
            assert {cid for cid, _ in expected[start:end]} == {cid for cid, _ in found[start:end]}, (what, expected, found)
        start = end


def test_every_basic_read_is_each_backends_own(backends: dict[str, SearchBackend]) -> None:
    """The shared fallbacks cover only the derived reads: a backend that left a basic read to them would fail here."""
    basic = [name for name, value in vars(SearchFallbacks).items() if callable(value) and name in vars(BasicReadsOnly)]
    assert "document_opening_keyword_scores" in basic and "hybrid_search" not in basic
    for name in ("local", "postgres"):
        for read in basic:
            assert getattr(type(backends[name]), read) is not getattr(SearchFallbacks, read), (name, read)


@pytest.mark.parametrize("mode", ["hybrid", "dense", "keyword", "graph", "graph-local", "graph-global"])
def test_every_search_mode_ranks_alike_on_every_backend(backends: dict[str, SearchBackend], mode: str) -> None:
    """Every grouping, with and without a language asked (the language and translation evidence)."""
    config = RetrieveConfig(max_distance=None, language_weight=0.1, translation_weight=0.3)
    searchers = {name: Searcher(search, None, multilingual, config) for name, search in backends.items()}  # type: ignore[arg-type]
    rng = np.random.default_rng(5)
    for (question, topic), group_by in itertools.product(ASKED, ("chunk", "section", "document")):
        vector = TOPIC_VECTORS[topic] + 0.3 * rng.standard_normal(PARITY_DIM)
        vector = (vector / np.linalg.norm(vector)).astype(np.float32)
        for language in (None, "ja"):
            results = {name: searcher.search(question, k=6, mode=mode, query_vector=vector, group_by=group_by, language=language)
                       for name, searcher in searchers.items()}
            expected = [(hit.chunk.chunk_id, hit.score) for hit in results["local"].hits]
            assert expected or mode.startswith("graph"), (question, mode)
            for name, result in results.items():
                assert_same_ranking(expected, [(hit.chunk.chunk_id, hit.score) for hit in result.hits], (name, question, mode, group_by, language))


@pytest.mark.parametrize("where", PARITY_FILTERS, ids=[str(f) for f in PARITY_FILTERS])
def test_every_filter_kind_ranks_alike_on_every_backend(backends: dict[str, SearchBackend], where: dict[str, Any]) -> None:
    config = RetrieveConfig(max_distance=None, language_weight=0.1, translation_weight=0.3)
    searchers = {name: Searcher(search, None, multilingual, config) for name, search in backends.items()}  # type: ignore[arg-type]
    for question, topic in ASKED:
        vector = TOPIC_VECTORS[topic]
        for mode in ("hybrid", "graph"):  # dense and keyword search's filtering: the references above
            results = {name: searcher.search(question, k=5, where=where, mode=mode, query_vector=vector, language="ja")
                       for name, searcher in searchers.items()}
            expected = [(hit.chunk.chunk_id, hit.score) for hit in results["local"].hits]
            for name, result in results.items():
                assert_same_ranking(expected, [(hit.chunk.chunk_id, hit.score) for hit in result.hits], (name, question, mode, where))


def test_every_derived_read_is_the_same_on_every_backend(backends: dict[str, SearchBackend]) -> None:
    """The seven reads with a fallback, each the same from every backend's fast path and from the fallback."""
    chunk_ids = [s.chunk.chunk_id for _, stored in PARITY for s in stored] + ["no/such#0"]
    translated = {}
    for question, topic in QUESTIONS:
        tokens = multilingual(question)
        vector = TOPIC_VECTORS[topic].astype(np.float32)
        reads = {name: (
            search.hybrid_search(vector, tokens, 8), search.term_matrix(chunk_ids, tokens)[:2], search.chunk_documents(chunk_ids),
            search.document_languages(chunk_ids), search.document_opening_similarities(chunk_ids, vector),
            {language: search.translated_chunks(chunk_ids, language, tokens) for language in ("ja", "zh", "en")},
        ) for name, search in backends.items()}
        (dense, keyword), terms, documents, languages, openings, translations = reads["local"]
        translated[question] = translations
        for name, ((other_dense, other_keyword), other_terms, other_documents, other_languages, other_openings, other_translations) in reads.items():
            assert_same_ranking(dense, other_dense, (name, question))
            assert_same_ranking(keyword, other_keyword, (name, question))
            assert (other_terms, other_documents, other_languages, other_translations) == (terms, documents, languages, translations), name
            assert other_openings == pytest.approx(openings, abs=1e-5), name
    assert {s.chunk.doc_id: lang for _, stored in PARITY for s in stored for lang in [s.chunk.source.split("/")[1]]} == {
        documents[cid]: lang for cid, lang in languages.items()}
    # every page translated into ja, in the other languages, holds none of the question's words its ja page lacks
    assert translated["出張の宿泊費の上限"]["ja"] == {
        f"handbook/{language}/{topic}.md#{i}" for topic in ("lodging", "passwords", "leave") for language in ("zh", "en") for i in range(3)}


@pytest.mark.parametrize("where", [None, {"lang": "ja"}, {"tags": {"$ne": "security"}}], ids=str)
def test_keyword_candidates_are_keyword_search_with_its_documents_scores(backends: dict[str, SearchBackend], where: dict[str, Any] | None) -> None:
    """Keyword search's one read is its two reads' answers, exactly, on every backend; and ranks alike across them."""
    for question, _ in QUESTIONS:
        tokens = multilingual(question)
        for name, search in backends.items():
            found = search.keyword_candidates(tokens, 8, where)
            ranked = search.keyword_search(tokens, 8, where)
            documents = search.document_keyword_scores(found.chunk_ids, tokens)
            assert (found.chunk_ids, found.scores.tolist()) == ([cid for cid, _ in ranked], [score for _, score in ranked]), (name, question)
            assert found.document_scores.tolist() == [documents[cid] for cid in found.chunk_ids], (name, question)
            assert found.scores.dtype == found.document_scores.dtype == np.float64
        local = backends["local"].keyword_candidates(tokens, 8, where)
        assert local.chunk_ids or where is not None, question
        for name, search in backends.items():
            found = search.keyword_candidates(tokens, 8, where)
            assert_same_ranking(list(zip(local.chunk_ids, local.scores.tolist(), strict=True)),
                                list(zip(found.chunk_ids, found.scores.tolist(), strict=True)), (name, question))
            theirs = dict(zip(found.chunk_ids, found.document_scores.tolist(), strict=True))
            for cid, score in zip(local.chunk_ids, local.document_scores.tolist(), strict=True):
                assert theirs.get(cid, score) == pytest.approx(score, abs=1e-4), (name, question, cid)


def test_what_a_backend_keeps_of_documents_follows_every_write(store: Store) -> None:
    """Documents' centroids and languages kept between queries are the store's as it is now: after a page is
    rewritten (another language, other vectors) the backend answers as the uncached fallbacks do."""
    for doc, stored in PARITY:
        store.replace_document(doc, f"hash-{doc.source}", stored)
    search = store.search()
    plain = BasicReadsOnly(search)
    chunk_ids = [s.chunk.chunk_id for _, stored in PARITY for s in stored]
    tokens = multilingual(QUESTIONS[0][0])
    before = search.translated_chunks(chunk_ids, "ja", tokens)
    assert before == plain.translated_chunks(chunk_ids, "ja", tokens) and "handbook/zh/lodging.md#0" in before
    doc, stored = next((doc, stored) for doc, stored in PARITY if doc.source == "handbook/zh/lodging.md")
    rng = np.random.default_rng(3)
    english = TOPICS["api"]["en"]
    rewritten = [StoredChunk(replace(s.chunk, text=english[i], embed_text=english[i]), unit_of(rng), multilingual(english[i]), f"new-{i}")
                 for i, s in enumerate(stored)]
    store.replace_document(doc, "hash-rewritten", rewritten)
    after = search.translated_chunks(chunk_ids, "ja", tokens)
    assert after == plain.translated_chunks(chunk_ids, "ja", tokens) and "handbook/zh/lodging.md#0" not in after
    languages = search.document_languages(chunk_ids)
    assert languages == plain.document_languages(chunk_ids) and languages["handbook/zh/lodging.md#0"] == "en"


def unit_of(rng: np.random.Generator) -> np.ndarray:
    vector = rng.standard_normal(PARITY_DIM).astype(np.float32)
    return vector / np.linalg.norm(vector)


def test_the_collection_retrieval_derives_from_is_read_through_search_alike(store: Store) -> None:
    """Section trees, tables, copy groups and best sentences are built from the search backend's view of the collection
    (never from storage): it is the store's documents, chunks, elements, copy records and versions, and its write
    counter moves with every write; the versions' fallback (from the document list) gives the same as the keyed read."""
    written = fill(store, docs=4)
    first, second = written[0][0].doc_id, written[1][0].doc_id
    store.link_copies({second: first})
    search = store.search()
    for reads in (search, BasicReadsOnly(search)):
        assert reads.documents() == store.documents()
        for doc, _ in written:
            assert reads.chunks(doc.source) == store.chunks(doc.source) and reads.chunks(doc.source)
            assert reads.elements(doc.source) == store.elements(doc.source) and reads.elements(doc.source)
        assert reads.copy_records(grouped=True) == store.copy_records(grouped=True)
        assert {r.doc_id: r.duplicate_of for r in reads.copy_records(grouped=True)} == {first: None, second: first}
        asked = [first, written[3][0].doc_id, "no-such-doc"]
        assert reads.document_versions(asked) == store.document_versions(asked) and len(reads.document_versions(asked)) == 2
        assert reads.generation() == store.generation()
    before = search.generation()
    store.delete_document(written[2][0].source)
    assert search.generation() != before and written[2][0].doc_id not in {d.doc_id for d in search.documents()}
    assert search.chunks(written[2][0].source) == []
