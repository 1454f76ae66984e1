"""`fixed`: windows of max_chars with the declared overlap, whatever the script."""

from __future__ import annotations

from itertools import pairwise

import pytest
from chunkdocs import markdown_doc, parse_markdown

from bunko.chunk.fixed import FixedChunker, windows
from bunko.chunk.flat import flatten
from bunko.chunk.sizing import Sizer
from bunko.config import ChunkConfig


def test_windows_step_by_size_minus_overlap() -> None:
    assert list(windows("x" * 130, Sizer(60), 15)) == [(0, 60), (45, 105), (90, 130)]
    assert list(windows("x" * 120, Sizer(60), 0)) == [(0, 60), (60, 120)]


@pytest.mark.parametrize("lang", ["ja", "zh", "en"])
def test_fixed_chunks_cut_every_max_chars_and_repeat_the_overlap(lang: str) -> None:
    doc = parse_markdown(markdown_doc(lang), f"{lang}.md")
    flat = flatten(doc.elements).text
    chunks = FixedChunker().chunk(doc, ChunkConfig(max_chars=60, overlap_chars=15))
    assert chunks[0].text == flat[:60].strip()
    assert all(len(c.text) <= 60 for c in chunks)
    assert chunks[-1].text.endswith(flat[-10:])
    for previous, current in pairwise(chunks):
        overlap = current.meta.get("overlap", 0)
        assert 0 < overlap <= 15
        assert previous.text.endswith(current.text[:overlap])
        assert current.meta["span"][0] == previous.meta["span"][1] - overlap


@pytest.mark.parametrize("lang", ["ja", "zh", "en"])
def test_a_window_across_a_heading_keeps_both_sections_in_its_lineage(lang: str) -> None:
    doc = parse_markdown(markdown_doc(lang), f"{lang}.md")
    second_heading = [e for e in doc.elements if e.kind == "heading"][2]
    chunks = FixedChunker().chunk(doc, ChunkConfig(max_chars=80))
    crossing = next(c for c in chunks if second_heading.element_id in c.element_ids and not c.text.startswith(second_heading.text))
    paths = {tuple(e.section_path) for e in doc.elements if e.element_id in crossing.element_ids}
    assert len(paths) >= 2
    assert crossing.section_path == next(e for e in doc.elements if e.element_id == crossing.element_ids[0]).section_path
