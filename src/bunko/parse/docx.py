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

python-docx builds the whole body's XML tree before a paragraph can be read:
a 2 MB file can unpack to 250 MB of paragraphs, and a tree of 1 GB. So a
body large enough to pass `ingest.max_elements` or `ingest.max_chars` is first
streamed (`count_body`), its elements and characters counted as they go by, and
the file fails as soon as either is passed, before the tree is built.
"""

from __future__ import annotations

import posixpath
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docx import Document
from docx.opc.exceptions import PackageNotFoundError
from docx.oxml.ns import qn
from docx.oxml.parser import element_class_lookup
from docx.table import Table
from docx.text.paragraph import Paragraph
from lxml import etree

from bunko.parse.base import ElementBuilder, dist_version
from bunko.parse.figures import FigureCollector, is_figure_caption, open_image
from bunko.parse.limits import Tally, current, unreadable_package
from bunko.parse.ocr import Tesseract
from bunko.parse.tables import table_markdown, table_meta
from bunko.schema import Element, ElementKind, ParsedDocument
from bunko.text.lazy_regex import lazy_compile
from bunko.text.lexicon import en, ja, zh

MIME = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
_HEADING_STYLE = lazy_compile(rf"^(?:{en.HEADING_STYLE}|{ja.HEADING_STYLE}|{zh.HEADING_STYLE})\s*(\d)$", re.IGNORECASE)
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


_RUN = qn("w:r")
_RUN_CONTENT = frozenset(qn(tag) for tag in ("w:br", "w:cr", "w:noBreakHyphen", "w:ptab", "w:t", "w:tab"))
"""What python-docx reads a run's text from (`CT_R.text`: its children of these kinds, each as its own text)."""


def run_text(run: Any) -> str:
    """`CT_R.text` without its XPath query (the most of a large body's reading time)."""
    return "".join(str(child) for child in run.iterchildren() if child.tag in _RUN_CONTENT)


def paragraph_text(paragraph: Any) -> str:
    """The text a `w:p` shows, from each run as python-docx reads a run (tabs, breaks), in document order."""
    return "".join(run_text(run) for run in paragraph.iter(_RUN) if _shown(run, paragraph))


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


# -- counted before python-docx builds the tree -------------------------------------------------

_OFFICE_DOCUMENT_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"
_STYLES_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles"
_RELATIONSHIP = "{http://schemas.openxmlformats.org/package/2006/relationships}Relationship"
MIN_ELEMENT_BYTES = 22
"""The fewest bytes of body XML that make one element (`<p><r><t>x</t></r></p>`, its namespace the default): a body of
fewer than `max_elements` times this, and fewer bytes than `max_chars`, cannot pass either, and is not streamed first."""
_FEED_BYTES = 1 << 16
_ON = ("1", "true", "on")
_UNFOLLOWED = "\x00"
_P, _TBL, _TR, _TC, _BODY, _VAL = qn("w:p"), qn("w:tbl"), qn("w:tr"), qn("w:tc"), qn("w:body"), qn("w:val")
_P_STYLE, _P_NUMBERING = f"{qn('w:pPr')}/{qn('w:pStyle')}", f"{qn('w:pPr')}/{qn('w:numPr')}"


def _part(folder: str, target: str) -> str:
    return target.lstrip("/") if target.startswith("/") else posixpath.normpath(posixpath.join(folder, target))


def _related(archive: zipfile.ZipFile, part: str, reltype: str) -> str | None:
    """The package part `part` ("" for the package) relates to by `reltype`, as a member name."""
    folder, name = posixpath.split(part)
    try:
        root = etree.fromstring(archive.read(posixpath.join(folder, "_rels", f"{name}.rels")), etree.XMLParser(resolve_entities=False))
    except (KeyError, etree.XMLSyntaxError):
        return None
    for rel in root.iter(_RELATIONSHIP):
        if rel.get("Type") == reltype and rel.get("TargetMode") != "External" and rel.get("Target"):
            return _part(folder, str(rel.get("Target")))
    return None


