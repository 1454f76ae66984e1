"""Our sparse-matrix BM25 gives the same scores as bm25s (method "lucene") on the same tokens."""

from __future__ import annotations

import bm25s
import numpy as np
import pytest

from bunko.index.bm25 import BM25Index
from bunko.text.analyzers import multilingual

CORPUS = [
    "出張の宿泊費の上限は東京で一泊12,000円です。",
    "年假每年十五天，病假需要医生证明。",
    "The API allows 600 requests per minute per key.",
    "宿泊費は実費精算とし、領収書が必要です。",
    "Error E-1024 means a sync conflict; 错误代码 E-1024 表示同步冲突。",
]


def test_scores_match_bm25s_lucene() -> None:
    tokens = [multilingual(text) for text in CORPUS]
    ours = BM25Index(k1=1.5, b=0.75).build(tokens)
    vocab = {t: i for i, t in enumerate(sorted({t for doc in tokens for t in doc}))}
    reference = bm25s.BM25(method="lucene", k1=1.5, b=0.75)
    reference.index(bm25s.tokenization.Tokenized(ids=[[vocab[t] for t in doc] for doc in tokens], vocab=vocab), show_progress=False)
    for query in ["宿泊費の上限", "E-1024 同步冲突", "requests per minute", "病假"]:
        query_tokens = [t for t in multilingual(query) if t in vocab]
        expected = reference.get_scores([vocab[t] for t in dict.fromkeys(query_tokens)])
        np.testing.assert_allclose(ours.scores(query_tokens), expected, rtol=1e-5, atol=1e-6)


def test_unknown_terms_score_zero_and_persisted_index_scores_the_same(tmp_path) -> None:
    index = BM25Index().build([multilingual(t) for t in CORPUS])
    assert not index.scores(["never-seen"]).any()
    index.save(str(tmp_path / "bm25"))
    loaded = BM25Index.load(str(tmp_path / "bm25"))
    np.testing.assert_array_equal(loaded.scores(multilingual("宿泊費")), index.scores(multilingual("宿泊費")))


def _random_corpus(n_docs: int, seed: int = 0) -> list[list[str]]:
    rng = np.random.default_rng(seed)
    vocabulary = [f"t{i}" for i in range(300)]
    weights = 1.0 / np.arange(1, 301)  # Zipf-like: a few terms in most rows, most in few
    weights /= weights.sum()
    return [list(rng.choice(vocabulary, size=int(rng.integers(3, 30)), p=weights)) for _ in range(n_docs)]


def test_matches_are_the_nonzero_scores_and_match_bm25s() -> None:
    tokens = _random_corpus(3000)
    ours = BM25Index().build(tokens)
    vocab = {t: i for i, t in enumerate(sorted({t for doc in tokens for t in doc}))}
    reference = bm25s.BM25(method="lucene", k1=1.5, b=0.75)
    reference.index(bm25s.tokenization.Tokenized(ids=[[vocab[t] for t in doc] for doc in tokens], vocab=vocab), show_progress=False)
    # one rare term (a column slice); rare terms; common terms; one common term; unknown
    for query in (["t299"], ["t250", "t280", "t250"], ["t0", "t1", "t7"], ["t0"], ["nope"], ["t3", "nope"]):
        rows, values = ours.matches(query)
        scores = ours.scores(query)
        assert rows.tolist() == np.flatnonzero(scores).tolist()
        np.testing.assert_array_equal(values, scores[rows])
        known = [t for t in dict.fromkeys(query) if t in vocab]
        expected = reference.get_scores([vocab[t] for t in known]) if known else np.zeros(len(tokens))
        np.testing.assert_allclose(scores, expected, rtol=1e-5, atol=1e-6)


