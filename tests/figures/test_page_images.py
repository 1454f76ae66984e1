"""Page images: a PDF page rendered with a cited chunk's regions highlighted (`Pages.page_image`, `bunko show`)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from PIL import Image
from typer.testing import CliRunner

from bunko import Bunko
from bunko.cli import app
from bunko.errors import DocumentError
from bunko.parse.page_render import HIGHLIGHT_EDGE
from bunko.schema import ErrorCode
from figuredocs import PDF_FIGURE_BOX

SCALE = 110 / 72


def figure_chunk(kb: Bunko, name: str) -> str:
    return next(c.chunk_id for c in kb.chunks() if c.source.endswith(name) and c.meta.get("figures") == ["fig1"])


def pixel(image: Image.Image, x_pt: float, y_pt: float) -> tuple[int, int, int]:
    return image.convert("RGB").getpixel((round(x_pt * SCALE), round(y_pt * SCALE)))  # type: ignore[return-value]


def assert_highlighted_figure(image: Image.Image) -> None:
    x0, top, x1, bottom = PDF_FIGURE_BOX
    assert abs(image.size[0] - 595.28 * SCALE) < 2 and abs(image.size[1] - 841.89 * SCALE) < 2  # A4 at 110 dpi
    edge = pixel(image, x0 - 2.3, (top + bottom) / 2)  # the frame, 2 pt outside the figure's box
    assert all(abs(a - b) < 40 for a, b in zip(edge, HIGHLIGHT_EDGE[:3], strict=True)), edge
    red, green, blue = pixel(image, x0 + 6, top + 6)  # the picture's pale blue, tinted yellow
    assert red > 200 and green > 200 and blue < 200
    assert pixel(image, 20, 20) == (255, 255, 255)  # the margin is untouched
    assert pixel(image, x1 + 40, (top + bottom) / 2) == (255, 255, 255)


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_page_image_highlights_the_cited_figure(figures_kb: Bunko, lang: str) -> None:
    source = next(d.source for d in figures_kb.documents() if d.source.endswith(f"report-{lang}.pdf"))
    png, page, boxes = figures_kb.pages.page_image(source, highlight=figure_chunk(figures_kb, f"report-{lang}.pdf"))
    assert page == 1 and boxes >= 1  # the figure, and the paragraph when the chunk holds it too
    assert_highlighted_figure(Image.open(io.BytesIO(png)))


def test_page_image_without_highlight_has_no_frame(figures_kb: Bunko) -> None:
    source = next(d.source for d in figures_kb.documents() if d.source.endswith("report-en.pdf"))
    png, page, boxes = figures_kb.pages.page_image(source, 2)
    image = Image.open(io.BytesIO(png)).convert("RGB")
    assert (page, boxes) == (2, 0)
    assert HIGHLIGHT_EDGE[:3] not in {color for _, color in image.getcolors(1 << 20) or []}


def test_page_image_refuses_what_it_cannot_show(figures_kb: Bunko) -> None:
    pdf = next(d.source for d in figures_kb.documents() if d.source.endswith("report-en.pdf"))
    word = next(d.source for d in figures_kb.documents() if d.source.endswith("report-en.docx"))
    with pytest.raises(DocumentError) as caught:
        figures_kb.pages.page_image(pdf, 3)
    assert caught.value.code == ErrorCode.NOT_FOUND and "no page 3 (the PDF has 2 pages)" in caught.value.detail
    with pytest.raises(DocumentError) as caught:
        figures_kb.pages.page_image(word, 1)
    assert caught.value.code == ErrorCode.UNSUPPORTED_FORMAT and word in caught.value.detail
    with pytest.raises(DocumentError, match="no such document"):
        figures_kb.pages.page_image("nowhere.pdf", 1)


def test_bunko_show_writes_the_page_with_the_chunk_highlighted(figures_kb: Bunko, tmp_path: Path) -> None:
    source = next(d.source for d in figures_kb.documents() if d.source.endswith("report-ja.pdf"))
    chunk_id = figure_chunk(figures_kb, "report-ja.pdf")
    out = tmp_path / "page.png"
    result = CliRunner().invoke(app, ["show", source, "--page", "1", "--highlight", chunk_id, "--out", str(out),
                                      "-c", str(figures_kb.path), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {"source": source, "page": 1, "highlight": chunk_id, "regions": len(figures_kb.pages.highlight_boxes(source, chunk_id, 1)), "out": str(out)}
    assert_highlighted_figure(Image.open(out))

    missing = CliRunner().invoke(app, ["show", source, "--page", "9", "-c", str(figures_kb.path)])
    assert missing.exit_code == 2 and "no page 9" in missing.output
