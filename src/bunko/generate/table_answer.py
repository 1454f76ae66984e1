"""The answer to an aggregate question, computed from a table: the number, the operation in words, the cells cited.

`TableAnswerer.answer` plans the question onto the collection's tables (`retrieve/table_plan.py`), runs the
query, and writes one sentence in the question's language — "Sum of Q3 in 関西 (4 rows): 1,234,000 yen." — whose
citations are the chunks that hold the rows it read, each with the cells (`CitedCell`: column, row, sheet or
page, text) that went into the number. It returns None when no table fits or the query finds no rows, and the
caller answers from the passages instead: a computed answer is given only when there is something to compute.
A lookup answered from the passages cites its row's cells too (`cells_for_quote`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from bunko.generate.table_sql import cells_of, model_query
from bunko.index.table_db import StoredTable, TableQueryError, text_col
from bunko.llm.base import ChatModel, LLMError
from bunko.retrieve.question import QuestionFacts
from bunko.retrieve.table_plan import LOOKUP, MIN_CERTAINTY, TablePlanner
from bunko.retrieve.table_query import CellRef, TablePlan, TableResult
from bunko.retrieve.tables import CollectionTables
from bunko.schema import AnswerSentence, Chunk, Citation, CitedCell
from bunko.store.base import DocumentStore
from bunko.text.lexicon import LANGUAGES, speaking
from bunko.text.numbers import format_number, normalize
from bunko.text.table_questions import (
    AVG,
    BOTTOM,
    COUNT,
    GROWTH,
    LIST,
    MAX,
    MIN,
    SUM,
    TOP,
    TableIntent,
)

QUOTED_ROWS = 12
"""Rows written out in a citation's quote; every cell used is in `Citation.cells` whatever the count."""
LISTED_ROWS = 20
CANNOT_RANK = "no column of the table holds what the question ranks its rows by"
"""The table step's outcome for a ranking question on a table that cannot rank its rows (`TablePlan.unranked`)."""



@dataclass
class TableOutcome:
    sentences: list[AnswerSentence]
    step: dict[str, Any]
    """What the trace records: the table, the operation, the columns, filters, SQL and parameters, the value."""


