"""Sizes in characters and embedder tokens; chunks the embedder would cut are flagged, counted and logged."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from chunkdocs import SENTENCES, document, joined

from bunko import Config
from bunko.chunk.registry import get_chunker
from bunko.chunk.sizing import Sizer, input_limit, mark_truncated, sizer_for
from bunko.config import ChunkConfig


@pytest.mark.parametrize("strategy", ["fixed", "recursive", "heading", "structure", "qa_pairs", "semantic"])
def test_chunks_fit_the_token_budget_of_the_embedder(strategy: str, embedder) -> None:
    text = "\n\n".join(joined(lang, SENTENCES[lang] * 3) for lang in ("ja", "zh", "en"))
    doc = document("t.md", [("heading", "Tokens", {}), ("paragraph", text, {})])
    chunks = get_chunker(strategy).chunk(doc, ChunkConfig(max_chars=2000, max_tokens=40), embedder)
    assert len(chunks) > 3
    assert all(embedder.count_tokens(c.text) <= 40 for c in chunks)


def test_token_budget_needs_an_embedder_that_counts() -> None:
    with pytest.raises(ValueError, match="max_tokens"):
        sizer_for(ChunkConfig(max_tokens=64), None)


def test_prefix_end_is_the_longest_fitting_prefix() -> None:
    sizer = Sizer(100, 3, lambda t: len(t.split()))
    assert sizer.prefix_end("one two three four five") == len("one two three ")
    assert Sizer(5).prefix_end("abcdefgh", 2) == 7


def test_use_reads_2000_characters(embedder) -> None:
    limit = input_limit(embedder)
    assert limit is not None and limit.fits("x" * 2000) and not limit.fits("x" * 2001)


def test_chunks_longer_than_the_embedder_reads_are_flagged_and_counted(embedder, caplog: pytest.LogCaptureFixture) -> None:
    code = "```\n" + "print('x')\n" * 300 + "```"
    doc = document("big.md", [("paragraph", "Intro.", {}), ("code", code, {})])
    chunks = get_chunker("structure").chunk(doc, ChunkConfig(), embedder)
    with caplog.at_level(logging.WARNING, logger="bunko.chunk"):
        assert mark_truncated(chunks, embedder) == 1
    assert [bool(c.meta.get("truncated")) for c in chunks] == [False, True]
    assert "big.md#1" in caplog.text


def test_ingest_records_truncated_chunks_on_the_document(make_kb, tmp_path: Path) -> None:
    kb = make_kb(config=Config.from_dict({"chunk": {"strategy": "structure"}}))
    (tmp_path / "big.md").write_text("# Big\n\n```\n" + "print('x')\n" * 300 + "```\n", encoding="utf-8")
    assert kb.ingest(tmp_path / "big.md").ok
    (info,) = kb.documents()
    assert info.meta["truncated_chunks"] == 1
    assert kb.chunks()[0].meta["truncated"] is True
