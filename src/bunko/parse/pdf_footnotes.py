"""Footnotes at the foot of a PDF page: found, cut from the page's body and tied to their marks.

A text layer has no notion of a footnote: read in page order, a note's text sits between the last line of a page
and the first of the next, in the middle of the paragraph that runs over the break, and its label is glued to its
first word ("3If a package…"). A footnote area is recognised by how every typesetter sets it:

- its lines are the last of the page (running feet below them aside), in type smaller than the body
  (`FOOTNOTE_SIZE`);
- its first line begins with a label: a raised mark, or a number or symbol set against the first word;
- and either a short rule stands above it (LaTeX's and Word's separator: shorter than `RULE_WIDTH` of the page,
  starting where the notes start), or its first label is a raised mark in the body above. Small print at the foot
  of a page without either (a legal line, a table's source) stays body text.

Further notes start where a line begins with a raised label or with the next number; other lines continue the note
before. Lines below the rule before any label continue the previous page's last note (LaTeX splits a long note).

Finding is pure computation on `Segment`s and rule boxes; `parse/pdf.py` makes the elements, and `to_section_ends`
moves them once the document is read.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field
from typing import Any

from bunko.parse.base import BBox, union_bbox
from bunko.parse.cjk import join_words
from bunko.parse.pdf_layout import Segment, is_mark_text, mark_label
from bunko.schema import Element, ElementKind
from bunko.text.lazy_regex import lazy_compile

NOTE_METHOD = "pdf-footnote"
"""`Element.meta["method"]` of a footnote read from a PDF page's foot."""

FOOTNOTE_SIZE = 0.9
"""A footnote line's type is at most this share of the document's body size (LaTeX: 8 pt under 10 pt, Word 10 under
12, dblatex 8 under 10)."""
RULE_WIDTH = (0.08, 0.5)
"""A footnote separator is a horizontal rule this share of the page wide: LaTeX draws 0.4 of the text width, Word
two inches; a full-width rule is a table's edge or a running foot's line."""
RULE_REACH = 3.0
"""The first note starts within this many body sizes below the separator."""
LINE_GAP = 2.0
"""Line heights of white space that may separate two lines of the footnote area; a wider gap above a line at the
page's foot is the running foot."""
_LABEL = lazy_compile(r"^([0-9０-９⁰¹²³⁴-⁹]{1,3}|[*†‡§¶※]{1,3})\s?(?=[^\W\d_⁰¹²³⁴-⁹])")
"""A label set against (or a space before) the note's first word: "1The document…", "2 You can…", "*Only…"."""


@dataclass
class Footnote:
    """One note: its label as printed ("3", "*") and its text without the label."""

    label: str
    text: str
    bbox: BBox
    segments: list[Segment] = field(default_factory=list)


@dataclass
class FootnoteArea:
    """The page's footnote area: its notes and the lines before the first label (the previous page's last note
    continued)."""

    notes: list[Footnote]
    continued: list[Segment]

    @property
    def segments(self) -> list[Segment]:
        """Every line the area takes from the page's body."""
        return self.continued + [s for note in self.notes for s in note.segments]


NOTE_DESTINATION = "footnote"
"""Part of the name hyperref gives the target of every footnote mark's link (Hfootnote.3): LaTeX, dblatex and pandoc
PDFs link each mark there, even one set at body size on the baseline."""


@dataclass(frozen=True)
class Link:
    """A link on the page to a place in the document: a named destination, or (`top`) a point lower on this page."""

    box: BBox
    name: str = ""
    top: float | None = None


def note_links(links: list[Link], page_height: float) -> list[BBox]:
    """The boxes of the links that lead to a footnote: to a destination named like hyperref's, or to a point on the
    same page below the link and in the page's lower half (a producer that writes destinations out)."""
    return [
        link.box for link in links
        if NOTE_DESTINATION in link.name.lower() or (link.top is not None and link.top >= max(link.box[3], page_height / 2))
    ]


def split_linked_marks(words: list[dict[str, Any]], boxes: list[BBox]) -> list[dict[str, Any]]:
    """The words (extracted with their ``chars``) with every run of characters a footnote link covers made a word of
    its own, flagged as a mark (``raised``, as `pdf_layout` flags a superscript) when it is written like one.

    dblatex sets "…getting outdated. 1" at body size on the baseline, so the word extractor glues the mark to the
    punctuation beside it (").3", ".⁸"); the link to Hfootnote.3 covers exactly the mark."""
    out: list[dict[str, Any]] = []
    for word in words:
        chars = word.pop("chars", None) or []
        inside = [any(b[0] <= (c["x0"] + c["x1"]) / 2 <= b[2] and b[1] <= (c["top"] + c["bottom"]) / 2 <= b[3] for b in boxes) for c in chars]
        if not any(inside):
            out.append(word)
            continue
        start = 0
        for end in range(1, len(chars) + 1):
            if end < len(chars) and inside[end] == inside[start]:
                continue
            run = chars[start:end]
            text = "".join(c["text"] for c in run)
            piece = {**word, "text": text, "x0": min(c["x0"] for c in run), "x1": max(c["x1"] for c in run),
                     "top": min(c["top"] for c in run), "bottom": max(c["bottom"] for c in run)}
            if inside[start] and is_mark_text(text):
                piece["raised"] = True
            out.append(piece)
            start = end
    return out


def _number(label: str) -> int | None:
    return int(label) if label.isascii() and label.isdigit() else None


