"""Excel workbooks generated with XlsxWriter (which stores cached formula values, as Excel does)."""

from __future__ import annotations

from pathlib import Path

import openpyxl
import pytest
from officegen import OFFICE, make_xlsx

from bunko.errors import DocumentError
from bunko.parse.xlsx import ROWS_PER_PART, XlsxParser, display
from bunko.schema import ErrorCode

LANGS = ("en", "ja", "zh")


@pytest.mark.parametrize("lang", LANGS)
def test_every_sheet_and_every_contiguous_table_with_its_header_row(tmp_path: Path, lang: str) -> None:
    o = OFFICE[lang]
    doc = XlsxParser().parse(make_xlsx(tmp_path / f"b-{lang}.xlsx", lang), "b.xlsx", "")
    got = [(e.page, e.kind, e.section_path, e.meta.get("range")) for e in doc.elements]
    assert got == [
        (1, "heading", [o.sheet], None),
        (1, "paragraph", [o.sheet], "A1:A1"),
        (1, "table", [o.sheet], "A3:C7"),
        (1, "table", [o.sheet], "F4:F5"),
        (2, "heading", ["Rates"], None),
        (2, "table", ["Rates"], "A1:B3"),
    ]
    assert doc.meta["sheets"] == [o.sheet, "Rates"]
    assert doc.elements[1].text == o.title
    budget = doc.elements[2]
    (a, q1a, q2a), (b, q1b, q2b) = o.items
    assert budget.meta["cells"] == {
        "header": ["", o.sheet, o.sheet],
        "rows": [["", "Q1", "Q2"], [a, f"{q1a:,}", f"{q2a:,}"], [b, f"{q1b:,}", f"{q2b:,}"], [o.total, "2,000", "500"]],
    }
    assert budget.meta["header_row"] == 3 and budget.meta["row_numbers"] == [4, 5, 6, 7]
    assert doc.elements[5].meta["cells"] == {"header": ["Code", "Rate"], "rows": [["JPY", "1"], ["USD", "150.5"]]}


def test_formula_and_its_cached_value_are_both_kept_with_the_cell_reference(tmp_path: Path) -> None:
    doc = XlsxParser().parse(make_xlsx(tmp_path / "f.xlsx", "en"), "f.xlsx", "")
    budget = doc.elements[2]
    assert budget.meta["formulas"] == [
        {"cell": "B7", "formula": "=SUM(B5:B6)", "value": 2000, "display": "2,000"},
        {"cell": "C7", "formula": "=SUM(C5:C6)", "value": 500, "display": "500"},
    ]
    assert "| Total | 2,000 | 500 |" in budget.text


def test_merged_cells_repeat_their_value_and_are_recorded(tmp_path: Path) -> None:
    doc = XlsxParser().parse(make_xlsx(tmp_path / "m.xlsx", "en"), "m.xlsx", "")
    assert doc.elements[2].meta["merged_origins"] == ["B3"]
    assert doc.elements[2].text.splitlines()[0] == "|  | Budget | Budget |"


def test_formula_without_a_cached_value_shows_the_formula(tmp_path: Path) -> None:
    """openpyxl saves no cached values: the formula is all there is, and it must not vanish."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Calc"
    ws.append(["Item", "Amount"])
    ws.append(["a", 1])
    ws.append(["sum", "=SUM(B2:B2)"])
    path = tmp_path / "nocache.xlsx"
    wb.save(path)
    table = XlsxParser().parse(path, "nocache.xlsx", "").elements[1]
    assert table.meta["cells"]["rows"][-1] == ["sum", "=SUM(B2:B2)"]
    assert table.meta["formulas"] == [{"cell": "B3", "formula": "=SUM(B2:B2)", "value": None, "display": ""}]


def test_long_table_is_cut_into_parts_that_repeat_the_header(tmp_path: Path) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["id", "name"])
    for i in range(ROWS_PER_PART + 5):
        ws.append([i, f"n{i}"])
    path = tmp_path / "long.xlsx"
    wb.save(path)
    parts = [e for e in XlsxParser().parse(path, "long.xlsx", "").elements if e.kind == "table"]
    assert [p.meta["part"] for p in parts] == [1, 2]
    assert all(p.meta["cells"]["header"] == ["id", "name"] for p in parts)
    assert parts[1].meta["row_numbers"] == list(range(ROWS_PER_PART + 2, ROWS_PER_PART + 7))
    assert parts[1].meta["cells"]["rows"][0] == [str(ROWS_PER_PART), f"n{ROWS_PER_PART}"]


@pytest.mark.parametrize(("value", "fmt", "shown"), [
    (1234, "#,##0", "1,234"), (1234.5, "#,##0.00", "1,234.50"), (0.125, "0.0%", "12.5%"), (3.0, "General", "3"),
    (2.5, "0.00", "2.50"), (True, "General", "TRUE"), (None, "General", ""),
])
def test_numbers_are_shown_as_excel_formats_them(value: object, fmt: str, shown: str) -> None:
    assert display(value, fmt) == shown


def test_corrupt_xlsx_fails_as_parse_failed(tmp_path: Path) -> None:
    path = tmp_path / "broken.xlsx"
    path.write_bytes(b"PK\x03\x04" + b"\x00" * 200)
    with pytest.raises(DocumentError) as caught:
        XlsxParser().parse(path, "broken.xlsx", "")
    assert caught.value.code == ErrorCode.PARSE_FAILED


def test_date_formula_is_shown_as_a_date_and_kept_json_ready(tmp_path: Path) -> None:
    import datetime as dt
    import json

    import xlsxwriter

    path = tmp_path / "dates.xlsx"
    wb = xlsxwriter.Workbook(str(path))
    ws = wb.add_worksheet("Due")
    date_format = wb.add_format({"num_format": "yyyy-mm-dd"})
    ws.write_row("A1", ["Task", "Due"])
    ws.write("A2", "Report")
    ws.write_formula("B2", "=DATE(2026,3,31)", date_format, 46112)
    wb.close()
    table = XlsxParser().parse(path, "dates.xlsx", "").elements[1]
    assert table.meta["cells"]["rows"] == [["Report", dt.date(2026, 3, 31).isoformat()]]
    assert table.meta["formulas"][0]["value"] == "2026-03-31T00:00:00"
    json.dumps(table.meta)
