"""One BM25 formula: its parts equal bm25s's Lucene scoring, and every place that weighs terms uses it."""

from __future__ import annotations

import math

import bm25s
import numpy as np
import pytest
from bm25s.scoring import _score_idf_lucene, _score_tfc_lucene

from bunko.index.bm25 import BM25Index
from bunko.index.bm25_formula import K1, B, idf, length_norm, share_idf, sql_term_score, term_score, tf_component
from bunko.retrieve.key_terms import RARE_IDF, RARE_TERM_SHARE
from bunko.text.analyzers import multilingual

CORPUS = [
    "東京23区に出張する一般社員の宿泊費の上限は一泊一万二千円です。",
    "宿泊費の上限を超える場合は事前承認が必要です。",
    "差旅住宿费上限为每晚八百元，超出部分需要审批。",
    "年假天数按司龄计算，司龄满五年的员工每年十五天。",
    "The hotel limit is 120 euros per night; a higher rate needs approval.",
    "Each API key may send 60 requests per minute; error E-1024 means the limit was hit.",
]
QUERIES = ["宿泊費の上限", "住宿费上限", "hotel limit per night", "E-1024 错误 エラー", "年假 annual leave"]


@pytest.mark.parametrize(("df", "n"), [(0, 10), (1, 10), (5, 10), (10, 10), (3, 1_000_000)])
def test_idf_is_bm25s_lucene_idf(df: int, n: int) -> None:
    assert idf(float(df), n) == pytest.approx(_score_idf_lucene(df, n))


def test_term_frequency_part_is_bm25s_lucene_without_the_k1_plus_1_factor() -> None:
    tf, doc_len = np.array([1.0, 2.0, 5.0]), np.array([8.0, 20.0, 3.0])
    reference = _score_tfc_lucene(tf, doc_len, 10.0, K1, B)
    np.testing.assert_allclose(tf_component(tf, length_norm(doc_len, 10.0)), reference)
    norm = length_norm(doc_len, 10.0)
    np.testing.assert_allclose(tf_component(tf, norm.copy(), out=norm), reference)  # in place, as the index does


def test_index_scores_are_the_formula_summed_over_distinct_query_terms() -> None:
    tokens = [multilingual(text) for text in CORPUS]
    index = BM25Index().build(tokens)
    n, avg_len = len(tokens), float(np.mean([len(t) for t in tokens]))
    for query in QUERIES:
        terms = set(multilingual(query))
        expected = [
            sum(term_score(doc.count(t), sum(t in d for d in tokens), n, len(doc), avg_len) for t in terms if t in doc)
            for doc in tokens
        ]
        np.testing.assert_allclose(index.scores(multilingual(query)), expected, rtol=1e-5)


def test_ja_zh_en_scores_equal_bm25s_lucene() -> None:
    tokens = [multilingual(text) for text in CORPUS]
    vocab = {t: i for i, t in enumerate(sorted({t for doc in tokens for t in doc}))}
    reference = bm25s.BM25(method="lucene", k1=K1, b=B)
    reference.index(bm25s.tokenization.Tokenized(ids=[[vocab[t] for t in doc] for doc in tokens], vocab=vocab), show_progress=False)
    index = BM25Index().build(tokens)
    for query in QUERIES:
        known = [t for t in dict.fromkeys(multilingual(query)) if t in vocab]
        np.testing.assert_allclose(index.scores(known), reference.get_scores([vocab[t] for t in known]), rtol=1e-5, atol=1e-6)
        assert index.idf(known) == pytest.approx({t: _score_idf_lucene(sum(t in d for d in tokens), len(tokens)) for t in known})


def test_the_rare_term_threshold_is_the_idf_of_its_share_in_a_large_collection() -> None:
    assert share_idf(RARE_TERM_SHARE) == RARE_IDF
    assert share_idf(0.1) == pytest.approx(idf(100_000.0, 1_000_000), rel=1e-5)


def test_the_sql_expression_is_the_same_formula() -> None:
    expression = sql_term_score(tf="tf", df="df", n="n", doc_len="dl", avg_len="avgdl")
    values = {"tf": 2.0, "df": 3.0, "n": 10.0, "dl": 12.0, "avgdl": 9.0}
    evaluated = eval(expression.replace("ln(", "log("), {"log": math.log}, values)  # noqa: S307 - SQL arithmetic is Python's here; the expression is ours
    assert evaluated == pytest.approx(term_score(2.0, 3.0, 10.0, 12.0, 9.0))
