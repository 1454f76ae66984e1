"""A document's tables as data: one logical table per table the reader sees, with typed columns and cell provenance.

Parsers emit tables as elements whose ``meta["cells"]`` holds a header and rows. What a reader calls one
table is often several elements (an xlsx region cut into parts of 100 rows; a PDF table continued on the next
page, with its header repeated or without one), and what a reader calls the header is often two rows (a merged
"2024" above "Q3" and "Q4"). This module turns the elements of one document into `LogicalTable`s: parts joined,
multi-row headers flattened ("2024 / Q3"), each column typed from its cells (`text/numbers.py`), total rows
marked (a sum never adds a "合計" row to the rows it totals), and every row keeping where it came from — the
chunk, the page or sheet, the row number — so that an answer can cite the cells it used.

CSV files come in as records (one element per row with ``meta["fields"]``); their records are one table.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher

from bunko.schema import Element, ElementKind
from bunko.text.lazy_regex import lazy_compile
from bunko.text.lexicon import en, ja, zh
from bunko.text.numbers import CURRENCY, DATE, NUMBER, NUMERIC_KINDS, Quantity, normalize, parse_quantity

TEXT = "text"
TYPED_SHARE = 0.8
"""A column is numeric (or dates) when at least this share of its non-empty cells parse as one kind."""
HEADER_JOIN = " / "
_TOTAL = lazy_compile(rf"^\s*(?:{en.TOTAL_ROW}|{ja.TOTAL_ROW}|{zh.TOTAL_ROW})\s*$", re.IGNORECASE)
"""Matched whole, so the order of the labels is free."""


@dataclass
class TableColumn:
    name: str
    kind: str = TEXT
    """text | number | percent | currency | date"""
    unit: str = ""

    @property
    def numeric(self) -> bool:
        return self.kind in NUMERIC_KINDS or self.kind == DATE


@dataclass
class TableRow:
    cells: list[str]
    values: list[float | None]
    """Each cell's parsed value in a typed column; None in a text column or when the cell does not parse."""
    chunk_id: str
    row_number: int
    """The row as the source numbers it: the spreadsheet's row, else the data row's place in the table (1 = first)."""
    page: int | None = None
    total: bool = False
    """A row that totals the others ("合計", "Total"): shown and cited in lookups, never added into an aggregate."""


@dataclass
class LogicalTable:
    table_id: str
    doc_id: str
    source: str
    title: str
    """The caption, else the sheet and the section it sits under."""
    section_path: list[str]
    sheet: str | None
    columns: list[TableColumn]
    rows: list[TableRow] = field(default_factory=list)
    element_ids: list[str] = field(default_factory=list)

    @property
    def pages(self) -> list[int]:
        return sorted({r.page for r in self.rows if r.page is not None})

    def where(self, row: TableRow) -> str:
        """Where a row sits, as a citation names it: the sheet, else the page."""
        if self.sheet:
            return f"sheet {self.sheet}"
        return f"p.{row.page}" if row.page is not None else ""


@dataclass
class _Part:
    element: Element
    header: list[str]
    rows: list[list[str]]
    row_numbers: list[int] | None
    row_pages: list[int | None]
    row_chunks: list[str]


def _width(header: list[str], rows: list[list[str]]) -> int:
    return max([len(header), *(len(r) for r in rows)])


def _pad(row: list[str], width: int) -> list[str]:
    return [str(c if c is not None else "").strip() for c in row] + [""] * (width - len(row))


def _row_line(row: list[str]) -> str:
    """A row as `parse/tables.table_markdown` writes it, to find the chunk whose text holds it."""
    return "| " + " | ".join(str(c).replace("|", "\\|").replace("\n", " ").strip() for c in row) + " |"


def _row_chunks(rows: list[list[str]], holders: Sequence[tuple[str, str]]) -> list[str]:
    """The chunk of each row: the first holder (searchable chunks first) whose text has the row's line; for a row cut
    between two chunks (a row longer than a chunk), the holder with most of its cells' text; else the first holder of
    the element (a table kept whole in one chunk)."""
    fallback = holders[0][0] if holders else ""
    return [next((cid for cid, text in holders if _row_line(row) in text), None) or _most_of_row(row, holders, fallback)
            for row in rows]


