"""The collection's tables as SQL tables with typed columns, in one SQLite file inside the collection folder.

Each logical table (`index/table_data.py`) becomes an SQL table ``t_<id>`` with one ``c<i>`` TEXT column per
table column (the cell as shown) and, for a typed column, a ``v<i>`` REAL column (its value), beside each row's
provenance (``_row_number``, ``_page``, ``_chunk``, ``_total``). A catalog (``tables``) names the columns and
their kinds; ``documents`` records which version of each document the tables were made from.

Writes replace a set of documents' tables in one transaction (SQLite DDL is transactional), so a reader sees
the tables before or after an update, never half of one. Queries run on a separate read-only connection whose
authorizer allows reading and nothing else, and whose progress handler stops a query past its time.
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bunko.index.table_data import TEXT, LogicalTable, TableColumn

TABLES_FILE = "tables.db"
QUERY_SECONDS = 2.0
"""How long one query may run before it is stopped."""
MAX_DISTINCT = 500
"""Distinct values of a text column kept in the catalog for matching a question's words to rows."""

FORMAT = 2
"""The file's layout (SQLite's ``user_version``). A file of another layout is emptied and refilled from the stored
documents, as a damaged one is: it is derived data. 2: the catalog row holds its text columns' distinct values."""

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS documents (doc_id TEXT PRIMARY KEY, source TEXT NOT NULL, version TEXT NOT NULL)",
    """CREATE TABLE IF NOT EXISTS tables (
    table_id TEXT PRIMARY KEY, doc_id TEXT NOT NULL, source TEXT NOT NULL, title TEXT NOT NULL, sheet TEXT,
    section TEXT NOT NULL, columns TEXT NOT NULL, n_rows INTEGER NOT NULL, ordinal INTEGER NOT NULL,
    text_values TEXT NOT NULL
)""",
    "CREATE INDEX IF NOT EXISTS tables_doc ON tables(doc_id)",
)


class TableQueryError(Exception):
    """A query the table store refused (not one read-only SELECT) or stopped (past its time)."""


@dataclass
class StoredTable:
    """A table as the catalog knows it: enough to choose it for a question without reading its rows."""

    table_id: str
    doc_id: str
    source: str
    title: str
    sheet: str | None
    section_path: list[str]
    columns: list[TableColumn]
    n_rows: int
    values: dict[int, list[str]] = field(default_factory=dict)
    """Distinct cell texts of each text column (by column index)."""

    @property
    def sql_name(self) -> str:
        return sql_table(self.table_id)


def distinct_text_values(table: LogicalTable) -> dict[int, list[str]]:
    """Each text column's distinct non-empty cells in row order, at most MAX_DISTINCT: what the catalog matches a
    question's words against."""
    values: dict[int, list[str]] = {}
    for i, column in enumerate(table.columns):
        if column.kind == TEXT:
            cells = dict.fromkeys(cell for row in table.rows if (cell := row.cells[i]))
            values[i] = list(cells)[:MAX_DISTINCT]
    return values


def sql_table(table_id: str) -> str:
    if not re.fullmatch(r"[0-9a-f]{16}", table_id):
        raise ValueError(f"not a table id: {table_id!r}")
    return f"t_{table_id}"


def text_col(index: int) -> str:
    return f"c{int(index)}"


def value_col(index: int) -> str:
    return f"v{int(index)}"


_READ_ACTIONS = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, getattr(sqlite3, "SQLITE_RECURSIVE", 33)}
_FORBIDDEN_FUNCTIONS = {"load_extension", "readfile", "writefile", "edit", "fts3_tokenizer"}


def _authorizer(tables: frozenset[str] | None) -> Any:
    """Reading and nothing else; with `tables`, reading those tables alone (a query a model wrote sees the table it
    was given, not the rest of the collection's)."""

    def authorize(action: int, arg1: str | None, arg2: str | None, db: str | None, trigger: str | None) -> int:
        if action not in _READ_ACTIONS:
            return sqlite3.SQLITE_DENY
        if action == sqlite3.SQLITE_FUNCTION and (arg2 or "").lower() in _FORBIDDEN_FUNCTIONS:
            return sqlite3.SQLITE_DENY
        if action == sqlite3.SQLITE_READ and tables is not None and arg1 not in tables:
            return sqlite3.SQLITE_DENY
        return sqlite3.SQLITE_OK

    return authorize


