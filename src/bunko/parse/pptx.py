"""PowerPoint (.pptx) through python-pptx: one slide, one section; page = slide number.

The slide title becomes a level-1 heading, so everything on the slide carries
it in section_path. Shapes are read top-to-bottom, left-to-right (the order
a viewer scans a slide, not the z-order in the file), group shapes are opened,
tables keep their cells, and the speaker notes follow the slide as a "note"
element, because presenters often put the real explanation there.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from typing import Any

from lxml import etree
from pptx import Presentation
from pptx.enum.shapes import MSO_SHAPE_TYPE, PP_PLACEHOLDER
from pptx.exc import PackageNotFoundError

from bunko.parse.base import ElementBuilder, dist_version
from bunko.parse.figures import FigureCollector, is_figure_caption, open_image
from bunko.parse.limits import unreadable_package
from bunko.parse.ocr import Tesseract
from bunko.parse.tables import table_markdown, table_meta
from bunko.schema import ElementKind, ParsedDocument
from bunko.text.lazy_regex import lazy_compile
from bunko.text.lexicon import en, ja, zh

MIME = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
_EMU_PER_POINT = 12700
_TITLES = (PP_PLACEHOLDER.TITLE, PP_PLACEHOLDER.CENTER_TITLE, PP_PLACEHOLDER.VERTICAL_TITLE)
_DEFAULT_NAME = lazy_compile(
    rf"^(?:{en.DEFAULT_PICTURE_NAMES}|{ja.DEFAULT_PICTURE_NAMES}|{zh.DEFAULT_PICTURE_NAMES})\s*\d*$", re.IGNORECASE
)
"""A shape name PowerPoint made up ("Picture 3"): says nothing about the picture."""
_FILE_NAME = lazy_compile(r"^[^\s/\\]+\.(?:png|jpe?g|gif|bmp|tiff?|webp|emf|wmf|svg)$", re.IGNORECASE)
_BODIES = (PP_PLACEHOLDER.BODY, PP_PLACEHOLDER.OBJECT, PP_PLACEHOLDER.VERTICAL_BODY, PP_PLACEHOLDER.SUBTITLE)


def _bbox(shape: Any) -> tuple[float, float, float, float] | None:
    if shape.left is None or shape.top is None or shape.width is None or shape.height is None:
        return None
    x0, top = shape.left / _EMU_PER_POINT, shape.top / _EMU_PER_POINT
    return (round(x0, 2), round(top, 2), round(x0 + shape.width / _EMU_PER_POINT, 2), round(top + shape.height / _EMU_PER_POINT, 2))


def _placeholder_type(shape: Any) -> Any:
    try:
        return shape.placeholder_format.type if shape.is_placeholder else None
    except ValueError:
        return None


def _flatten(shapes: Any) -> list[Any]:
    """Shapes inside groups, each in its own right; ordered as a viewer scans the slide."""
    out = []
    for shape in shapes:
        if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
            out.extend(_flatten(shape.shapes))
        else:
            out.append(shape)
    return sorted(out, key=lambda s: ((s.top or 0) // 12700 // 6, s.left or 0))


class PptxParser:
    name = "pptx"
    mimes = (MIME,)

    def __init__(self, ocr: Tesseract | None = None) -> None:
        self.ocr = ocr
        self.version = f"python-pptx-{dist_version('python-pptx')}"

    def parse(self, path: Path, source: str, mime: str) -> ParsedDocument:
        try:
            presentation = Presentation(str(path))
        except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError, etree.XMLSyntaxError) as exc:
            raise unreadable_package(source, "PowerPoint file", exc) from None
        builder = ElementBuilder(source)
        figures = FigureCollector(self.ocr)
        slides = 0
        for number, slide in enumerate(presentation.slides, start=1):
            slides = number
            self._slide(slide, number, builder, figures)
        meta: dict[str, Any] = {"slides": slides}
        elements = figures.finish(builder.elements, meta)
        title = (presentation.core_properties.title or "").strip()
        first = next((e.text for e in builder.elements if e.kind == ElementKind.HEADING), None)
        return ParsedDocument(
            doc_id="", source=source, title=title or first or Path(source).stem, mime=MIME,
            parser=f"{self.name}/{self.version}", elements=elements, meta=meta, images=figures.images,
        )

    def _slide(self, slide: Any, number: int, builder: ElementBuilder, figures: FigureCollector) -> None:
        shapes = _flatten(slide.shapes)
        title_shape = next((s for s in shapes if _placeholder_type(s) in _TITLES and s.has_text_frame and s.text_frame.text.strip()), None)
        title = " ".join(title_shape.text_frame.text.split()) if title_shape is not None else f"Slide {number}"
        builder.heading(1, title, page=number, bbox=_bbox(title_shape) if title_shape is not None else None,
                        meta={"method": "pptx-title" if title_shape is not None else "pptx-slide-number", "slide": number})
        for shape in shapes:
            if shape is title_shape:
                continue
            meta = {"method": "pptx-shape", "slide": number, "shape": shape.name}
            if shape.has_table if hasattr(shape, "has_table") else False:
                rows = [[cell.text.strip() for cell in row.cells] for row in shape.table.rows]
                rows = [r for r in rows if any(r)]
                if rows:
                    header, body = rows[0], rows[1:]
                    builder.add(ElementKind.TABLE, table_markdown(header, body), page=number, bbox=_bbox(shape),
                                meta={**meta, "method": "pptx-table", **table_meta(header, body)})
            elif shape.has_text_frame and shape.text_frame.text.strip():
                self._text_frame(shape, number, builder, meta)
            elif shape.shape_type == MSO_SHAPE_TYPE.PICTURE:
                self._picture(shape, number, builder, figures, meta)
        if slide.has_notes_slide:
            notes = slide.notes_slide.notes_text_frame
            text = notes.text.strip() if notes is not None else ""
            if text:
                builder.add(ElementKind.NOTE, text, page=number, meta={"method": "pptx-notes", "slide": number})

    @staticmethod
    def _picture(shape: Any, number: int, builder: ElementBuilder, figures: FigureCollector, meta: dict[str, Any]) -> None:
        """A picture on the slide with its place; its description (alt text), title, or a name the author gave
        it (not PowerPoint's "Picture 3") are the figure's own words."""
        try:
            image = open_image(shape.image.blob)
        except (AttributeError, KeyError, ValueError):  # a linked, not embedded, picture
            image = None
        bbox = _bbox(shape)
        if image is None or not figures.admits(*image.size, bbox):
            return
        names = shape._element.xpath("./p:nvPicPr/p:cNvPr")
        described = names[0] if names else None
        alt = ((described.get("descr") or described.get("title") or "") if described is not None else "").strip()
        if _FILE_NAME.match(alt):  # python-pptx and some tools put the inserted file's name there
            alt = ""
        if not alt and not _DEFAULT_NAME.match(shape.name or ""):
            alt = (shape.name or "").strip()
        figure_meta = {**meta, "method": "pptx-picture", **({"alt": alt} if alt else {})}
        figures.add(builder.add(ElementKind.FIGURE, alt, page=number, bbox=bbox, meta=figure_meta), image)

    @staticmethod
    def _text_frame(shape: Any, number: int, builder: ElementBuilder, meta: dict[str, Any]) -> None:
        paragraphs = [(p.level, "".join(r.text for r in p.runs).strip() or p.text.strip()) for p in shape.text_frame.paragraphs]
        paragraphs = [(level, text) for level, text in paragraphs if text]
        bulleted = _placeholder_type(shape) in _BODIES and _placeholder_type(shape) != PP_PLACEHOLDER.SUBTITLE
        if bulleted and len(paragraphs) > 1:
            text = "\n".join("  " * level + "- " + line for level, line in paragraphs)
            builder.add(ElementKind.LIST, text, page=number, bbox=_bbox(shape), meta=meta)
        else:
            text = "\n".join(line for _, line in paragraphs)
            kind = ElementKind.CAPTION if is_figure_caption(text) and len(paragraphs) == 1 else ElementKind.PARAGRAPH
            builder.add(kind, text, page=number, bbox=_bbox(shape), meta=meta)
