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
from bunko.generate.confidence import FEATURES, AnswerFeatures, ConfidenceModel
from bunko.index.table_db import TABLES_FILE
from bunko.schema import Answer, CitedCell

ORDERS = {  # sheet → item → Q1..Q4
    "北陸": {"冷蔵庫": [3150, 3320, 3480, 3905], "洗濯機": [2210, 2155, 2290, 2660], "電子レンジ": [412, 398, 431, 455]},
    "東北": {"冷蔵庫": [6240, 6610, 6985, 7530], "洗濯機": [4120, 3890, 4460, 4815], "電子レンジ": [733, 752, 709, 781]},
}
PORTS = [("Bergen", "Norway", 21000), ("Oslo", "Norway", 18500), ("Kiel", "Germany", 24500), ("Rostock", "Germany", 19000),
         ("Dover", "United Kingdom", 12500), ("Calais", "France", 11500), ("Helsinki", "Finland", 27500), ("Tallinn", "Estonia", 9500),
         ("Piraeus", "Greece", 16500), ("Naples", "Italy", 14000)]
PORTS = PORTS + [(f"{name} Pier", country, fare - 1000) for name, country, fare in PORTS]
PRICES = [("电饭煲", "厨房", 899), ("空气炸锅", "厨房", 649), ("吸尘器", "清洁", 1599), ("扫地机器人", "清洁", 2499), ("插线板", "配件", 59)]


def write_orders(path: Path) -> None:
    """Two sheets, each with "品目" merged over two rows and "2023年度" merged over the four quarters."""
    book = Workbook()
    book.remove(book.active)
    for sheet_name, rows in ORDERS.items():
        sheet = book.create_sheet(sheet_name)
        sheet["A1"] = "品目"
        sheet.merge_cells("A1:A2")
        sheet["B1"] = "2023年度"
        sheet.merge_cells("B1:E1")
        for c, quarter in enumerate(["Q1", "Q2", "Q3", "Q4"], start=2):
            sheet.cell(2, c, quarter)
        for r, (item, values) in enumerate(rows.items(), start=3):
            sheet.cell(r, 1, item)
            for c, value in enumerate(values, start=2):
                sheet.cell(r, c, value * 1000).number_format = "#,##0"
    book.save(path)


def write_fares_pdf(path: Path) -> None:
    """A ruled table of 20 ports pushed down the first page so that it runs onto the second."""
    rows = [["Port", "Country", "Fare (JPY)"], *[[c, k, f"{v:,}"] for c, k, v in PORTS]]
    table = Table(rows, repeatRows=1, colWidths=[140, 160, 130], rowHeights=26)
    table.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.5, colors.black)]))
    story = [Paragraph("Crossing fares", getSampleStyleSheet()["Title"]), Spacer(1, 420), table]
    SimpleDocTemplate(str(path), pagesize=A4).build(story)


def write_prices_docx(path: Path) -> None:
    """A header whose "价格" cell is merged over two columns (元 and 美元) above a second header row."""
    doc = Document()
    doc.add_heading("家电价格表", level=1)
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
    write_orders(docs / "orders.xlsx")
    write_fares_pdf(docs / "fares.pdf")
    write_prices_docx(docs / "prices.docx")
    (docs / prose_name).write_text(prose, encoding="utf-8")
    return docs


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory, embedder: UseM3Embedder) -> Iterator[Bunko]:
    root = tmp_path_factory.mktemp("tables")
    docs = tables_beside(root, "handbook.md", "# Handbook\n\nEvery volunteer receives 12 meal vouchers per season.\n")
    collection = Bunko(root / "kb", embedder=embedder)
    assert collection.ingest(docs).ok
    yield collection
    collection.close()