MIN_ROW_PIECE = 12
"""Characters of a row's line a chunk must hold to be taken for the row's chunk: more than a separator and a short
cell ("| 12 | 3 |"), which any chunk of the table may hold by chance."""


def _most_of_row(row: list[str], holders: Sequence[tuple[str, str]], fallback: str) -> str:
    """The holder that holds the longest piece of the row's line (the first of equals), or `fallback` when none holds
    a piece of a cell's length: where a reader finds the row when it is cited. Rare (a row cut between chunks), so
    the quadratic longest common substring is affordable."""
    line = _row_line(row)
    pieces = [(SequenceMatcher(None, text, line, autojunk=False).find_longest_match(0, len(text), 0, len(line)).size, cid)
              for cid, text in holders]
    best = max(pieces, key=lambda piece: piece[0], default=(0, fallback))
    return best[1] if best[0] >= MIN_ROW_PIECE else fallback


def _part(element: Element, holders: Sequence[tuple[str, str]]) -> _Part | None:
    cells = element.meta.get("cells")
    if not isinstance(cells, Mapping):
        return None
    header = [str(c) for c in cells.get("header") or []]
    rows = [[str(c) for c in row] for row in cells.get("rows") or []]
    width = _width(header, rows)
    if width == 0:
        return None
    numbers = element.meta.get("row_numbers")
    pages = element.meta.get("row_pages")
    row_pages: list[int | None] = list(pages) if isinstance(pages, list) and len(pages) == len(rows) else [element.page] * len(rows)
    return _Part(element, _pad(header, width), [_pad(r, width) for r in rows],
                 list(numbers) if isinstance(numbers, list) and len(numbers) == len(rows) else None, row_pages,
                 _row_chunks(rows, holders))


