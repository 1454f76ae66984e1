"""Figures and page images in headless Chromium: an answer's citation shows its figure inline, and opening the
citation shows the cited PDF page with the region highlighted.

Uses Debian's /usr/bin/chromium through Playwright, as test_browser.py does; skipped when that browser is absent.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from server_harness import CHROMIUM, Live, sign_in

from bunko.parse.page_render import HIGHLIGHT_EDGE, PAGE_DPI
from figuredocs import FIGURE_TEXTS, PDF_FIGURE_BOX, figure_pdf
from system_packages import missing

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason=missing("Chromium (the chromium package)"))


@pytest.fixture
def live(reader_live: Callable[..., Live], tmp_path: Path, samples_dir: Path) -> Live:
    docs = tmp_path / "docs"
    docs.mkdir()
    return reader_live("figs", [figure_pdf(docs / "storage-ja.pdf", "ja"), samples_dir / "it-security-rules-ja.md"])


def test_a_cited_figure_is_shown_inline_and_its_page_opens_highlighted(live: Live, page) -> None:
    from playwright.sync_api import expect

    sign_in(page, live)

    question = page.get_by_label("Question (日本語・中文・English)")
    question.fill(FIGURE_TEXTS["ja"].caption_question)
    question.press("Enter")
    figure = page.locator("#citations li figure.cite-figure").first
    expect(figure).to_be_visible(timeout=60_000)
    image = figure.locator("img")
    expect(image).to_have_attribute("alt", "Figure fig1 of docs/storage-ja.pdf")
    page.wait_for_function("(img) => img.complete && img.naturalWidth > 0", arg=image.element_handle())
    assert image.evaluate("(img) => [img.naturalWidth, img.naturalHeight]") == [320, 120]
    expect(figure.locator("figcaption")).to_have_text("docs/storage-ja.pdf · p.1 · fig1")

    page.locator("#citations li", has=page.locator("figure.cite-figure")).first.locator("button.source").click()
    view = page.locator("#page-view")
    expect(view).to_be_visible()
    expect(page.locator("#page-caption")).to_have_text("docs/storage-ja.pdf · p.1 · cited region highlighted")
    shown = page.locator("#page-image")
    expect(shown).to_have_attribute("alt", "Page 1 of docs/storage-ja.pdf, the cited region highlighted")
    page.wait_for_function("(img) => img.complete && img.naturalWidth > 0", arg=shown.element_handle())
    scale = PAGE_DPI / 72
    x0, top, _, bottom = PDF_FIGURE_BOX
    edge = shown.evaluate(
        """(img, [x, y]) => { const c = document.createElement("canvas"); c.width = img.naturalWidth; c.height = img.naturalHeight;
             const g = c.getContext("2d"); g.drawImage(img, 0, 0); return Array.from(g.getImageData(x, y, 1, 1).data).slice(0, 3); }""",
        [round((x0 - 2.3) * scale), round((top + bottom) / 2 * scale)],
    )
    assert all(abs(a - b) < 40 for a, b in zip(edge, HIGHLIGHT_EDGE[:3], strict=True)), edge
