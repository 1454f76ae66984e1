"""A PDF page as a picture, with regions drawn on it: what `bunko show --page` and the web page's citation view show.

The boxes are those the PDF parser stored for each element (points from the page's top-left corner, as
pdfplumber gives them), so a cited chunk is highlighted where its elements were read. Only the one page is
rendered, and the document is closed before the picture is returned.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Sequence
from pathlib import Path

import pypdfium2 as pdfium
from PIL import Image, ImageDraw

from bunko.errors import DocumentError
from bunko.parse.base import BBox
from bunko.parse.limits import current as current_limits
from bunko.schema import ErrorCode

_PDFIUM = threading.Lock()
"""PDFium is not thread-safe and the server renders pages from its worker threads: one render at a time."""
PAGE_DPI = 110
HIGHLIGHT_FILL = (255, 214, 0, 90)
"""Translucent yellow over the cited region: the text stays readable under it."""
HIGHLIGHT_EDGE = (230, 81, 0, 255)
"""An orange frame around it, found even on a yellow page."""


def render_page(path: Path, source: str, page: int, boxes: Sequence[BBox] = (), dpi: float = PAGE_DPI) -> Image.Image:
    """Page `page` (1-based) of the PDF at `path`, with each box in `boxes` highlighted."""
    with _PDFIUM:
        image, scale = _render(path, source, page, dpi)
    return highlight(image, boxes, scale) if boxes else image


def _render(path: Path, source: str, page: int, dpi: float) -> tuple[Image.Image, float]:
    document = _open(path, source)
    try:
        if not 1 <= page <= len(document):
            raise DocumentError(ErrorCode.NOT_FOUND, f"{source}: no page {page} (the PDF has {len(document)} page{'s' if len(document) != 1 else ''})")
        pdf_page = document[page - 1]
        try:
            width, height = pdf_page.get_size()
            scale = dpi / 72.0
            cap = current_limits().max_page_pixels
            if width * height * scale * scale > cap:
                scale = (cap / (width * height)) ** 0.5
            bitmap = pdf_page.render(scale=scale)
            image = bitmap.to_pil().convert("RGB")
            bitmap.close()
        finally:
            pdf_page.close()
    finally:
        document.close()
    return image, scale


def highlight(image: Image.Image, boxes: Sequence[BBox], scale: float) -> Image.Image:
    """`image` with each box (in points; `scale` pixels per point) filled translucent and framed."""
    overlay = Image.new("RGBA", image.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(overlay)
    pad = 2.0
    for x0, top, x1, bottom in boxes:
        rect = ((x0 - pad) * scale, (top - pad) * scale, (x1 + pad) * scale, (bottom + pad) * scale)
        draw.rectangle(rect, fill=HIGHLIGHT_FILL, outline=HIGHLIGHT_EDGE, width=max(2, round(scale * 1.5)))
    return Image.alpha_composite(image.convert("RGBA"), overlay).convert("RGB")


def png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def _open(path: Path, source: str) -> pdfium.PdfDocument:
    if not path.is_file():
        raise DocumentError(ErrorCode.NOT_FOUND, f"{source}: the file is gone ({path}); its pages cannot be shown")
    try:
        return pdfium.PdfDocument(path)
    except pdfium.PdfiumError as exc:
        raise DocumentError(ErrorCode.PARSE_FAILED, f"{source}: not a readable PDF ({exc})") from None