def _looks_like_data(row: list[str]) -> bool:
    """A "header" with numbers in it is the first data row of a continuation that lost its header."""
    filled = [c for c in row if c]
    return bool(filled) and sum(parse_quantity(c) is not None for c in filled) >= max(1, len(filled) // 2)


def _continues(previous: _Part, part: _Part) -> bool:
    """The same table going on: a later part of a cut spreadsheet region, or a table of the same width on the next
    page whose header repeats the previous one's or is no header at all (a page break cut it). Only a page break
    cuts a table: two tables of a web page or a Word file with the same header (a manual's package
    lists, one per section) stay two."""
    before, after = previous.element.meta, part.element.meta
    if before.get("sheet") is not None or after.get("sheet") is not None:
        return before.get("sheet") == after.get("sheet") and before.get("range") == after.get("range")
    if len(part.header) != len(previous.header):
        return False
    last = next((p for p in reversed(previous.row_pages) if p is not None), previous.element.page)
    if last is None or part.element.page is None or part.element.page != last + 1:
        return False
    if part.header == previous.header:
        return True
    return _looks_like_data(part.header) and not _looks_like_data(previous.header)


def _header_rows(header: list[str], rows: list[list[str]]) -> int:
    """How many leading body rows belong to the header: rows without numbers above columns that are numeric below,
    under a header whose cells repeat (a merged cell spread over the columns it spans)."""
    if not rows:
        return 0
    taken = 0
    above = header
    while taken < min(2, len(rows) - 1):
        row = rows[taken]
        repeats = len({c for c in above if c}) < len([c for c in above if c])
        below = rows[taken + 1:]
        numeric_below = [i for i in range(len(row)) if sum(parse_quantity(r[i]) is not None for r in below if r[i]) > len(below) / 2]
        if not repeats or not numeric_below or any(parse_quantity(row[i]) is not None for i in numeric_below if row[i]):
            break
        if not all(row[i] for i in numeric_below):
            break
        taken += 1
        above = row
    return taken


def flatten_header(lines: list[list[str]]) -> list[str]:
    """Header rows as one name per column: "2024" merged over "Q3" and "Q4" gives "2024 / Q3", "2024 / Q4"; a cell
    merged down over two rows ("Region" above "Region") is named once."""
    names = []
    for column in zip(*lines, strict=True):
        parts: list[str] = []
        for cell in column:
            if cell and (not parts or parts[-1] != cell):
                parts.append(cell)
        names.append(HEADER_JOIN.join(parts))
    return names


def _unique(names: list[str]) -> list[str]:
    seen: Counter[str] = Counter()
    out = []
    for i, name in enumerate(names):
        name = name or f"column {i + 1}"
        seen[name] += 1
        out.append(name if seen[name] == 1 else f"{name} ({seen[name]})")
    return out


def type_column(cells: list[str]) -> tuple[str, str, list[float | None]]:
    """A column's kind and unit from its cells, and each cell's value in it."""
    parsed: list[Quantity | None] = [parse_quantity(c) if c else None for c in cells]
    filled = [q for c, q in zip(cells, parsed, strict=True) if c]
    kinds = Counter(q.kind for q in filled if q is not None)
    if not filled or not kinds:
        return TEXT, "", [None] * len(cells)
    numeric = sum(n for k, n in kinds.items() if k in NUMERIC_KINDS)
    dates = kinds.get(DATE, 0)
    if dates >= TYPED_SHARE * len(filled):
        return DATE, "", [q.value if q is not None and q.kind == DATE else None for q in parsed]
    if numeric < TYPED_SHARE * len(filled):
        return TEXT, "", [None] * len(cells)
    kind = max((k for k in kinds if k in NUMERIC_KINDS), key=lambda k: kinds[k])
    units = Counter(q.unit for q in filled if q is not None and q.kind in NUMERIC_KINDS and q.unit)
    unit = units.most_common(1)[0][0] if units else ""
    return kind, unit, [q.value if q is not None and q.kind in NUMERIC_KINDS else None for q in parsed]


def _currency_code(unit: str) -> str:
    """"円" → JPY, "元" → CNY, "USD" → USD: a header's currency, for the cells that do not write it."""
    found = parse_quantity(f"1{unit}") if unit else None
    return found.unit if found is not None and found.kind == "currency" else ""


def _column_unit_from_name(name: str) -> str:
    """A unit the header states for its column: "Area (km²)", "売上（千円）", "价格(元)"."""
    match = re.search(r"[(（\[]([^()（）\[\]]{1,12})[)）\]]\s*$", normalize(name))
    return match.group(1).strip() if match else ""


_HEADER_SCALE = lazy_compile(rf"^(?:({zh.HEADER_SCALES})|({en.HEADER_SCALES})\b)\s*(.*)$", re.IGNORECASE)
_SCALES = {**zh.HEADER_SCALE_VALUES, **en.HEADER_SCALE_VALUES}


def header_scale(unit: str) -> tuple[float, str]:
    """The multiplier a header's unit states and the unit left: "千円" → (1000, "円"), "万人" → (10000, "人"),
    "thousands" → (1000, ""): a cell "13,960" under "人口（千人）" is 13,960,000 people."""
    match = _HEADER_SCALE.match(unit.strip())
    if not match:
        return 1.0, unit
    word = (match.group(1) or match.group(2)).lower()
    return _SCALES[word], match.group(3).strip()


def _build(doc_id: str, source: str, parts: list[_Part], ordinal: int) -> LogicalTable:
    first = parts[0]
    header = first.header
    body: list[tuple[list[str], int, int | None, str]] = []
    for n, part in enumerate(parts):
        lines_of_part = part.rows
        if n > 0 and part.header != header and _looks_like_data(part.header):
            lines_of_part = [part.header, *lines_of_part]  # a continuation without a header: its first line is data
            numbers: list[int] = [(part.row_numbers[0] - 1) if part.row_numbers else 0] + (part.row_numbers or [])
            pages = [part.element.page, *part.row_pages]
            chunks = [part.row_chunks[0] if part.row_chunks else "", *part.row_chunks]
        else:
            numbers = part.row_numbers or []
            pages = part.row_pages
            chunks = part.row_chunks
        for i, row in enumerate(lines_of_part):
            number = numbers[i] if i < len(numbers) and numbers else 0
            body.append((row, number, pages[i] if i < len(pages) else part.element.page, chunks[i] if i < len(chunks) else ""))
    lines = [r for r, *_ in body]
    extra = _header_rows(header, lines)
    names = _unique(flatten_header([header, *lines[:extra]]))
    body = body[extra:]
    width = len(names)
    columns = []
    values_by_column = []
    for i in range(width):
        cells = [row[i] if i < len(row) else "" for row, *_ in body]
        kind, unit, values = type_column(cells)
        if kind in NUMERIC_KINDS:
            scale, stated = header_scale(_column_unit_from_name(names[i]))
            if scale != 1.0:
                values = [v * scale if v is not None else None for v in values]
            currency = _currency_code(stated)
            if currency and kind == NUMBER:
                kind = CURRENCY
            unit = unit or currency or stated
        columns.append(TableColumn(names[i], kind, unit))
        values_by_column.append(values)
    rows: list[TableRow] = []
    for index, (cells, number, page, chunk_id) in enumerate(body):
        label = next((c for c, col in zip(cells, columns, strict=False) if c and not col.numeric), "")
        rows.append(TableRow(
            cells=cells[:width] + [""] * (width - len(cells)), values=[values_by_column[i][index] for i in range(width)],
            chunk_id=chunk_id, row_number=number or index + 1, page=page, total=bool(_TOTAL.match(normalize(label))) if label else False,
        ))
    meta = first.element.meta
    sheet = meta.get("sheet")
    caption = str(meta.get("caption") or "").strip()
    section = [s for s in first.element.section_path if s]
    title = caption or " > ".join(([str(sheet)] if sheet and (not section or section[-1] != sheet) else []) + section[-2:]) or source
    table_id = hashlib.sha1(f"{doc_id}:{ordinal}:{first.element.element_id}".encode()).hexdigest()[:16]
    return LogicalTable(table_id, doc_id, source, title, section, str(sheet) if sheet else None, columns, rows,
                        [p.element.element_id for p in parts])


def _csv_table(records: list[Element], holders: Mapping[str, Sequence[tuple[str, str]]]) -> _Part | None:
    names: list[str] = []
    for element in records:
        for name in element.meta.get("fields") or {}:
            if name not in names:
                names.append(str(name))
    rows = [[str((e.meta.get("fields") or {}).get(n, "")) for n in names] for e in records]
    if not names or not rows:
        return None
    first = records[0]
    element = Element(first.element_id, ElementKind.TABLE, "", None, first.section_path, meta={"method": "csv"})
    return _Part(element, names, rows, [int(e.meta.get("row") or i + 1) for i, e in enumerate(records)], [None] * len(rows),
                 [next(iter(holders.get(e.element_id) or [("", "")]))[0] for e in records])


def document_tables(
    doc_id: str, source: str, elements: list[Element], holders: Mapping[str, Sequence[tuple[str, str]]],
) -> list[LogicalTable]:
    """The logical tables of one document, in reading order. `holders` maps an element id to the chunks holding it
    (chunk id and text, searchable chunks first): a row's provenance is the chunk whose text holds the row."""
    groups: list[list[_Part]] = []
    for element in elements:
        if element.kind != ElementKind.TABLE:
            continue
        part = _part(element, holders.get(element.element_id, ()))
        if part is None or (not part.rows and not groups):
            continue
        if groups and _continues(groups[-1][-1], part):
            groups[-1].append(part)
        elif part.rows or _looks_like_data(part.header):
            groups.append([part])
    tables = [_build(doc_id, source, group, n) for n, group in enumerate(groups)]
    records = [e for e in elements if e.kind == ElementKind.RECORD and e.meta.get("method") == "csv"]
    csv_part = _csv_table(records, holders) if records else None
    if csv_part is not None:
        tables.append(_build(doc_id, source, [csv_part], len(tables)))
    return [t for t in tables if t.rows]
