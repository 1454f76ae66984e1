"""Aggregate questions and lookups answered from tables, end to end: real xlsx (merged header cells), docx (merged
header cells), a reportlab PDF whose table runs over two pages, and a CSV, asked in ja/zh/en through `Bunko.ask`.

Each computed answer must give the exact number (or rows), say the operation, and cite the cells it used; a
question no table fits must not be answered from a guess; deletes and re-ingests keep the table store in step."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from docx import Document
from fake_openai import FakeChatServer
from openpyxl import Workbook
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from bunko import Bunko, Config
from bunko.embed.use_m3 import UseM3Embedder
from bunko.index.table_db import TABLES_FILE
from bunko.schema import Answer, CitedCell

SALES = {  # sheet → product → Q1..Q4
    "関西": {"ノートPC": [4210, 4385, 4712, 5120], "タブレット": [1830, 1764, 1902, 2240], "マウス": [268, 281, 259, 300]},
    "関東": {"ノートPC": [8120, 8460, 8830, 9710], "タブレット": [3560, 3310, 3945, 4420], "マウス": [541, 562, 518, 604]},
}
CITIES = [("Tokyo", "Japan", 15000), ("Osaka", "Japan", 13000), ("London", "United Kingdom", 32000), ("Paris", "France", 30000),
          ("Berlin", "Germany", 24000), ("New York", "United States", 38000), ("Chicago", "United States", 29000),
          ("Seoul", "South Korea", 18000), ("Sydney", "Australia", 26500), ("Dubai", "United Arab Emirates", 31000)] * 1
CITIES = CITIES + [(f"{name} Airport", country, limit - 1000) for name, country, limit in CITIES]
PRICES = [("笔记本电脑", "电脑", 6999), ("平板电脑", "电脑", 2899), ("显示器", "外设", 1299), ("机械键盘", "外设", 499), ("网线", "网络", 29)]


def write_sales(path: Path) -> None:
    """Two sheets, each with "製品" merged over two rows and "2024年" merged over the four quarters."""
    book = Workbook()
    book.remove(book.active)
    for sheet_name, rows in SALES.items():
        sheet = book.create_sheet(sheet_name)
        sheet["A1"] = "製品"
        sheet.merge_cells("A1:A2")
        sheet["B1"] = "2024年"
        sheet.merge_cells("B1:E1")
        for c, quarter in enumerate(["Q1", "Q2", "Q3", "Q4"], start=2):
            sheet.cell(2, c, quarter)
        for r, (product, values) in enumerate(rows.items(), start=3):
            sheet.cell(r, 1, product)
            for c, value in enumerate(values, start=2):
                sheet.cell(r, c, value * 1000).number_format = "#,##0"
    book.save(path)


def write_limits_pdf(path: Path) -> None:
    """A ruled table of 20 cities pushed down the first page so that it runs onto the second."""
    rows = [["City", "Country", "Hotel limit (JPY)"], *[[c, k, f"{v:,}"] for c, k, v in CITIES]]
    table = Table(rows, repeatRows=1, colWidths=[140, 160, 130], rowHeights=26)
    table.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.5, colors.black)]))
    story = [Paragraph("Travel limits", getSampleStyleSheet()["Title"]), Spacer(1, 420), table]
    SimpleDocTemplate(str(path), pagesize=A4).build(story)


def write_prices_docx(path: Path) -> None:
    """A header whose "价格" cell is merged over two columns (元 and 美元) above a second header row."""
    doc = Document()
    doc.add_heading("办公设备价格表", level=1)
    table = doc.add_table(rows=2, cols=4)
    top, sub = table.rows[0].cells, table.rows[1].cells
    top[0].text, top[1].text = "产品", "类别"
    merged = top[2].merge(top[3])
    merged.text = "价格"
    top[0].merge(sub[0])
    top[1].merge(sub[1])
    sub[2].text, sub[3].text = "人民币", "美元"
    for product, category, price in PRICES:
        cells = table.add_row().cells
        for cell, value in zip(cells, [product, category, f"{price:,}", f"{price / 7:.2f}"], strict=True):
            cell.text = value
    doc.save(str(path))


def cells(answer: Answer) -> list[CitedCell]:
    return [cell for sentence in answer.sentences for citation in sentence.citations for cell in citation.cells]


def tables_beside(root: Path, prose_name: str, prose: str) -> Path:
    """The three tables (xlsx, pdf, docx) and one Markdown document beside them, in `root`/docs."""
    docs = root / "docs"
    docs.mkdir()
    write_sales(docs / "sales.xlsx")
    write_limits_pdf(docs / "limits.pdf")
    write_prices_docx(docs / "prices.docx")
    (docs / prose_name).write_text(prose, encoding="utf-8")
    return docs


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory, embedder: UseM3Embedder) -> Iterator[Bunko]:
    root = tmp_path_factory.mktemp("tables")
    docs = tables_beside(root, "handbook.md", "# Handbook\n\nFull-time employees receive 20 days of paid annual leave per year.\n")
    collection = Bunko(root / "kb", embedder=embedder)
    assert collection.ingest(docs).ok
    yield collection
    collection.close()


def test_a_table_split_across_pdf_pages_is_one_table_with_each_rows_page(kb: Bunko) -> None:
    [limits] = [t for t in kb.tables.catalog() if t.source == "docs/limits.pdf"]
    assert limits.n_rows == len(CITIES)
    answer = kb.ask("How many cities have a hotel limit above 25,000 yen?")
    expected = sorted(c for c, _, v in CITIES if v > 25000)
    assert not answer.abstained and f": {len(expected)} " in answer.text and "Number of rows" in answer.text
    counted = {c.text for c in cells(answer) if c.column == "City"}
    assert counted == set(expected)
    assert {c.page for c in cells(answer)} == {1, 2}  # rows from both pages went into the count


def test_merged_header_cells_in_a_workbook_become_flattened_column_names(kb: Bunko) -> None:
    sheets = {t.sheet: [c.name for c in t.columns] for t in kb.tables.catalog() if t.source == "docs/sales.xlsx"}
    assert sheets == {name: ["製品", "2024年 / Q1", "2024年 / Q2", "2024年 / Q3", "2024年 / Q4"] for name in SALES}


def test_merged_header_cells_in_a_word_table_become_flattened_column_names(kb: Bunko) -> None:
    [prices] = [t for t in kb.tables.catalog() if t.source == "docs/prices.docx"]
    assert [c.name for c in prices.columns] == ["产品", "类别", "价格 / 人民币", "价格 / 美元"]


def test_sum_of_a_column_on_a_named_sheet_cites_every_cell_it_added(kb: Bunko) -> None:
    answer = kb.ask("関西シートのQ3売上の合計は？")
    total = sum(v[2] for v in SALES["関西"].values()) * 1000
    assert not answer.abstained and f"{total:,}" in answer.text and "合計" in answer.text
    added = [c for c in cells(answer) if c.column == "2024年 / Q3"]
    assert sorted(int(c.text.replace(",", "")) for c in added) == sorted(v[2] * 1000 for v in SALES["関西"].values())
    assert {c.sheet for c in added} == {"関西"} and sorted(c.row for c in added) == [3, 4, 5]  # the sheet's own row numbers
    assert answer.confidence == 1.0
    assert answer.trace is not None and answer.trace.evidence.route["mode"] == "table"


@pytest.mark.parametrize(("question", "expected", "words"), [
    ("What is the average hotel limit for cities in Japan?", "13,500", "Average of Hotel limit"),
    ("What is the total hotel limit for cities in the United States?", "132,000", "Sum of Hotel limit"),
    ("Which city has the highest hotel limit?", "New York (38,000 yen)", "Highest"),
    ("What are the top 3 cities by hotel limit?", "New York (38,000 yen), New York Airport (37,000 yen), London (32,000 yen)", "Top 3"),
    ("What is the difference in hotel limit between London and Tokyo?", "17,000", "Difference"),
    ("Which cities have a hotel limit below 14,000 yen?", "Osaka, Osaka Airport.", "Rows"),
])
def test_each_aggregate_in_english(kb: Bunko, question: str, expected: str, words: str) -> None:
    answer = kb.ask(question)
    assert not answer.abstained and expected in answer.text and words in answer.text, answer.text
    assert cells(answer)


@pytest.mark.parametrize(("question", "expected", "words"), [
    ("関東シートのQ1売上の平均は？", "4,073,666.67", "平均"),
    ("関東シートでQ4売上が最も高い製品は？", "ノートPC (9,710,000)", "最も大きい"),
    ("関西シートでQ1からQ4にかけて売上が最も伸びた製品は？", "ノートPC (910,000)", "変化が最も大きい"),
    ("関東シートでQ2売上が100万円を超える製品はいくつ？", "2 — ノートPC, タブレット", "行の数"),
    ("関西シートのQ4売上の上位2製品は？", "ノートPC (5,120,000), タブレット (2,240,000)", "上位2"),
])
def test_each_aggregate_in_japanese(kb: Bunko, question: str, expected: str, words: str) -> None:
    answer = kb.ask(question)
    assert not answer.abstained and expected in answer.text and words in answer.text, answer.text
    assert cells(answer) and {c.sheet for c in cells(answer)} <= set(SALES)


@pytest.mark.parametrize(("question", "expected", "words"), [
    ("价格超过1,000元的产品有几个？", "3 — 笔记本电脑, 平板电脑, 显示器", "行数"),
    ("所有产品的人民币价格平均是多少？", "2,345", "平均值"),
    ("哪个产品的人民币价格最低？", "网线 (29)", "最小"),
    ("按类别统计人民币价格的总和", "电脑 9,898, 外设 1,798, 网络 29", "总和"),
    ("笔记本电脑和平板电脑的人民币价格相差多少？", "4,100", "之差"),
])
def test_each_aggregate_in_chinese(kb: Bunko, question: str, expected: str, words: str) -> None:
    answer = kb.ask(question)
    assert not answer.abstained and expected in answer.text and words in answer.text, answer.text
    assert cells(answer)


@pytest.mark.parametrize(("question", "expected", "column"), [
    ("What is the hotel limit for London?", "32,000", "Hotel limit (JPY)"),
    ("関東シートのマウスのQ2売上は？", "562,000", "2024年 / Q2"),
    ("机械键盘的人民币价格是多少？", "499", "价格 / 人民币"),
])
def test_a_lookup_cites_the_row_and_cell_it_read(kb: Bunko, question: str, expected: str, column: str) -> None:
    answer = kb.ask(question)
    assert not answer.abstained and expected in answer.text, answer.text
    assert any(c.column == column and c.text == expected for c in cells(answer))


@pytest.mark.parametrize("question", [
    "How many meeting rooms have more than 10 seats?", "社員の平均年齢は？", "员工的平均工资是多少？",
])
def test_a_question_no_table_fits_is_not_answered_from_a_table(kb: Bunko, question: str) -> None:
    answer = kb.ask(question)
    assert answer.trace is not None
    [step] = [s for s in answer.trace.steps if s.name == "table"]
    assert step.output["outcome"] == "no table fits the question"
    assert answer.abstained, answer.text


PROCUREMENT = [
    "Lufthansa crews book their own hotels through the airline.", "Logicool mice are bought centrally by the IT desk.",
    "ThinkPad laptops are bought centrally and leased for three years.",
    *(f"Rule {n}: expense reports for trip number {n} are filed within {n + 5} days of return." for n in range(1, 16)),
]


@pytest.fixture(scope="module")
def kb_with_prose(tmp_path_factory: pytest.TempPathFactory, embedder: UseM3Embedder) -> Iterator[Bunko]:
    """The tables beside a guide naming other things, in enough sections for those names to be rare key terms."""
    root = tmp_path_factory.mktemp("tables_prose")
    sections = "\n\n".join(f"## Topic {i}\n\n{text}" for i, text in enumerate(PROCUREMENT, 1))
    docs = tables_beside(root, "procurement.md", f"# Procurement\n\n{sections}\n")
    collection = Bunko(root / "kb", embedder=embedder)
    assert collection.ingest(docs).ok
    yield collection
    collection.close()


@pytest.mark.parametrize(("question", "unnamed"), [
    ("What is the hotel limit for London for Lufthansa crews?", "lufthansa"),
    ("関東シートのマウスの Logicool 製品のQ2売上は？", "logicool"),
    ("ThinkPad 笔记本电脑的人民币价格是多少？", "thinkpad"),
])
def test_a_table_row_that_does_not_name_the_questions_subject_gives_no_computed_answer(
    kb_with_prose: Bunko, question: str, unnamed: str,
) -> None:
    """The table has the row and the column the question names, but not the thing it is about: a cell about something
    else, with the certainty of a computation, would be the worst answer."""
    answer = kb_with_prose.ask(question)
    assert answer.trace is not None
    [step] = [s for s in answer.trace.steps if s.name == "table_lookup"]
    assert step.output["outcome"] == f"not used: the table does not name {unnamed}", step.output
    assert answer.trace.generation.generator != "table" and answer.confidence < 1.0  # the passages' answer, graded as any


def test_a_table_row_the_question_names_fully_is_still_read(kb_with_prose: Bunko) -> None:
    answer = kb_with_prose.ask("関東シートのマウスのQ2売上は？")
    assert not answer.abstained and "562,000" in answer.text and cells(answer)


def test_prose_questions_are_still_answered_from_the_passages(kb: Bunko) -> None:
    answer = kb.ask("How many days of paid annual leave do full-time employees receive?")
    assert not answer.abstained and "20 days" in answer.text and not cells(answer)


def _stored_tables(kb: Bunko) -> list[str]:
    with sqlite3.connect(kb.path / TABLES_FILE) as conn:
        return sorted(n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 't_*'"))


def test_deleting_and_reingesting_keep_the_table_store_in_step(tmp_path: Path, embedder: UseM3Embedder) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    write_sales(docs / "sales.xlsx")
    kb = Bunko(tmp_path / "kb", embedder=embedder)
    try:
        assert kb.ingest(docs).ok
        assert len(kb.tables.catalog()) == 2
        before = _stored_tables(kb)
        assert kb.ingest(docs).ok  # unchanged: nothing duplicated
        assert len(kb.tables.catalog()) == 2 and _stored_tables(kb) == before
        SALES_CHANGED = {"関西": SALES["関西"]}
        book = Workbook()
        book.remove(book.active)
        sheet = book.create_sheet("関西")
        sheet.append(["製品", "Q3"])
        for product, values in SALES_CHANGED["関西"].items():
            sheet.append([product, values[2] * 2000])
        book.save(docs / "sales.xlsx")
        assert kb.ingest(docs).ok  # changed: its tables replaced, not added to
        [table] = kb.tables.catalog()
        assert [c.name for c in table.columns] == ["製品", "Q3"] and len(_stored_tables(kb)) == 1
        answer = kb.ask("関西シートのQ3の合計は？")
        assert f"{sum(v[2] for v in SALES['関西'].values()) * 2000:,}" in answer.text
        assert kb.delete("docs/sales.xlsx")
        assert kb.tables.catalog() == [] and _stored_tables(kb) == []
    finally:
        kb.close()


def test_a_streamed_table_answer_is_the_final_answer(kb: Bunko) -> None:
    *deltas, final = list(kb.ask_stream("哪个产品的人民币价格最低？"))
    assert isinstance(final, Answer) and "".join(str(d) for d in deltas) == final.text and "网线" in final.text
    assert cells(final) and final.trace is not None and final.trace.generation.mode == "table"


def test_a_filter_keeps_tables_of_documents_it_excludes_out_of_the_answer(tmp_path: Path, embedder: UseM3Embedder) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    write_sales(docs / "sales.xlsx")
    kb = Bunko(tmp_path / "kb", embedder=embedder)
    try:
        assert kb.ingest(docs, fields={"groups": ["finance"]}).ok
        question = "関西シートのQ3売上の合計は？"
        total = f"{sum(v[2] for v in SALES['関西'].values()) * 1000:,}"
        assert total in kb.ask(question, filters={"groups": {"$in": ["finance"]}}).text
        hidden = kb.ask(question, filters={"groups": {"$in": ["hr"]}})
        assert total not in hidden.text and not cells(hidden)
        assert hidden.trace is not None
        [step] = [s for s in hidden.trace.steps if s.name == "table"]
        assert step.output["tables"] == 0 and step.output["outcome"] == "no table fits the question"
    finally:
        kb.close()


def open_with_model(path: Path, embedder: UseM3Embedder, url: str, writer: str) -> Bunko:
    config = Config()
    config.answer.generator = "openai"
    config.answer.llm_grader = False
    config.answer.table_sql = writer  # type: ignore[assignment]
    config.llm.base_url = url
    config.llm.model = "fake-model"
    config.llm.retries = 1
    config.llm.timeout_s = 5
    return Bunko(path, config=config, embedder=embedder)


def test_a_model_may_write_the_query_for_the_table_the_rules_chose(kb: Bunko, embedder: UseM3Embedder) -> None:
    with FakeChatServer() as server:
        [sales] = [t for t in kb.tables.catalog() if t.sheet == "関東"]

        def reply(messages: list[dict[str, str]], body: dict[str, object]) -> str:
            assert sales.sql_name in messages[1]["content"] and "2024年 / Q3" in messages[1]["content"]
            return f"```sql\nSELECT SUM(v3), group_concat(_row) AS rows_used FROM {sales.sql_name} WHERE _total = 0\n```"

        server.reply = reply
        with open_with_model(kb.path, embedder, server.url, "llm") as model_kb:
            answer = model_kb.ask("関東シートのQ3売上の合計は？")
        total = sum(v[2] for v in SALES["関東"].values()) * 1000
        assert f"{total:,}" in answer.text and "モデルが書いたクエリ" in answer.text, answer.text
        assert sorted(c.text for c in cells(answer) if c.column == "2024年 / Q3") == sorted(f"{v[2] * 1000:,}" for v in SALES["関東"].values())
        assert answer.trace is not None
        [step] = [s for s in answer.trace.steps if s.name == "table"]
        assert step.output["writer"] == "llm" and step.output["sql"].startswith("SELECT SUM(v3)")


@pytest.mark.parametrize("written", [
    "DELETE FROM t_{id}", "SELECT 1; DROP TABLE t_{id}", "SELECT c0, group_concat(_row) FROM tables", "I cannot answer that.",
    "SELECT SUM(v3), group_concat(_row) FROM {other}",
])
def test_a_query_the_model_should_not_have_written_leaves_the_rules_to_answer(kb: Bunko, embedder: UseM3Embedder, written: str) -> None:
    [sales] = [t for t in kb.tables.catalog() if t.sheet == "関東"]
    [other] = [t for t in kb.tables.catalog() if t.sheet == "関西"]
    with FakeChatServer() as server:
        server.reply = lambda messages, body: written.format(id=sales.table_id, other=other.sql_name)
        with open_with_model(kb.path, embedder, server.url, "llm") as model_kb:
            answer = model_kb.ask("関東シートのQ3売上の合計は？")
    total = sum(v[2] for v in SALES["関東"].values()) * 1000
    assert f"2024年 / Q3の合計（関東）：{total:,}" in answer.text, answer.text
    assert answer.trace is not None
    [step] = [s for s in answer.trace.steps if s.name == "table"]
    assert step.output["llm_sql_error"] and step.output.get("writer") is None
    assert [t.sheet for t in kb.tables.catalog() if t.source == "docs/sales.xlsx"] == ["関西", "関東"]  # nothing was changed
