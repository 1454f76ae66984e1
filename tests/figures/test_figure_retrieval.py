"""Figures as evidence: found by their caption and by the words OCR read in them (en, ja, zh), cited with their
figure id, kept as thumbnails that go with their document."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from bunko import Bunko
from bunko.embed.use_m3 import UseM3Embedder
from bunko.parse.ocr import Tesseract
from bunko.schema import JobStatus, doc_id_for
from bunko.store.figure_files import THUMBNAIL_MAX_SIDE
from figuredocs import FIGURE_TEXTS, figure_docx, figure_pdf

LANGS = ("en", "ja", "zh")
needs_ocr = pytest.mark.skipif(
    not {"eng", "jpn", "chi_sim"} <= set(Tesseract().langs.split("+")),
    reason="tesseract with eng, jpn and chi_sim is not installed (deps/apt.txt)",
)


def figure_sources(lang: str) -> set[str]:
    return {f"report-{lang}.{ext}" for ext in ("pdf", "docx", "pptx")}


@pytest.mark.parametrize("lang", LANGS)
def test_figure_is_found_by_its_caption(figures_kb: Bunko, lang: str) -> None:
    hits = figures_kb.search(FIGURE_TEXTS[lang].caption_question, k=3)
    top = hits[0].chunk
    assert top.source.rsplit("/", 1)[-1] in figure_sources(lang)
    assert top.meta["figures"] == ["fig1"] and FIGURE_TEXTS[lang].caption in top.text


@needs_ocr
@pytest.mark.parametrize("lang", LANGS)
def test_figure_is_found_by_the_words_drawn_in_it(figures_kb: Bunko, lang: str) -> None:
    hits = figures_kb.search(FIGURE_TEXTS[lang].ocr_question, k=3)
    top = hits[0].chunk
    assert top.source.rsplit("/", 1)[-1] in figure_sources(lang)
    assert top.meta["figures"] == ["fig1"]
    assert "".join(FIGURE_TEXTS[lang].drawn.split()).lower() in "".join(top.text.split()).lower()


@pytest.mark.parametrize("lang", LANGS)
def test_an_answer_citing_a_figure_names_it(figures_kb: Bunko, lang: str) -> None:
    answer = figures_kb.ask(FIGURE_TEXTS[lang].caption_question)
    cited = [c for s in answer.sentences for c in s.citations]
    assert any(c.figures == ["fig1"] and c.source.rsplit("/", 1)[-1] in figure_sources(lang) for c in cited), answer.text


def test_every_figure_document_keeps_a_small_png_thumbnail(figures_kb: Bunko) -> None:
    with_figures = [d for d in figures_kb.documents() if d.source.rsplit("/", 1)[-1].startswith("report-")]
    assert len(with_figures) == 9
    for doc in with_figures:
        path = figures_kb.pages.figure_file(doc.doc_id, "fig1")
        assert path is not None, doc.source
        image = Image.open(path)
        assert image.format == "PNG" and max(image.size) <= THUMBNAIL_MAX_SIDE
        assert figures_kb.pages.figure_file(doc.doc_id, "fig2") is None
    assert figures_kb.pages.figure_file(doc.doc_id, "../bunko.toml") is None


def test_thumbnails_follow_the_document_through_reingest_and_delete(tmp_path: Path, embedder: UseM3Embedder) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    pdf, word = figure_pdf(docs / "a.pdf", "ja"), figure_docx(docs / "b.docx", "zh")
    (docs / "a.png").unlink()
    (docs / "b.png").unlink()
    for icon in docs.glob("*-icon.png"):
        icon.unlink()
    with Bunko(tmp_path / ".bunko", embedder=embedder) as kb:
        assert kb.ingest(docs).ok
        folder = kb.path / "figures"
        assert sorted(p.name for p in folder.iterdir()) == sorted([doc_id_for("docs/a.pdf"), doc_id_for("docs/b.docx")])
        assert sorted(p.name for p in (folder / doc_id_for("docs/a.pdf")).iterdir()) == ["fig1.png"]

        figure_pdf(pdf, "en")  # changed: the document is written again, its figure folder replaced, not added to
        (docs / "a.png").unlink()
        (docs / "a-icon.png").unlink()
        report = kb.ingest(docs)
        assert {j.source: j.status for j in report.jobs}["docs/a.pdf"] == JobStatus.READY
        assert sorted(p.name for p in (folder / doc_id_for("docs/a.pdf")).iterdir()) == ["fig1.png"]
        assert not [p for p in folder.iterdir() if p.name.startswith(".")]

        assert kb.delete("docs/b.docx")
        assert not (folder / doc_id_for("docs/b.docx")).exists()

        pdf.unlink()
        assert kb.ingest(docs, prune=True).pruned == ["docs/a.pdf"]
        assert not (folder / doc_id_for("docs/a.pdf")).exists()
    assert word.exists()


def test_thumbnail_is_a_real_picture_of_the_figure(figures_kb: Bunko) -> None:
    doc = next(d for d in figures_kb.documents() if d.source.endswith("report-en.pdf"))
    path = figures_kb.pages.figure_file(doc.doc_id, "fig1")
    assert path is not None
    image = Image.open(io.BytesIO(path.read_bytes())).convert("L")
    low, high = image.getextrema()
    assert low < 80 and high > 200  # dark words on the light picture, not a blank
