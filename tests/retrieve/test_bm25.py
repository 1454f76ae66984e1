"""Our sparse-matrix BM25 gives the same scores as bm25s (method "lucene") on the same tokens."""

from __future__ import annotations

import bm25s
import numpy as np

from bunko.retrieve.analyzers import multilingual
from bunko.retrieve.bm25 import BM25Index

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
