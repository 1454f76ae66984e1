from __future__ import annotations

import pytest

from bunko.index.bm25 import K1
from bunko.retrieve.fusion import BM25_SHARE, coverage_fusion, reciprocal_rank_fusion


def test_rrf_matches_hand_computed_scores() -> None:
    fused = reciprocal_rank_fusion(
        {"dense": [("a", 0.9), ("b", 0.8), ("c", 0.7)], "keyword": [("c", 12.0), ("a", 3.0), ("d", 1.0)]},
        weights={"dense": 1.0, "keyword": 0.5},
        k=60,
    )
    expected = {
        "a": 1 / 61 + 0.5 / 62,
        "b": 1 / 62,
        "c": 1 / 63 + 0.5 / 61,
        "d": 0.5 / 63,
    }
    assert [cid for cid, _, _ in fused] == sorted(expected, key=lambda c: -expected[c])
    for chunk_id, score, _ in fused:
        assert score == pytest.approx(expected[chunk_id])
    signals = {cid: s.to_dict() for cid, _, s in fused}
    assert signals["c"] == {"dense": {"rank": 3.0, "score": 0.7}, "keyword": {"rank": 1.0, "score": 12.0}}


def test_one_list_is_fused_exactly_as_the_general_merge_would() -> None:
    import random

    rng = random.Random(7)
    for _ in range(100):
        hits = [(f"c{rng.randrange(40)}", rng.random()) for _ in range(rng.randrange(60))]
        weights = {"keyword": rng.choice([0.55, 1.0, 2.0])}
        alone = reciprocal_rank_fusion({"keyword": hits}, weights, k=60)
        merged = reciprocal_rank_fusion({"keyword": hits, "dense": []}, weights, k=60)  # two lists: the general path
        assert [(c, s, sig.to_dict()) for c, s, sig in alone] == [(c, s, sig.to_dict()) for c, s, sig in merged]


def test_one_list_read_by_index_slice_or_iteration_is_the_eager_fusion_and_keeps_what_was_written_to_it() -> None:
    import random

    from bunko.retrieve.fusion import OneList

    rng = random.Random(11)
    for _ in range(50):
        hits = [(f"c{rng.randrange(30)}", rng.random()) for _ in range(rng.randrange(1, 50))]
        eager = reciprocal_rank_fusion({"keyword": hits, "dense": []}, {"keyword": 0.55}, k=60)
        lazy = OneList("keyword", hits, 0.55, 60)
        assert len(lazy) == len(eager)
        cut = rng.randrange(len(eager) + 1)
        assert [(c, s, sig.to_dict()) for c, s, sig in lazy[:cut]] == [(c, s, sig.to_dict()) for c, s, sig in eager[:cut]]
        assert lazy[-1][0] == eager[-1][0] and lazy[len(lazy) - 1] is lazy[-1]
        lazy[0][2].mmr_rank = 3.0  # a searcher writes to a candidate's signals (MMR) and reads the candidate again
        assert next(iter(lazy))[2].mmr_rank == 3.0 and lazy[:1][0] is lazy[0]
        assert [(c, s, sig.to_dict()) for c, s, sig in lazy][1:] == [(c, s, sig.to_dict()) for c, s, sig in eager][1:]
        with pytest.raises(IndexError):
            lazy[len(lazy)]


def test_duplicates_within_one_list_count_once() -> None:
    fused = reciprocal_rank_fusion({"dense": [("a", 0.9), ("a", 0.9)]}, k=60)
    assert fused[0][1] == pytest.approx(1 / 61)


def test_router_sends_codes_and_quotes_to_keyword_and_accepts_new_rules() -> None:
    from bunko.config import RetrieveConfig
    from bunko.retrieve.question import read_question
    from bunko.retrieve.router import DEFAULT_RULES, Route, route
    from bunko.text.analyzers import multilingual

    config = RetrieveConfig()
    assert route(read_question("E-1024 とは", multilingual("E-1024 とは")), config).name == "exact"
    assert route(read_question("「冲突副本」是什么", multilingual("「冲突副本」是什么")), config).name == "exact"
    semantic = route(read_question("出張の宿泊費の上限は？", multilingual("出張の宿泊費の上限は？")), config)
    assert semantic.name == "semantic" and semantic.weights["keyword"] < semantic.weights["dense"]

    def dates(question, cfg):
        return Route("dates", {"keyword": 1.0}, "a year") if "2026" in question.tokens else None

    assert route(read_question("policy changes in 2026", multilingual("policy changes in 2026")), config, (dates, *DEFAULT_RULES)).name == "dates"


def test_coverage_fusion_matches_hand_computed_scores() -> None:
    from bunko.index.bm25 import K1
    from bunko.retrieve.coverage import term_coverage
    from bunko.retrieve.fusion import BM25_SHARE, coverage_fusion

    idf = {"rare": 3.0, "common": 1.0}
    coverage = term_coverage({"a": set(), "b": {"common"}, "c": {"rare", "common"}, "d": {"rare"}}, idf)
    assert coverage == pytest.approx({"a": 0.0, "b": 0.25, "c": 1.0, "d": 0.75})
    fused = coverage_fusion(
        {"dense": [("a", 0.9), ("b", 0.8), ("c", 0.5)], "keyword": [("c", 2.4), ("d", 1.2)]}, coverage, sum(idf.values()),
        {"dense": 1.0, "keyword": 0.5},
    )
    full_match = 4.0 / (1 + K1)  # a chunk of average length holding both terms once
    bm25 = {"a": 0.0, "b": 1.2, "c": 2.4, "d": 1.2}  # b was not in the keyword list: its lowest score; a holds no query term: 0
    similarity = {"a": 0.9, "b": 0.8, "c": 0.5, "d": 0.5}  # d was not in the dense list: its lowest similarity
    expected = {cid: similarity[cid] + 0.5 * (coverage[cid] + BM25_SHARE * bm25[cid] / full_match) for cid in similarity}
    assert [cid for cid, _, _ in fused] == sorted(expected, key=lambda c: -expected[c])
    for chunk_id, score, _ in fused:
        assert score == pytest.approx(expected[chunk_id])
    signals = {cid: s.to_dict() for cid, _, s in fused}
    assert signals["c"]["dense"] == {"rank": 3.0, "score": 0.5} and signals["c"]["keyword"] == {"rank": 1.0, "score": 2.4}
    assert signals["c"]["coverage"] == pytest.approx({"score": 1.0, "relative_bm25": 2.4 / full_match, "evidence": 1.0 + BM25_SHARE * 2.4 / full_match})
    assert "dense" not in signals["d"] and "keyword" not in signals["a"]


