"""`page`: one chunk per page (slides, scans), cut only where the embedder could not read a page whole."""

from __future__ import annotations

from pathlib import Path

import pytest
from chunkdocs import SENTENCES, HashEmbedder, document, joined, parse_markdown
from pptx import Presentation

from bunko.chunk.page import PageChunker
from bunko.chunk.templates import detect_kind
from bunko.config import ChunkConfig
from bunko.parse.pptx import MIME, PptxParser

SLIDES = {
    "ja": [("出張規程の概要", ["申請は一週間前まで", "宿泊費は一泊一万二千円まで"], "上限は東京二十三区の場合です。"),
           ("精算の流れ", ["領収書を添付", "十日以内に提出"], "")],
    "zh": [("休假制度概要", ["年假每年十五天", "婚假三天"], "婚假须在一年内休完。"),
           ("请假流程", ["提前三个工作日申请", "部门负责人审批"], "")],
    "en": [("Travel policy overview", ["File requests a week ahead", "Hotels up to 120 dollars"], "The limit applies to capitals."),
           ("Claims", ["Attach receipts", "Submit within ten days"], "")],
}


def _pptx(path: Path, lang: str) -> Path:
    deck = Presentation()
    for title, bullets, notes in SLIDES[lang]:
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = title
        body = slide.placeholders[1].text_frame
        body.text = bullets[0]
        for line in bullets[1:]:
            body.add_paragraph().text = line
        if notes:
            slide.notes_slide.notes_text_frame.text = notes
    deck.save(str(path))
    return path


@pytest.mark.parametrize("lang", ["ja", "zh", "en"])
def test_one_chunk_per_slide_with_title_bullets_and_notes(lang: str, tmp_path: Path) -> None:
    path = _pptx(tmp_path / f"deck-{lang}.pptx", lang)
    doc = PptxParser().parse(path, path.name, MIME)
    doc.doc_id = "deck"
    assert detect_kind(doc, ChunkConfig()) == "slides"
    chunks = PageChunker().chunk(doc, ChunkConfig(max_chars=30))  # max_chars does not cut pages
    assert [c.pages for c in chunks] == [[1], [2]]
    for chunk, (title, bullets, notes) in zip(chunks, SLIDES[lang], strict=True):
        assert chunk.text.startswith(title + "\n\n")
        assert all(b in chunk.text for b in bullets)
        assert notes in chunk.text
        assert chunk.section_path == [title]
        assert not chunk.embed_text.startswith(title + "\n" + title)  # the title is not embedded twice


@pytest.mark.parametrize("lang", ["ja", "zh", "en"])
def test_a_page_longer_than_the_embedder_reads_is_cut(lang: str) -> None:
    long = joined(lang, SENTENCES[lang] * 6)
    doc = document(f"{lang}.pdf", [
        ("paragraph", SENTENCES[lang][0], {"page": 1}),
        ("paragraph", long, {"page": 2}),
        ("paragraph", long, {"page": 2}),
        ("paragraph", SENTENCES[lang][1], {"page": 3}),
    ], mime="application/pdf")
    chunks = PageChunker().chunk(doc, ChunkConfig(), HashEmbedder(max_input_chars=200 + len(long) + 10))
    assert [c.pages for c in chunks] == [[1], [2], [2], [3]]
    assert [c.meta.get("page_split") for c in chunks] == [None, 2, 2, None]
    whole = PageChunker().chunk(doc, ChunkConfig(), HashEmbedder())
    assert [c.pages for c in whole] == [[1], [2], [3]]


def test_elements_without_a_page_join_the_page_before() -> None:
    doc = document("x.pdf", [("paragraph", "a", {"page": 1}), ("paragraph", "b", {}), ("paragraph", "c", {"page": 2})])
    assert [c.text for c in PageChunker().chunk(doc, ChunkConfig())] == ["a\n\nb", "c"]


def test_a_document_without_pages_is_chunked_by_structure() -> None:
    doc = parse_markdown("# A\n\nOne.\n\n# B\n\nTwo.\n", "n.md")
    assert [c.text for c in PageChunker().chunk(doc, ChunkConfig())] == ["One.", "Two."]


def test_an_element_placed_among_a_later_pages_joins_its_own_page() -> None:
    """A PDF footnote moved to the end of its section, past a page break, is read with the page that printed it."""
    doc = document("x.pdf", [("paragraph", "a", {"page": 1}), ("paragraph", "b", {"page": 2}), ("footnote", "[1] n", {"page": 1}),
                             ("paragraph", "c", {"page": 2})])
    assert [(c.text, c.pages) for c in PageChunker().chunk(doc, ChunkConfig())] == [("a\n\n[1] n", [1]), ("b\n\nc", [2])]
