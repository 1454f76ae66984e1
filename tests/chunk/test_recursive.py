"""`recursive`: the coarsest separator that fits, CJK sentence ends and clause marks included."""

from __future__ import annotations

from chunkdocs import EN_SENTENCES, JA_SENTENCES, ZH_SENTENCES, document

from bunko.chunk.recursive import RecursiveChunker
from bunko.config import ChunkConfig


def _texts(text: str, **config: int) -> list:
    doc = document("r.md", [("paragraph", text, {})])
    return RecursiveChunker().chunk(doc, ChunkConfig(**config))


def test_japanese_splits_after_the_full_stop() -> None:
    s = JA_SENTENCES
    chunks = _texts("".join(s), max_chars=40)
    assert [c.text for c in chunks] == [s[0] + s[1], s[2] + s[3]]


def test_chinese_without_full_stops_splits_after_commas() -> None:
    text = "婚假为三天，须在领取结婚证后一年内一次性休完，逾期作废且不予补休，特殊情况须经人事部门与部门负责人共同批准"
    chunks = _texts(text, max_chars=24)
    assert "".join(c.text for c in chunks) == text
    assert all(c.text.endswith("，") for c in chunks[:-1])
    assert all(len(c.text) <= 24 for c in chunks)
    assert len(chunks) >= 3
    assert not any(c.text.startswith("，") for c in chunks)


def test_chinese_sentences_are_packed_whole() -> None:
    s = ZH_SENTENCES
    chunks = _texts("".join(s), max_chars=20)
    assert [c.text for c in chunks] == [s[0] + s[1], s[2], s[3]]


def test_english_splits_at_sentence_ends_and_overlaps_by_whole_sentences() -> None:
    s = EN_SENTENCES
    chunks = _texts(" ".join(s), max_chars=110, overlap_chars=60)
    assert [c.text for c in chunks] == [f"{s[0]} {s[1]}", f"{s[1]} {s[2]}", f"{s[2]} {s[3]}"]
    assert [c.meta.get("overlap", 0) for c in chunks] == [0, len(s[1]), len(s[2])]


def test_paragraphs_are_preferred_to_sentences() -> None:
    doc = document("r.md", [("paragraph", JA_SENTENCES[0], {}), ("paragraph", JA_SENTENCES[1] + JA_SENTENCES[2], {})])
    chunks = RecursiveChunker().chunk(doc, ChunkConfig(max_chars=40))
    assert [c.text for c in chunks] == [JA_SENTENCES[0], JA_SENTENCES[1] + JA_SENTENCES[2]]
    assert [len(c.element_ids) for c in chunks] == [1, 1]
