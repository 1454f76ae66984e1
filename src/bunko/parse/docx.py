"""Word (.docx) through python-docx: heading styles → section paths, lists, tables, footnotes.

The body is walked in document order (paragraphs and tables interleaved), so
a table stays between the paragraphs around it. A paragraph's text is read
from every run it shows, where python-docx reads only its direct runs:
tracked insertions, content controls (the fields of forms and contract
templates, often a whole block of paragraphs), simple fields; deleted text is
not shown and not read. A text box's paragraphs follow the paragraph that
anchors it (once, though Word stores a copy for old readers). Headers and footers are a
separate part of the package and never enter the body. Footnotes, which
python-docx does not expose, are read from their part and placed right after
the paragraph that cites them, linked to it by parent_id.

Word has no fixed pages; when the file was last saved by Word it carries
"rendered page break" marks, which give the page a reader saw. Otherwise
explicit page breaks are counted. meta["page_source"] says which.
"""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docx import Document
from docx.opc.exceptions import PackageNotFoundError
from docx.oxml.ns import qn
from docx.table import Table
from docx.text.paragraph import Paragraph
from lxml import etree

from bunko.parse.base import ElementBuilder, dist_version
from bunko.parse.figures import FigureCollector, is_figure_caption, open_image
from bunko.parse.limits import unreadable_package
from bunko.parse.ocr import Tesseract
from bunko.parse.tables import table_markdown, table_meta
from bunko.schema import Element, ElementKind, ParsedDocument

MIME = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
_HEADING_STYLE = re.compile(r"^(?:heading|見出し|标题|標題)\s*(\d)$", re.IGNORECASE)
_FOOTNOTES_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/footnotes"


_MC_FALLBACK = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"
_HIDDEN_RUNS = frozenset({qn("w:del"), qn("w:moveFrom"), qn("w:txbxContent"), _MC_FALLBACK})
"""Runs a paragraph holds but does not show as its own text: deleted or moved-away text, a text box's (read as
paragraphs of their own), and the copy of a drawing Word keeps for readers without DrawingML."""
_CONTAINERS = frozenset({qn("w:sdt"), qn("w:sdtContent"), qn("w:customXml")})
"""Block wrappers whose paragraphs and tables are the document's own: content controls and custom XML."""


def _shown(element: Any, paragraph: Any) -> bool:
    """Whether `element` (inside `paragraph`) is shown as the paragraph's text: no hidden wrapper between them."""
    parent = element.getparent()
    while parent is not None and parent is not paragraph:
        if parent.tag in _HIDDEN_RUNS:
            return False
        parent = parent.getparent()
    return True


def paragraph_text(paragraph: Any) -> str:
    """The text a `w:p` shows, from each run as python-docx reads a run (tabs, breaks), in document order."""
    return "".join(run.text for run in paragraph.iter(qn("w:r")) if _shown(run, paragraph))


def blocks(container: Any) -> list[Any]:
    """The `w:p` and `w:tbl` of a body, cell or text box in document order, content controls opened."""
    found = []
    for child in container.iterchildren():
        if child.tag in (qn("w:p"), qn("w:tbl")):
            found.append(child)
        elif child.tag in _CONTAINERS:
            found.extend(blocks(child))
    return found


def text_boxes(paragraph: Any) -> list[Any]:
    """The text boxes a paragraph anchors (`w:txbxContent`), each once: not the fallback copy, not one inside another
    (that one is read with the box that holds it)."""
    return [box for box in paragraph.iter(qn("w:txbxContent")) if _shown(box, paragraph)]


def _style_level(paragraph: Paragraph) -> int | None:
    """Heading level from the paragraph's style chain or its outline level; Title is level 0."""
    style = paragraph.style
    seen = 0
    while style is not None and seen < 10:
        name = (style.name or "").strip()
        if name.lower() == "title":
            return 0
        match = _HEADING_STYLE.match(name)
        if match:
            return int(match.group(1))
        outline = style.element.find(f"{qn('w:pPr')}/{qn('w:outlineLvl')}")
        if outline is not None and outline.get(qn("w:val"), "9").isdigit() and int(outline.get(qn("w:val"), "9")) < 9:
            return int(outline.get(qn("w:val"))) + 1
        style = style.base_style
        seen += 1
    direct = paragraph._p.find(f"{qn('w:pPr')}/{qn('w:outlineLvl')}")
    if direct is not None and direct.get(qn("w:val"), "9").isdigit() and int(direct.get(qn("w:val"), "9")) < 9:
        return int(direct.get(qn("w:val"))) + 1
    return None