def test_a_table_split_across_pdf_pages_is_one_table_with_each_rows_page(kb: Bunko) -> None:
    [fares] = [t for t in kb.tables.catalog() if t.source == "docs/fares.pdf"]
    assert fares.n_rows == len(PORTS)
    answer = kb.ask("How many ports have a fare above 20,000 yen?")
    expected = sorted(c for c, _, v in PORTS if v > 20000)
    assert not answer.abstained and f": {len(expected)} " in answer.text and "Number of rows" in answer.text
    counted = {c.text for c in cells(answer) if c.column == "Port"}
    assert counted == set(expected)
    assert {c.page for c in cells(answer)} == {1, 2}  # rows from both pages went into the count


def test_merged_header_cells_in_a_workbook_become_flattened_column_names(kb: Bunko) -> None:
    sheets = {t.sheet: [c.name for c in t.columns] for t in kb.tables.catalog() if t.source == "docs/orders.xlsx"}
    assert sheets == {name: ["品目", "2023年度 / Q1", "2023年度 / Q2", "2023年度 / Q3", "2023年度 / Q4"] for name in ORDERS}


def test_merged_header_cells_in_a_word_table_become_flattened_column_names(kb: Bunko) -> None:
    [prices] = [t for t in kb.tables.catalog() if t.source == "docs/prices.docx"]
    assert [c.name for c in prices.columns] == ["产品", "类别", "价格 / 人民币", "价格 / 美元"]


def test_sum_of_a_column_on_a_named_sheet_cites_every_cell_it_added(kb: Bunko) -> None:
    answer = kb.ask("北陸シートのQ3受注の合計は？")
    total = sum(v[2] for v in ORDERS["北陸"].values()) * 1000
    assert not answer.abstained and f"{total:,}" in answer.text and "合計" in answer.text
    added = [c for c in cells(answer) if c.column == "2023年度 / Q3"]
    assert sorted(int(c.text.replace(",", "")) for c in added) == sorted(v[2] * 1000 for v in ORDERS["北陸"].values())
    assert {c.sheet for c in added} == {"北陸"} and sorted(c.row for c in added) == [3, 4, 5]  # the sheet's own row numbers
    assert answer.trace is not None and answer.trace.evidence.route["mode"] == "table"
    features = answer.trace.evidence.grade.features  # decided as every answer: the model's probability, never certain
    assert 0 < features["mapping_certainty"] <= 1.0 and features["certainty"] == features["mapping_certainty"]
    assert features["table"] == 1.0
    model = ConfidenceModel.load()
    recorded = AnswerFeatures(**{name: features[name] for name in FEATURES if name in features})
    assert answer.confidence == pytest.approx(model.probability(recorded), abs=2e-3)
    assert model.threshold <= answer.confidence < 1.0


@pytest.mark.parametrize(("question", "expected", "words"), [
    ("What is the average fare for ports in Germany?", "21,250", "Average of Fare"),
    ("What is the total fare for ports in Norway?", "77,000", "Sum of Fare"),
    ("Which port has the highest fare?", "Helsinki (27,500 yen)", "Highest"),
    ("What are the top 3 ports by fare?", "Helsinki (27,500 yen), Helsinki Pier (26,500 yen), Kiel (24,500 yen)", "Top 3"),
    ("What is the difference in fare between Helsinki and Tallinn?", "18,000", "Difference"),
    ("Which ports have a fare below 10,000 yen?", "Tallinn, Tallinn Pier.", "Rows"),
])
def test_each_aggregate_in_english(kb: Bunko, question: str, expected: str, words: str) -> None:
    answer = kb.ask(question)
    assert not answer.abstained and expected in answer.text and words in answer.text, answer.text
    assert cells(answer)