def check_select(sql: str) -> str:
    """The statement if it is one SELECT (or WITH … SELECT), else `TableQueryError` saying why."""
    text = sql.strip().rstrip(";").strip()
    if not text:
        raise TableQueryError("empty query")
    if ";" in text.replace("';'", ""):
        raise TableQueryError("more than one statement")
    if not re.match(r"(?is)^(select|with)\b", text):
        raise TableQueryError("not a SELECT")
    if not sqlite3.complete_statement(text + ";"):
        raise TableQueryError("not a complete statement")
    return text


class TableDB:
    """The table store file of one collection; safe to share between threads (one writer at a time)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._read_lock = threading.Lock()
        self._read: sqlite3.Connection | None = None
        """The connection `select` reuses: opening one reads the schema of every stored table (1,213 on the Debian
        Reference, ~10 ms), which each question's row lookup paid again."""
        try:
            self._create()
        except sqlite3.DatabaseError as exc:
            if isinstance(exc, sqlite3.OperationalError):  # locked, read-only, full: not the file's fault
                raise
            # The file is derived from the stored documents, like the BM25 cache: a damaged one costs a rebuild
            # (every document's version then differs), never a failed search.
            for suffix in ("", "-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)
            self._create()

    def _create(self) -> None:
        """The schema, in one transaction; a file of an older layout loses its tables first (they are rebuilt from the
        stored documents at the next catalog read, as every document's version then differs)."""
        conn = self._writer()
        try:
            if conn.execute("PRAGMA user_version").fetchone()[0] == FORMAT:
                return
            conn.execute("BEGIN IMMEDIATE")
            try:
                if conn.execute("PRAGMA user_version").fetchone()[0] != FORMAT:  # not done by another process meanwhile
                    names = [n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
                    for name in names:
                        if name in ("tables", "documents") or re.fullmatch(r"t_[0-9a-f]{16}", name):
                            conn.execute(f'DROP TABLE "{name}"')
                    for statement in _SCHEMA:
                        conn.execute(statement)
                    conn.execute(f"PRAGMA user_version = {FORMAT}")
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        finally:
            conn.close()

    def _writer(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        conn.execute("PRAGMA journal_mode=WAL")
        return conn

    # -- writing -------------------------------------------------------------
    def versions(self) -> dict[str, str]:
        conn = self._writer()
        try:
            return dict(conn.execute("SELECT doc_id, version FROM documents").fetchall())
        finally:
            conn.close()

    def update(self, changed: Mapping[str, tuple[str, str, list[LogicalTable]]], removed: Sequence[str]) -> None:
        """In one transaction: each changed document's tables replaced (doc id → source, version, tables), and the
        removed documents' tables dropped."""
        if not changed and not removed:
            return
        with self._lock:
            conn = self._writer()
            try:
                conn.execute("BEGIN IMMEDIATE")
                for doc_id in [*removed, *changed]:
                    for (table_id,) in conn.execute("SELECT table_id FROM tables WHERE doc_id = ?", (doc_id,)).fetchall():
                        conn.execute(f"DROP TABLE IF EXISTS {sql_table(table_id)}")
                    conn.execute("DELETE FROM tables WHERE doc_id = ?", (doc_id,))
                    conn.execute("DELETE FROM documents WHERE doc_id = ?", (doc_id,))
                for doc_id, (source, version, tables) in changed.items():
                    conn.execute("INSERT INTO documents VALUES (?, ?, ?)", (doc_id, source, version))
                    for ordinal, table in enumerate(tables):
                        self._write_table(conn, table, ordinal)
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            finally:
                conn.close()

    @staticmethod
    def _write_table(conn: sqlite3.Connection, table: LogicalTable, ordinal: int) -> None:
        columns = ["_row_number INTEGER", "_page INTEGER", "_chunk TEXT", "_total INTEGER"]
        for i, column in enumerate(table.columns):
            columns.append(f"{text_col(i)} TEXT")
            if column.kind != TEXT:
                columns.append(f"{value_col(i)} REAL")
        name = sql_table(table.table_id)
        conn.execute(f"CREATE TABLE {name} (_row INTEGER PRIMARY KEY, {', '.join(columns)})")
        names = ["_row", "_row_number", "_page", "_chunk", "_total"]
        for i, column in enumerate(table.columns):
            names.append(text_col(i))
            if column.kind != TEXT:
                names.append(value_col(i))
        marks = ", ".join("?" * len(names))
        records = []
        for index, row in enumerate(table.rows):
            record: list[Any] = [index, row.row_number, row.page, row.chunk_id, int(row.total)]
            for i, column in enumerate(table.columns):
                record.append(row.cells[i])
                if column.kind != TEXT:
                    record.append(row.values[i])
            records.append(record)
        conn.executemany(f"INSERT INTO {name} ({', '.join(names)}) VALUES ({marks})", records)
        conn.execute(
            "INSERT INTO tables VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (table.table_id, table.doc_id, table.source, table.title, table.sheet, json.dumps(table.section_path, ensure_ascii=False),
             json.dumps([[c.name, c.kind, c.unit] for c in table.columns], ensure_ascii=False), len(table.rows), ordinal,
             json.dumps(distinct_text_values(table), ensure_ascii=False)),
        )

    # -- reading -------------------------------------------------------------
    def _reader(self, tables: frozenset[str] | None = None) -> sqlite3.Connection:
        # `select` reuses this connection under a new authorizer per query; SQLite expires prepared statements when the
        # authorizer changes, and without a statement cache none can outlive its own query anyway
        conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=30, check_same_thread=False, cached_statements=0)
        conn.execute("PRAGMA query_only = ON")
        conn.set_authorizer(_authorizer(tables))
        return conn

    def catalog(self) -> list[StoredTable]:
        """Every table with its text columns' distinct values, in one query: a cold process reads the catalog of
        thousands of tables at its first question, and a query per column cost it a tenth of a second."""
        conn = self._reader()
        try:
            found = []
            rows = conn.execute(
                "SELECT table_id, doc_id, source, title, sheet, section, columns, n_rows, text_values FROM tables"
                " ORDER BY source, ordinal"
            ).fetchall()
            for table_id, doc_id, source, title, sheet, section, columns, n_rows, text_values in rows:
                cols = [TableColumn(name, kind, unit) for name, kind, unit in json.loads(columns)]
                stored = StoredTable(table_id, doc_id, source, title, sheet, json.loads(section), cols, n_rows)
                stored.values = {int(i): values for i, values in json.loads(text_values).items()}
                found.append(stored)
            return found
        finally:
            conn.close()

    def select(
        self, sql: str, params: Sequence[Any] = (), seconds: float = QUERY_SECONDS, tables: Sequence[str] | None = None,
    ) -> list[tuple[Any, ...]]:
        """Rows of one read-only SELECT with bound parameters, stopped after `seconds`; with `tables`, a query that
        reads any other table is refused."""
        statement = check_select(sql)
        with self._read_lock:
            if self._read is None:
                self._read = self._reader()
            conn = self._read
            conn.set_authorizer(_authorizer(frozenset(tables) if tables is not None else None))
            deadline = time.monotonic() + seconds
            conn.set_progress_handler(lambda: int(time.monotonic() > deadline), 1000)
            try:
                return conn.execute(statement, tuple(params)).fetchall()
            except sqlite3.OperationalError as exc:
                if "interrupted" in str(exc):
                    raise TableQueryError(f"the query ran longer than {seconds:g} s and was stopped") from None
                raise TableQueryError(str(exc)) from None
            except sqlite3.DatabaseError as exc:
                raise TableQueryError(str(exc)) from None
            finally:
                conn.set_progress_handler(None, 1000)