class _Numbering:
    """Which list levels are numbered (1., 2.) and which bulleted, from numbering.xml."""

    def __init__(self, document: Any) -> None:
        self._formats: dict[tuple[str, int], str] = {}
        try:
            root = document.part.numbering_part.element
        except (KeyError, NotImplementedError, AttributeError):
            return
        abstract = {}
        for node in root.findall(qn("w:abstractNum")):
            levels = {}
            for lvl in node.findall(qn("w:lvl")):
                fmt = lvl.find(qn("w:numFmt"))
                levels[int(lvl.get(qn("w:ilvl"), "0"))] = fmt.get(qn("w:val")) if fmt is not None else "bullet"
            abstract[node.get(qn("w:abstractNumId"))] = levels
        for num in root.findall(qn("w:num")):
            ref = num.find(qn("w:abstractNumId"))
            if ref is not None:
                for level, fmt in abstract.get(ref.get(qn("w:val")), {}).items():
                    self._formats[(num.get(qn("w:numId")), level)] = fmt

    def is_bullet(self, num_id: str, level: int) -> bool:
        return self._formats.get((num_id, level), "bullet") in ("bullet", "none")


def _list_info(paragraph: Paragraph) -> tuple[str, int] | None:
    """(numId, level) of a list paragraph, directly or through its style; None for body text."""
    num_pr = paragraph._p.find(f"{qn('w:pPr')}/{qn('w:numPr')}")
    style = paragraph.style
    while num_pr is None and style is not None:
        num_pr = style.element.find(f"{qn('w:pPr')}/{qn('w:numPr')}")
        style = style.base_style
    if num_pr is None:
        name = (paragraph.style.name or "") if paragraph.style is not None else ""
        return ("style", 0) if name.lower().startswith("list") else None
    num_id = num_pr.find(qn("w:numId"))
    ilvl = num_pr.find(qn("w:ilvl"))
    if num_id is None or num_id.get(qn("w:val")) == "0":
        return None
    return num_id.get(qn("w:val")), int(ilvl.get(qn("w:val"))) if ilvl is not None else 0


def _footnotes(document: Any) -> dict[str, str]:
    """Footnote id → text (separator notes, ids -1 and 0, left out)."""
    for rel in document.part.rels.values():
        if rel.reltype == _FOOTNOTES_REL:
            root = etree.fromstring(rel.target_part.blob)
            notes = {}
            for note in root.findall(qn("w:footnote")):
                note_id = note.get(qn("w:id"))
                if note_id is None or int(note_id) <= 0:
                    continue
                paragraphs = ["".join(t.text or "" for t in p.iter(qn("w:t"))) for p in note.iter(qn("w:p"))]
                notes[note_id] = "\n".join(p.strip() for p in paragraphs if p.strip())
            return notes
    return {}


@dataclass
class _OpenList:
    """The list element consecutive list paragraphs of one numbering append to."""

    num_id: str
    element: Element
    counters: dict[int, int]


@dataclass
class _Walk:
    """What the body walk carries from one paragraph to the next."""

    numbering: _Numbering
    footnotes: dict[str, str]
    rendered: bool
    figures: FigureCollector
    page: int = 1
    open_list: _OpenList | None = None


