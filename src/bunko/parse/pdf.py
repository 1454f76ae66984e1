"""PDF: text layer through pdfplumber, rendering and password checks through PDFium, OCR for scanned pages.

Pages are read one at a time and each page's parsed objects are released
before the next (``page.close()``), so a 1,000-page file costs the memory of
one page plus the elements found so far; only a page that needs OCR is
rendered, alone. Layout (reading order, headings, paragraphs) lives in
`pdf_layout`; this module does the I/O, tables, figures and captions, and
joins a table that runs over a page break back into one element.

Both libraries are permissively licensed (pdfplumber MIT, pypdfium2
Apache/BSD); PyMuPDF is avoided because it is AGPL.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pdfplumber
import pypdfium2 as pdfium
from pdfminer.pdfdocument import PDFEncryptionError, PDFPasswordIncorrect
from pdfminer.pdftypes import resolve1

from bunko.errors import DocumentError
from bunko.parse.base import IN_MARGIN, BBox, ElementBuilder, dist_version, page_error, union_bbox
from bunko.parse.cjk import join_words, normalize
from bunko.parse.figures import IMAGE_MAX_SIDE, FigureCollector, link_captions
from bunko.parse.limits import LimitExceeded, over_limit
from bunko.parse.limits import current as current_limits
from bunko.parse.ocr import OCR_DPI, Tesseract, add_ocr_lines, render_scale
from bunko.parse.pdf_footnotes import (
    NOTE_METHOD,
    FootnoteArea,
    Link,
    find_footnotes,
    note_links,
    split_linked_marks,
    to_section_ends,
)
from bunko.parse.pdf_layout import WORD_GAP, Block, TextRun, monospace_body, reading_order, segments_from_words, text_runs
from bunko.parse.pdf_outline import Outline, is_contents_page, read_outline
from bunko.parse.pdf_rulings import missing_sides
from bunko.parse.pdfminer_bounds import install as bound_pdfminer
from bunko.parse.progress import report as report_progress
from bunko.parse.tables import table_markdown, table_meta
from bunko.schema import Element, ElementKind, ErrorCode, ParsedDocument
from bunko.text.lazy_regex import lazy_compile
from bunko.text.lexicon import en, zh

bound_pdfminer()  # width ranges within 0..65535, reference chains within 32 (parse/pdfminer_bounds.py)

MARGIN = 0.1
"""Share of the page height at top and bottom where running headers and page numbers live (LaTeX sets its head about
an inch from the top edge: 7 %, the old share, missed it on US Letter)."""
_PAGE_NUMBER = lazy_compile(f"{en.PAGE_NUMBER}|{zh.PAGE_NUMBER}", re.IGNORECASE)
_MIN_FIGURE = 24.0
STAMP_CHARS = 40
"""At most this many characters of text layer over a page-sized image: the page is read by OCR."""


@dataclass
class _OpenTable:
    """The last table of the previous page, which the next page's first table may continue."""

    element: Element
    header: list[str]
    rows: list[list[str]]
    x_span: tuple[float, float]


@dataclass
class _State:
    builder: ElementBuilder
    meta: dict[str, Any]
    sizes: Counter[float] = field(default_factory=Counter)
    open_table: _OpenTable | None = None
    outline: Outline = field(default_factory=lambda: Outline([]))
    figures: FigureCollector | None = None
    rendering: pdfium.PdfDocument | None = None
    note_links: dict[int, list[BBox]] = field(default_factory=dict)
    """Page number → boxes of the links to a footnote on it (`_note_links`)."""
    open_footnote: Element | None = None
    """The previous page's last footnote, which a footnote area starting without a label continues."""

    @property
    def body_size(self) -> float:
        return self.sizes.most_common(1)[0][0] if self.sizes else 10.0


def _cell_text(value: Any) -> str:
    return join_words([line.strip() for line in normalize(str(value or "")).split("\n") if line.strip()])


def _in_box(obj: dict[str, Any], box: BBox) -> bool:
    x = (obj["x0"] + obj["x1"]) / 2
    y = (obj["top"] + obj["bottom"]) / 2
    return box[0] <= x <= box[2] and box[1] <= y <= box[3]


def _in_margin(bbox: BBox, height: float) -> bool:
    return bbox[3] <= height * MARGIN or bbox[1] >= height * (1 - MARGIN)


