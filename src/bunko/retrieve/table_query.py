"""The typed plan of one table question (which table, which columns, which rows) and what running it returned, every
cell it used kept: what `retrieve/table_plan.py` produces and `generate/table_answer.py` words and cites."""

from __future__ import annotations

from dataclasses import dataclass, field

from bunko.index.table_db import StoredTable
from bunko.text.table_questions import TableIntent


@dataclass
class Filter:
    column: int
    op: str
    """> >= < <= = in contains"""
    values: list[str | float]


@dataclass
class TablePlan:
    table: StoredTable
    intent: TableIntent
    score: float
    certainty: float = 1.0
    """How sure the mapping is (0–1): how plainly the question names the column read, times how far the table is
    ahead of the best table holding other data. A computed answer is no surer than this (`steps/table.table_grade`)."""
    column_score: float = 1.0
    """How plainly the question names the column the operation reads (`TablePlanner.name_score`), 1 when none is read."""
    defer: bool = False
    """The question names one row of this table by its key ("how many files does 2020-garden hold"): a value to read,
    not rows to count; the planner answers it as a lookup, or not at all."""
    unranked: bool = False
    """The question asks for the row ranked first or last by something ("the newest", "the largest") of this table,
    which it names, and no column of the table holds that: the table cannot answer it, and its rows quoted would not
    either (`TablePlanner.choose`; the answer declines, `generate/steps/table.py`)."""
    measure: int | None = None
    base: int | None = None
    """growth: the column the change is measured from (the measure is the one it is measured to)."""
    label: int | None = None
    group: int | None = None
    filters: list[Filter] = field(default_factory=list)
    named_values: list[tuple[int, str]] = field(default_factory=list)
    """The rows the question names, by (column, cell text), in the question's order (a difference's two sides)."""


@dataclass
class CellRef:
    row: int
    """The row's internal index in its table."""
    row_number: int
    page: int | None
    chunk_id: str
    column: str
    text: str


@dataclass
class ResultRow:
    label: str
    value: float | None
    row: int | None = None
    text: str = ""
    """The cell as shown, for a lookup."""


@dataclass
class TableResult:
    plan: TablePlan
    value: float | None
    rows: list[ResultRow]
    cells: list[CellRef]
    count: int
    sql: str
    params: list[str | float]