class TableAnswerer:
    def __init__(
        self, tables: CollectionTables, planner: TablePlanner, store: DocumentStore, chat_model: ChatModel | None = None,
        writer: str = "rules",
    ) -> None:
        """`writer` "llm" with a `chat_model`: the model writes the query for the table the rules chose
        (`generate/table_sql.py`); the rules' own query when it fails."""
        self.tables = tables
        self.planner = planner
        self.store = store
        self.chat_model = chat_model
        self.writer = writer

    def answer(
        self, question: QuestionFacts, language: str, where: Mapping[str, Any] | None = None,
    ) -> tuple[TableOutcome | None, dict[str, Any]]:
        """The computed answer, or None with the reason in the step (no aggregate asked, no table fits, no rows)."""
        intent = question.table
        if intent is None:
            return None, {"outcome": "not an aggregate question"}
        catalog = self.tables.catalog(where)
        plan, unranked = self.planner.choose(question.text, intent, catalog)
        step: dict[str, Any] = {"operation": intent.operation, "cue": intent.cue, "tables": len(catalog)}
        if plan is None and unranked is not None:
            return None, {**step, **describe_plan(unranked), "operation": intent.operation, "outcome": CANNOT_RANK}
        if plan is None:
            return None, {**step, "outcome": "no table fits the question"}
        step.update(describe_plan(plan))
        if plan.certainty < MIN_CERTAINTY:
            return None, {**step, "outcome": f"the mapping is uncertain ({plan.certainty:.2f})"}
        if plan.intent.operation == LOOKUP:
            return self._read(plan, language, step)
        if self.writer == "llm" and self.chat_model is not None:
            written = self._model_answer(question.text, plan, language, step)
            if written is not None:
                return written, step
        try:
            result = self.planner.run(plan, self.tables.db)
        except TableQueryError as exc:
            return None, {**step, "outcome": f"the query failed: {exc}"}
        step.update(sql=result.sql, params=list(result.params), value=result.value, rows=result.count)
        if not result.cells or (result.value is None and not result.rows):
            return None, {**step, "outcome": "no rows match"}
        sentence = self._sentence(result, plan.intent, language)
        step["outcome"] = "answered"
        return TableOutcome([sentence], step), step

    def table_chunks(self, table_id: str) -> set[str]:
        """The chunks that hold a table's rows (what a passage answer would quote of it)."""
        table = next((t for t in self.tables.catalog() if t.table_id == table_id), None)
        if table is None:
            return set()
        try:
            return {str(c) for (c,) in self.tables.db.select(f"SELECT DISTINCT _chunk FROM {table.sql_name}") if c}
        except TableQueryError:
            return set()

    def _model_answer(self, question: str, plan: TablePlan, language: str, step: dict[str, Any]) -> TableOutcome | None:
        """The answer from the query the model wrote for the chosen table, or None (the reason in `step`)."""
        assert self.chat_model is not None
        try:
            written = model_query(self.chat_model, self.tables.db, question, plan.table)
        except (TableQueryError, LLMError) as exc:
            step["llm_sql_error"] = str(exc)
            return None
        step.update(writer="llm", sql=written.sql, params=[], rows=len(written.used), value=[list(r) for r in written.rows[:LISTED_ROWS]])
        says = speaking(language)
        values = "; ".join(", ".join(_shown(v) for v in row) for row in written.rows[:LISTED_ROWS])
        text = says.TABLE_MODEL_QUERY.format(t=plan.table.sheet or plan.table.title) + says.COLON + values + says.TABLE_END
        cells = cells_of(self.tables.db, plan.table, written.sql, written.used)
        result = TableResult(plan, None, [], cells, len(written.used), written.sql, [])
        step["outcome"] = "answered"
        return TableOutcome([AnswerSentence(text=text, citations=self._citations(result), support=1.0)], step)

    def lookup(
        self, question: str, language: str, where: Mapping[str, Any] | None = None, focus: str | None = None,
    ) -> tuple[TableOutcome | None, dict[str, Any]]:
        """The cell a question names by its row and column ("the hotel limit for London", 大阪府の人口), or None;
        `focus` as in `TablePlanner.plan_lookup`."""
        plan = self.planner.plan_lookup(question, self.tables.catalog(where), focus)
        if plan is None:
            return None, {"operation": LOOKUP, "outcome": "no table row and column named"}
        step: dict[str, Any] = {"operation": LOOKUP, **describe_plan(plan)}
        if plan.certainty < MIN_CERTAINTY:
            return None, {**step, "outcome": f"the mapping is uncertain ({plan.certainty:.2f})"}
        return self._read(plan, language, step)

    def _read(self, plan: TablePlan, language: str, step: dict[str, Any]) -> tuple[TableOutcome | None, dict[str, Any]]:
        """The cell a lookup plan names, as one sentence citing it."""
        try:
            result = self.planner.run_lookup(plan, self.tables.db)
        except TableQueryError as exc:
            return None, {**step, "outcome": f"the query failed: {exc}"}
        step.update(sql=result.sql, params=list(result.params), rows=result.count)
        if not result.rows:
            return None, {**step, "outcome": "no rows match"}
        says = speaking(language)
        column = plan.table.columns[plan.measure].name if plan.measure is not None else ""
        parts = [says.TABLE_LOOKUP.format(row=r.label, col=column, v=r.text or "—") for r in result.rows]
        text = says.TABLE_AND.join(parts) + says.TABLE_FROM.format(t=plan.table.sheet or plan.table.title) + says.TABLE_END
        step["outcome"] = "answered"
        return TableOutcome([AnswerSentence(text=text, citations=self._citations(result), support=1.0)], step), step

    # -- wording -------------------------------------------------------------
    def _sentence(self, result: TableResult, intent: TableIntent, language: str) -> AnswerSentence:
        plan = result.plan
        table = plan.table
        says = speaking(language)
        lang = language if language in LANGUAGES else "en"
        def column(index: int | None) -> str:
            return table.columns[index].name if index is not None else ""

        operation = intent.operation
        names = {"m": column(plan.measure), "b": column(plan.base), "n": intent.n or 3,
                 "a": plan.named_values[0][1] if plan.named_values else "", "c": plan.named_values[1][1] if len(plan.named_values) > 1 else ""}
        if intent.by_time and operation in (MAX, MIN):
            words = (says.TABLE_LATEST if operation == MAX else says.TABLE_EARLIEST).format(**names)
        elif operation == GROWTH and intent.decline != intent.low:
            words = (says.TABLE_DECLINE if intent.decline else says.TABLE_LOWEST_CHANGE).format(**names)
        else:
            words = says.TABLE_OPERATIONS[operation].format(**names)
        if plan.group is not None:
            words += says.TABLE_GROUPED.format(g=column(plan.group))
        words += says.TABLE_IN.format(t=table.sheet or table.title)
        conditions = [_condition_text(plan, f_index, lang) for f_index in range(len(plan.filters))]
        if conditions:
            words += says.TABLE_WHERE.format(c=says.TABLE_AND.join(conditions))
        unit = table.columns[plan.measure].unit if plan.measure is not None else ""
        if plan.measure is not None and table.columns[plan.measure].kind == "date":
            unit = DATE_UNIT
        elif intent.by_time:
            unit = WHEN_UNIT  # a year or a version is not an amount: 1991, not 1,991
        value_text = self._value_text(result, operation, unit, lang)
        text = f"{words}{says.COLON}{value_text}"
        if operation in (SUM, AVG, COUNT):
            rows = says.TABLE_ROWS.format(n=result.count)
            text += f" ({rows})" if lang == "en" else f"（{rows}）"
        text = text.rstrip(".。") + says.TABLE_END
        return AnswerSentence(text=text, citations=self._citations(result), support=1.0)

    @staticmethod
    def _value_text(result: TableResult, operation: str, unit: str, lang: str) -> str:
        if result.plan.group is not None:
            return ", ".join(f"{r.label} {_amount(r.value, unit, lang)}" for r in result.rows[:LISTED_ROWS])
        if operation in (MAX, MIN, TOP, BOTTOM, GROWTH):
            return ", ".join(f"{r.label} ({_amount(r.value, unit, lang)})" for r in result.rows[:LISTED_ROWS])
        if operation == COUNT:
            labels = ", ".join(r.label for r in result.rows[:LISTED_ROWS] if r.label)
            return format_number(result.value or 0) + (f" — {labels}" if labels else "")
        if operation == LIST:
            return ", ".join(r.label for r in result.rows[:LISTED_ROWS] if r.label) or format_number(result.value or 0)
        return _amount(result.value, unit, lang)

    def _citations(self, result: TableResult) -> list[Citation]:
        by_chunk: dict[str, list[CellRef]] = {}
        for cell in result.cells:
            by_chunk.setdefault(cell.chunk_id, []).append(cell)
        chunks = {c.chunk_id: c for c in self.store.get_chunks([cid for cid in by_chunk if cid])}
        citations = []
        for chunk_id, cells in by_chunk.items():
            chunk = chunks.get(chunk_id)
            if chunk is None:
                continue
            citations.append(_citation(chunk, cells, result.plan.table))
        return citations

    # -- lookups ---------------------------------------------------------------
    def cells_for_quote(self, citation: Citation) -> list[CitedCell]:
        """The cells of the table row a quote reads ("Region: Kansai / Q3: 1,200"), when the cited chunk holds that row."""
        wanted = _squash(citation.quote)
        for table in self.tables.catalog():
            if table.source != citation.source or (citation.section_path and table.section_path != citation.section_path):
                continue  # a quoted row is in a table of the cited section: a manual's chapter has dozens of others
            columns = ", ".join(text_col(i) for i in range(len(table.columns)))
            # only rows whose first cell is in the quote (or empty)
            first = f"replace(coalesce({text_col(0)}, ''), ' ', '')"
            rows = self.tables.db.select(
                f"SELECT _row_number, _page, {columns} FROM {table.sql_name} "
                f"WHERE {first} = '' OR instr(?, {first}) > 0 OR instr(?, {first}) > 0",
                [wanted, "".join(citation.quote.split())],
            )
            for number, page, *texts in rows:
                pairs = [f"{c.name}: {t}" if c.name else str(t) for c, t in zip(table.columns, texts, strict=True) if t]
                if pairs and _squash(" / ".join(pairs)) == wanted:
                    return [CitedCell(c.name, int(number), str(t), page if not table.sheet else None, table.sheet)
                            for c, t in zip(table.columns, texts, strict=True) if t]
        return []