@pytest.mark.parametrize(("question", "expected", "words"), [
    ("東北シートのQ1受注の平均は？", "3,697,666.67", "平均"),
    ("東北シートでQ4受注が最も多い品目は？", "冷蔵庫 (7,530,000)", "最も大きい"),
    ("北陸シートでQ1からQ4にかけて受注が最も伸びた品目は？", "冷蔵庫 (755,000)", "変化が最も大きい"),
    ("東北シートでQ2受注が300万円を超える品目はいくつ？", "2 — 冷蔵庫, 洗濯機", "行の数"),
    ("北陸シートのQ4受注の上位2品目は？", "冷蔵庫 (3,905,000), 洗濯機 (2,660,000)", "上位2"),
])
def test_each_aggregate_in_japanese(kb: Bunko, question: str, expected: str, words: str) -> None:
    answer = kb.ask(question)
    assert not answer.abstained and expected in answer.text and words in answer.text, answer.text
    assert cells(answer) and {c.sheet for c in cells(answer)} <= set(ORDERS)


@pytest.mark.parametrize(("question", "expected", "words"), [
    ("价格高于800元的家电有几种？", "3 — 电饭煲, 吸尘器, 扫地机器人", "行数"),
    ("全部产品的人民币价格平均值是多少？", "1,141", "平均值"),
    ("哪个产品的人民币价格最低？", "插线板 (59)", "最小"),
    ("按类别统计人民币价格的总和", "清洁 4,098, 厨房 1,548, 配件 59", "总和"),
    ("吸尘器和扫地机器人的人民币价格相差多少？", "900", "之差"),
])
def test_each_aggregate_in_chinese(kb: Bunko, question: str, expected: str, words: str) -> None:
    answer = kb.ask(question)
    assert not answer.abstained and expected in answer.text and words in answer.text, answer.text
    assert cells(answer)


@pytest.mark.xfail(strict=True, reason=(
    "a condition whose question names the sub-column of a merged header (人民币价格 of 价格 / 人民币 and 价格 / 美元) is "
    "put on the other sub-column (价格 / 美元 > 800): no row matches and the question is refused; the column the "
    "question names, and the currency of 800元, should pick 价格 / 人民币"))
def test_a_condition_on_a_named_sub_column_filters_that_column(kb: Bunko) -> None:
    answer = kb.ask("人民币价格高于800元的产品有几个？")
    assert not answer.abstained and "3 — 电饭煲, 吸尘器, 扫地机器人" in answer.text and "行数" in answer.text, answer.text


@pytest.mark.parametrize(("question", "expected", "column"), [
    ("What is the fare for Piraeus?", "16,500", "Fare (JPY)"),
    ("東北シートの電子レンジのQ2受注は？", "752,000", "2023年度 / Q2"),
    ("空气炸锅的人民币价格是多少？", "649", "价格 / 人民币"),
])
def test_a_lookup_cites_the_row_and_cell_it_read(kb: Bunko, question: str, expected: str, column: str) -> None:
    answer = kb.ask(question)
    assert not answer.abstained and expected in answer.text, answer.text
    assert any(c.column == column and c.text == expected for c in cells(answer))


@pytest.mark.parametrize("question", [
    "How many greenhouses have more than 40 plants?", "倉庫の平均床面積は？", "司机的平均驾龄是多少？",
])
def test_a_question_no_table_fits_is_not_answered_from_a_table(kb: Bunko, question: str) -> None:
    answer = kb.ask(question)
    assert answer.trace is not None
    [step] = [s for s in answer.trace.steps if s.name == "table"]
    assert step.output.to_dict()["outcome"] == "no table fits the question"
    assert answer.abstained, answer.text


PROCUREMENT = [
    "Stena crews book their own cabins through the operator.", "Panasonic microwaves are bought centrally by the facilities desk.",
    "Dyson vacuum cleaners are bought centrally and leased for three years.",
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
    ("What is the fare for Piraeus for Stena crews?", "stena"),
    ("東北シートの電子レンジの Panasonic 製品のQ2受注は？", "panasonic"),
    ("Dyson 吸尘器的人民币价格是多少？", "dyson"),
])
def test_a_table_row_that_does_not_name_the_questions_subject_gives_no_computed_answer(
    kb_with_prose: Bunko, question: str, unnamed: str,
) -> None:
    """The table has the row and the column the question names, but not the thing it is about: a cell about something
    else, with the certainty of a computation, would be the worst answer."""
    answer = kb_with_prose.ask(question)
    assert answer.trace is not None
    [step] = [s for s in answer.trace.steps if s.name == "table_lookup"]
    assert step.output.to_dict()["outcome"] == f"not used: the table does not name {unnamed}", step.output
    assert answer.trace.generation.generator != "table" and answer.confidence < 1.0  # the passages' answer, graded as any


