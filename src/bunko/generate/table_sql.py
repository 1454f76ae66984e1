"""`[answer] table_sql = "llm"`: the configured model writes the query for the table the rules chose.

The rules still decide whether a table fits and which (`retrieve/table_plan.py`): a model is never asked to find
data that is not there. It is shown that one table's schema (SQL names, header text, kinds, units) and the
question, and must answer with one SELECT whose last column lists the rows it used. The query is checked
(`index/table_db.check_select`: one SELECT), run on a read-only connection that may read that table alone,
and stopped after its time; anything else — an error, a refusal, another table, no rows — leaves the rules'
own query to answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bunko.index.table_db import StoredTable, TableDB, TableQueryError, text_col, value_col
from bunko.llm.base import ChatModel, Message
from bunko.retrieve.table_query import CellRef
from bunko.text.lazy_regex import lazy_compile

ROWS_USED = "rows_used"
_FENCE = lazy_compile(r"```(?:sql)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)


@dataclass
class ModelQuery:
    sql: str
    header: list[str]
    rows: list[tuple[object, ...]]
    """The result without its last column (the rows used)."""
    used: list[int]


def schema_text(table: StoredTable) -> str:
    lines = [f"Table {table.sql_name} — {table.title}" + (f" (sheet {table.sheet})" if table.sheet else "")]
    lines.append("  _row INTEGER: the row's id; _total INTEGER: 1 for a row that totals others (leave it out of sums)")
    for i, column in enumerate(table.columns):
        lines.append(f"  {text_col(i)} TEXT: \"{column.name}\" as written")
        if column.numeric:
            unit = f", unit {column.unit}" if column.unit else ""
            lines.append(f"  {value_col(i)} REAL: \"{column.name}\" as a number ({column.kind}{unit}; NULL when the cell is not one)")
        elif i in table.values:
            sample = ", ".join(table.values[i][:8])
            lines.append(f"    values include: {sample}")
    return "\n".join(lines)


def query_messages(question: str, table: StoredTable) -> list[Message]:
    system = (
        "You write one SQLite SELECT statement that answers a question from one table. Use only the table and columns "
        "given. Compare numbers with the v columns, match names with the c columns. The last column of the result must be "
        f"group_concat(_row) AS {ROWS_USED}: the _row of every row the answer was computed from. "
        "Reply with the SQL only, no explanation."
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": f"{schema_text(table)}\n\nQuestion: {question}"}]


def extract_sql(text: str) -> str:
    fenced = _FENCE.search(text)
    return (fenced.group(1) if fenced else text).strip().rstrip(";").strip()


def model_query(model: ChatModel, db: TableDB, question: str, table: StoredTable) -> ModelQuery:
    """The model's query for `question` over `table`, run; `TableQueryError` or `LLMError` when it cannot be used."""
    sql = extract_sql(model.complete(query_messages(question, table)))
    if not sql:
        raise TableQueryError("the model wrote no query")
    found = db.select(sql, (), tables=[table.sql_name])
    if not found or len(found[0]) < 2:
        raise TableQueryError("the model's query returned no rows (or no rows_used column)")
    used = sorted({int(r) for row in found for r in str(row[-1] or "").split(",") if r.strip().isdigit()})
    if not used:
        raise TableQueryError("the model's query names no rows it used")
    header = [f"value {i + 1}" for i in range(len(found[0]) - 1)]
    return ModelQuery(sql, header, [row[:-1] for row in found], used)


def cells_of(db: TableDB, table: StoredTable, sql: str, used: list[int]) -> list[CellRef]:
    """The cells of the rows used, in the columns the query names (and the first text column, the rows' names)."""
    named = sorted({int(n) for n in re.findall(r"\b[cv](\d+)\b", sql)} & set(range(len(table.columns))))
    label = next((i for i, c in enumerate(table.columns) if not c.numeric), None)
    columns = list(dict.fromkeys([*([label] if label is not None else []), *named]))
    if not columns:
        return []
    picked = ", ".join(text_col(c) for c in columns)
    rows = db.select(f"SELECT _row, _row_number, _page, _chunk, {picked} FROM {table.sql_name} "
                     f"WHERE _row IN ({', '.join('?' * len(used))}) ORDER BY _row", used)
    return [CellRef(int(r), int(n), p, str(chunk), table.columns[c].name, str(t))
            for r, n, p, chunk, *texts in rows for c, t in zip(columns, texts, strict=True)]