def test_summed_postings_are_bit_for_bit_the_float32_sum_added_one_term_after_another() -> None:
    """Scores are reported and ties broken on them: one add over all postings must give every row exactly the
    float32 sum a fancy-indexed add per term gave, in the terms' column order."""
    index = BM25Index().build(_random_corpus(3000, seed=2))
    indptr, indices, data = index.matrix.indptr, index.matrix.indices, index.matrix.data
    for columns in ([0, 1], [0, 1, 2, 5, 40, 120, 299], list(range(0, 300, 7)), [3, 250]):
        summed = np.zeros(index.size, dtype=np.float32)
        for column in columns:
            summed[indices[indptr[column]:indptr[column + 1]]] += data[indptr[column]:indptr[column + 1]]
        rows, values = index._sum_postings(columns)
        assert rows.tolist() == np.flatnonzero(summed > 0).tolist()
        assert values.view(np.uint32).tolist() == summed[rows].view(np.uint32).tolist()


def test_top_k_of_matches_equals_top_k_of_all_scores_with_a_filter() -> None:
    from bunko.index.topk import top_k, top_k_of

    index = BM25Index().build(_random_corpus(2000, seed=1))
    allowed = np.zeros(index.size, dtype=bool)
    allowed[::3] = True
    for query in (["t0", "t5"], ["t120", "t200", "t299"], ["t2"]):
        rows, values = index.matches(query)
        scores = index.scores(query)
        for mask in (None, allowed):
            expected = top_k(scores, 10, mask, min_score=0.0)
            got = top_k_of(rows, values, 10, mask, min_score=0.0)
            assert [s for _, s in got] == pytest.approx([s for _, s in expected])
            assert all(mask is None or mask[r] for r, _ in got)
    assert top_k_of(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32), 5) == []


def test_terms_in_rows_agrees_with_the_documents_own_tokens() -> None:
    import random

    from bunko.index.bm25 import BM25Index
    from bunko.text.analyzers import multilingual

    texts = ["出張の宿泊費の上限は一泊一万二千円です。", "差旅住宿费上限为每晚八百元。", "The hotel limit is 120 euros per night.",
             "会議室の予約はポータルから行います。", "年假天数按司龄计算。", "Error E-1024 means the token expired."]
    docs = [multilingual(t) for t in texts]
    index = BM25Index().build(docs)
    query = multilingual("宿泊費の上限 住宿费上限 hotel limit E-1024 年假 nothing")
    rows = random.Random(1).sample(range(len(docs)), len(docs))
    found = index.terms_in_rows(rows, query)
    assert found == [set(query) & set(docs[row]) for row in rows]
    assert all(found[i] for i, row in enumerate(rows) if row in (0, 1, 2, 4, 5))


def test_builder_fed_token_text_row_by_row_equals_build_from_lists() -> None:
    from bunko.index.bm25 import BM25Builder

    corpus = [*_random_corpus(500, seed=3), []]  # an empty row keeps its place
    builder = BM25Builder()
    for tokens in corpus:
        builder.add_text(" ".join(tokens))
    streamed, built = builder.finish(), BM25Index().build(corpus)
    assert streamed.size == built.size == len(corpus) and streamed.vocab == built.vocab
    for query in (["t0"], ["t3", "t150"], ["t299", "t1"]):
        np.testing.assert_array_equal(streamed.scores(query), built.scores(query))