class DocxParser:
    name = "docx"
    mimes = (MIME,)

    def __init__(self, ocr: Tesseract | None = None) -> None:
        self.ocr = ocr
        self.version = f"python-docx-{dist_version('python-docx')}"

    def parse(self, path: Path, source: str, mime: str) -> ParsedDocument:
        try:
            document = Document(str(path))
        except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError, etree.XMLSyntaxError) as exc:
            raise unreadable_package(source, "Word document", exc) from None
        builder = ElementBuilder(source)
        body = document.element.body
        rendered = any(True for _ in body.iter(qn("w:lastRenderedPageBreak")))
        state = _Walk(numbering=_Numbering(document), footnotes=_footnotes(document), rendered=rendered, figures=FigureCollector(self.ocr))
        self._blocks(body, document, builder, state)
        title = (document.core_properties.title or "").strip()
        heading = next((e.text for e in builder.elements if e.kind == ElementKind.HEADING), None)
        meta: dict[str, Any] = {"page_source": "rendered-page-breaks" if rendered else "explicit-page-breaks", "pages": state.page}
        elements = state.figures.finish(builder.elements, meta)
        return ParsedDocument(
            doc_id="", source=source, title=title or heading or Path(source).stem, mime=MIME,
            parser=f"{self.name}/{self.version}", elements=elements, meta=meta, images=state.figures.images,
        )

    def _blocks(self, container: Any, document: Any, builder: ElementBuilder, state: _Walk) -> None:
        for block in blocks(container):
            if block.tag == qn("w:p"):
                self._paragraph(Paragraph(block, document), builder, state)
                for box in text_boxes(block):
                    state.open_list = None
                    self._blocks(box, document, builder, state)
            else:
                state.open_list = None
                self._table(Table(block, document), builder, state.page)

    @staticmethod
    def _page_breaks(paragraph: Paragraph, rendered: bool) -> int:
        if rendered:
            return sum(1 for _ in paragraph._p.iter(qn("w:lastRenderedPageBreak")))
        return sum(1 for br in paragraph._p.iter(qn("w:br")) if br.get(qn("w:type")) == "page")

    def _paragraph(self, paragraph: Paragraph, builder: ElementBuilder, state: _Walk) -> None:
        breaks = self._page_breaks(paragraph, state.rendered)
        before = paragraph._p.find(f"{qn('w:pPr')}/{qn('w:pageBreakBefore')}") is not None
        if before and not state.rendered:
            state.page += 1
        text = paragraph_text(paragraph._p).strip()
        page = state.page
        state.page += breaks
        self._pictures(paragraph, builder, state, page)
        if not text:
            return
        level = _style_level(paragraph)
        style = paragraph.style.name if paragraph.style is not None else ""
        meta: dict[str, Any] = {"method": "docx-style", "style": style}
        if level is None and (style.lower() == "caption" or is_figure_caption(text)):
            state.open_list = None
            element = builder.add(ElementKind.CAPTION, text, page=page, meta=meta)
        elif level is not None:
            state.open_list = None
            element = builder.heading(level, text, page=page, meta=meta)
        elif (info := _list_info(paragraph)) is not None:
            num_id, ilvl = info
            marker = "-" if num_id == "style" or state.numbering.is_bullet(num_id, ilvl) else None
            current = state.open_list
            if current is not None and current.num_id == num_id:
                counters = current.counters
                counters[ilvl] = counters.get(ilvl, 0) + 1
                for deeper in [k for k in counters if k > ilvl]:
                    del counters[deeper]
                line = "  " * ilvl + (marker or f"{counters[ilvl]}.") + " " + text
                current.element.text += "\n" + line
                element = current.element
            else:
                line = "  " * ilvl + (marker or "1.") + " " + text
                element = builder.add(ElementKind.LIST, line, page=page, meta={**meta, "method": "docx-numbering"})
                state.open_list = _OpenList(num_id, element, {ilvl: 1})
        else:
            state.open_list = None
            element = builder.add(ElementKind.PARAGRAPH, text, page=page, meta=meta)
        for ref in (r for r in paragraph._p.iter(qn("w:footnoteReference")) if _shown(r, paragraph._p)):
            note_id = ref.get(qn("w:id"))
            note = state.footnotes.get(note_id) if note_id is not None else None
            if note:
                builder.add(ElementKind.FOOTNOTE, note, page=page, parent_id=element.element_id, meta={"method": "docx-footnotes", "footnote_id": note_id})
                state.open_list = None

    @staticmethod
    def _pictures(paragraph: Paragraph, builder: ElementBuilder, state: _Walk, page: int) -> None:
        """Pictures drawn in the paragraph (inline or floating): each image part a `w:drawing` embeds, with its
        alt text (the drawing's description, else its title) as the figure's own words."""
        for drawing in (d for d in paragraph._p.iter(qn("w:drawing")) if _shown(d, paragraph._p)):
            blip = next(drawing.iter(qn("a:blip")), None)
            rel_id = blip.get(qn("r:embed")) if blip is not None else None
            part = paragraph.part.related_parts.get(rel_id) if rel_id else None
            blob = getattr(part, "blob", None)
            image = open_image(blob) if isinstance(blob, bytes) else None
            if image is None or not state.figures.admits(*image.size):
                continue
            doc_pr = next(drawing.iter(qn("wp:docPr")), None)
            alt = ((doc_pr.get("descr") or doc_pr.get("title") or "") if doc_pr is not None else "").strip()
            meta: dict[str, Any] = {"method": "docx-drawing", "image_part": str(getattr(part, "partname", ""))}
            if alt:
                meta["alt"] = alt
            state.open_list = None
            state.figures.add(builder.add(ElementKind.FIGURE, alt, page=page, meta=meta), image)

    @staticmethod
    def _table(table: Table, builder: ElementBuilder, page: int) -> None:
        rows = []
        for row in table.rows:
            rows.append(["\n".join(paragraph_text(p) for p in blocks(cell._tc) if p.tag == qn("w:p")).strip() for cell in row.cells])
        rows = [r for r in rows if any(r)]
        if not rows:
            return
        header, body = rows[0], rows[1:]
        builder.add(ElementKind.TABLE, table_markdown(header, body), page=page, meta={"method": "docx-table", **table_meta(header, body)})
