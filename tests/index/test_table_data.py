"""Logical tables from table elements: parts joined, two-row headers flattened, columns typed, totals marked; and
the SQLite table store: updates in one transaction, read-only queries with a time limit."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bunko.index.table_data import document_tables, flatten_header
from bunko.index.table_db import TableDB, TableQueryError, check_select, text_col, value_col
from bunko.schema import Element, ElementKind


def table(element_id: str, header: list[str], rows: list[list[str]], page: int = 1, **meta: object) -> Element:
    return Element(element_id, ElementKind.TABLE, "", page=page, meta={"cells": {"header": header, "rows": rows}, **meta})


HOLDERS = {f"e{i}": [(f"doc#{i}", "")] for i in range(6)}


def test_a_merged_header_over_two_rows_is_flattened_into_one_name_per_column() -> None:
    element = table("e0", ["製品", "2024年", "2024年"], [["製品", "Q1", "Q2"], ["ノートPC", "4,210,000", "4,385,000"],
                                                     ["マウス", "268,000", "281,000"]])
    [logical] = document_tables("d", "sales.xlsx", [element], HOLDERS)
    assert [c.name for c in logical.columns] == ["製品", "2024年 / Q1", "2024年 / Q2"]
    assert [c.kind for c in logical.columns] == ["text", "number", "number"]
    assert [r.cells[0] for r in logical.rows] == ["ノートPC", "マウス"]
    assert logical.rows[0].values[1] == 4_210_000


def test_flattening_names_a_cell_merged_down_once() -> None:
    assert flatten_header([["Region", "2024", "2024"], ["Region", "Q3", "Q4"]]) == ["Region", "2024 / Q3", "2024 / Q4"]


def test_a_table_continued_on_the_next_page_with_its_header_repeated_is_one_table() -> None:
    header = ["City", "Hotel limit (JPY)"]
    first = table("e0", header, [["Tokyo", "15,000"], ["Osaka", "13,000"]], page=1)
    second = table("e1", header, [["London", "32,000"]], page=2)
    [logical] = document_tables("d", "limits.pdf", [first, second], HOLDERS)
    assert [(r.cells[0], r.page, r.row_number, r.chunk_id) for r in logical.rows] == [
        ("Tokyo", 1, 1, "doc#0"), ("Osaka", 1, 2, "doc#0"), ("London", 2, 3, "doc#1")]
    assert logical.columns[1].kind == "currency" and logical.columns[1].unit == "JPY"


def test_a_continuation_without_a_header_keeps_its_first_row_as_data() -> None:
    first = table("e0", ["省份", "人口（万人）"], [["广东省", "12684"], ["山东省", "10170"]], page=3)
    second = table("e1", ["河南省", "9883"], [["江苏省", "8505"]], page=4)
    [logical] = document_tables("d", "p.pdf", [first, second], HOLDERS)
    assert [r.cells[0] for r in logical.rows] == ["广东省", "山东省", "河南省", "江苏省"]
    assert logical.rows[2].page == 4
    assert logical.rows[0].values[1] == 126_840_000  # the header's 万人 scales the cells


def test_tables_on_different_sheets_stay_apart_even_with_the_same_header() -> None:
    header = ["Product", "Q3"]
    west = table("e0", header, [["A", "1"]], sheet="West", range="A1:B2")
    east = table("e1", header, [["A", "2"]], sheet="East", range="A1:B2")
    tables = document_tables("d", "s.xlsx", [west, east], HOLDERS)
    assert [t.sheet for t in tables] == ["West", "East"]


def test_a_total_row_is_marked_so_aggregates_leave_it_out() -> None:
    element = table("e0", ["Region", "Sales"], [["North", "10"], ["South", "20"], ["合計", "30"]])
    [logical] = document_tables("d", "t.docx", [element], HOLDERS)
    assert [r.total for r in logical.rows] == [False, False, True]


def test_csv_records_are_one_table_with_their_row_numbers() -> None:
    records = [Element(f"e{i}", ElementKind.RECORD, "", meta={"method": "csv", "row": i + 1, "fields": {"item": n, "price": p}})
               for i, (n, p) in enumerate([("pen", "$1.50"), ("book", "$12")])]
    [logical] = document_tables("d", "prices.csv", records, HOLDERS)
    assert [c.kind for c in logical.columns] == ["text", "currency"]
    assert [(r.row_number, r.values[1], r.chunk_id) for r in logical.rows] == [(1, 1.5, "doc#0"), (2, 12.0, "doc#1")]


@pytest.fixture
def db(tmp_path: Path) -> TableDB:
    element = table("e0", ["City", "Limit"], [["Tokyo", "15,000"], ["London", "32,000"]])
    [logical] = document_tables("d1", "a.pdf", [element], HOLDERS)
    store = TableDB(tmp_path / "tables.db")
    store.update({"d1": ("a.pdf", "v1", [logical])}, [])
    return store


def test_the_store_keeps_typed_columns_and_replaces_or_drops_a_document_in_one_step(db: TableDB) -> None:
    [stored] = db.catalog()
    rows = db.select(f"SELECT {text_col(0)}, {value_col(1)} FROM {stored.sql_name} ORDER BY {value_col(1)} DESC")
    assert rows == [("London", 32000.0), ("Tokyo", 15000.0)]
    db.update({}, ["d1"])
    assert db.catalog() == [] and db.versions() == {}
    with sqlite3.connect(db.path) as conn:
        assert [n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE name GLOB 't_[0-9a-f]*'")] == []


@pytest.mark.parametrize("header, rows, expected", [
    (["City", "Limit"], [["Tokyo", "1"], ["", "2"], ["Tokyo", "3"], ["Osaka", "4"]], ["Tokyo", "Osaka"]),
    (["都市", "上限"], [["東京都", "1"], ["大阪府", "2"], ["東京都", "3"]], ["東京都", "大阪府"]),
    (["城市", "上限"], [["北京", "1"], ["上海", "2"], ["", "3"], ["北京", "4"]], ["北京", "上海"]),
])
def test_the_catalog_holds_each_text_columns_distinct_cells_in_row_order(
    tmp_path: Path, header: list[str], rows: list[list[str]], expected: list[str],
) -> None:
    [logical] = document_tables("d1", "a.pdf", [table("e0", header, rows)], HOLDERS)
    store = TableDB(tmp_path / "tables.db")
    store.update({"d1": ("a.pdf", "v1", [logical])}, [])
    [stored] = store.catalog()
    assert stored.values == {0: expected}


def test_a_file_of_the_older_layout_is_emptied_so_its_documents_are_stored_again(tmp_path: Path) -> None:
    path = tmp_path / "tables.db"
    with sqlite3.connect(path) as conn:  # layout 1: no distinct values in the catalog, user_version 0
        conn.executescript(
            "CREATE TABLE documents (doc_id TEXT PRIMARY KEY, source TEXT NOT NULL, version TEXT NOT NULL);"
            "CREATE TABLE tables (table_id TEXT PRIMARY KEY, doc_id TEXT NOT NULL, source TEXT NOT NULL,"
            " title TEXT NOT NULL, sheet TEXT, section TEXT NOT NULL, columns TEXT NOT NULL, n_rows INTEGER NOT NULL,"
            " ordinal INTEGER NOT NULL);"
            "CREATE TABLE t_00112233aabbccdd (_row INTEGER PRIMARY KEY, c0 TEXT);"
            "INSERT INTO documents VALUES ('d1', 'a.pdf', 'v1');"
            "INSERT INTO tables VALUES ('00112233aabbccdd', 'd1', 'a.pdf', 'T', NULL, '[]', '[[\"City\", \"text\", \"\"]]', 0, 0);"
        )
    store = TableDB(path)
    assert store.versions() == {} and store.catalog() == []  # every document's version now differs: stored again
    with sqlite3.connect(path) as conn:
        assert [n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE name GLOB 't_[0-9a-f]*'")] == []
    [logical] = document_tables("d1", "a.pdf", [table("e0", ["City", "Limit"], [["Tokyo", "1"]])], HOLDERS)
    store.update({"d1": ("a.pdf", "v2", [logical])}, [])
    assert [t.values for t in store.catalog()] == [{0: ["Tokyo"]}]
    assert TableDB(path).versions() == {"d1": "v2"}  # the current layout is kept as it is


def test_a_failed_update_leaves_the_tables_as_they_were(db: TableDB) -> None:
    element = table("e0", ["City", "Limit"], [["Paris", "30,000"]])
    [logical] = document_tables("d2", "b.pdf", [element], HOLDERS)
    logical.table_id = "not-an-id"
    with pytest.raises(ValueError):
        db.update({"d2": ("b.pdf", "v1", [logical])}, ["d1"])
    assert [t.source for t in db.catalog()] == ["a.pdf"] and db.versions() == {"d1": "v1"}


@pytest.mark.parametrize("sql", [
    "DELETE FROM tables", "SELECT 1; DROP TABLE tables", "PRAGMA writable_schema = 1", "ATTACH DATABASE 'x.db' AS x", "",
])
def test_only_one_select_is_accepted(sql: str) -> None:
    with pytest.raises(TableQueryError):
        check_select(sql)


def test_queries_cannot_write_even_through_a_select(db: TableDB) -> None:
    with pytest.raises(TableQueryError):
        db.select("WITH x AS (SELECT 1) SELECT load_extension('evil')")
    assert db.select("SELECT doc_id FROM documents") == [("d1",)]  # reading is what a query may do


def test_a_query_past_its_time_is_stopped(db: TableDB) -> None:
    endless = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"
    with pytest.raises(TableQueryError, match="longer than"):
        db.select(endless, seconds=0.2)


def test_a_reused_connection_still_limits_each_query_to_its_tables(db: TableDB) -> None:
    """`select` keeps one connection; the same SQL allowed a moment ago is refused when the caller names other tables."""
    sql = "SELECT doc_id FROM documents"
    assert db.select(sql) == [("d1",)]
    with pytest.raises(TableQueryError):
        db.select(sql, tables=["tables"])
    assert db.select(sql, tables=["documents"]) == [("d1",)]
    with pytest.raises(TableQueryError, match="longer than"):
        db.select("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n", seconds=0.2)
    assert db.select(sql) == [("d1",)]  # the stopped query's deadline does not stop the next


@pytest.mark.parametrize("header, rows", [
    (["Step", "What to do"], [["1", "Open the settings page."], ["2", "Scroll down to the section on network proxies and enter the address of the proxy server with its port."], ["3", "Save."]]),
    (["手順", "内容"], [["1", "設定画面を開く。"], ["2", "ネットワークのプロキシの項目までスクロールし、プロキシサーバーのアドレスとポート番号を入力する。"], ["3", "保存する。"]]),
    (["步骤", "内容"], [["1", "打开设置页面。"], ["2", "向下滚动到网络代理一节，输入代理服务器的地址和端口号，然后确认设置已经生效。"], ["3", "保存。"]]),
])
def test_a_row_cut_between_two_chunks_is_cited_to_the_chunk_holding_most_of_it(header: list[str], rows: list[list[str]]) -> None:
    from bunko.index.table_data import _row_line

    text = "\n".join([_row_line(header), _row_line(["---", "---"]), *(_row_line(r) for r in rows)])
    cut = text.index(rows[1][1]) + 8  # the long row's first few characters end the first chunk
    holders = {"e0": [("doc#0", text[:cut]), ("doc#1", text[cut:])]}
    [logical] = document_tables("d1", "a.pdf", [table("e0", header, rows)], holders)
    assert [r.chunk_id for r in logical.rows] == ["doc#0", "doc#1", "doc#1"]
