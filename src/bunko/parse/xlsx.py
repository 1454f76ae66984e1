"""Excel (.xlsx) through openpyxl: every sheet, every contiguous table, formulas with their cached values.

A sheet often holds several tables side by side or one under another, with a
title cell above. Non-empty cells (merged ranges counted as filled, with the
top-left value repeated, as a reader sees them) are grouped into connected
regions; a region of two or more rows is a table whose first row is the
header, a lone cell or line is a paragraph.

The workbook is opened twice: once for formulas, once for the values Excel
cached when it last saved. A cell shows its cached value formatted with its
number format (1,234), and meta["formulas"] keeps the formula beside it
(=SUM(B2:B9)) with the cell reference, so "what is the total" and "how is the
total computed" can both be answered. Long tables are cut into parts of
ROWS_PER_PART rows, each repeating the header, so no element is unboundedly large.
"""

from __future__ import annotations

import datetime as dt
import re
import zipfile
from pathlib import Path
from typing import Any

from openpyxl import load_workbook
from openpyxl.utils import get_column_letter
from openpyxl.utils.exceptions import InvalidFileException

from bunko.parse.base import ElementBuilder, dist_version
from bunko.parse.limits import unreadable_package
from bunko.parse.tables import table_markdown, table_meta
from bunko.schema import ElementKind, ParsedDocument
from bunko.text.lazy_regex import lazy_compile

MIME = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
ROWS_PER_PART = 100
_DECIMALS = lazy_compile(r"0\.(0+)")