def test_the_cache_is_written_under_a_temporary_name_and_renamed_whole(tmp_path, monkeypatch) -> None:
    """A writer killed mid-write leaves the previous file (or none) under the real name, never a torn one."""
    import os

    from scipy import sparse

    from bunko.index import atomic
    from bunko.index.bm25 import BM25Builder, BM25Index

    builder = BM25Builder()
    for text in ("宿泊 費 上限", "住宿 费 上限", "hotel limit"):
        builder.add_text(text)
    index = builder.finish()
    prefix = str(tmp_path / "bm25-1")
    index.save(prefix)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert set(before) == {"bm25-1.npz", "bm25-1.vocab.json"}

    def torn(handle, matrix, compressed=True):  # the process dies half-way through the matrix
        handle.write(b"PK\x03\x04 half a zip")
        raise KeyboardInterrupt

    monkeypatch.setattr(sparse, "save_npz", torn)
    with pytest.raises(KeyboardInterrupt):
        index.save(prefix)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before  # no torn file, no temporary left
    monkeypatch.undo()

    synced: list[str] = []
    real_fsync = os.fsync
    monkeypatch.setattr(atomic.os, "fsync", lambda fd: (synced.append(os.readlink(f"/proc/self/fd/{fd}")), real_fsync(fd))[1])
    index.save(prefix)
    assert any(s.endswith(".tmp") for s in synced) and str(tmp_path) in synced  # the data, then the folder's new name
    assert BM25Index.load(prefix).size == 3


def test_top_k_of_returns_python_numbers_by_score_then_row_and_drops_scores_not_above_the_minimum() -> None:
    from bunko.index.topk import top_k_of

    rows = np.array([5, 3, 9, 1, 7], dtype=np.int64)
    values = np.array([0.1, 2.5, 2.5, 0.0, 0.1], dtype=np.float32)
    got = top_k_of(rows, values, 3, min_score=0.0)
    assert got == [(3, 2.5), (9, 2.5), (5, float(np.float32(0.1)))]
    assert all(type(row) is int and type(score) is float for row, score in got)
    assert top_k_of(rows, values, 10, min_score=0.0)[-1] == (7, float(np.float32(0.1)))  # row 1 scores 0: dropped


def test_grouped_indexes_score_whole_documents_and_their_first_rows_as_if_each_were_one_text() -> None:
    """Documents of chunks in document order: the document index is BM25 over each document's rows joined, the opening
    index BM25 over each document's first two rows joined, with the openings' own idf and average length."""
    from bunko.index.bm25 import BM25Builder

    documents = [CORPUS[:3], CORPUS[3:4], [CORPUS[4], CORPUS[0], CORPUS[1], CORPUS[2]]]  # three, one and four chunks
    builder = BM25Builder()
    group_of_row = []
    for number, chunks in enumerate(documents):
        for text in chunks:
            builder.add(multilingual(text))
            group_of_row.append(number)
    grouped = builder.finish_grouped(np.asarray(group_of_row), len(documents), 2)
    whole = BM25Index().build([[t for text in chunks for t in multilingual(text)] for chunks in documents])
    openings = BM25Index().build([[t for text in chunks[:2] for t in multilingual(text)] for chunks in documents])
    assert grouped.rows.size == 8 and grouped.documents.size == grouped.openings.size == 3
    for query in ["宿泊費の上限", "病假 医生", "requests per minute", "E-1024 同步冲突"]:
        tokens = multilingual(query)
        np.testing.assert_allclose(grouped.documents.scores(tokens), whole.scores(tokens), rtol=1e-6)
        np.testing.assert_allclose(grouped.openings.scores(tokens), openings.scores(tokens), rtol=1e-6)
    assert not grouped.openings.scores(multilingual("requests per minute"))[2]  # the API chunk is the fourth document's fourth
    assert grouped.documents.scores(multilingual("requests per minute"))[2] > 0


def test_every_score_is_scores_bit_for_bit_without_the_matches_kept() -> None:
    """Keyword search reads its candidates' document BM25 with `every_score`: the same float32 scores as `scores`."""
    index = BM25Index().build([multilingual(t) for t in CORPUS])
    for query in ["宿泊費の上限", "年假 病假 医生证明", "E-1024 sync conflict", "requests", "病假", "never-seen", ""]:
        tokens = multilingual(query)
        expected = index.scores(tokens)
        found = index.every_score(tokens)
        assert found.dtype == expected.dtype == np.float32 and found.tobytes() == expected.tobytes(), query
    assert BM25Index().every_score(["宿泊"]).size == 0