def _internal_links(page: Any) -> list[Link]:
    """The page's links to a place in the document: a named destination's name, or where an explicit destination on
    this same page points. Read from the raw annotation dictionaries: pdfplumber's `annots` resolves every reference
    in them, down to the whole target page's tree, and took a fifth of the parse of a linked manual. A damaged
    annotation is skipped: links only help tell footnote marks."""
    links = []
    try:
        page_obj = page.page_obj
        raw = resolve1(page_obj.annots) or []
        left, _, _, top = (float(v) for v in page_obj.mediabox)
    except Exception:  # pdfminer raises many types on a damaged page dictionary
        return []
    for item in raw if isinstance(raw, list) else []:
        try:
            annot = resolve1(item)
            if not isinstance(annot, dict) or str(getattr(annot.get("Subtype"), "name", "")) != "Link":
                continue
            x0, y0, x1, y1 = (float(resolve1(v)) for v in resolve1(annot["Rect"]))
            box = (min(x0, x1) - left, top - max(y0, y1), max(x0, x1) - left, top - min(y0, y1))
            action = resolve1(annot.get("A"))
            target = resolve1(annot.get("Dest") or (action.get("D") if isinstance(action, dict) else None))
            if isinstance(target, dict):  # a destination dictionary: its array under /D
                target = resolve1(target.get("D"))
            if isinstance(target, bytes | str):
                links.append(Link(box, target.decode("latin-1") if isinstance(target, bytes) else target))
            elif isinstance(target, list) and len(target) >= 3 and getattr(target[0], "objid", None) == page_obj.pageid:
                kind = str(getattr(target[1], "name", target[1]))
                y = resolve1(target[3] if kind == "XYZ" and len(target) >= 4 else target[2] if kind in ("FitH", "FitBH") else None)
                if isinstance(y, int | float):
                    links.append(Link(box, top=top - float(y)))
        except Exception:  # an unresolvable reference, a malformed rectangle
            continue
    return links


LINK_PASS_PAGES = 64
"""Pages whose annotations are read before pdfminer's object cache is dropped (`_note_links`)."""


def _note_links(pdf: Any) -> dict[int, list[BBox]]:
    """Page number → the boxes of its links to a footnote (`pdf_footnotes.note_links`), read for every page before
    the pages are: annotations sit in shared object streams, which the page loop's cache clearing (`_forget_objects`)
    would have pdfminer decode again for every page (18 s instead of 0.8 s on a 63-page manual)."""
    found = {}
    for index, page in enumerate(pdf.pages):
        try:
            boxes = note_links(_internal_links(page), float(page.height))
        except Exception:  # a damaged page dictionary: its marks are read without links
            boxes = []
        if boxes:
            found[index + 1] = boxes
        if (index + 1) % LINK_PASS_PAGES == 0:
            _forget_objects(pdf)
    _forget_objects(pdf)
    return found


def _rules(page: Any, tables: list[BBox]) -> list[BBox]:
    """The page's horizontal rules (lines, and rectangles two points high or less, as pdfTeX draws its rules) that
    are no table's edge: where a footnote separator may be."""
    rules = []
    for obj in (*page.lines, *page.rects):
        box = (float(obj["x0"]), float(obj["top"]), float(obj["x1"]), float(obj["bottom"]))
        if box[3] - box[1] > 2.0:
            continue
        if any(t[0] - 2 <= box[0] and box[2] <= t[2] + 2 and t[1] - 2 <= box[1] <= t[3] + 2 for t in tables):
            continue
        rules.append(box)
    return rules


RUNNING_HEAD_PAGES = 3
"""A text in the top or bottom margin on this many pages or more is a running head or foot ("Debian Reference",
"Chapter 3. The system initialization", "Confidential — page 12"), unless the body writes it half as often or more
(a "Note" label that happens to start a page)."""
_DIGITS = lazy_compile(r"\d+")


