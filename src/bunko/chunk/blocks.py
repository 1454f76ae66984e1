"""Blocks: the units structure-aware strategies pack into chunks.

A block is one element, or an atomic element (table, code, equation, figure)
together with the captions beside it, so a caption never lands in another
chunk than what it names. A block too large for the budget is split the one
way that keeps it meaningful: a table by rows with its header repeated in
every part, text at sentence ends; code, equations and figures are never cut
(they become one oversized chunk, flagged).

`structure`, `parent_child` and `qa_pairs` share this module: they differ only
in where a chunk may start, not in how its pieces are made.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from bunko.chunk.base import JOIN, make_chunk
from bunko.chunk.sizing import Sizer
from bunko.parse.tables import table_markdown
from bunko.schema import ATOMIC_KINDS, Chunk, Element, ElementKind, ParsedDocument
from bunko.text.lazy_regex import lazy_compile
from bunko.text.scripts import starts_unspaced
from bunko.text.sentences import split_sentences

_MD_SEPARATOR = lazy_compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")


@dataclass
class TableRows:
    """A table as header lines and row lines, with the captions that came before and after it."""

    header: str
    rows: list[str]
    lead: list[str] = field(default_factory=list)
    tail: list[str] = field(default_factory=list)

    def render(self, rows: Sequence[str], first: bool, last: bool) -> str:
        parts = list(self.lead) if first else []
        parts.append("\n".join([self.header, *rows]))
        if last:
            parts.extend(self.tail)
        return JOIN.join(parts)


@dataclass
class Block:
    text: str
    elements: list[Element]
    atomic: bool = False
    table: TableRows | None = None
    overlap: int = 0
    """Leading characters that repeat earlier text (the header of a later table part)."""
    context: str = ""
    """Embedded with the block but not part of its text: the caption of a table part that does not show it."""
    meta: dict[str, Any] = field(default_factory=dict)


def caption_side(elements: Sequence[Element], i: int) -> int:
    """Which neighbour (-1 before, +1 after, 0 none) the caption at i belongs to."""
    caption = elements[i]
    before = elements[i - 1] if i > 0 else None
    after = elements[i + 1] if i + 1 < len(elements) else None
    if caption.parent_id:
        if after is not None and after.element_id == caption.parent_id:
            return 1
        if before is not None and before.element_id == caption.parent_id:
            return -1
        return 0
    if before is not None and before.kind == ElementKind.FIGURE:
        return -1
    if after is not None and after.kind in (ElementKind.TABLE, ElementKind.FIGURE):
        return 1
    if before is not None and before.kind == ElementKind.TABLE:
        return -1
    return 0


def group_elements(elements: Sequence[Element]) -> list[list[Element]]:
    """Elements in order, an atomic element grouped with its adjacent captions; blank elements dropped."""
    groups: list[list[Element]] = []
    owners: set[int] = set()  # indexes in `groups` that hold an atomic element
    lead: list[Element] = []
    for i, element in enumerate(elements):
        if element.kind == ElementKind.CAPTION and element.text.strip():
            side = caption_side(elements, i)
            if side == 1 and elements[i + 1].kind in ATOMIC_KINDS:
                lead.append(element)
                continue
            if side == -1 and elements[i - 1].kind in ATOMIC_KINDS and groups and (len(groups) - 1) in owners:
                groups[-1].append(element)
                continue
        if element.kind in ATOMIC_KINDS:
            if element.text.strip() or lead or _has_caption_after(elements, i):
                owners.add(len(groups))
                groups.append([*lead, element])
            lead = []
            continue
        if lead:  # a caption promised to an atomic element that did not follow: keep it as text
            groups.extend([c] for c in lead)
            lead = []
        if element.text.strip():
            groups.append([element])
    groups.extend([c] for c in lead)
    return groups


def _has_caption_after(elements: Sequence[Element], i: int) -> bool:
    return i + 1 < len(elements) and elements[i + 1].kind == ElementKind.CAPTION and caption_side(elements, i + 1) == -1


def table_rows(table: Element) -> TableRows:
    """Header and row lines: from the parser's cells when it kept them, else from the Markdown text."""
    cells = table.meta.get("cells")
    if isinstance(cells, dict) and cells.get("header") is not None and cells.get("rows"):
        lines = table_markdown(list(cells["header"]), [list(r) for r in cells["rows"]]).split("\n")
        return TableRows("\n".join(lines[:2]), lines[2:])
    lines = [line for line in table.text.strip().split("\n") if line.strip()]
    if len(lines) >= 2 and _MD_SEPARATOR.match(lines[1]):
        return TableRows("\n".join(lines[:2]), lines[2:])
    return TableRows(lines[0] if lines else "", lines[1:])


def make_block(group: list[Element]) -> Block:
    owner = next((e for e in group if e.kind in ATOMIC_KINDS), None)
    text = JOIN.join(e.text.strip() for e in group if e.text.strip())
    if owner is None:
        return Block(text, group)
    context = str(owner.meta.get("caption") or "") if not any(e.kind == ElementKind.CAPTION for e in group) else ""
    block = Block(text, group, atomic=True, context=context)
    if owner.kind == ElementKind.TABLE:
        rows = table_rows(owner)
        at = group.index(owner)
        rows.lead = [e.text.strip() for e in group[:at] if e.text.strip()]
        rows.tail = [e.text.strip() for e in group[at + 1 :] if e.text.strip()]
        block.table = rows
    return block


def blocks_of(elements: Sequence[Element]) -> list[Block]:
    return [make_block(group) for group in group_elements(elements)]


