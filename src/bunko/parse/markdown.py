"""Markdown through markdown-it-py: headings give section paths; tables, code and lists stay whole."""

from __future__ import annotations

import re
from functools import cache
from importlib.metadata import version
from pathlib import Path
from typing import Any

import yaml
from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.front_matter import front_matter_plugin

from bunko.errors import DocumentError
from bunko.parse.base import ElementBuilder, title_from
from bunko.parse.encoding import decode, encoding_meta
from bunko.parse.limits import current as current_limits
from bunko.parse.limits import over_limit, too_deep
from bunko.parse.tables import table_markdown, table_meta
from bunko.schema import ElementKind, ErrorCode, ParsedDocument
from bunko.text.lazy_regex import lazy_compile

_BREAK_TAG = lazy_compile(r"<br\s*/?>", re.IGNORECASE)


def html_text(fragment: str) -> str:
    """What raw HTML in Markdown shows: its text, line by line, without tags or comments (`<!-- draft -->` is not
    shown, so it is not indexed nor quoted). BeautifulSoup is imported here: the registry imports this module for
    every `bunko search`, which must not pay for it."""
    from bs4 import BeautifulSoup, Comment

    soup = BeautifulSoup(fragment, "html.parser")
    for hidden in soup.find_all(string=lambda node: isinstance(node, Comment)):
        hidden.extract()
    for tag in soup.find_all(["script", "style", "template"]):
        tag.decompose()
    lines = (" ".join(line.split()) for line in soup.get_text("\n").splitlines())
    return "\n".join(line for line in lines if line)


_TAG_NAME = lazy_compile(r"</?([A-Za-z][\w-]*)")


def _inline_html(content: str) -> str:
    """What an inline tag shows: <br> breaks the line, an HTML element's tag and a comment show nothing, and a tag that
    names no HTML element (<SYS>, <system>, <assistant>) is text the page shows as written — kept, so that it is
    indexed as it reads and the injection check sees a chat-template token such as <<SYS>> (`text/injection.py`)."""
    if _BREAK_TAG.fullmatch(content.strip()):
        return "\n"
    name = _TAG_NAME.match(content)
    return content if name is not None and name.group(1).lower() not in _html_elements() else ""


@cache
def _html_elements() -> frozenset[str]:
    """HTML's element names (lxml's list, loaded on first use: the registry imports this module for every search)."""
    from lxml.html import defs

    return frozenset(defs.tags)


def _inline_text(token: Token) -> str:
    parts: list[str] = []
    for child in token.children or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type == "html_inline":
            parts.append(_inline_html(child.content))
        elif child.type in ("softbreak", "hardbreak"):
            parts.append("\n")
        elif child.type == "image":
            parts.append(child.content or str(child.attrs.get("alt", "")))
    return "".join(parts).strip()


