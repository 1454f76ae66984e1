from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bunko import Config
from bunko.retrieve.fusion import weighted_score_fusion
from bunko.retrieve.mmr import mmr_order


def test_weighted_fusion_minmax_matches_hand_computed() -> None:
    fused = weighted_score_fusion(
        {"dense": [("a", 0.9), ("b", 0.7), ("c", 0.5)], "keyword": [("c", 12.0), ("a", 4.0)]},
        weights={"dense": 1.0, "keyword": 0.5},
    )
    scores = {cid: score for cid, score, _ in fused}
    assert scores["a"] == pytest.approx(1.0 + 0.5 * 0.0)
    assert scores["b"] == pytest.approx(0.5)
    assert scores["c"] == pytest.approx(0.0 + 0.5 * 1.0)
    assert fused[0][0] == "a"
    assert fused[0][2].to_dict()["dense"]["normalized"] == pytest.approx(1.0)


def test_weighted_fusion_max_normalization() -> None:
    fused = weighted_score_fusion({"keyword": [("a", 10.0), ("b", 5.0)]}, normalization="max")
    assert [round(s, 3) for _, s, _ in fused] == [1.0, 0.5]
    with pytest.raises(ValueError, match="normalization"):
        weighted_score_fusion({"keyword": [("a", 1.0)]}, normalization="zscore")


def test_mmr_skips_a_near_duplicate() -> None:
    vectors = np.array([[1.0, 0.0], [0.999, 0.045], [0.0, 1.0]], dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    relevance = np.array([1.0, 0.95, 0.6])
    assert mmr_order(relevance, vectors, 3, lambda_=1.0) == [0, 1, 2]
    assert mmr_order(relevance, vectors, 3, lambda_=0.5)[:2] == [0, 2]


def test_mmr_in_search_spreads_hits_over_documents(make_kb, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    rule = "出張の宿泊費の上限は一泊一万二千円です。"
    for i in range(3):
        (docs / f"copy-{i}.md").write_text(f"# 規程{i}\n\n{rule}\n", encoding="utf-8")
    (docs / "other.md").write_text("# 日当\n\n出張の日当は一日三千円です。\n", encoding="utf-8")
    plain = make_kb(name="plain")
    plain.ingest(docs)
    config = Config()
    config.retrieve.mmr_lambda = 0.3
    diverse = make_kb(config=config, name="diverse")
    diverse.ingest(docs)
    question = "出張の宿泊費の上限"
    assert [h.chunk.source for h in plain.search(question, k=3)].count("docs/other.md") == 0
    hits = diverse.search(question, k=3)
    assert "docs/other.md" in [h.chunk.source for h in hits]
    assert all(h.signals.mmr_rank is not None for h in hits)