@dataclass
class _StyleKinds:
    """What the paragraph styles say about a paragraph's element, as far as counting needs: whether its paragraphs may
    be list items (numbering through the style chain, or a "List…" name: they may join the list before them) or
    captions (a figure may absorb them), as python-docx resolves a paragraph's style (unknown id: the default)."""

    known: set[str] = field(default_factory=set)
    listish: set[str] = field(default_factory=set)
    captions: set[str] = field(default_factory=set)
    default: str | None = None
    unread: bool = False
    """No styles part read: python-docx's own defaults apply, so any named style may be a list's."""

    def of(self, style_id: str | None) -> str | None:
        return style_id if style_id and style_id in self.known else self.default

    def unknown(self, style_id: str | None) -> bool:
        """Whether the paragraph's style, as python-docx finds it, may be one this count does not know (of python-docx's
        own defaults, where the package has no styles part; a default style it does not follow)."""
        return (self.unread and bool(style_id)) or self.of(style_id) == _UNFOLLOWED

    def may_be_list(self, style_id: str | None) -> bool:
        return self.of(style_id) in self.listish

    def is_caption(self, style_id: str | None) -> bool:
        return self.of(style_id) in self.captions


def _style_kinds(archive: zipfile.ZipFile, document_part: str) -> _StyleKinds:
    kinds = _StyleKinds()
    styles_part = _related(archive, document_part, _STYLES_REL)
    try:
        root = etree.fromstring(archive.read(styles_part), etree.XMLParser(resolve_entities=False)) if styles_part else None
    except (KeyError, etree.XMLSyntaxError):
        root = None
    if root is None:
        kinds.unread = True
        return kinds
    based_on: dict[str, str] = {}
    numbered: set[str] = set()
    seen: set[str] = set()
    for style in root.iterchildren(qn("w:style")):
        style_id = style.get(qn("w:styleId"))
        paragraph_style = style.get(qn("w:type")) == "paragraph"  # no type: python-docx takes it for none of its kind
        if paragraph_style and str(style.get(qn("w:default"), "0")).lower() in _ON:
            # python-docx takes the last default, and the first style of an id otherwise: a default that is not the
            # first of its id (or has none) is one this count does not follow
            kinds.default = style_id if style_id is not None and style_id not in seen else _UNFOLLOWED
        if style_id is None or style_id in seen:
            continue
        seen.add(style_id)
        base = style.find(qn("w:basedOn"))
        if base is not None and base.get(_VAL):
            based_on[style_id] = str(base.get(_VAL))
        if style.find(_P_NUMBERING) is not None:
            numbered.add(style_id)
        if not paragraph_style:
            continue
        kinds.known.add(style_id)
        name_node = style.find(qn("w:name"))
        name = str(name_node.get(_VAL, "")).strip().lower() if name_node is not None else ""
        if name.startswith("list"):
            kinds.listish.add(style_id)
        if name == "caption":
            kinds.captions.add(style_id)
    for style_id in kinds.known:
        step: str | None = style_id
        for _ in range(64):  # a basedOn loop ends here
            if step is None:
                break
            if step in numbered:
                kinds.listish.add(style_id)
                break
            step = based_on.get(step)
    return kinds


@dataclass
class _Count:
    """The running count of a body being streamed: `reset` when the parser is sure to have no list open (the next
    list item starts an element of its own), and whether the top-level table being read has shown text yet."""

    tally: Tally
    styles: _StyleKinds
    reset: bool = True
    table_text: bool = False


def _count_paragraph(p: Any, count: _Count) -> None:
    """A body paragraph as `DocxParser._paragraph` will take it, counted at most as what it surely adds: a list item
    only when no list can be open before it, a caption's text but not the element."""
    text = paragraph_text(p).strip()
    if not text:
        return
    style = p.find(_P_STYLE)
    style_id = style.get(_VAL) if style is not None else None
    if count.styles.is_caption(style_id) or is_figure_caption(text):
        count.tally.add(len(text), 0)  # a caption or a heading: no list stays open after it
        count.reset = True
    elif count.styles.unknown(style_id):
        count.tally.add(len(text), 0)  # a caption, a list item or a paragraph: its text, and no more
        count.reset = False
    elif p.find(_P_NUMBERING) is not None or count.styles.may_be_list(style_id):
        count.tally.add(len(text), 1 if count.reset else 0)
        count.reset = False
    else:
        count.tally.add(len(text))  # a paragraph or a heading
        count.reset = True


