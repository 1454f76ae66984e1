"""`semantic`: a new chunk where the meaning changes, measured with the embedder."""

from __future__ import annotations

import numpy as np
import pytest
from chunkdocs import HashEmbedder, parse_markdown

from bunko.chunk.semantic import SemanticChunker, breakpoints, gap_distances
from bunko.config import ChunkConfig

TOPICS = {
    "en": (
        ["Cats sleep for most of the day.", "A cat grooms its fur with its rough tongue.",
         "Kittens learn to hunt by playing with their siblings.", "Most cats dislike getting wet."],
        ["The corporate income tax rate is set by parliament every year.",
         "Companies file their tax return within two months of the fiscal year end.",
         "Late filing of a tax return is charged a penalty.", "Tax deductions require receipts kept for seven years."],
    ),
    "ja": (
        ["猫は一日の大半を寝て過ごします。", "猫はざらざらした舌で毛づくろいをします。", "子猫は兄弟と遊びながら狩りを覚えます。", "ほとんどの猫は濡れるのを嫌います。"],
        ["法人税の税率は毎年国会で決められます。", "会社は事業年度終了後二か月以内に確定申告をします。", "申告が遅れると延滞税が課されます。", "控除を受けるには領収書を七年間保存する必要があります。"],
    ),
    "zh": (
        ["猫一天中大部分时间都在睡觉。", "猫用粗糙的舌头梳理毛发。", "小猫通过和兄弟姐妹玩耍学会捕猎。", "大多数猫不喜欢被弄湿。"],
        ["企业所得税税率每年由议会确定。", "公司须在会计年度结束后两个月内提交纳税申报表。", "逾期申报将被处以罚款。", "申请税收扣除需要保留收据七年。"],
    ),
}


@pytest.mark.parametrize("lang", ["ja", "zh", "en"])
def test_splits_where_the_topic_changes(lang: str, embedder) -> None:
    cats, taxes = TOPICS[lang]
    glue = " " if lang == "en" else ""
    doc = parse_markdown(f"# Notes\n\n{glue.join(cats + taxes)}\n", f"{lang}.md")
    chunks = SemanticChunker().chunk(doc, ChunkConfig(max_chars=2000, semantic_percentile=95), embedder)
    assert [c.text for c in chunks] == [glue.join(cats), glue.join(taxes)]
    assert all(c.section_path == ["Notes"] for c in chunks)


def test_sections_and_the_budget_bound_chunks() -> None:
    body = " ".join(TOPICS["en"][0])
    doc = parse_markdown(f"# A\n\n{body}\n\n# B\n\n{body}\n", "s.md")
    chunks = SemanticChunker().chunk(doc, ChunkConfig(max_chars=80, semantic_percentile=99), HashEmbedder())
    assert {tuple(c.section_path) for c in chunks} == {("A",), ("B",)}
    assert all(len(c.element_ids) == 1 for c in chunks)
    assert all(len(c.text) <= 80 for c in chunks)


def test_gap_distance_compares_the_text_before_and_after_a_gap() -> None:
    a, b = np.eye(2, dtype=np.float32)
    vectors = np.stack([a, a, b, b])
    distances = gap_distances(vectors, np.zeros(4, dtype=int))
    assert distances.tolist() == pytest.approx([1 - 1 / 2**0.5, 1.0, 1 - 1 / 2**0.5])  # (a | a+b), (a+a | b+b), (a+b | b)
    cuts = breakpoints(distances, np.array([True, True, True]), 50)
    assert cuts.tolist() == [False, True, False]


def test_needs_an_embedder() -> None:
    doc = parse_markdown("# A\n\nText.\n", "s.md")
    with pytest.raises(ValueError, match="embedder"):
        SemanticChunker().chunk(doc, ChunkConfig())
