"""The PDF outline (bookmarks) as the author's own section tree, and contents pages told apart from text.

Headings recovered from font sizes and numbering guess at the structure; the
outline states it. When a PDF has one, a heading whose text is an outline
entry's title (numbering aside) on that entry's page takes the entry's level,
and what only looked like a heading (a bold "Note", a table's column label, a
"Chapter 1" line above the chapter title) is demoted: it would otherwise
become a level of `section_path` and push the real sections below it.

A contents page lists every section title beside a page number: indexed as
text it outranks the sections themselves for any question that names one.
The outline already holds what it says, so such pages are recorded in the
document's meta and not emitted.

Pure computation on plain data, tested without PDFs.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from bunko.parse.pdf_layout import Segment, TextRun, heading_depth
from bunko.schema import ElementKind
from bunko.text.lazy_regex import lazy_compile
from bunko.text.lexicon import en, zh

_NUMBERING = lazy_compile(
    rf"^\s*(?:{en.OUTLINE_NUMBER}|{zh.OUTLINE_DIVISION}"
    rf"|\d+(?:[.．]\d+)*[.．]?|[a-z][.．]\d+(?:[.．]\d+)*[.．]?|{zh.OUTLINE_ENUMERATION})\s*",
    re.IGNORECASE,
)
_LABEL_ONLY = lazy_compile(rf"^\s*(?:{en.DIVISION_LABEL}|{zh.DIVISION_LABEL})\s*[.:]?\s*$", re.IGNORECASE)
_LEADER = lazy_compile(r"(?:\s*[.·・…]){4,}\s*\d*\s*$")
PAGE_SLACK = 1
"""An entry's destination may be the page before its heading (it points at the top of the break)."""
MIN_LEADERS = 5
"""Dot-leader lines a page needs before it is read as a table of contents."""


def title_key(text: str, *, numbered: bool = True) -> str:
    """A heading and its outline entry compare by this: width and case folded, spaces, quotes and punctuation
    dropped, and (``numbered``) the leading numbering, which outlines often leave out."""
    text = unicodedata.normalize("NFKC", text).casefold()
    if numbered:
        text = _NUMBERING.sub("", text, count=1)
    return re.sub(r"[\W_]+", "", text)


@dataclass(frozen=True)
class OutlineEntry:
    level: int
    """1 for a top-level entry, as heading levels count."""
    title: str
    page: int | None
    """1-based page number of the entry's destination, None when it points nowhere."""


@dataclass
class Outline:
    entries: list[OutlineEntry]
    _by_key: dict[str, list[int]] = field(default_factory=dict, init=False)
    _used: set[int] = field(default_factory=set, init=False)

    def __post_init__(self) -> None:
        for index, entry in enumerate(self.entries):
            # A title that starts with a number of its own ("1 段目: UEFI") is found with it too.
            for key in dict.fromkeys((title_key(entry.title), title_key(entry.title, numbered=False))):
                if key:
                    self._by_key.setdefault(key, []).append(index)

    def __bool__(self) -> bool:
        return bool(self.entries)

    @property
    def depth(self) -> int:
        return max((e.level for e in self.entries), default=0)

    @property
    def matched(self) -> int:
        return len(self._used)

    def match(self, text: str, page: int) -> OutlineEntry | None:
        """The unused entry titled `text` whose destination is this page (or the one before), if any."""
        for index in self._by_key.get(title_key(text), []):
            entry = self.entries[index]
            if index in self._used or (entry.page is not None and not 0 <= page - entry.page <= PAGE_SLACK):
                continue
            self._used.add(index)
            return entry
        return None

    def place(self, run: TextRun, page: int, body_size: float) -> TextRun:
        """`run` with the level the outline gives it: an entry's level, deeper than all of them, or no heading."""
        if len(run.text) <= 160 and len(run.segments) <= 3:
            entry = self.match(run.text, page)
            if entry is not None:
                return TextRun(ElementKind.HEADING, run.text, run.bbox, entry.level, run.segments)
        if run.kind != ElementKind.HEADING:
            return run
        first = run.segments[0] if run.segments else None
        larger = first is not None and body_size > 0 and first.size / body_size >= 1.15
        if _LABEL_ONLY.match(run.text) or not (larger or heading_depth(run.text) is not None):
            return TextRun(ElementKind.PARAGRAPH, run.text, run.bbox, None, run.segments)
        return TextRun(ElementKind.HEADING, run.text, run.bbox, self.depth + (run.level or 1), run.segments)


def read_outline(document: Any) -> Outline:
    """The bookmarks of a pypdfium2 document; an empty outline when it has none or they cannot be read."""
    entries: list[OutlineEntry] = []
    try:
        for bookmark in document.get_toc():
            title = (bookmark.get_title() or "").strip()
            if not title:
                continue
            dest = bookmark.get_dest()
            index = dest.get_index() if dest is not None else None
            entries.append(OutlineEntry(bookmark.level + 1, title, None if index is None else index + 1))
    except Exception:  # a damaged outline costs the document its bookmarks, never its text
        return Outline([])
    return Outline(entries)


def is_contents_page(segments: list[Segment]) -> bool:
    """Whether a page is a table of contents (or a list of tables or figures): many dot-leader lines."""
    leaders = sum(1 for s in segments if _LEADER.search(s.text))
    return leaders >= MIN_LEADERS and leaders * 3 >= len(segments)