def sentence_pieces(text: str, sizer: Sizer) -> list[str]:
    """Text cut at sentence ends into pieces that fit; a sentence longer than the budget is cut hard."""
    out: list[str] = []
    buffer = ""
    for sentence in split_sentences(text):
        while not sizer.fits(sentence):
            if buffer:
                out.append(buffer)
                buffer = ""
            end = sizer.prefix_end(sentence)
            space = sentence.rfind(" ", 0, end + 1)
            if space > end // 2:  # between words rather than inside one
                end = space
            out.append(sentence[:end].rstrip())
            sentence = sentence[end:].lstrip()
        if not sentence:
            continue
        joiner = "" if not buffer or buffer[-1] in "。！？" or starts_unspaced(sentence) else " "
        candidate = buffer + joiner + sentence if buffer else sentence
        if buffer and not sizer.fits(candidate):
            out.append(buffer)
            buffer = sentence
        else:
            buffer = candidate
    if buffer:
        out.append(buffer)
    return out


def split_table(block: Block, sizer: Sizer) -> list[Block]:
    """Rows packed into parts that fit, each part starting with the header again."""
    table = block.table
    assert table is not None
    groups: list[list[str]] = []
    current: list[str] = []
    for row in table.rows:
        if current and not sizer.fits(table.render([*current, row], first=not groups, last=False)):
            groups.append(current)
            current = []
        current.append(row)
    groups.append(current)
    caption = " ".join([*table.lead, *table.tail])
    parts = []
    owner = next(e for e in block.elements if e.kind == ElementKind.TABLE)
    for i, rows in enumerate(groups):
        first, last = i == 0, i == len(groups) - 1
        text = table.render(rows, first, last)
        shows_caption = (first and table.lead) or (last and table.tail)
        part_rows = TableRows(table.header, rows, table.lead if first else [], table.tail if last else [])
        parts.append(Block(
            text, block.elements, atomic=True, table=part_rows,
            overlap=block.overlap if first else len(table.header) + 1,
            context=block.context if shows_caption or not caption else caption,
            meta={**block.meta, "table_part": i, "table_parts": len(groups), "table_element": owner.element_id,
                  **({"oversized": True} if not sizer.fits(text) else {})},
        ))
    if len(parts) > 1:
        return parts
    return [replace(block, meta={**block.meta, "oversized": True})]


def split_block(block: Block, sizer: Sizer) -> list[Block]:
    """The block itself when it fits, else its parts (see the module docstring)."""
    if sizer.fits(block.text):
        return [block]
    if block.table is not None and len(block.table.rows) > 1:
        return split_table(block, sizer)
    if block.atomic:
        return [replace(block, meta={**block.meta, "oversized": True})]
    body = block.text[block.overlap :]
    head = block.text[: block.overlap]
    pieces = sentence_pieces(body, sizer.with_chars(max(sizer.max_chars - len(head), 1)))
    return [
        Block(head + piece if i == 0 else piece, block.elements, overlap=block.overlap if i == 0 else 0,
              context=block.context, meta={**block.meta, "split_element": True})
        for i, piece in enumerate(pieces)
    ]


def split_blocks(blocks: Iterable[Block], sizer: Sizer) -> list[Block]:
    return [part for block in blocks for part in split_block(block, sizer)]


def pack(blocks: Sequence[Block], sizer: Sizer) -> list[list[Block]]:
    """Consecutive blocks joined while they fit; a block that repeats earlier text always starts a chunk."""
    chunks: list[list[Block]] = []
    current: list[Block] = []
    for block in blocks:
        if current and (block.overlap or not sizer.fits(JOIN.join([*(b.text for b in current), block.text]))):
            chunks.append(current)
            current = []
        current.append(block)
    if current:
        chunks.append(current)
    return chunks


def merged(blocks: Sequence[Block]) -> tuple[str, list[Element], dict[str, Any], str]:
    """Text, elements (in order, once), meta and embedding context of a packed chunk."""
    elements = list({id(e): e for b in blocks for e in b.elements}.values())
    meta: dict[str, Any] = {}
    for block in blocks:
        for key, value in block.meta.items():
            meta.setdefault(key, value)
    if blocks[0].overlap:
        meta["overlap"] = blocks[0].overlap
    context = " ".join(dict.fromkeys(b.context for b in blocks if b.context))
    return JOIN.join(b.text for b in blocks), elements, meta, context


def absorb_small(groups: list[list[Block]], sizer: Sizer, min_chars: int) -> list[list[Block]]:
    """A chunk shorter than ``min_chars`` joins the next one when both fit together (``[chunk] min_chars``)."""
    out: list[list[Block]] = []
    carry: list[Block] = []
    for group in groups:
        if carry:
            if not group[0].overlap and sizer.fits(JOIN.join(b.text for b in [*carry, *group])):
                group = [*carry, *group]
            else:
                out.append(carry)
            carry = []
        if len(JOIN.join(b.text for b in group)) < min_chars:
            carry = group
        else:
            out.append(group)
    if carry:
        out.append(carry)
    return out


def to_chunks(doc: ParsedDocument, groups: Iterable[Sequence[Block]], first_ordinal: int = 0, **extra: object) -> list[Chunk]:
    chunks = []
    for ordinal, group in enumerate(groups, start=first_ordinal):
        text, elements, meta, context = merged(group)
        chunks.append(make_chunk(doc, ordinal, text, elements, context=context, **{**meta, **extra}))
    return chunks