def _shown(value: object) -> str:
    return format_number(float(value)) if isinstance(value, int | float) and not isinstance(value, bool) else str(value)


def _squash(text: str) -> str:
    return "".join(normalize(text).split()).replace("\\|", "|")


DATE_UNIT = "date"
"""The unit `_amount` shows a date column's value in: the day it stands for, not its ordinal number."""
WHEN_UNIT = "when"
"""The unit `_amount` shows a number that says when in (a year, a version): as written, without grouping."""


def _amount(value: float | None, unit: str, lang: str) -> str:
    if value is None:
        return "—"
    if unit == DATE_UNIT:
        return dt.date.fromordinal(int(value)).isoformat()
    if unit == WHEN_UNIT:
        return f"{value:g}"
    number = format_number(value)
    if (amount := speaking(lang).CURRENCY_AMOUNTS.get(unit)) is not None:
        return amount.format(number)
    if unit == "%":
        return f"{number}%"
    return f"{number} {unit}" if unit and lang == "en" else f"{number}{unit}"


def _condition_text(plan: TablePlan, index: int, lang: str) -> str:
    f = plan.filters[index]
    column = plan.table.columns[f.column]
    if f.op == "in":
        return f"{column.name} = {' / '.join(str(v) for v in f.values)}"
    if f.op == "contains":
        return speaking(lang).TABLE_CONTAINS.format(col=column.name, v=f.values[0])
    value = f.values[0]
    shown = _amount(float(value), column.unit, lang) if isinstance(value, int | float) and column.kind != "date" else str(value)
    if column.kind == "date" and isinstance(value, int | float):
        shown = dt.date.fromordinal(int(value)).isoformat()
    return f"{column.name} {f.op} {shown}"


