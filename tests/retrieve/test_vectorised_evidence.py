"""The hybrid search's evidence, vectorised for latency, is what the per-candidate loops it replaced computed.

Each reference below is the code that ran before (a lexsort within documents, a loop over the best
documents, a set of held terms per chunk), applied to the same in-memory index; the vectorised path
must give the same chunks, the same order and the same scores (bit for bit where only the order of
work changed, 1e-12 where a sum is taken in another order). Chunks are Japanese, Chinese and English,
documents of 1 to 7 chunks, and some vectors repeat, so cosines tie.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bunko.config import RetrieveConfig
from bunko.index.memory import DOCUMENT_ROWS, SIMILAR_CHUNKS, MemoryIndex
from bunko.retrieve.coverage import matrix_coverage, term_coverage
from bunko.retrieve.searcher import Searcher
from bunko.schema import Chunk, DocumentMatch, ParsedDocument, doc_id_for
from bunko.store.base import StoredChunk
from bunko.store.local import LocalStore
from bunko.store.search_fallbacks import BasicReadsOnly
from bunko.text.analyzers import multilingual

TEXTS = [
    "東京23区に出張する一般社員の宿泊費の上限は一泊一万二千円です。", "経費精算は出張から三十日以内に申請してください。",
    "宿泊費の上限を超える場合は事前承認が必要です。", "在宅勤務の手当は毎月の給与と一緒に支給します。",
    "婚假为三天，产假按照国家规定执行。", "客户支持的响应时间为四小时，紧急问题为一小时。", "差旅住宿费上限为每晚八百元。",
    "年假天数按司龄计算，入职满一年后享有五天年假。",
    "Each API key may send 60 requests per minute; error E-1024 means the limit was hit.",
    "Passwords must be rotated every 90 days and never shared.", "The rate limit resets at the start of each minute.",
    "The hotel limit for business trips is 120 euros per night.",
]
QUESTIONS = ["宿泊費の上限", "出張 経費精算 申請", "年假 住宿费上限", "婚假有几天", "rate limit per minute", "hotel limit E-1024 宿泊費 年假"]
DIM = 24


@pytest.fixture
def store(tmp_path: Path) -> Iterator[LocalStore]:
    rng = np.random.default_rng(4)
    repeated = rng.standard_normal(DIM).astype(np.float32)
    opened = LocalStore(tmp_path / "store")
    for n in range(30):
        source = f"docs/doc-{n:02d}.md"
        doc = ParsedDocument(doc_id_for(source), source, source, "text/markdown", "test", [], {"fields": {"part": n % 3}})
        stored = []
        for i in range(1 + n % 7):
            text = " ".join(TEXTS[(n * 5 + i * 3 + j) % len(TEXTS)] for j in range(2))
            vector = repeated.copy() if (n + i) % 4 == 0 else rng.standard_normal(DIM).astype(np.float32)  # ties
            vector /= np.linalg.norm(vector)
            chunk = Chunk(f"{source}#{i}", doc.doc_id, source, i, text, text, section_path=[f"S{i}"], pages=[i + 1])
            stored.append(StoredChunk(chunk, vector, multilingual(text), f"h-{n}-{i}"))
        opened.replace_document(doc, f"hash-{n}", stored)
    yield opened
    opened.close()


def _old_document_similarities(index: MemoryIndex, chunk_ids: Sequence[str], vector: np.ndarray) -> dict[str, float]:
    row_of = index._row_index()
    known = [cid for cid in chunk_ids if cid in row_of]
    query = np.asarray(vector, dtype=np.float32).ravel()
    rows_asked = np.fromiter((row_of[cid] for cid in known), dtype=np.int64, count=len(known))
    docs_asked = index.documents.doc_of_row[rows_asked]
    docs = np.unique(docs_asked)
    starts, ends = index.documents.starts[docs], index.documents.starts[docs + 1]
    measured = np.cumsum(ends - starts) <= DOCUMENT_ROWS
    docs, starts, ends = docs[measured], starts[measured], ends[measured]
    similarity = np.full(len(index.documents.doc_ids), np.nan, dtype=np.float32)
    if len(docs):
        lengths = ends - starts
        segment = np.repeat(np.arange(len(docs)), lengths)
        cosines = np.concatenate([index.vectors[start:end] @ query for start, end in zip(starts.tolist(), ends.tolist(), strict=True)])
        order = np.lexsort((-cosines, segment))
        first = np.r_[0, np.cumsum(lengths)[:-1]]
        taken = np.minimum(lengths, SIMILAR_CHUNKS)
        picks = np.repeat(first, taken) + (np.arange(int(taken.sum())) - np.repeat(np.cumsum(np.r_[0, taken[:-1]]), taken))
        sums = np.bincount(np.repeat(np.arange(len(docs)), taken), weights=cosines[order][picks], minlength=len(docs))
        similarity[docs] = sums / taken
    found = similarity[docs_asked]
    own = np.isnan(found)
    if own.any():
        found[own] = index.vectors[rows_asked[own]] @ query
    return dict(zip(known, found.astype(float).tolist(), strict=True))


def _old_best_chunks(
    index: MemoryIndex, tokens: Sequence[str], top: list[tuple[int, float]], where: Mapping[str, Any] | None, vector: np.ndarray | None,
) -> list[DocumentMatch]:
    spans = [(int(index.documents.starts[d]), int(index.documents.starts[d + 1])) for d, _ in top]
    rows = np.concatenate([np.arange(start, end) for start, end in spans])
    if vector is not None:
        closeness = np.concatenate([index.vectors[start:end] @ np.asarray(vector, dtype=np.float32) for start, end in spans])
    else:
        closeness = index.bm25.scores(tokens)[rows]
    allowed_rows = index.mask(where)
    if allowed_rows is not None:
        closeness = np.where(allowed_rows[rows], closeness, -np.inf)
    matches, offset = [], 0
    for (doc_index, score), (start, end) in zip(top, spans, strict=True):
        best = offset + int(np.argmax(closeness[offset : offset + end - start]))
        matches.append(DocumentMatch(index.documents.doc_ids[doc_index], score, index.ids[int(rows[best])]))
        offset += end - start
    return matches


def _old_matching_terms(index: MemoryIndex, chunk_ids: Sequence[str], tokens: Sequence[str]) -> dict[str, set[str]]:
    row_of = index._row_index()
    bm25 = index.bm25
    known = [cid for cid in chunk_ids if cid in row_of]
    wanted = np.asarray([row_of[cid] for cid in known], dtype=np.int64)
    found: list[set[str]] = [set() for _ in known]
    indptr, indices = bm25.matrix.indptr, bm25.matrix.indices
    for term in set(tokens):
        column = bm25.vocab.get(term)
        if column is None:
            continue
        postings = indices[indptr[column] : indptr[column + 1]]
        at = np.minimum(np.searchsorted(postings, wanted), len(postings) - 1)
        for i in np.flatnonzero(postings[at] == wanted):
            found[i].add(term)
    return dict(zip(known, found, strict=True))


@pytest.mark.parametrize("question", QUESTIONS)
def test_document_similarities_are_the_sorted_means_they_replaced(store: LocalStore, question: str) -> None:
    index = store._current_index()
    vector = store.search().vectors_for([f"docs/doc-{len(question) % 30:02d}.md#0"])[0] + 0.1
    vector /= np.linalg.norm(vector)
    chunk_ids = [*index.ids[::3], "no/such#0"]
    store.search().document_keyword_search(multilingual(question), 5, None, vector)  # leaves span cosines kept for this query
    assert store.search().document_similarities(chunk_ids, vector) == _old_document_similarities(index, chunk_ids, vector)


@pytest.mark.parametrize("question", QUESTIONS)
@pytest.mark.parametrize("where", [None, {"part": 1}, {"page": {"$gte": 3}}])
def test_a_documents_best_chunk_is_the_one_the_loop_picked(store: LocalStore, question: str, where: dict[str, Any] | None) -> None:
    index = store._current_index()
    tokens = multilingual(question)
    vector = np.random.default_rng(len(question)).standard_normal(DIM).astype(np.float32)
    vector /= np.linalg.norm(vector)
    for near in (vector, None):
        found = store.search().document_keyword_search(tokens, 8, where, near)
        if not found:  # the filter leaves no document holding the words
            assert where is not None, question
            continue
        top = [(index.documents.doc_ids.index(m.doc_id), m.score) for m in found]
        assert found == _old_best_chunks(index, tokens, top, where, near)


@pytest.mark.parametrize("question", QUESTIONS)
def test_coverage_from_the_term_matrix_is_the_coverage_of_held_term_sets(store: LocalStore, question: str) -> None:
    index = store._current_index()
    tokens = multilingual(question)
    chunk_ids = [*index.ids, "no/such#0"]
    idf = store.search().term_weights(tokens)
    held = _old_matching_terms(index, chunk_ids, tokens)
    assert store.search().matching_terms(chunk_ids, tokens) == held
    expected = term_coverage(held, idf)
    found = matrix_coverage(*store.search().term_matrix(chunk_ids, tokens), idf)
    assert found.keys() == expected.keys() and any(expected.values())
    assert all(abs(found[cid] - expected[cid]) <= 1e-12 for cid in expected)


@pytest.mark.parametrize("language", [None, "ja"])
def test_hybrid_hits_are_the_same_through_the_term_matrix_and_through_term_sets(store: LocalStore, language: str | None) -> None:
    config = RetrieveConfig(max_distance=None, candidates=20)
    rng = np.random.default_rng(11)
    for question in QUESTIONS:
        vector = rng.standard_normal(DIM).astype(np.float32)
        vector /= np.linalg.norm(vector)
        a = Searcher(store.search(), None, multilingual, config).search(question, k=8, query_vector=vector, language=language)  # type: ignore[arg-type]
        b = Searcher(BasicReadsOnly(store.search()), None, multilingual, config).search(  # type: ignore[arg-type]
            question, k=8, query_vector=vector, language=language)
        assert [h.chunk.chunk_id for h in a.hits] == [h.chunk.chunk_id for h in b.hits]
        assert all(abs(x.score - y.score) <= 1e-12 for x, y in zip(a.hits, b.hits, strict=True))
