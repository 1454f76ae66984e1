"""Figures: the images a PDF page, a Word body or a slide holds, made retrievable evidence.

A figure is a `FIGURE` element with its page and box; its text is what a question can find it by — the
caption next to it ("Figure 3:", "図3", "图3"), the alt text or shape description the author gave it, and the
text Tesseract reads in it (a chart's labels, a screenshot's words). The parser that meets an image hands it
to one `FigureCollector`, which drops icons and bullets (too small), stops at `ingest.max_figures`, reads the
image once and keeps it as PNG bytes no larger than `IMAGE_MAX_SIDE` in `ParsedDocument.images`, so the
document's memory grows by one small picture per figure, never by a page. The ingest pipeline turns those into
thumbnails in the collection (`store/figure_files.py`) and, when configured, asks a vision model to describe
them (`llm/vision.py`).
"""

from __future__ import annotations

import io
import re
import subprocess
import time
from typing import Any

from PIL import Image, ImageFilter, ImageOps, UnidentifiedImageError

from bunko.errors import DocumentError
from bunko.parse.limits import current as current_limits
from bunko.parse.ocr import Tesseract
from bunko.parse.pdf_layout import is_caption
from bunko.schema import Element, ElementKind
from bunko.text.lazy_regex import lazy_compile
from bunko.text.lexicon import en, for_language, ja, zh

MIN_SIDE_PX = 32
"""An image narrower or lower than this (in its own pixels) is an icon, a bullet or a rule: not a figure."""
MIN_AREA_PX = 64 * 64
MIN_SIDE_PT = 24.0
"""The same for the size an image is shown at on a page or slide, in points."""
IMAGE_MAX_SIDE = 1024
"""Longest side of the image kept for OCR and a vision model."""
OCR_MIN_CONFIDENCE = 55.0
"""Tesseract's mean word confidence below which a line read in a figure is noise (a photo's texture, not text)."""
OCR_BUDGET_SHARE = 0.4
"""Share of `ingest.max_parse_seconds` figure OCR may take; figures past it keep caption and alt text (counted)."""
TEXT_EDGE_SHARE = 0.02
"""Share of edge pixels (of the image at 400 px wide) below which it is a flat diagram or colour field: no text to OCR."""
_TABLE_CAPTION = lazy_compile(rf"\s*({en.TABLE_CAPTION}|{zh.TABLE_CAPTION})", re.IGNORECASE)
FIGURE_ID_KEY = "figure_id"
"""`Element.meta` and `Chunk.meta["figures"]`: the figure's id within its document ("fig1", "fig2", …)."""


def is_figure_caption(text: str) -> bool:
    """A caption that names a figure, not a table ("図表" is both, and counts as a figure's)."""
    return is_caption(text) and (not _TABLE_CAPTION.match(text) or text.lstrip().startswith(ja.FIGURE_AND_TABLE))


def large_enough(width_px: int, height_px: int) -> bool:
    return width_px >= MIN_SIDE_PX and height_px >= MIN_SIDE_PX and width_px * height_px >= MIN_AREA_PX


def shown_large_enough(bbox: tuple[float, float, float, float] | None) -> bool:
    """Whether an image shown in this box (points) is more than an icon; no box: its pixels decide."""
    return bbox is None or (bbox[2] - bbox[0] >= MIN_SIDE_PT and bbox[3] - bbox[1] >= MIN_SIDE_PT)


def open_image(blob: bytes) -> Image.Image | None:
    """An embedded picture's bytes as an RGB image; None for what Pillow cannot read (EMF, WMF, SVG, damage)."""
    try:
        image = Image.open(io.BytesIO(blob))
        image.load()
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError):
        return None
    pixels = image.size[0] * image.size[1]
    if pixels > current_limits().max_page_pixels:
        return None
    return flatten(image)


def flatten(image: Image.Image) -> Image.Image:
    """RGB on white: a transparent PNG's text would otherwise be black on black for OCR and a thumbnail."""
    image = ImageOps.exif_transpose(image) or image
    if image.mode in ("RGBA", "LA", "P", "PA"):
        rgba = image.convert("RGBA")
        background = Image.new("RGB", rgba.size, "white")
        background.paste(rgba, mask=rgba.getchannel("A"))
        return background
    return image.convert("RGB")


