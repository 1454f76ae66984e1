"""HTML through BeautifulSoup (lxml): the page's main content as headings, paragraphs, lists, tables.

Navigation, headers, footers, scripts and forms are dropped before anything
is read, because a search hit in a site menu cites nothing useful. A sidebar
(<aside>, role="complementary", class "sidebar") is dropped only when it is
mostly links: a manual's sidebars are its NOTE, TIP and POLICY boxes, prose
that is often the only place a fact is written. A list made of links (a table
of contents, "Prev / Up / Next") is navigation wherever it stands: its text is
other pages' titles, which would make this page a hit for them.
When the page marks its content (<main>, <article>, role="main") only that is
read. Links keep their text in place (the reader's words) and their targets
in meta["links"]. The walker is shared with the mail parser for HTML bodies.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path
from typing import Any

from bs4 import BeautifulSoup, NavigableString, Tag, XMLParsedAsHTMLWarning

from bunko.parse.base import ElementBuilder, dist_version
from bunko.parse.encoding import Decoded, decode, encoding_meta, has_bom, utf16_by_zeros
from bunko.parse.figures import is_caption, is_figure_caption
from bunko.parse.html_switches import resolve_switches
from bunko.parse.limits import current as current_limits
from bunko.parse.limits import over_limit
from bunko.parse.tables import table_markdown, table_meta
from bunko.schema import ElementKind, ErrorCode, ParsedDocument
from bunko.text.lazy_regex import lazy_compile
from bunko.text.scripts import is_unspaced

_DROP_TAGS = ("script", "style", "noscript", "template", "nav", "form", "iframe", "svg", "button", "select", "input", "head", "rt", "rp")
"""…and a ruby's reading (<rt>, <rp>): 東京<rt>とうきょう</rt> is the word 東京, not 東京(とうきょう)."""
_DROP_ROLES = {"navigation", "banner", "contentinfo", "search"}
_DROP_NAMES = lazy_compile(
    r"(?:^|[\s_-])(nav|navbar|navheader|navfooter|navigation|topnav|bottomnav|subnav|docnav|menu|footer|breadcrumbs?"
    r"|cookie|advert|ads|social|share|skip-link)(?:$|[\s_-])",
    re.IGNORECASE,
)
"""Class or id names of page furniture, whole words of the name: DocBook's "navheader" / "navfooter" tables of
Prev / Home / Next (their text is the next chapter's title), publican's "docnav", Javadoc's "topNav"."""
_ASIDE_NAMES = lazy_compile(r"(?:^|[\s_-])(sidebar|aside)(?:$|[\s_-])", re.IGNORECASE)
LINK_SHARE = 0.5
"""An aside whose text is at least this share link text is navigation (a site's menu, "related pages"), as
readability tools judge it; below it, the aside is the document's own prose."""
_CALLOUT_NAMES = lazy_compile(
    r"(?:^|[\s_-])(note|tip|hint|warning|caution|important|attention|danger|admonition|callout)(?:$|[\s_-])", re.IGNORECASE,
)
"""A box of the text (DocBook's and Sphinx's admonitions): a table inside one lays the box out, it holds no data."""
LINK_LIST_SHARE = 0.8
"""A list whose text is at least this share link text, over two links or more, is a table of contents or a
"Prev / Next" bar; a list of references that says something of each link stays."""
_LISTS = ("ul", "ol", "dl")
_BLOCKS = {"p", "div", "section", "article", "main", "header", "footer", "ul", "ol", "dl", "table", "pre", "blockquote",
           "figure", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "br", "li", "body", "html", "center", "details", "summary", "address"}
_META_CHARSET = lazy_compile(rb"<meta[^>]+charset=[\"']?([A-Za-z0-9_.:-]+)", re.IGNORECASE)


_SOURCE_BREAK = lazy_compile(r"[ \t\r\f\v]*\n\s*")


def _source_whitespace(text: str) -> str:
    """A line break in the HTML source is a space, as a browser shows it; between two CJK characters it is nothing.

    Translated manuals wrap their paragraphs in the source ("…の / 設定ファイル"); kept as
    line breaks, they cut sentences, quotes and commands in two. Only <br> breaks a line.
    """
    def join(match: re.Match[str]) -> str:
        before, after = text[match.start() - 1: match.start()], text[match.end(): match.end() + 1]
        return "" if is_unspaced(before) and is_unspaced(after) else " "

    return _SOURCE_BREAK.sub(join, text)


def _space(text: str) -> str:
    return re.sub(r"[ \t\r\f\v]*\n[ \t\r\f\v]*", "\n", re.sub(r"[ \t\r\f\v]+", " ", text)).strip()