def _citation(chunk: Chunk, cells: list[CellRef], table: StoredTable) -> Citation:
    rows: dict[int, list[CellRef]] = {}
    for cell in cells:
        rows.setdefault(cell.row, []).append(cell)
    quote = "\n".join(" / ".join(f"{c.column}: {c.text}" for c in row_cells) for row_cells in list(rows.values())[:QUOTED_ROWS])
    if len(rows) > QUOTED_ROWS:
        quote += f"\n… (+{len(rows) - QUOTED_ROWS})"
    pages = sorted({c.page for c in cells if c.page is not None})
    return Citation(
        chunk_id=chunk.chunk_id, source=chunk.source, page=pages[0] if pages and not table.sheet else (chunk.pages[0] if chunk.pages else None),
        section_path=list(chunk.section_path), element_ids=list(chunk.element_ids), quote=quote,
        cells=[CitedCell(c.column, c.row_number, c.text, c.page if not table.sheet else None, table.sheet) for c in cells],
    )


def describe_plan(plan: TablePlan) -> dict[str, Any]:
    """The plan as the trace shows it: which table, which columns, which filters."""
    table = plan.table

    def name(index: int | None) -> str | None:
        return table.columns[index].name if index is not None else None

    return {
        "operation": plan.intent.operation,
        "table": {"id": table.table_id, "source": table.source, "title": table.title, "sheet": table.sheet, "rows": table.n_rows},
        "measure": name(plan.measure), "base": name(plan.base), "label": name(plan.label), "group": name(plan.group),
        "filters": [{**asdict(f), "column": name(f.column)} for f in plan.filters], "score": round(plan.score, 3),
        "certainty": plan.certainty,
    }