def png_bytes(image: Image.Image, max_side: int) -> bytes:
    """The image as PNG, shrunk (never enlarged) so its longest side is at most `max_side`."""
    copy = image.copy()
    copy.thumbnail((max_side, max_side), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    copy.save(out, format="PNG", optimize=True)
    return out.getvalue()


def may_hold_text(image: Image.Image) -> bool:
    """A cheap look before Tesseract's second per figure: glyphs make many sharp edges, a flat diagram few."""
    small = image.convert("L")
    small.thumbnail((400, 400))
    edges = small.filter(ImageFilter.FIND_EDGES)
    histogram = edges.histogram()
    strong = sum(histogram[64:])
    return strong >= TEXT_EDGE_SHARE * small.size[0] * small.size[1]


def compose_text(meta: dict[str, Any]) -> str:
    """What a figure is found by: caption, alt text, OCR text and a vision description, each once."""
    parts: list[str] = []
    for key in ("caption", "alt", "ocr_text", "description"):
        value = str(meta.get(key) or "").strip()
        if value and not any(value in part for part in parts):
            parts.append(value)
    return "\n".join(parts)


class FigureCollector:
    """The figures of one document being parsed: admits, numbers, reads and keeps them (see the module doc)."""

    def __init__(self, ocr: Tesseract | None) -> None:
        self.ocr = ocr
        self.images: dict[str, bytes] = {}
        self.count = 0
        self.skipped: dict[str, int] = {}
        self.limit = current_limits().max_figures

    def admits(self, width_px: int, height_px: int, bbox: tuple[float, float, float, float] | None = None) -> bool:
        """Whether an image of this size becomes a figure; counts the reason of each refusal."""
        if not large_enough(width_px, height_px) or not shown_large_enough(bbox):
            self.skipped["small"] = self.skipped.get("small", 0) + 1
            return False
        if self.count >= self.limit:
            self.skipped["over_limit"] = self.skipped.get("over_limit", 0) + 1
            return False
        return True

    def add(self, element: Element, image: Image.Image) -> None:
        """Number the figure and keep its picture; it is read (OCR) and its text composed in `finish`, once the
        document's language is known."""
        self.count += 1
        figure_id = f"fig{self.count}"
        element.meta[FIGURE_ID_KEY] = figure_id
        element.meta["image_size"] = [image.size[0], image.size[1]]
        self.images[figure_id] = png_bytes(image, IMAGE_MAX_SIDE)

    def _read_all(self, elements: list[Element], meta: dict[str, Any]) -> None:
        """OCR each figure that may hold text, with the document's languages, within the time budget."""
        if self.ocr is None or not self.ocr.available or not self.images:
            return
        engine = self.ocr.restricted_to(for_language(_language(elements)).OCR_MODELS)
        deadline = time.monotonic() + OCR_BUDGET_SHARE * current_limits().max_parse_seconds
        unread = failed = 0
        for element in elements:
            png = self.images.get(str(element.meta.get(FIGURE_ID_KEY))) if element.kind == ElementKind.FIGURE else None
            if png is None:
                continue
            if time.monotonic() > deadline:
                unread += 1
                continue
            with Image.open(io.BytesIO(png)) as picture:
                text = self._read(picture.convert("RGB"), engine)
            if text is None:
                failed += 1
            elif text:
                element.meta["ocr_text"] = text
        meta["figure_ocr"] = {"langs": engine.langs, **({"over_budget": unread} if unread else {}), **({"failed": failed} if failed else {})}

    @staticmethod
    def _read(image: Image.Image, engine: Tesseract) -> str | None:
        """The lines read with confidence; None when Tesseract failed (the figure keeps its caption, the run goes on)."""
        if not may_hold_text(image):
            return ""
        scale = 1.0
        if max(image.size) < 600:  # Tesseract reads glyphs about 20-30 px high; small figures are enlarged first
            scale = min(3.0, 600 / max(image.size))
            image = image.resize((round(image.size[0] * scale), round(image.size[1] * scale)), Image.Resampling.LANCZOS)
        try:
            lines = engine.recognize(image, scale=scale)
        except (DocumentError, OSError, subprocess.SubprocessError):
            return None
        kept = [line.text for line in lines if line.confidence >= OCR_MIN_CONFIDENCE and len(line.text.strip()) > 1]
        return "\n".join(kept)

    def finish(self, elements: list[Element], meta: dict[str, Any]) -> list[Element]:
        """Link captions, read the figures, compose each one's text, and drop the caption elements a figure now carries."""
        link_captions(elements)
        self._read_all(elements, meta)
        figures = {e.element_id for e in elements if e.kind == ElementKind.FIGURE and FIGURE_ID_KEY in e.meta}
        for element in elements:
            if element.element_id in figures:
                element.text = compose_text(element.meta)
        absorbed = {e.element_id for e in elements if e.kind == ElementKind.CAPTION and e.parent_id in figures}
        if self.count or self.skipped:
            meta["figures"] = {"kept": self.count, **({"skipped": dict(self.skipped)} if self.skipped else {})}
        return [e for e in elements if e.element_id not in absorbed]


def _language(elements: list[Element]) -> str:
    """The document's language (figures aside), by the one rule every stage uses (`text.languages.text_language`).

    Imported here, not at the top: it brings numpy and scipy into the parser process, worth it only when figures
    are about to be read, which costs seconds each anyway."""
    from bunko.text.languages import text_language

    return text_language("\n".join(e.text for e in elements[:400] if e.kind != ElementKind.FIGURE)[:20_000])


def link_captions(elements: list[Element]) -> None:
    """A caption names the figure or table next to it (before or after): link them both ways.

    The caption's text goes to its owner's ``meta["caption"]`` and the caption element's ``parent_id`` to the
    owner, so the chunkers keep them together and a figure is found by its caption.
    """
    for i, element in enumerate(elements):
        if element.kind != ElementKind.CAPTION or not is_caption(element.text) or element.parent_id is not None:
            continue
        wants = ElementKind.FIGURE if is_figure_caption(element.text) else ElementKind.TABLE
        neighbours = [elements[j] for j in (i - 1, i + 1) if 0 <= j < len(elements)]
        preferred = [n for n in neighbours if n.kind == wants]
        others = [n for n in neighbours if n.kind in (ElementKind.TABLE, ElementKind.FIGURE)]
        for owner in preferred + others:
            if "caption" not in owner.meta:
                owner.meta["caption"] = element.text
                element.parent_id = owner.element_id
                break