def decode_html(data: bytes, source: str) -> Decoded:
    """A byte-order mark or UTF-16 without one first; then UTF-8; then the page's own <meta charset>; then detection."""
    if has_bom(data) or (b"\x00" in data[:4096] and utf16_by_zeros(data) is not None):
        return decode(data, source)
    try:
        return Decoded(data.decode("utf-8"), "utf-8")
    except UnicodeDecodeError:
        pass
    match = _META_CHARSET.search(data[:4096])
    if match:
        name = match.group(1).decode("ascii", "replace")
        try:
            return Decoded(data.decode(name), name)
        except (LookupError, UnicodeDecodeError):
            pass
    return decode(data, source)


def _names(tag: Tag) -> str:
    return " ".join([*tag.get_attribute_list("class"), str(tag.get("id") or "")])


def _permalink(tag: Tag) -> bool:
    """A link to its own place drawn as a symbol ("¶", "#", "§", "🔗"): Sphinx, MkDocs and Docusaurus put one in every
    heading and definition, where it would end the heading's text and every section path under it."""
    if tag.name != "a" or not str(tag.get("href") or "").startswith("#"):
        return False
    text = tag.get_text(strip=True).replace("\u200b", "")
    return len(text) <= 1 and not text.isalnum()


def _junk(tag: Tag) -> bool:
    if tag.name in _DROP_TAGS or _permalink(tag):
        return True
    if (tag.get("role") or "") in _DROP_ROLES:
        return True
    if (tag.has_attr("hidden") or tag.get("aria-hidden") == "true") and tag.get("role") != "tabpanel":
        return True  # a tab panel is hidden only until its tab is chosen: the page holds its text
    names = _names(tag)
    return bool(names and _DROP_NAMES.search(names))


def _aside(tag: Tag) -> bool:
    """A sidebar: <aside>, role="complementary", or a class or id naming one (DocBook writes <div class="sidebar">)."""
    return tag.name == "aside" or tag.get("role") == "complementary" or bool(_ASIDE_NAMES.search(_names(tag)))


def _navigation(block: Tag, share: float = LINK_SHARE, min_links: int = 0) -> bool:
    """Whether a sidebar or list is page furniture: no text, or mostly the text of (at least `min_links`) links."""
    text = len(block.get_text(strip=True))
    anchors = block.find_all("a", href=True)
    links = sum(len(a.get_text(strip=True)) for a in anchors)
    return text == 0 or (len(anchors) >= min_links and links >= share * text)


def _measured(tag: Tag) -> str | None:
    """The kind of block whose links decide whether it is navigation: "aside", "list" or None."""
    if _aside(tag):
        return "aside"
    return "list" if tag.name in _LISTS else None


def _furniture(tag: Tag, kind: str | None) -> bool:
    if kind == "aside":
        return _navigation(tag)
    return kind == "list" and _navigation(tag, LINK_LIST_SHARE, min_links=2)


def layout_table(table: Tag) -> bool:
    """Whether a <table> only lays text out: role="presentation", or one or two columns inside a note, tip or warning
    box (DocBook draws its admonitions as a table of an icon, the word "Note" and the note). Its cells are read as
    paragraphs: a note is prose, not a one-row table of data."""
    if table.get("role") in ("presentation", "none"):
        return True
    box = table.parent
    if not isinstance(box, Tag) or not _CALLOUT_NAMES.search(_names(box)):
        return False
    return all(len(tr.find_all(["td", "th"], recursive=False)) <= 2 for tr in table.find_all("tr"))


def content_root(soup: BeautifulSoup, source: str = "", max_depth: int | None = None) -> Tag:
    """The page's main content with the page furniture removed, in time linear in the page at any nesting depth.

    One walk over the tree (an explicit stack, no recursion) finds the furniture to drop, the first <main>,
    role="main" and <article>, and the deepest nesting; a page nested deeper than `max_depth` (default:
    `ingest.max_depth` in force) fails with TOO_COMPLEX before anything else reads it. A second walk under the
    chosen root drops page headers and footers (an article's own header holds its title, so it stays).
    """
    limit = current_limits().max_depth if max_depth is None else max_depth
    junk: list[Tag] = []
    first: dict[str, Tag] = {}
    stack: list[tuple[Tag, int, bool]] = [(soup, 0, False)]
    while stack:
        tag, depth, measured = stack.pop()
        children = [c for c in tag.contents if isinstance(c, Tag)]
        for child in reversed(children):  # pushed reversed: popped in document order, so "first" is first
            # Inside a sidebar or list kept as content nothing is measured again: each text is measured once.
            kind = None if measured else _measured(child)
            if _junk(child) or _furniture(child, kind):
                junk.append(child)
                continue
            if depth + 1 > limit:
                raise over_limit(ErrorCode.TOO_COMPLEX, source or "the page", "HTML nesting depth", depth + 1, "max_depth", at_least=True)
            stack.append((child, depth + 1, measured or kind is not None))
        if tag is not soup:
            key = "role=main" if tag.get("role") == "main" else ""
            for name in (tag.name, key):
                if name in ("main", "article", "role=main") and name not in first:
                    first[name] = tag
    for tag in junk:
        tag.decompose()
    main = first.get("main") or first.get("role=main") or first.get("article")
    root = main if main is not None else (soup.body or soup)
    inside = any(t.name in ("article", "main") for t in root.parents if isinstance(t, Tag))
    dropped: list[Tag] = []
    walk: list[tuple[Tag, bool]] = [(root, inside or root.name in ("article", "main"))]
    while walk:
        tag, in_article = walk.pop()
        for node in tag.contents:
            if not isinstance(node, Tag):
                continue
            child = node
            if child.name == "footer" or (child.name == "header" and not in_article):
                dropped.append(child)  # its descendants go with it
            else:
                walk.append((child, in_article or child.name in ("article", "main")))
    for tag in dropped:
        tag.decompose()
    return root