def _label(segment: Segment, previous: Footnote | None) -> tuple[str, str] | None:
    """(label, rest of the line) when `segment` starts a note: a raised mark first, or a label set against the first
    word that is the first on the page, the next number or a symbol."""
    if segment.lead:
        return mark_label(segment.lead), segment.text[len(segment.lead):].lstrip()
    match = _LABEL.match(segment.text)
    if match is None:
        return None
    label = mark_label(match.group(1))
    number = _number(label)
    if previous is not None and number is not None:
        before = _number(previous.label)
        if before is None or number != before + 1:
            return None
    return label, segment.text[match.end():]


def _separator(area: list[Segment], rules: list[BBox], width: float, body_size: float) -> int | None:
    """Index in `area` of the first line under a separator rule that stands among or just above the area's lines,
    starting near the left edge of the lines under it; None without one. Small lines above the rule (a code block
    in smaller type) are not notes."""
    for x0, top, x1, bottom in rules:
        if not RULE_WIDTH[0] * width <= x1 - x0 <= RULE_WIDTH[1] * width or bottom - top > 2.0:
            continue
        below = next((i for i, s in enumerate(area) if s.bbox[1] >= bottom), None)
        if below is None or area[below].bbox[1] - bottom > RULE_REACH * body_size:
            continue
        if abs(x0 - min(s.bbox[0] for s in area[below:])) <= 2 * body_size:
            return below
    return None


def _foot_run(ordered: list[Segment], body_size: float, foot: float) -> tuple[int, int] | None:
    """Slice of `ordered` (segments by top) holding the run of small-type lines that ends the page, or None when
    the page ends in body type. Lines in the bottom margin (below `foot`) set apart by a wide gap are the running
    foot and the page number, and are passed over."""
    end = len(ordered)
    while end > 1:
        last = ordered[end - 1]
        above = max(s.bbox[3] for s in ordered[: end - 1])
        height = max(last.bbox[3] - last.bbox[1], 1.0)
        if last.bbox[1] >= foot and (above > last.bbox[1] or last.bbox[1] - above > LINE_GAP * height):
            end -= 1  # a foot line (or one beside it on its baseline)
            continue
        break
    start = end
    while start > 0 and ordered[start - 1].size <= FOOTNOTE_SIZE * body_size:
        start -= 1
    return (start, end) if start < end else None


def find_footnotes(
    segments: list[Segment], rules: list[BBox], body_size: float, page_width: float, foot: float,
    continues: bool = False,
) -> FootnoteArea | None:
    """The page's footnote area, or None.

    `rules`: the page's horizontal rules outside tables (boxes from the top-left); `page_width`: the page's width;
    `foot`: where its bottom margin begins. `continues`: the previous page ended in a footnote, so lines under a
    separator before any label are its continuation.
    """
    if not segments:
        return None
    ordered = sorted(segments, key=lambda s: (s.bbox[1], s.bbox[0]))
    run = _foot_run(ordered, body_size, foot)
    if run is None:
        return None
    under = _separator(ordered[run[0] : run[1]], rules, page_width, body_size)
    start = run[0] + (under or 0)
    body, area = ordered[:start], ordered[start : run[1]]
    ruled = under is not None
    notes: list[Footnote] = []
    continued: list[Segment] = []
    for segment in area:
        labelled = _label(segment, notes[-1] if notes else None)
        if labelled is not None:
            label, rest = labelled
            notes.append(Footnote(label, rest, segment.bbox, [segment]))
        elif notes:
            note = notes[-1]
            note.text = join_words([note.text, segment.text])
            note.bbox = union_bbox([note.bbox, segment.bbox])
            note.segments.append(segment)
        else:
            continued.append(segment)
    if not ruled:
        marks = {mark for s in body for mark in s.raised}
        if not notes or continued or notes[0].label not in marks:
            return None
    elif not continues:
        continued = []  # small lines under the rule that continue nothing stay the page's text
    if not notes and not continued:
        return None
    return FootnoteArea(notes, continued)


def to_section_ends(elements: list[Element]) -> list[Element]:
    """The elements with each footnote moved to the end of its section: just before the first heading after the
    element that carries its mark (or, without one, after the note itself), else to the end of the document.

    Left where the page put it, a note stands between the last line of a page and the first of the next, splitting
    the paragraph that runs over the break; at its section's end it is still read with the section and cited with
    its own page."""
    notes = [e for e in elements if e.kind == ElementKind.FOOTNOTE and e.meta.get("method") == NOTE_METHOD]
    if not notes:
        return elements
    moved = {id(e) for e in notes}
    index = {e.element_id: i for i, e in enumerate(elements)}
    rest: list[Element] = []
    kept_up_to: list[int] = []  # per element: how many of the kept elements come before it or are it
    for element in elements:
        if id(element) not in moved:
            rest.append(element)
        kept_up_to.append(len(rest))
    headings = [i for i, e in enumerate(rest) if e.kind == ElementKind.HEADING]
    at: dict[int, list[Element]] = {}
    for note in notes:
        anchor = index.get(note.parent_id or "", index[note.element_id])
        slot = headings[bisect_left(headings, kept_up_to[anchor])] if headings and headings[-1] >= kept_up_to[anchor] else len(rest)
        at.setdefault(slot, []).append(note)
    out: list[Element] = []
    for i, element in enumerate(rest):
        out.extend(at.get(i, []))
        out.append(element)
    out.extend(at.get(len(rest), []))
    return out