def drop_running_heads(elements: list[Element], meta: dict[str, Any]) -> list[Element]:
    """The elements without the running heads and feet a typesetter repeats on every page. Left in, the book's title
    is glued into every passage that crosses a page break and matches every question that names the book; the
    chapter's title, every question about the chapter. A page number inside them is any number."""
    keys = [_DIGITS.sub("#", " ".join(element.text.split())) for element in elements]
    margin_pages: dict[str, set[int | None]] = {}
    elsewhere: Counter[str] = Counter()
    for element, key in zip(elements, keys, strict=True):
        if element.meta.get(IN_MARGIN):
            margin_pages.setdefault(key, set()).add(element.page)
        else:
            elsewhere[key] += 1
    running = {k for k, pages in margin_pages.items() if len(pages) >= RUNNING_HEAD_PAGES and elsewhere[k] * 2 <= len(pages)}
    kept = [e for e, key in zip(elements, keys, strict=True) if not (e.meta.get(IN_MARGIN) and key in running)]
    for element in kept:
        element.meta.pop(IN_MARGIN, None)
    if len(kept) < len(elements):
        meta["running_heads_dropped"] = len(elements) - len(kept)
    return kept


def _forget_objects(pdf: Any) -> None:
    """Drop pdfminer's cache of parsed objects, which otherwise keeps every decoded content stream.

    Fonts are cached separately by the resource manager, so the next page only
    re-reads its own objects; without this, memory grows with the page count.
    """
    document = getattr(pdf, "doc", None)
    for cache in ("_cached_objs", "_parsed_objs"):
        store = getattr(document, cache, None)
        if isinstance(store, dict):
            store.clear()


def _scanned_with_stamp(page: Any, chars: list[dict[str, Any]]) -> bool:
    """A page image with a few words of text layer (a scanner's date stamp, a Bates number) is still a scan."""
    if not chars or len(chars) > STAMP_CHARS or not page.images:
        return False
    area = float(page.width) * float(page.height)
    covered = sum(max(0.0, float(i["x1"]) - float(i["x0"])) * max(0.0, float(i["bottom"]) - float(i["top"])) for i in page.images)
    return covered >= 0.5 * area