def _front_matter(content: str, source: str) -> tuple[dict[str, Any], str | None]:
    """The front matter's fields, or none and a warning saying why they were ignored.

    Malformed YAML, or YAML that is not key: value pairs, does not cost the document its body: it is indexed
    without fields and the warning is kept in ``meta["warnings"]`` (the ingest report shows it). A front
    matter that expands past ``ingest.max_front_matter_values`` (YAML aliases counted as often as they are
    used: the "billion laughs") or refers to itself fails the document with TOO_COMPLEX before it is built.
    """
    try:
        node = yaml.compose(content, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at front matter line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or type(exc).__name__
        return {}, f"front matter ignored: not valid YAML ({problem}{where})"
    except RecursionError:
        raise too_deep(source, "the YAML front matter") from None
    if node is None:
        return {}, None
    _check_expanded_size(node, source)
    try:
        data = yaml.SafeLoader("").construct_document(node)
    except yaml.YAMLError as exc:
        return {}, f"front matter ignored: {getattr(exc, 'problem', None) or exc}"
    except (ValueError, IndexError, AttributeError, TypeError) as exc:  # PyYAML's own constructors: "date: 2024-04-00"
        return {}, f"front matter ignored: a value YAML cannot build ({type(exc).__name__}: {exc})".splitlines()[0]
    if not isinstance(data, dict):
        return {}, f"front matter ignored: a YAML {type(data).__name__}, not key: value pairs"
    return {str(k): v for k, v in data.items()}, None


def _check_expanded_size(root: yaml.Node, source: str) -> None:
    """Count the values the front matter becomes, each alias as often as it is used, without building it."""
    cap = current_limits().max_front_matter_values
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()  # on the current path: meeting one again is a loop
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, leaving = stack.pop()
        children: list[yaml.Node] = []
        if isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        elif isinstance(node, yaml.MappingNode):
            children = [part for pair in node.value for part in pair]
        if leaving:
            open_nodes.discard(id(node))
            sizes[id(node)] = size = 1 + sum(sizes[id(c)] for c in children)
            if size > cap:
                raise over_limit(ErrorCode.TOO_COMPLEX, source, "values in the YAML front matter (aliases expanded)",
                                 size, "max_front_matter_values", at_least=True)
            continue
        if id(node) in sizes:
            continue
        if id(node) in open_nodes:
            raise DocumentError(ErrorCode.TOO_COMPLEX, f"{source}: the YAML front matter contains itself (an alias loop)")
        open_nodes.add(id(node))
        stack.append((node, True))
        stack.extend((child, False) for child in children)


class MarkdownParser:
    name = "markdown"
    version = version("markdown-it-py")
    mimes = ("text/markdown",)

    def __init__(self) -> None:
        self._md = MarkdownIt("commonmark").enable("table").use(front_matter_plugin)

    def __getstate__(self) -> dict[str, Any]:
        return {}  # pickled for the parse worker: the markdown-it instance is rebuilt there

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__()  # type: ignore[misc]

    def parse(self, path: Path, source: str, mime: str) -> ParsedDocument:
        decoded = decode(path.read_bytes(), source)
        return self.parse_text(decoded.text, source, meta=encoding_meta(decoded))

    def parse_text(self, text: str, source: str, meta: dict[str, Any] | None = None) -> ParsedDocument:
        lines = text.splitlines()
        tokens = self._md.parse(text)
        builder = ElementBuilder(source)
        fields: dict[str, Any] = {}
        warning: str | None = None
        i = 0
        while i < len(tokens):
            token = tokens[i]
            end = self._block_end(tokens, i)
            line_meta = {"lines": [token.map[0] + 1, token.map[1]]} if token.map else {}
            if token.type == "front_matter":
                fields, warning = _front_matter(token.content, source)
            elif token.type == "heading_open":
                builder.heading(int(token.tag[1:]), _inline_text(tokens[i + 1]), meta=line_meta)
            elif token.type == "paragraph_open":
                builder.add(ElementKind.PARAGRAPH, _inline_text(tokens[i + 1]), meta=line_meta)
            elif token.type in ("fence", "code_block"):
                lang = token.info.strip()
                code = token.content.rstrip("\n")
                builder.add(ElementKind.CODE, f"```{lang}\n{code}\n```", meta={**line_meta, "language": lang})
            elif token.type == "table_open":
                header, rows = self._table_cells(tokens[i:end])
                builder.add(ElementKind.TABLE, table_markdown(header, rows), meta={**line_meta, **table_meta(header, rows)})
            elif token.type in ("bullet_list_open", "ordered_list_open", "blockquote_open") and token.map:
                kind = ElementKind.PARAGRAPH if token.type == "blockquote_open" else ElementKind.LIST
                body = "\n".join(lines[token.map[0] : token.map[1]]).strip()
                builder.add(kind, body, meta=line_meta)
            elif token.type == "html_block" and (shown := html_text(token.content)):
                builder.add(ElementKind.PARAGRAPH, shown, meta={**line_meta, "html": True})
            i = end
        elements = [e for e in builder.elements if e.text.strip()]
        for element in elements:
            element.meta.setdefault("method", "markdown")
        title = str(fields.get("title") or title_from(elements, Path(source).stem))
        doc_meta = {**(meta or {}), "fields": fields} if fields else dict(meta or {})
        if warning:
            doc_meta["warnings"] = [*doc_meta.get("warnings", []), warning]
        return ParsedDocument(
            doc_id="", source=source, title=title, mime="text/markdown", parser=f"{self.name}/{self.version}",
            elements=elements, meta=doc_meta,
        )

    @staticmethod
    def _block_end(tokens: list[Token], start: int) -> int:
        """Index after the block that starts at `start` (its matching close token)."""
        if tokens[start].nesting != 1:
            return start + 1
        depth = 0
        for j in range(start, len(tokens)):
            depth += tokens[j].nesting
            if depth == 0:
                return j + 1
        return len(tokens)

    @staticmethod
    def _table_cells(tokens: list[Token]) -> tuple[list[str], list[list[str]]]:
        header: list[str] = []
        rows: list[list[str]] = []
        in_head = False
        current: list[str] = []
        for j, token in enumerate(tokens):
            if token.type == "thead_open":
                in_head = True
            elif token.type == "thead_close":
                in_head = False
            elif token.type == "tr_open":
                current = []
            elif token.type == "tr_close":
                if in_head:
                    header = current
                else:
                    rows.append(current)
            elif token.type == "inline":
                current.append(_inline_text(tokens[j]))
        return header, rows