def test_a_table_row_the_question_names_fully_is_still_read(kb_with_prose: Bunko) -> None:
    answer = kb_with_prose.ask("東北シートの電子レンジのQ2受注は？")
    assert not answer.abstained and "752,000" in answer.text and cells(answer)


def test_prose_questions_are_still_answered_from_the_passages(kb: Bunko) -> None:
    answer = kb.ask("How many meal vouchers does every volunteer receive per season?")
    assert not answer.abstained and "12 meal vouchers" in answer.text and not cells(answer)


def _stored_tables(kb: Bunko) -> list[str]:
    with sqlite3.connect(kb.path / TABLES_FILE) as conn:
        return sorted(n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 't_*'"))


def test_deleting_and_reingesting_keep_the_table_store_in_step(tmp_path: Path, embedder: UseM3Embedder) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    write_orders(docs / "orders.xlsx")
    kb = Bunko(tmp_path / "kb", embedder=embedder)
    try:
        assert kb.ingest(docs).ok
        assert len(kb.tables.catalog()) == 2
        before = _stored_tables(kb)
        assert kb.ingest(docs).ok  # unchanged: nothing duplicated
        assert len(kb.tables.catalog()) == 2 and _stored_tables(kb) == before
        ORDERS_CHANGED = {"北陸": ORDERS["北陸"]}
        book = Workbook()
        book.remove(book.active)
        sheet = book.create_sheet("北陸")
        sheet.append(["品目", "Q3"])
        for item, values in ORDERS_CHANGED["北陸"].items():
            sheet.append([item, values[2] * 2000])
        book.save(docs / "orders.xlsx")
        assert kb.ingest(docs).ok  # changed: its tables replaced, not added to
        [table] = kb.tables.catalog()
        assert [c.name for c in table.columns] == ["品目", "Q3"] and len(_stored_tables(kb)) == 1
        answer = kb.ask("北陸シートのQ3の合計は？")
        assert f"{sum(v[2] for v in ORDERS['北陸'].values()) * 2000:,}" in answer.text
        assert kb.delete("docs/orders.xlsx")
        assert kb.tables.catalog() == [] and _stored_tables(kb) == []
    finally:
        kb.close()


def test_uploads_and_deletes_between_table_questions_leave_only_the_current_tables_cell_terms_held(
    tmp_path: Path, embedder: UseM3Embedder,
) -> None:
    """Each write gives the collection a new catalog of new table objects; both table planners (the search route's and
    the answerer's) must drop the old ones' cell terms, or a server taking uploads and deletes grows with every write
    (the soak's memory growth, bench/results/soak.md)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    write_orders(docs / "orders.xlsx")
    kb = Bunko(tmp_path / "kb", embedder=embedder)
    try:
        assert kb.ingest(docs).ok
        tables = len(kb.tables.catalog())
        assert tables == 2
        planners = [kb.answerer.tables.planner, kb.searcher.retrievers["table"].planner]
        for n in range(6):
            memo = tmp_path / f"memo-{n}.md"
            memo.write_text(f"# Memo {n}\n\nThe storage code of warehouse W{n} is C-{n}.\n", encoding="utf-8")
            assert kb.ingest([memo]).ok
            assert "5,873,000" in kb.ask("北陸シートのQ2の合計は？").text
            assert kb.delete(str(memo))
        assert kb.ask("北陸シートのQ2の合計は？").text
        assert planners[0].cached_tables > 0  # the answer's plan did normalise the cells
        assert all(planner.cached_tables <= tables for planner in planners), [p.cached_tables for p in planners]
    finally:
        kb.close()


def test_a_streamed_table_answer_is_the_final_answer(kb: Bunko) -> None:
    *deltas, final = list(kb.ask_stream("哪个产品的人民币价格最低？"))
    assert isinstance(final, Answer) and "".join(str(d) for d in deltas) == final.text and "插线板" in final.text
    assert cells(final) and final.trace is not None and final.trace.generation.mode == "table"


def test_a_filter_keeps_tables_of_documents_it_excludes_out_of_the_answer(tmp_path: Path, embedder: UseM3Embedder) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    write_orders(docs / "orders.xlsx")
    kb = Bunko(tmp_path / "kb", embedder=embedder)
    try:
        assert kb.ingest(docs, fields={"groups": ["finance"]}).ok
        question = "北陸シートのQ3受注の合計は？"
        total = f"{sum(v[2] for v in ORDERS['北陸'].values()) * 1000:,}"
        assert total in kb.ask(question, filters={"groups": {"$in": ["finance"]}}).text
        hidden = kb.ask(question, filters={"groups": {"$in": ["hr"]}})
        assert total not in hidden.text and not cells(hidden)
        assert hidden.trace is not None
        [step] = [s for s in hidden.trace.steps if s.name == "table"]
        assert step.output.to_dict()["tables"] == 0 and step.output.to_dict()["outcome"] == "no table fits the question"
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
        [orders] = [t for t in kb.tables.catalog() if t.sheet == "東北"]

        def reply(messages: list[dict[str, str]], body: dict[str, object]) -> str:
            assert orders.sql_name in messages[1]["content"] and "2023年度 / Q3" in messages[1]["content"]
            return f"```sql\nSELECT SUM(v3), group_concat(_row) AS rows_used FROM {orders.sql_name} WHERE _total = 0\n```"

        server.reply = reply
        with open_with_model(kb.path, embedder, server.url, "llm") as model_kb:
            answer = model_kb.ask("東北シートのQ3受注の合計は？")
        total = sum(v[2] for v in ORDERS["東北"].values()) * 1000
        assert f"{total:,}" in answer.text and "モデルが書いたクエリ" in answer.text, answer.text
        assert sorted(c.text for c in cells(answer) if c.column == "2023年度 / Q3") == sorted(f"{v[2] * 1000:,}" for v in ORDERS["東北"].values())
        assert answer.trace is not None
        [step] = [s for s in answer.trace.steps if s.name == "table"]
        assert step.output.to_dict()["writer"] == "llm" and step.output.to_dict()["sql"].startswith("SELECT SUM(v3)")


@pytest.mark.parametrize("written", [
    "DELETE FROM t_{id}", "SELECT 1; DROP TABLE t_{id}", "SELECT c0, group_concat(_row) FROM tables", "I cannot answer that.",
    "SELECT SUM(v3), group_concat(_row) FROM {other}",
])
def test_a_query_the_model_should_not_have_written_leaves_the_rules_to_answer(kb: Bunko, embedder: UseM3Embedder, written: str) -> None:
    [orders] = [t for t in kb.tables.catalog() if t.sheet == "東北"]
    [other] = [t for t in kb.tables.catalog() if t.sheet == "北陸"]
    with FakeChatServer() as server:
        server.reply = lambda messages, body: written.format(id=orders.table_id, other=other.sql_name)
        with open_with_model(kb.path, embedder, server.url, "llm") as model_kb:
            answer = model_kb.ask("東北シートのQ3受注の合計は？")
    total = sum(v[2] for v in ORDERS["東北"].values()) * 1000
    assert f"2023年度 / Q3の合計（東北）：{total:,}" in answer.text, answer.text
    assert answer.trace is not None
    [step] = [s for s in answer.trace.steps if s.name == "table"]
    assert step.output.to_dict()["llm_sql_error"] and step.output.to_dict().get("writer") is None
    assert [t.sheet for t in kb.tables.catalog() if t.source == "docs/orders.xlsx"] == ["北陸", "東北"]  # nothing was changed
