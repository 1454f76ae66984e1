"""Morphological analyzers: words instead of bigrams, and a collection refuses a silent analyzer switch."""

from __future__ import annotations

from pathlib import Path

import pytest

from bunko import Bunko, CollectionError, Config
from bunko.text.analyzers import get_analyzer


def test_sudachi_segments_japanese_into_words() -> None:
    tokens = get_analyzer("sudachi")("東京都の宿泊費の上限")
    assert {"東京", "宿泊", "上限"} <= set(tokens)
    assert "京都" not in tokens, "bigrams would have matched Kyoto inside Tokyo-to"


def test_janome_segments_japanese_into_words() -> None:
    assert {"宿泊", "上限"} <= set(get_analyzer("janome")("宿泊費の上限は一万円です"))


def test_jieba_segments_chinese_and_keeps_codes() -> None:
    tokens = get_analyzer("jieba")("供应商报价需要三家 E-1024")
    assert {"供应商", "报价", "e-1024", "1024"} <= set(tokens)


def test_combined_analyzer_picks_the_segmenter_by_language_and_keeps_english() -> None:
    analyzer = get_analyzer("sudachi+jieba")
    assert "供应商" in analyzer("单笔采购需要三家供应商报价")
    assert "宿泊" in analyzer("宿泊費の上限")
    assert analyzer("The API Rate Limit") == ["api", "rate", "limit"]


def test_unknown_analyzer_lists_the_available_ones() -> None:
    with pytest.raises(ValueError, match="sudachi\\+jieba"):
        get_analyzer("mecab")


def test_changing_the_analyzer_needs_reindex_and_reindex_keeps_vectors(make_kb, tmp_path: Path, samples_dir: Path, embedder) -> None:
    kb = make_kb()
    kb.ingest(samples_dir)
    dense_before = [h.chunk.chunk_id for h in kb.search("宿泊費の上限", mode="dense")]
    kb.close()
    config = Config.load(tmp_path / ".bunko" / "bunko.toml")
    config.retrieve.analyzer = "sudachi+jieba"
    config.save(tmp_path / ".bunko" / "bunko.toml")
    with pytest.raises(CollectionError, match="bunko reindex"):
        Bunko(tmp_path / ".bunko", embedder=embedder)
    kb = Bunko(tmp_path / ".bunko", embedder=embedder, allow_analyzer_change=True)
    assert kb.reindex() == 12
    kb.close()
    kb = Bunko(tmp_path / ".bunko", embedder=embedder)
    assert [h.chunk.chunk_id for h in kb.search("宿泊費の上限", mode="dense")] == dense_before
    assert kb.search("供应商报价", mode="keyword")[0].chunk.source.endswith("procurement-rules-zh.md")
    assert kb.search("宿泊費の上限", mode="keyword")[0].chunk.source.endswith("travel-expense-policy-ja.md")
    kb.close()