class HtmlWalker:
    """Turns a content root into elements; heading levels shifted by `level_offset` (mail bodies nest under the subject)."""

    def __init__(self, builder: ElementBuilder, level_offset: int = 0, extra_meta: dict[str, Any] | None = None) -> None:
        self.builder = builder
        self.offset = level_offset
        self.extra = extra_meta or {}
        self._inline: list[str] = []
        self._links: list[dict[str, str]] = []

    def walk(self, root: Tag) -> None:
        self._children(root)
        self._flush()

    def _meta(self, **more: Any) -> dict[str, Any]:
        return {"method": "html-dom", **self.extra, **more}

    def _text(self, tag: Tag | NavigableString, links: list[dict[str, str]]) -> str:
        if isinstance(tag, NavigableString):
            return _source_whitespace(str(tag))
        if tag.name == "br":
            return "\n"
        if tag.name == "img":
            return str(tag.get("alt") or "")
        parts = [self._text(child, links) for child in tag.children
                 if isinstance(child, Tag) or (isinstance(child, NavigableString) and type(child).__name__ not in ("Comment", "Doctype"))]
        text = "".join(parts)
        if tag.name == "a" and tag.get("href") and text.strip():
            links.append({"text": _space(text), "href": str(tag["href"])})
        return text

    def _flush(self) -> None:
        text = _space("".join(self._inline))
        if text:
            meta = self._meta(links=self._links) if self._links else self._meta()
            self.builder.add(ElementKind.PARAGRAPH, text, meta=meta)
        self._inline, self._links = [], []

    def _children(self, tag: Tag) -> None:
        for child in tag.children:
            if isinstance(child, NavigableString):
                if type(child).__name__ not in ("Comment", "Doctype", "CData", "ProcessingInstruction"):
                    self._inline.append(_source_whitespace(str(child)))
            elif isinstance(child, Tag):
                if child.name in _BLOCKS:
                    self._flush()
                    self._block(child)
                else:
                    self._inline.append(self._text(child, self._links))

    def _block(self, tag: Tag) -> None:
        name = tag.name
        if name in ("h1", "h2", "h3", "h4", "h5", "h6"):
            text = _space(self._text(tag, []))
            if text:
                self.builder.heading(int(name[1]) + self.offset, text, meta=self._meta())
        elif name in ("p", "blockquote", "address", "summary"):
            links: list[dict[str, str]] = []
            text = _space(self._text(tag, links))
            if text:
                self.builder.add(ElementKind.PARAGRAPH, text, meta=self._meta(links=links) if links else self._meta())
        elif name in ("ul", "ol"):
            links = []
            text = "\n".join(self._list(tag, 0, links))
            if text.strip():
                self.builder.add(ElementKind.LIST, text, meta=self._meta(links=links) if links else self._meta())
        elif name == "dl":
            lines = []
            for item in tag.find_all(["dt", "dd"], recursive=False):
                lines.append(("" if item.name == "dt" else "  ") + _space(self._text(item, [])))
            if lines:
                self.builder.add(ElementKind.LIST, "\n".join(lines), meta=self._meta())
        elif name == "table" and layout_table(tag):
            for cell in tag.find_all(["td", "th"]):
                if cell.find_parent("table") is tag and cell.get_text(strip=True):
                    self._children(cell)
                    self._flush()
        elif name == "table":
            self._table(tag)
        elif name == "pre":
            code = tag.get_text().strip("\n")
            if code.strip():
                self.builder.add(ElementKind.CODE, f"```\n{code}\n```", meta=self._meta())
        elif name == "figure":
            caption = tag.find("figcaption")
            image = tag.find("img")
            alt = str(image.get("alt") or "") if isinstance(image, Tag) else ""
            figure = self.builder.add(ElementKind.FIGURE, alt, meta=self._meta(src=str(image.get("src") or "") if isinstance(image, Tag) else ""))
            if isinstance(caption, Tag) and _space(caption.get_text()):
                figure.meta["caption"] = _space(caption.get_text())
                self.builder.add(ElementKind.CAPTION, figure.meta["caption"], parent_id=figure.element_id, meta=self._meta())
        elif name in ("hr", "br"):
            return
        else:
            self._children(tag)
            self._flush()

    def _list(self, tag: Tag, depth: int, links: list[dict[str, str]]) -> list[str]:
        lines = []
        ordered = tag.name == "ol"
        for number, item in enumerate(tag.find_all("li", recursive=False), start=1):
            nested = item.find_all(["ul", "ol"], recursive=False)
            for sub in nested:
                sub.extract()
            marker = f"{number}." if ordered else "-"
            lines.append("  " * depth + f"{marker} {_space(self._text(item, links))}")
            for sub in nested:
                lines.extend(self._list(sub, depth + 1, links))
        return lines

    def _table(self, tag: Tag) -> None:
        rows: list[list[str]] = []
        header: list[str] | None = None
        for tr in tag.find_all("tr"):
            if tr.find_parent("table") is not tag:
                continue
            cells = tr.find_all(["th", "td"], recursive=False)
            values = []
            for cell in cells:
                text = _space(self._text(cell, [])).replace("\n", " ")
                span = str(cell.get("colspan") or "1")
                values.extend([text] * (int(span) if span.isdigit() and 0 < int(span) < 100 else 1))
            in_head = tr.find_parent("thead") is not None
            if header is None and (in_head or (cells and all(c.name == "th" for c in cells) and not rows)):
                header = values
            else:
                rows.append(values)
        if header is None and rows:
            header, rows = rows[0], rows[1:]
        if header is None:
            return
        caption = tag.find("caption")
        meta = self._meta(**table_meta(header, rows))
        if isinstance(caption, Tag) and _space(caption.get_text()):
            meta["caption"] = _space(caption.get_text())
        elif title := _caption_before(tag):
            meta["caption"] = title
        self.builder.add(ElementKind.TABLE, table_markdown(header, rows), meta=meta)