class PdfParser:
    name = "pdf"
    mimes = ("application/pdf",)

    def __init__(self, ocr: Tesseract | None = None, ocr_dpi: int = OCR_DPI) -> None:
        self.ocr = ocr or Tesseract()
        self.ocr_dpi = ocr_dpi
        self.version = f"pdfplumber-{dist_version('pdfplumber')}+pdfium-{dist_version('pypdfium2')}"

    def parse(self, path: Path, source: str, mime: str) -> ParsedDocument:
        rendering = self._open_pdfium(path, source)
        if len(rendering) > current_limits().max_pages:
            pages = len(rendering)
            rendering.close()
            raise over_limit(ErrorCode.TOO_COMPLEX, source, "pages", pages, "max_pages")
        state = _State(ElementBuilder(source), {}, outline=read_outline(rendering), figures=FigureCollector(self.ocr), rendering=rendering)
        try:
            pdf = self._open_plumber(path, source)
            with pdf:
                try:
                    title = self._title(pdf.metadata)
                    n_pages = len(pdf.pages)
                except Exception as exc:  # a broken page tree or info dictionary
                    raise DocumentError(ErrorCode.PARSE_FAILED, f"{source}: not a readable PDF ({type(exc).__name__}: {exc})") from None
                state.note_links = _note_links(pdf)
                for index in range(n_pages):
                    page = pdf.pages[index]
                    try:
                        self._page(page, index + 1, state, rendering)
                    except LimitExceeded:
                        raise  # the document's elements or characters, not this page's problem
                    except DocumentError as exc:
                        page_error(state.meta, index + 1, exc.code.value, exc.detail)
                    except Exception as exc:  # one unreadable page must not lose the others
                        page_error(state.meta, index + 1, ErrorCode.PARSE_FAILED.value, f"{type(exc).__name__}: {exc}".splitlines()[0])
                    finally:
                        page.close()
                        _forget_objects(pdf)
                    report_progress(index + 1, n_pages)
        finally:
            rendering.close()
        assert state.figures is not None
        elements = to_section_ends(drop_running_heads(state.figures.finish(state.builder.elements, state.meta), state.meta))
        if footnotes := sum(1 for e in elements if e.kind == ElementKind.FOOTNOTE):
            state.meta["footnotes"] = footnotes
        errors = state.meta.get("page_errors", [])
        if errors and not any(e.text.strip() for e in elements):
            codes = Counter(e["code"] for e in errors)
            code = ErrorCode(codes.most_common(1)[0][0])
            raise DocumentError(code, f"{source}: no page could be read; page {errors[0]['page']}: {errors[0]['detail']}")
        state.meta["pages"] = n_pages
        if state.outline:
            state.meta["outline"] = {"entries": len(state.outline.entries), "matched": state.outline.matched}
        heading = next((e.text for e in elements if e.kind == ElementKind.HEADING), None)
        return ParsedDocument(
            doc_id="", source=source, title=title or heading or Path(source).stem, mime="application/pdf",
            parser=f"{self.name}/{self.version}", elements=elements, meta=state.meta, images=state.figures.images,
        )

    @staticmethod
    def _open_pdfium(path: Path, source: str) -> pdfium.PdfDocument:
        """PDFium opens what pdfminer opens and tells a password apart from corruption."""
        try:
            return pdfium.PdfDocument(path)
        except pdfium.PdfiumError as exc:
            if "password" in str(exc).lower():
                raise DocumentError(ErrorCode.ENCRYPTED, f"{source}: the PDF is password-protected; remove the password and ingest it again") from None
            raise DocumentError(ErrorCode.PARSE_FAILED, f"{source}: not a readable PDF ({exc})") from None

    @staticmethod
    def _open_plumber(path: Path, source: str) -> Any:
        try:
            return pdfplumber.open(path)
        except (PDFPasswordIncorrect, PDFEncryptionError) as exc:
            raise DocumentError(ErrorCode.ENCRYPTED, f"{source}: the PDF is encrypted ({type(exc).__name__})") from None
        except Exception as exc:  # pdfminer raises many types (PSEOF, PDFSyntaxError, KeyError…) on damage
            raise DocumentError(ErrorCode.PARSE_FAILED, f"{source}: not a readable PDF ({type(exc).__name__}: {exc})") from None

    @staticmethod
    def _title(metadata: dict[str, Any]) -> str | None:
        title = metadata.get("Title")
        if isinstance(title, bytes):
            title = title.decode("utf-8", "replace")
        return str(title).strip() or None if title else None

    # --- one page --------------------------------------------------------------------------------

    def _page(self, page: Any, number: int, state: _State, rendering: pdfium.PdfDocument) -> None:
        chars = [c for c in page.chars if c["text"].strip()]
        if (not chars and page.images) or _scanned_with_stamp(page, chars):
            self._ocr_page(number, state, rendering)
            return
        if not chars:
            return
        state.sizes.update(round(float(c["size"]), 1) for c in chars)
        blocks: list[Block] = []
        try:
            sides = missing_sides(page.lines)
            tables = page.find_tables({"explicit_vertical_lines": sides} if sides else None) if (page.rects or page.lines) else []
            found = [(tuple(t.bbox), [[_cell_text(c) for c in row] for row in t.extract(x_tolerance_ratio=WORD_GAP)]) for t in tables]
        except Exception as exc:  # odd ruling geometry must not cost the page its text
            found = []
            page_error(state.meta, number, ErrorCode.PARSE_FAILED.value, f"tables not read: {type(exc).__name__}: {exc}".splitlines()[0])
        for bbox, rows in found:
            if len(rows) >= 2 and max(len(r) for r in rows) >= 2:
                blocks.append(Block("table", bbox, payload=rows))
        table_boxes = [b.bbox for b in blocks]
        for image in page.images:
            box = (float(image["x0"]), float(image["top"]), float(image["x1"]), float(image["bottom"]))
            if box[2] - box[0] >= _MIN_FIGURE and box[3] - box[1] >= _MIN_FIGURE:
                size = image.get("srcsize") or (0, 0)
                blocks.append(Block("figure", box, payload={"name": image.get("name"), "srcsize": (int(size[0]), int(size[1]))}))
        text_page = page.filter(lambda o: o.get("object_type") != "char" or not any(_in_box(o, b) for b in table_boxes))
        marked = state.note_links.get(number, [])
        words = text_page.extract_words(extra_attrs=["size", "fontname"], x_tolerance_ratio=WORD_GAP, return_chars=bool(marked))
        if marked:
            words = split_linked_marks(words, marked)
        for word in words:
            word["text"] = normalize(word["text"])
        height = float(page.height)
        segments = segments_from_words(words)
        if is_contents_page(segments):
            state.meta.setdefault("contents_pages", []).append(number)
            return
        footnotes = find_footnotes(
            segments, _rules(page, table_boxes), state.body_size, float(page.width), height * (1 - MARGIN),
            continues=state.open_footnote is not None,
        )
        if footnotes is not None:
            marks = frozenset(note.label for note in footnotes.notes)
            if any(mark in marks for s in segments for mark in s.raised):
                segments = segments_from_words(words, marks)  # the body again, its marks written [3]
            taken = {s.bbox for s in footnotes.segments}
            segments = [s for s in segments if s.bbox not in taken]
        segments = monospace_body(segments)
        for segment in segments:
            in_margin = _in_margin(segment.bbox, height)
            if in_margin and _PAGE_NUMBER.match(segment.text):
                continue
            blocks.append(Block("text", segment.bbox, [segment], payload={"margin": in_margin}))
        first = len(state.builder.elements)
        self._emit(reading_order(blocks), number, height, state)
        self._add_footnotes(footnotes, number, state, first)

    @staticmethod
    def _add_footnotes(area: FootnoteArea | None, number: int, state: _State, first: int) -> None:
        """The page's footnotes as FOOTNOTE elements "[3] If a package…", each tied (`parent_id`, section path) to
        the element of this page that carries its mark; moved to the end of their section once the document is
        read (`pdf_footnotes.to_section_ends`)."""
        builder, previous = state.builder, state.open_footnote
        state.open_footnote = None
        if area is None:
            return
        if area.continued and previous is not None:
            builder.set_text(previous, join_words([previous.text, *(s.text for s in area.continued)]))
            bbox = union_bbox([s.bbox for s in area.continued])
            previous.meta.setdefault("continued_bboxes", []).append({"page": number, "bbox": list(bbox)})
        # prose first: "a[1]" in a code block is more often an index than a mark, though a mark may follow a command
        page_elements = sorted((e for e in builder.elements[first:] if e.kind != ElementKind.FOOTNOTE), key=lambda e: e.kind == ElementKind.CODE)
        for note in area.notes:
            mark = f"[{note.label}]"
            parent = next((e for e in page_elements if mark in e.text), None)
            meta: dict[str, Any] = {"method": NOTE_METHOD, "label": note.label, "font_size": note.segments[0].size}
            element = builder.add(
                ElementKind.FOOTNOTE, f"{mark} {note.text}", page=number, bbox=note.bbox,
                parent_id=parent.element_id if parent else None, meta=meta,
            )
            if parent is not None:
                element.section_path = list(parent.section_path)
            state.open_footnote = element

    def _emit(self, blocks: list[Block], number: int, height: float, state: _State) -> None:
        builder = state.builder
        first = len(builder.elements)
        content_seen = False
        pending: list[Block] = []

        def flush() -> None:
            for run in text_runs([s for b in pending for s in b.segments], state.body_size):
                self._add_run(run, number, state, _in_margin(run.bbox, height))
            pending.clear()

        for block in blocks:
            if block.kind == "text":
                pending.append(block)
                if not _in_margin(block.bbox, height):
                    content_seen = True
                    state.open_table = None
                continue
            flush()
            if block.kind == "table":
                continued = not content_seen and self._continue_table(block, number, state)
                if not continued:
                    self._add_table(block, number, state)
                content_seen = True
            else:
                self._add_figure(block, number, state)
                content_seen = True
                state.open_table = None
        flush()
        link_captions(builder.elements[first:])

    @staticmethod
    def _add_figure(block: Block, number: int, state: _State) -> None:
        """An image on the page: what the reader sees of it (rendered from its box, so masks, clipping and colour
        spaces come out as shown) becomes the figure's picture; icons, bullets and figures past the cap are left out."""
        figures, rendering = state.figures, state.rendering
        width_px, height_px = block.payload["srcsize"]
        if figures is None or rendering is None or not figures.admits(width_px or 10_000, height_px or 10_000, block.bbox):
            return
        page = rendering[number - 1]
        try:
            page_width, page_height = page.get_size()
            x0, top, x1, bottom = (max(0.0, v) for v in block.bbox)
            x1, bottom = min(x1, page_width), min(bottom, page_height)
            if x1 - x0 < 1 or bottom - top < 1:
                return
            native = width_px / (x1 - x0) if width_px else 2.0  # the image's own resolution: what OCR reads best
            scale = max(0.5, min(300 / 72, native, IMAGE_MAX_SIDE / max(x1 - x0, bottom - top)))
            bitmap = page.render(scale=scale, crop=(x0, page_height - bottom, page_width - x1, top))
            image = bitmap.to_pil().convert("RGB")
            bitmap.close()
        finally:
            page.close()
        payload = {"name": block.payload.get("name"), "image_px": [width_px, height_px]}
        element = state.builder.add(ElementKind.FIGURE, "", page=number, bbox=block.bbox, meta={"method": "pdf-image", **payload})
        figures.add(element, image)

    def _add_run(self, run: TextRun, number: int, state: _State, in_margin: bool = False) -> None:
        if state.outline:
            run = state.outline.place(run, number, state.body_size)
        meta: dict[str, Any] = {"method": "text-layer", "font_size": run.segments[0].size}
        if in_margin:
            meta[IN_MARGIN] = True
        if run.segments[0].bold:
            meta["bold"] = True
        if run.kind == ElementKind.HEADING:
            state.builder.heading(run.level or 1, run.text, page=number, bbox=run.bbox, meta=meta)
        else:
            state.builder.add(run.kind, run.text, page=number, bbox=run.bbox, meta=meta)

    def _add_table(self, block: Block, number: int, state: _State) -> None:
        rows: list[list[str]] = block.payload
        header, body = rows[0], rows[1:]
        element = state.builder.add(
            ElementKind.TABLE, table_markdown(header, body), page=number, bbox=block.bbox,
            meta={"method": "pdf-ruling-lines", **table_meta(header, body), "pages": [number], "row_pages": [number] * len(body)},
        )
        state.open_table = _OpenTable(element, header, body, (block.bbox[0], block.bbox[2]))

    def _continue_table(self, block: Block, number: int, state: _State) -> bool:
        """Join a table at the top of this page to the one that ended the previous page.

        Same column count and same horizontal extent mean the same table; a
        header row repeated on the new page is dropped.
        """
        open_table = state.open_table
        rows: list[list[str]] = block.payload
        if open_table is None or open_table.element.page is None or number - max(open_table.element.meta["pages"]) != 1:
            return False
        same_width = abs(open_table.x_span[0] - block.bbox[0]) < 3 and abs(open_table.x_span[1] - block.bbox[2]) < 3
        if not same_width or len(rows[0]) != len(open_table.header):
            return False
        if rows[0] == open_table.header:
            rows = rows[1:]
        open_table.rows.extend(rows)
        element = open_table.element
        state.builder.set_text(element, table_markdown(open_table.header, open_table.rows))
        element.meta.update(table_meta(open_table.header, open_table.rows))
        element.meta["pages"].append(number)
        element.meta["row_pages"] = [*element.meta.get("row_pages", []), *[number] * len(rows)]
        element.meta.setdefault("continued_bboxes", []).append({"page": number, "bbox": list(block.bbox)})
        return True

    def _ocr_page(self, number: int, state: _State, rendering: pdfium.PdfDocument) -> None:
        """A page without a text layer: render it alone and read it with Tesseract."""
        page = rendering[number - 1]
        try:
            scale = render_scale(page.get_size(), self.ocr_dpi)  # a page too large to render fails, OCR or not
            if not self.ocr.available:
                page_error(state.meta, number, ErrorCode.OCR_UNAVAILABLE.value, self.ocr.unavailable_reason())
                return
            if scale * 72.0 < self.ocr_dpi - 0.5:
                state.meta.setdefault("ocr_downscaled", []).append({"page": number, "dpi": round(scale * 72.0)})
            bitmap = page.render(scale=scale)
            image = bitmap.to_pil()
            bitmap.close()
        finally:
            page.close()
        lines = self.ocr.recognize(image, scale=scale)
        added = add_ocr_lines(state.builder, lines, number, self.ocr)
        state.meta.setdefault("ocr_pages", []).append(number)
        if not added:
            page_error(state.meta, number, ErrorCode.EMPTY.value, "OCR found no text on this scanned page")