def _count_row(tr: Any, count: _Count) -> None:
    """A row of a top-level table: the text of each cell python-docx shows (not a vertical merge's continuation)."""
    for tc in tr.iterchildren(_TC):
        props = tc.find(qn("w:tcPr"))
        merge = props.find(qn("w:vMerge")) if props is not None else None
        span = props.find(qn("w:gridSpan")) if props is not None else None
        spans = str(span.get(_VAL, "1")) if span is not None else "1"
        if (merge is not None and merge.get(_VAL, "continue") == "continue") or not spans.isdigit() or int(spans) < 1:
            continue  # shown as the cell above, or not at all
        text = "\n".join(paragraph_text(p) for p in blocks(tc) if p.tag == _P).strip()
        if text:
            count.tally.add(len(text), 0)
            count.table_text = True


def _in_body(element: Any, body: Any) -> bool:
    """Whether `element` is a block of `body` (`blocks(body)` finds it: content controls and custom XML opened)."""
    parent = element.getparent()
    while parent is not None and parent.tag in _CONTAINERS:
        parent = parent.getparent()
    return parent is not None and parent is body


def count_body(path: Path, source: str) -> Tally | None:
    """Stream the body's XML and count its elements and characters, as the parser will make them at the least; raise
    `LimitExceeded` as soon as either passes its limit. Only a body large enough to pass one is streamed (None
    otherwise, or when the package cannot be read this way: python-docx then reports it as it finds it)."""
    limits = current()
    try:
        with zipfile.ZipFile(path) as archive:
            part = _related(archive, "", _OFFICE_DOCUMENT_REL)
            if part is None:
                return None
            info = archive.getinfo(part)
            if info.file_size <= min(limits.max_elements * MIN_ELEMENT_BYTES, limits.max_chars):
                return None
            count = _Count(Tally(source, limits), _style_kinds(archive, part))
            with archive.open(info) as stream:
                _stream_body(stream, count)
            return count.tally
    except (KeyError, zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, RuntimeError, NotImplementedError, etree.XMLSyntaxError):
        return None


def _stream_body(stream: Any, count: _Count) -> None:
    """Feed the XML to a pull parser (python-docx's element classes, so a paragraph's text is read as the parser reads
    it), take each block of the first body as it ends, and drop it."""
    parser = etree.XMLPullParser(events=("end",), tag=(_BODY, _P, _TBL, _TR), remove_blank_text=True, resolve_entities=False)
    parser.set_element_class_lookup(element_class_lookup)
    body = None
    while chunk := stream.read(_FEED_BYTES):
        parser.feed(chunk)
        for _, element in parser.read_events():
            if body is None:
                body = element.getroottree().getroot().find(_BODY)  # the first body: python-docx reads no other
                if body is None:
                    continue
            if element is body:
                return
            if element.tag == _P and _in_body(element, body):
                _count_paragraph(element, count)
            elif element.tag == _TR and _in_body(element.getparent(), body):
                _count_row(element, count)
            elif element.tag == _TBL and _in_body(element, body):
                if count.table_text:
                    count.tally.add(0)
                count.table_text, count.reset = False, True
            else:
                continue
            element.clear()
            element.getparent().remove(element)


class DocxParser:
    name = "docx"
    mimes = (MIME,)

    def __init__(self, ocr: Tesseract | None = None) -> None:
        self.ocr = ocr
        self.version = f"python-docx-{dist_version('python-docx')}"

    def parse(self, path: Path, source: str, mime: str) -> ParsedDocument:
        count_body(path, source)  # a body past max_elements or max_chars fails here, before its tree is built
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
                builder.set_text(current.element, current.element.text + "\n" + line)
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