CAPTION_LEVELS = 3
"""How far up from a table its title may sit: DocBook writes `<div class="table"><p class="title">Table 6.1. …</p>
<div class="table-contents"><table>`, the title a sibling of the table's wrapper."""
CAPTION_CHARS = 200


def _caption_before(table: Tag) -> str:
    """The table's title written just before it rather than in a `<caption>`: the element right before the table
    (or before a wrapper holding nothing else before it), when it reads as a table caption ("Table 6.1. …", 表6.1)."""
    node: Tag | None = table
    for _ in range(CAPTION_LEVELS):
        if node is None:
            return ""
        previous = node.find_previous_sibling(True)
        if isinstance(previous, Tag):
            text = _space(previous.get_text())
            return text if len(text) <= CAPTION_CHARS and is_caption(text) and not is_figure_caption(text) else ""
        node = node.parent if isinstance(node.parent, Tag) else None
    return ""


class HtmlParser:
    name = "html"
    mimes = ("text/html", "application/xhtml+xml")

    def __init__(self) -> None:
        self.version = f"bs4-{dist_version('beautifulsoup4')}"

    def parse(self, path: Path, source: str, mime: str) -> ParsedDocument:
        decoded = decode_html(path.read_bytes(), source)
        return self.parse_text(decoded.text, source, encoding_meta(decoded))

    def parse_text(self, html: str, source: str, meta: dict[str, Any] | None = None) -> ParsedDocument:
        with warnings.catch_warnings():  # XHTML pages (manuals, docbook output) are read as HTML on purpose
            warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)
            soup = BeautifulSoup(html, "lxml")
        title_tag = soup.find("title")
        page_title = _space(title_tag.get_text()) if isinstance(title_tag, Tag) else ""
        builder = ElementBuilder(source)
        resolve_switches(soup)  # before hidden elements are dropped: their cases are text the page shows
        HtmlWalker(builder).walk(content_root(soup, source))
        heading = next((e.text for e in builder.elements if e.kind == ElementKind.HEADING), None)
        return ParsedDocument(
            doc_id="", source=source, title=page_title or heading or Path(source).stem, mime="text/html",
            parser=f"{self.name}/{self.version}", elements=builder.elements, meta=dict(meta or {}),
        )
