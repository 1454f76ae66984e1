"""Page layout from positioned words: lines, reading order, paragraphs and headings.

A PDF text layer is a bag of glyphs with coordinates, in whatever order the
producing program wrote them. Reading order is recovered geometrically:

1. words are grouped into line *segments*: words on one baseline, split where
   the horizontal gap is wider than a column gutter could be mistaken for a
   word space;
2. segments, tables and figures are ordered by a recursive cut: a vertical
   white stripe crossing a region means columns (read left column first);
   otherwise the region is cut into horizontal bands, and consecutive bands
   that share a gutter are put back together so a two-column stretch is read
   column by column even where both columns happen to have a blank line at the
   same height;
3. consecutive segments of one style are joined into paragraphs; a segment set
   larger than the body text, or bold and numbered, or numbered like a chapter
   (第1章, Article 3), is a heading; consecutive lines set in a monospace font
   are a code block, kept line by line with their indentation.

Everything here is pure computation on plain data, so it is tested without PDFs.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, replace
from itertools import pairwise
from typing import Any

from bunko.parse.base import BBox, union_bbox
from bunko.parse.cjk import join_words
from bunko.schema import ElementKind
from bunko.text.lazy_regex import lazy_compile
from bunko.text.lexicon import en, ja, zh
from bunko.text.scripts import is_unspaced

COLUMN_GAP = 12.0
"""Narrowest white stripe (points) read as a gutter between columns."""

_MONOSPACE = lazy_compile(r"mono|courier|typewriter|consolas|menlo|inconsolata|fixedsys|cmtt|lmtt|ocr-?[ab]\b", re.IGNORECASE)
"""Font names of fixed-width faces (LiberationMono, DejaVuSansMono, Courier, NimbusMonoPS, LaTeX's cmtt / lmtt):
how a PDF sets code, commands and configuration files."""
MONOSPACE_SHARE = 0.95
"""Share of a line's characters in a monospace font that makes it a code line; a prose line naming a file or a
command in code type stays prose."""
_BOLD = lazy_compile(r"bold|black|heavy|semibold|demi|-w[6-9]\b|w[6-9]$", re.IGNORECASE)
_NUMBERED = lazy_compile(r"^\s*(\d+(?:[.．]\d+)*)[.．)）]?\s+\S|^\s*(\d+(?:[.．]\d+)+)\S")
_CHAPTER = lazy_compile(rf"^\s*(?:{zh.NUMBERED_DIVISION}|{en.NUMBERED_DIVISION})", re.IGNORECASE)

_CHAPTER_DEPTH = {**zh.DIVISION_DEPTHS, **en.DIVISION_DEPTHS}
_CN_ENUM = lazy_compile(zh.ENUMERATION)
_BULLET = lazy_compile(r"^\s*(?:[•●○◦▪■□・‐–—\-*]|\(?\d{1,2}[).）]|[（(][0-9０-９a-z][)）]|[①-⑳])\s*\S")
_CAPTION = lazy_compile(
    rf"^\s*({en.CAPTION_WORDS}|{ja.CAPTION_WORDS}|{zh.CAPTION_WORDS})\s*[0-9０-９{zh.HAN_DIGITS}]+", re.IGNORECASE
)
_SENTENCE_END = lazy_compile(r"[。.!?！？:：;；,，、]$")


@dataclass
class Segment:
    """Words on one baseline within one column."""

    text: str
    bbox: BBox
    size: float
    bold: bool
    mono: bool = False
    raised: tuple[str, ...] = ()
    """Marks set smaller and above the line's baseline (`RAISED_SIZE`, `RAISED_RISE`): superscript footnote marks."""
    lead: str = ""
    """The raised mark that begins the line, if one does: the label of a footnote set as ³If a package…"""


@dataclass
class Block:
    """One item of the ordered page: a run of text, a table or a figure."""

    kind: str  # "text", "table", "figure"
    bbox: BBox
    segments: list[Segment] = field(default_factory=list)
    payload: Any = None


def is_bold(fontname: str) -> bool:
    return bool(_BOLD.search(fontname.split("+", 1)[-1]))


def is_monospace(fontname: str) -> bool:
    return bool(_MONOSPACE.search(fontname.split("+", 1)[-1]))


WORD_GAP = 0.15
"""A horizontal gap wider than this share of the font size separates two words.

Typeset PDFs often draw no space characters: the space is the gap (0.25 em in the Debian
Reference, 2.5 pt at 10 pt). pdfplumber's default fixed tolerance of 3 pt glued those words
into "Youcanalternativelychange…"; letter gaps inside a word stay under 0.1 em."""


MONOSPACE_WIDTH = 0.6
"""A monospace character's width in em (Courier, Liberation Mono, DejaVu Sans Mono): a gap in code is this many spaces."""
CODE_BLANK_LINES = 2.5
"""Line heights of white space that may separate two lines of one code block: its blank lines (LaTeX's verbatim
keeps them), not the paragraph gap that ends it."""
MONOSPACE_PAGE = 0.8
"""Share of a page's characters in a monospace face past which monospace is the page's body type (a text file or a
terminal session printed to PDF, an RFC), not code set apart from prose."""


def _monospace_word(word: dict[str, Any]) -> bool:
    """`is_monospace` of the word's font, read once per word: segmenting, spacing and styling a line all ask."""
    flag = word.get("monospace")
    if flag is None:
        flag = word["monospace"] = is_monospace(str(word.get("fontname", "")))
    return bool(flag)


def _both_monospace(left: dict[str, Any], right: dict[str, Any]) -> bool:
    return _monospace_word(left) and _monospace_word(right)


RAISED_SIZE = 0.85
"""A word at most this share of its line's type size may be a superscript (LaTeX sets a footnote mark at 0.7 of the
text, Word at 0.65); inline code a point smaller than the prose around it is not."""
RAISED_RISE = 0.15
"""…and its baseline this share of the line's type size above the line's: a superscript is raised a third of an em or
more, while smaller type on the line's baseline sits within a tenth."""
_MARK = lazy_compile(r"[0-9０-９⁰¹²³⁴-⁹]{1,3}|[*†‡§¶※]{1,3}")
"""What a superscript footnote mark is written with: a number, or the typesetter's symbols. Some fonts map their
footnote digits to the superscript code points (⁴, or 1⁰ for 10)."""
_DIGITS = str.maketrans("０１２３４５６７８９⁰¹²³⁴⁵⁶⁷⁸⁹", "01234567890123456789")


def is_mark_text(text: str) -> bool:
    """Whether a word is written as a footnote mark may be: a short number or the typesetter's symbols."""
    return bool(_MARK.fullmatch(text))


def mark_label(text: str) -> str:
    """A mark or a footnote label as one key: full-width and superscript digits read as ASCII ("⁴" and "４" are "4")."""
    return text.translate(_DIGITS)


def _flag_raised(line: list[dict[str, Any]]) -> None:
    """Mark the words of one line that are superscript marks (``word["raised"]``): smaller than the line's main type
    and above its baseline. pdfplumber splits a word where the size changes, so ``archive³`` arrives as two words."""
    sizes: Counter[float] = Counter()
    for word in line:
        sizes[round(float(word.get("size", 10.0)), 1)] += len(word["text"])
    main = sizes.most_common(1)[0][0]
    baseline = max(w["bottom"] for w in line if abs(round(float(w.get("size", 10.0)), 1) - main) <= 0.5)
    for word in line:
        size = float(word.get("size", 10.0))
        if size <= RAISED_SIZE * main and word["bottom"] <= baseline - RAISED_RISE * main and is_mark_text(word["text"]):
            word["raised"] = True


def _is_mark(word: dict[str, Any], marks: frozenset[str]) -> bool:
    return bool(word.get("raised")) and mark_label(word["text"]) in marks


def _line_text(words: list[dict[str, Any]], marks: frozenset[str] = frozenset()) -> str:
    """Join words where the page shows white space between them, whatever the script.

    The gap, not the script, decides: "1. 概要" keeps its space, a Japanese
    sentence split into two words by a font change gets none. A raised mark in
    `marks` (a footnote on this page carries its label) is written "[3]" and
    kept apart from the words: "archive³ and" is "archive [3] and", never
    "archive3 and"; in Japanese and Chinese "アーカイブ[3]の", without spaces.
    """
    out = f"[{mark_label(words[0]['text'])}]" if _is_mark(words[0], marks) else words[0]["text"]
    for prev, word in pairwise(words):
        text = word["text"]
        if _is_mark(word, marks):
            out += ("" if is_unspaced(out[-1]) else " ") + f"[{mark_label(text)}]"
            continue
        if _is_mark(prev, marks):
            out += ("" if is_unspaced(text[0]) or not text[0].isalnum() else " ") + text
            continue
        size = float(word.get("size", 10.0))
        gap = word["x0"] - prev["x1"]
        spaces = max(1, round(gap / (MONOSPACE_WIDTH * size))) if _both_monospace(prev, word) else 1
        out += (" " * spaces if gap > WORD_GAP * size else "") + text
    return out


def segments_from_words(words: list[dict[str, Any]], marks: frozenset[str] = frozenset()) -> list[Segment]:
    """Group words (pdfplumber dicts with text, x0, x1, top, bottom, size, fontname) into line segments; a raised
    word whose text is in `marks` is written as a footnote mark (`_line_text`)."""
    if not words:
        return []
    words = sorted(words, key=lambda w: (w["top"], w["x0"]))
    lines: list[list[dict[str, Any]]] = []
    for word in words:
        mid = (word["top"] + word["bottom"]) / 2
        for line in reversed(lines[-4:]):
            top = min(w["top"] for w in line)
            bottom = max(w["bottom"] for w in line)
            # either way round: a superscript mark sorted first (its top is the line's highest) starts a line whose
            # middle the rest of the line's words cover, though their own middles fall below the mark
            if top <= mid <= bottom or word["top"] <= (top + bottom) / 2 <= word["bottom"]:
                line.append(word)
                break
        else:
            lines.append([word])
    segments = []
    for line in lines:
        line.sort(key=lambda w: w["x0"])
        _flag_raised(line)
        run = [line[0]]
        for word in line[1:]:
            size = max(float(word.get("size", 10.0)), 1.0)
            gutter = word["x0"] - run[-1]["x1"] > max(1.5 * size, 0.9 * COLUMN_GAP)
            if gutter and not _both_monospace(run[-1], word):  # code aligns its columns with runs of spaces
                segments.append(_segment(run, marks))
                run = [word]
            else:
                run.append(word)
        segments.append(_segment(run, marks))
    return segments


def _segment(words: list[dict[str, Any]], marks: frozenset[str] = frozenset()) -> Segment:
    chars: Counter[float] = Counter()
    bold = mono = 0
    for word in words:
        n = len(word["text"])
        chars[round(float(word.get("size", 10.0)), 1)] += n
        bold += n if is_bold(str(word.get("fontname", ""))) else 0
        mono += n if _monospace_word(word) else 0
    size = chars.most_common(1)[0][0]
    total = sum(chars.values())
    bbox = union_bbox([(w["x0"], w["top"], w["x1"], w["bottom"]) for w in words])
    raised = tuple(mark_label(w["text"]) for w in words if w.get("raised"))
    lead = words[0]["text"] if words[0].get("raised") and len(words) > 1 else ""
    return Segment(_line_text(words, marks), bbox, size, bold * 2 > total, mono >= MONOSPACE_SHARE * total, raised, lead)


# --- reading order -----------------------------------------------------------------------------


def _x_gaps(blocks: list[Block], min_gap: float) -> list[float]:
    """Centres of vertical white stripes at least `min_gap` wide that no block crosses."""
    spans = sorted((b.bbox[0], b.bbox[2]) for b in blocks)
    gaps = []
    reach = spans[0][1]
    for x0, x1 in spans[1:]:
        if x0 - reach >= min_gap:
            gaps.append((x0 + reach) / 2)
        reach = max(reach, x1)
    return gaps


def _y_bands(blocks: list[Block]) -> list[list[Block]]:
    """Horizontal bands separated by white space that crosses the whole region."""
    ordered = sorted(blocks, key=lambda b: b.bbox[1])
    bands = [[ordered[0]]]
    reach = ordered[0].bbox[3]
    for block in ordered[1:]:
        # Overlap of less than a quarter of a line still separates bands (descenders, tight leading).
        tolerance = min(2.0, 0.25 * (block.bbox[3] - block.bbox[1]))
        if block.bbox[1] >= reach - tolerance:
            bands.append([block])
        else:
            bands[-1].append(block)
        reach = max(reach, block.bbox[3])
    return bands


def reading_order(blocks: list[Block], depth: int = 0) -> list[Block]:
    """Blocks in the order a person reads them: top to bottom, columns left to right."""
    if len(blocks) <= 1 or depth > 12:
        return sorted(blocks, key=lambda b: (b.bbox[1], b.bbox[0]))
    gaps = _x_gaps(blocks, COLUMN_GAP)
    if gaps:
        columns: list[list[Block]] = [[] for _ in range(len(gaps) + 1)]
        for block in blocks:
            centre = (block.bbox[0] + block.bbox[2]) / 2
            columns[sum(1 for g in gaps if centre > g)].append(block)
        return [b for column in columns for b in reading_order(column, depth + 1)]
    bands = _y_bands(blocks)
    if len(bands) == 1:
        return sorted(blocks, key=lambda b: (b.bbox[1], b.bbox[0]))
    groups: list[list[Block]] = []
    for band in bands:
        if groups and _x_gaps(groups[-1] + band, COLUMN_GAP) and (len(groups[-1]) > 1 or len(band) > 1):
            groups[-1].extend(band)
        else:
            groups.append(list(band))
    if len(groups) == 1 and len(bands) > 1 and _x_gaps(groups[0], COLUMN_GAP):
        return reading_order(groups[0], depth + 1)
    out: list[Block] = []
    for group in groups:
        if len(group) > 1 and _x_gaps(group, COLUMN_GAP):
            out.extend(reading_order(group, depth + 1))
        else:
            out.extend(sorted(group, key=lambda b: (b.bbox[1], b.bbox[0])))
    return out


# --- paragraphs and headings --------------------------------------------------------------------


def heading_depth(text: str) -> int | None:
    """Depth implied by the numbering of a heading (1.2.3 → 3, 第2節 → 2), or None if unnumbered."""
    match = _CHAPTER.match(text)
    if match:
        return _CHAPTER_DEPTH[(match.group(1) or match.group(2)).lower()]
    match = _NUMBERED.match(text)
    if match:
        number = match.group(1) or match.group(2)
        return len(re.split(r"[.．]", number))
    match = _CN_ENUM.match(text)
    if match:
        return 1 if match.group(1) else 2
    return None


def heading_level(segment: Segment, text: str, body_size: float) -> int | None:
    """Heading level of a one-style run of text, or None when it is body text.

    Size gives the outline's coarse level (a title is far larger than a section
    heading); numbering refines it within one size (1.1 under 1.), so documents
    that use one bold size for every level still nest correctly.
    """
    if len(text) > 120 or not text.strip():
        return None
    ratio = segment.size / body_size if body_size else 1.0
    depth = heading_depth(text)
    if ratio >= 1.15:
        base = 1 if ratio >= 1.6 else 2 if ratio >= 1.3 else 3
    elif (segment.bold and (depth is not None or (len(text) <= 60 and not _SENTENCE_END.search(text)))) or _starts_article(text):
        base = 4
    else:
        return None
    return base + (depth - 1 if depth else 0)


def _continues(prev: Segment, cur: Segment) -> bool:
    """Whether `cur` is the next line of the paragraph that `prev` belongs to."""
    if abs(prev.size - cur.size) > 0.6 or prev.bold != cur.bold or prev.mono != cur.mono:
        return False
    line_height = prev.bbox[3] - prev.bbox[1]
    gap = cur.bbox[1] - prev.bbox[3]
    if cur.mono:  # a blank line inside code is the code's; so is a line starting "- " or "1)"
        return -0.5 * line_height <= gap <= CODE_BLANK_LINES * line_height
    if gap < -0.5 * line_height or gap > 0.8 * line_height:
        return False
    overlaps = min(prev.bbox[2], cur.bbox[2]) - max(prev.bbox[0], cur.bbox[0]) > 0
    return overlaps and not _BULLET.match(cur.text) and not _starts_article(cur.text) and not _starts_article(prev.text)


def _starts_article(text: str) -> bool:
    """A short line such as 第3条（目的） stands alone even in body type: it heads what follows."""
    return bool(_CHAPTER.match(text)) and len(text) <= 40 and not _SENTENCE_END.search(text)




@dataclass
class TextRun:
    """A paragraph, list, caption or heading recovered from segments."""

    kind: ElementKind
    text: str
    bbox: BBox
    level: int | None = None
    segments: list[Segment] = field(default_factory=list)


def text_runs(segments: list[Segment], body_size: float) -> list[TextRun]:
    """Group ordered segments of one block-run into paragraphs, lists, captions and headings."""
    groups: list[list[Segment]] = []
    for segment in segments:
        if groups and _continues(groups[-1][-1], segment):
            groups[-1].append(segment)
        else:
            groups.append([segment])
    runs: list[TextRun] = []
    for group in groups:
        bbox = union_bbox([s.bbox for s in group])
        if group[0].mono:
            runs.append(TextRun(ElementKind.CODE, f"```\n{code_text(group)}\n```", bbox, None, group))
            continue
        text = join_words([s.text for s in group])  # a wrapped Latin line gets a space, a wrapped CJK line none
        level = heading_level(group[0], text, body_size) if len(group) <= 3 else None
        if level is not None:
            runs.append(TextRun(ElementKind.HEADING, text, bbox, level, group))
        elif _CAPTION.match(text):
            runs.append(TextRun(ElementKind.CAPTION, text, bbox, None, group))
        elif _BULLET.match(text):
            if runs and runs[-1].kind == ElementKind.LIST and cur_follows(runs[-1], bbox):
                runs[-1].text += "\n" + text
                runs[-1].bbox = union_bbox([runs[-1].bbox, bbox])
                runs[-1].segments.extend(group)
            else:
                runs.append(TextRun(ElementKind.LIST, text, bbox, None, group))
        else:
            runs.append(TextRun(ElementKind.PARAGRAPH, text, bbox, None, group))
    return runs


def code_text(lines: list[Segment]) -> str:
    """Code lines as written: each line's indentation from its distance to the block's left edge, in characters of
    the monospace face (0.6 em wide), so a nested configuration block or a shell loop keeps its shape."""
    left = min(s.bbox[0] for s in lines)

    def indented(line: Segment) -> str:
        return " " * round((line.bbox[0] - left) / (MONOSPACE_WIDTH * line.size)) + line.text

    out = [indented(lines[0])]
    for previous, line in pairwise(lines):
        out += [""] * round((line.bbox[1] - previous.bbox[3]) / (1.2 * (previous.bbox[3] - previous.bbox[1])))
        out.append(indented(line))
    return "\n".join(out)


def monospace_body(segments: list[Segment]) -> list[Segment]:
    """The page's segments, none of them code when monospace is the page's body type (`MONOSPACE_PAGE`): a printed
    text file read as one code block per page would lose its paragraphs and headings."""
    total = sum(len(s.text) for s in segments)
    if not total or sum(len(s.text) for s in segments if s.mono) < MONOSPACE_PAGE * total:
        return segments
    return [replace(s, mono=False) for s in segments]


def cur_follows(prev: TextRun, bbox: BBox) -> bool:
    """A list item directly below the previous one (same column) continues that list."""
    line_height = prev.segments[-1].bbox[3] - prev.segments[-1].bbox[1]
    return 0 <= bbox[1] - prev.bbox[3] <= 1.5 * line_height and abs(bbox[0] - prev.bbox[0]) < 3 * line_height


def is_caption(text: str) -> bool:
    return bool(_CAPTION.match(text))