def display(value: Any, number_format: str = "General") -> str:
    """A cell value as Excel shows it, for the common number formats (thousands, decimals, percent, dates)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, dt.datetime):
        return value.date().isoformat() if value.time() == dt.time() else value.isoformat(sep=" ", timespec="minutes")
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, int | float):
        fmt = (number_format or "General").split(";")[0]
        decimals_match = _DECIMALS.search(fmt)
        decimals = len(decimals_match.group(1)) if decimals_match else 0
        if "%" in fmt:
            return f"{value * 100:.{decimals}f}%"
        if "#,##0" in fmt:
            return f"{value:,.{decimals}f}"
        if decimals_match:
            return f"{value:.{decimals}f}"
        if isinstance(value, float) and value.is_integer():
            return str(int(value))
        return str(value)
    return str(value).strip()


def _formula_text(value: Any) -> str | None:
    if isinstance(value, str) and value.startswith("="):
        return value
    text = getattr(value, "text", None)  # ArrayFormula
    return f"={text.lstrip('=')}" if isinstance(text, str) else None


def _regions(filled: set[tuple[int, int]]) -> list[tuple[int, int, int, int]]:
    """Bounding boxes (min_row, min_col, max_row, max_col) of 4-connected groups of filled cells."""
    seen: set[tuple[int, int]] = set()
    boxes = []
    for start in sorted(filled):
        if start in seen:
            continue
        stack = [start]
        seen.add(start)
        rows, cols = [start[0]], [start[1]]
        while stack:
            r, c = stack.pop()
            for nxt in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                if nxt in filled and nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
                    rows.append(nxt[0])
                    cols.append(nxt[1])
        boxes.append((min(rows), min(cols), max(rows), max(cols)))
    return _merge_overlapping(boxes)


def _merge_overlapping(boxes: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """Two groups whose boxes overlap (a ragged table) are one table."""
    merged = True
    while merged:
        merged = False
        for i in range(len(boxes)):
            for j in range(i + 1, len(boxes)):
                a, b = boxes[i], boxes[j]
                if a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]:
                    boxes[i] = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))
                    del boxes[j]
                    merged = True
                    break
            if merged:
                break
    return sorted(boxes)


class XlsxParser:
    name = "xlsx"
    mimes = (MIME,)

    def __init__(self) -> None:
        self.version = f"openpyxl-{dist_version('openpyxl')}"

    def parse(self, path: Path, source: str, mime: str) -> ParsedDocument:
        try:
            formulas = load_workbook(path, data_only=False)
            values = load_workbook(path, data_only=True)
        except (InvalidFileException, zipfile.BadZipFile, KeyError, ValueError, OSError, EOFError) as exc:
            raise unreadable_package(source, "Excel workbook", exc) from None
        builder = ElementBuilder(source)
        sheets = []
        for index, ws in enumerate(formulas.worksheets, start=1):
            if not hasattr(ws, "iter_rows"):
                continue
            sheets.append(ws.title)
            self._sheet(ws, values[ws.title], index, builder)
        title = (formulas.properties.title or "").strip() or Path(source).stem
        return ParsedDocument(
            doc_id="", source=source, title=title, mime=MIME, parser=f"{self.name}/{self.version}",
            elements=builder.elements, meta={"sheets": sheets},
        )

    def _sheet(self, ws: Any, cached: Any, index: int, builder: ElementBuilder) -> None:
        builder.heading(1, ws.title, page=index, meta={"method": "xlsx-sheet", "sheet": ws.title, "hidden": ws.sheet_state != "visible"})
        merged_from: dict[tuple[int, int], tuple[int, int]] = {}
        for rng in ws.merged_cells.ranges:
            for r in range(rng.min_row, rng.max_row + 1):
                for c in range(rng.min_col, rng.max_col + 1):
                    merged_from[(r, c)] = (rng.min_row, rng.min_col)
        filled = {
            (cell.row, cell.column) for row in ws.iter_rows() for cell in row
            if cell.value is not None and str(cell.value).strip()
        }
        for (r, c), origin in merged_from.items():
            if origin in filled:
                filled.add((r, c))

        def shown(r: int, c: int) -> tuple[str, dict[str, Any] | None]:
            origin = merged_from.get((r, c), (r, c))
            cell = ws.cell(*origin)
            formula = _formula_text(cell.value)
            value = cached.cell(*origin).value if formula else cell.value
            text = display(value, cell.number_format)
            if formula is None:
                return text, None
            ref = f"{get_column_letter(origin[1])}{origin[0]}"
            return (text or formula), {"cell": ref, "formula": formula, "value": _json_safe(value), "display": text}

        for box in _regions(filled):
            self._region(ws.title, index, box, shown, merged_from, builder)

    @staticmethod
    def _region(sheet: str, index: int, box: tuple[int, int, int, int], shown: Any, merged_from: dict, builder: ElementBuilder) -> None:
        min_row, min_col, max_row, max_col = box
        grid: list[list[str]] = []
        formulas: list[dict[str, Any]] = []
        for r in range(min_row, max_row + 1):
            line = []
            for c in range(min_col, max_col + 1):
                text, formula = shown(r, c)
                line.append(text)
                if formula and (r, c) == merged_from.get((r, c), (r, c)):
                    formulas.append(formula)
            grid.append(line)
        ref = f"{get_column_letter(min_col)}{min_row}:{get_column_letter(max_col)}{max_row}"
        columns = [get_column_letter(c) for c in range(min_col, max_col + 1)]
        base = {"sheet": sheet, "range": ref, "columns": columns}
        merged = sorted({f"{get_column_letter(o[1])}{o[0]}" for (r, c), o in merged_from.items() if min_row <= r <= max_row and min_col <= c <= max_col})
        if merged:
            base["merged_origins"] = merged
        if len(grid) == 1:
            text = " | ".join(t for t in grid[0] if t)
            builder.add(ElementKind.PARAGRAPH, text, page=index, meta={"method": "xlsx-cells", **base, **({"formulas": formulas} if formulas else {})})
            return
        header, body = grid[0], grid[1:]
        for part, start in enumerate(range(0, len(body), ROWS_PER_PART)):
            rows = body[start : start + ROWS_PER_PART]
            first_row = min_row + 1 + start
            row_numbers = list(range(first_row, first_row + len(rows)))
            part_formulas = [f for f in formulas if _row_of(f["cell"]) in row_numbers or (start == 0 and _row_of(f["cell"]) == min_row)]
            meta = {"method": "xlsx-cells", **base, **table_meta(header, rows), "header_row": min_row, "row_numbers": row_numbers}
            if part_formulas:
                meta["formulas"] = part_formulas
            if len(body) > ROWS_PER_PART:
                meta["part"] = part + 1
            builder.add(ElementKind.TABLE, table_markdown(header, rows), page=index, meta=meta)


def _json_safe(value: Any) -> Any:
    """Cached values go into meta, which the store writes as JSON: dates become ISO strings."""
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return str(value)


def _row_of(ref: str) -> int:
    return int(re.sub(r"^[A-Z]+", "", ref))