def test_coverage_counts_query_terms_the_corpus_lacks() -> None:
    from bunko.retrieve.coverage import term_coverage

    assert term_coverage({"a": {"x"}}, {"x": 2.0, "unknown": 2.0}) == {"a": 0.5}
    assert term_coverage({"a": set()}, {}) == {"a": 0.0}


def test_document_evidence_and_language_add_to_the_chunk_score() -> None:
    """Keyword BM25 over the whole document (over the query's idf), dense similarity of the document's closest chunks,
    and the question's language each add their weight × value; a keyword-only chunk is judged on its real cosine."""
    ranked = {"dense": [("a", 0.8)], "keyword": [("b", 2.0)], "document": [("c", 3.0)]}
    coverage = {"a": 0.0, "b": 1.0, "c": 0.5}
    weights = {"dense": 1.0, "keyword": 0.5, "document": 2.0, "document_similarity": 1.5, "language": 0.1}
    fused = coverage_fusion(
        ranked, coverage, idf_total=4.0, weights=weights, cosines={"b": 0.3, "c": 0.6},
        document_scores={"a": 0.0, "b": 1.0, "c": 2.0}, languages={"a": "ja", "b": "en", "c": "ja"}, language="ja",
        document_similarities={"a": 0.5, "b": 0.2, "c": 0.7},
    )
    scores = {cid: score for cid, score, _ in fused}
    full_match = 4.0 / (1 + K1)
    b_keyword = 1.0 + BM25_SHARE * 2.0 / full_match
    c_keyword = 0.5 + BM25_SHARE * 2.0 / full_match  # not in the keyword list: the list's floor, since it holds terms
    assert scores["a"] == pytest.approx(0.8 + 0 + 0 + 1.5 * 0.5 + 0.1)
    assert scores["b"] == pytest.approx(0.3 + 0.5 * b_keyword + 2.0 * 1.0 / 4.0 + 1.5 * 0.2)
    assert scores["c"] == pytest.approx(0.6 + 0.5 * c_keyword + 2.0 * 2.0 / 4.0 + 1.5 * 0.7 + 0.1)
    signals = {cid: s.to_dict() for cid, _, s in fused}
    assert signals["b"]["similarity"] == {"score": 0.3} and "similarity" not in signals["a"]
    assert signals["c"]["document"] == {"rank": 1.0, "score": 3.0} and signals["c"]["language"] == {"score": 1.0}


def test_the_opening_of_a_document_adds_its_weight_and_is_reported() -> None:
    """The opening evidence (mean cosine of the document's first chunks) adds w_document_opening × its value."""
    ranked = {"dense": [("a", 0.8), ("b", 0.6)]}
    openings = {"a": 0.1, "b": 0.7}
    plain = {cid: score for cid, score, _ in coverage_fusion(ranked, {"a": 0.0, "b": 0.0}, 1.0, {"dense": 1.0})}
    fused = coverage_fusion(ranked, {"a": 0.0, "b": 0.0}, 1.0, {"dense": 1.0, "document_opening": 0.5}, document_openings=openings)
    assert [cid for cid, _, _ in fused] == ["b", "a"]
    for cid, score, signals in fused:
        assert score == pytest.approx(plain[cid] + 0.5 * openings[cid])
        assert signals.coverage is not None and signals.coverage.document_opening == openings[cid]


def test_the_keyword_opening_adds_its_weight_over_the_querys_idf_and_is_reported() -> None:
    """The opening's BM25 is divided by the query's idf total, as the document's BM25 is, then weighed."""
    ranked = {"dense": [("a", 0.8), ("b", 0.6)]}
    opening_keyword_scores = {"a": 0.0, "b": 3.0}
    plain = {cid: score for cid, score, _ in coverage_fusion(ranked, {"a": 0.0, "b": 0.0}, 4.0, {"dense": 1.0})}
    fused = coverage_fusion(
        ranked, {"a": 0.0, "b": 0.0}, 4.0, {"dense": 1.0, "document_opening_keyword": 0.5}, opening_keyword_scores=opening_keyword_scores,
    )
    assert [cid for cid, _, _ in fused] == ["b", "a"]
    for cid, score, signals in fused:
        assert score == pytest.approx(plain[cid] + 0.5 * opening_keyword_scores[cid] / 4.0)
        assert signals.coverage is not None and signals.coverage.document_opening_keyword == opening_keyword_scores[cid] / 4.0
    assert all(s.coverage is not None and s.coverage.document_opening_keyword is None
               for _, _, s in coverage_fusion(ranked, {"a": 0.0, "b": 0.0}, 4.0, {"dense": 1.0}))

