"""A SQL table or query: one document per row, or per group of rows sharing a value (`group_by`).

Each document is written as Markdown for the Markdown parser: front matter with the title and the
`field_columns` (which become filter fields, like a Markdown file's own front matter), then the text
columns; a group's rows are one section each. The version is the hash of that text, so a row whose values
changed is re-indexed and one that did not is skipped. Rows are read once per sync, on a read-only
connection.

`url` is `sqlite:///path/to/file.db` or a `postgresql://user@host:port/db` address (psycopg, the `postgres`
extra). A PostgreSQL password comes from the source's secrets file (`password`), BUNKO_SOURCE_<NAME>_PASSWORD,
or libpq's own PGPASSWORD / ~/.pgpass; a password written in the URL is refused when the source is added.
"""

from __future__ import annotations

import datetime
import decimal
import hashlib
import re
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal
from urllib.parse import unquote, urlsplit

import yaml
from pydantic import Field, field_validator, model_validator

from bunko.errors import DocumentError
from bunko.ingest.connectors.base import Item, Listing, NamedSource, Secrets, SourceError, SourceSpec, safe_file_name
from bunko.schema import ErrorCode

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$")


class SqlSpec(SourceSpec):
    type: Literal["sql"] = "sql"
    url: str = Field(min_length=1, description="sqlite:///path.db or postgresql://user@host:port/dbname")
    table: str | None = Field(None, description="A table (or schema.table) to read whole.")
    query: str | None = Field(None, description="A SELECT to run instead of a table.")
    id_column: str | None = Field(None, description="The column that names a row's document (default: id, else the first column).")
    group_by: str | None = Field(None, description="One document per value of this column, its rows in the order read.")
    title_column: str | None = Field(None, description="The document's title (for groups: each row's section heading).")
    text_columns: list[str] | None = Field(None, description="Columns forming the text (default: every column not named elsewhere).")
    field_columns: list[str] = Field(default_factory=list, description="Columns stored as the document's filter fields.")

    @field_validator("url")
    @classmethod
    def _scheme(cls, value: str) -> str:
        if urlsplit(value).scheme not in ("sqlite", "postgresql", "postgres"):
            raise ValueError("must be sqlite:///path or postgresql://…")
        return value

    @field_validator("table")
    @classmethod
    def _table(cls, value: str | None) -> str | None:
        if value is not None and not _IDENTIFIER.match(value):
            raise ValueError(f"{value!r} is not a table name (letters, digits and _, optionally schema.table); use query for anything else")
        return value

    @model_validator(mode="after")
    def _one_of(self) -> SqlSpec:
        if (self.table is None) == (self.query is None):
            raise ValueError("give exactly one of table and query")
        return self

    def select(self) -> str:
        if self.query is not None:
            return self.query
        assert self.table is not None
        return "SELECT * FROM " + ".".join(f'"{part}"' for part in self.table.split("."))

    def target(self) -> str:
        return f"{self.url} {self.table or self.query}"


def _plain(value: Any) -> Any:
    """A column value as YAML and Markdown can hold it."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).decode("utf-8", errors="replace")
    return str(value)


class SqlSource(NamedSource):
    def __init__(self, name: str, spec: SqlSpec, secrets: Secrets, base: Path) -> None:
        self.name = name
        self.spec = spec
        self.secrets = secrets
        self.base = base
        self._texts: dict[str, str] = {}

    def _rows(self) -> tuple[list[str], list[Sequence[Any]]]:
        scheme = urlsplit(self.spec.url).scheme
        try:
            if scheme == "sqlite":
                return self._sqlite_rows()
            return self._postgres_rows()
        except SourceError:
            raise
        except Exception as exc:
            raise SourceError(f"source {self.name}: the query failed: {type(exc).__name__}: {exc}".splitlines()[0]) from None

    def _sqlite_rows(self) -> tuple[list[str], list[Sequence[Any]]]:
        raw = unquote(self.spec.url[len("sqlite://"):])  # sqlite:///relative.db, sqlite:////absolute.db
        path = Path(raw[1:] if raw.startswith("/") else raw).expanduser()
        path = path if path.is_absolute() else self.base / path
        if not path.exists():
            raise SourceError(f"source {self.name}: no SQLite database at {path}")
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            cursor = db.execute(self.spec.select())
            columns = [d[0] for d in cursor.description or []]
            rows = cursor.fetchall()
        return columns, rows

    def _postgres_rows(self) -> tuple[list[str], list[Sequence[Any]]]:
        try:
            import psycopg
        except ImportError:
            raise SourceError(f"source {self.name}: PostgreSQL sources need psycopg: pip install 'bunko[postgres]'") from None
        password = self.secrets.get("password")
        options: dict[str, Any] = {"password": password} if password else {}
        with psycopg.connect(self.spec.url, connect_timeout=20, **options) as conn:
            conn.read_only = True
            with conn.cursor() as cursor:
                cursor.execute(self.spec.select().encode())
                columns = [d.name for d in cursor.description or []]
                rows = cursor.fetchall()
        return columns, rows

    def list_items(self) -> Listing:
        columns, rows = self._rows()
        spec = self.spec
        for named in [spec.id_column, spec.group_by, spec.title_column, *(spec.text_columns or []), *spec.field_columns]:
            if named is not None and named not in columns:
                raise SourceError(f"source {self.name}: the query has no column {named!r} (it has {', '.join(columns)})")
        if not columns:
            raise SourceError(f"source {self.name}: the query returned no columns")
        key_column = spec.group_by or spec.id_column or ("id" if "id" in columns else columns[0])
        used = {key_column, spec.title_column, *spec.field_columns}
        text_columns = spec.text_columns or [c for c in columns if c not in used and c != spec.id_column]
        if not text_columns:
            raise SourceError(f"source {self.name}: no column is left for the text; name text_columns")
        groups: dict[str, list[dict[str, Any]]] = {}
        for row in rows:
            record = {c: _plain(v) for c, v in zip(columns, row, strict=True)}
            if record[key_column] is None:
                continue
            groups.setdefault(str(record[key_column]), []).append(record)
        self._texts = {}
        items = []
        for key, records in groups.items():
            if spec.group_by is None and len(records) > 1:
                raise SourceError(f"source {self.name}: {len(records)} rows have {key_column} = {key!r}; name a unique id_column, or group_by")
            text = self._markdown(key, records, text_columns, key_column)
            self._texts[key] = text
            items.append(Item(key, hashlib.sha256(text.encode()).hexdigest()[:32], ".md", len(text.encode())))
        return Listing(items)

    def _markdown(self, key: str, records: list[dict[str, Any]], text_columns: list[str], key_column: str) -> str:
        spec = self.spec
        first = records[0]
        grouped = spec.group_by is not None
        title = key if grouped or not spec.title_column else first[spec.title_column]
        front = {"title": str(title if title is not None else key), **{c: first[c] for c in spec.field_columns}}
        parts = ["---", yaml.safe_dump(front, allow_unicode=True, sort_keys=False).strip(), "---", ""]
        for record in records:
            if grouped:
                heading = record[spec.title_column] if spec.title_column else record.get(spec.id_column or "", None)
                parts += [f"## {heading if heading is not None else key}", ""]
            for column in text_columns:
                value = record[column]
                if value is None or str(value).strip() == "":
                    continue
                if len(text_columns) > 1:
                    parts += [f"{'###' if grouped else '##'} {column}", ""]
                parts += [str(value).strip(), ""]
        return "\n".join(parts)

    def fetch(self, item: Item, folder: Path) -> Path:
        text = self._texts.get(item.key)
        if text is None:
            raise DocumentError(ErrorCode.FETCH_FAILED, f"{self.document_name(item.key)}: not read in this sync's query")
        target = folder / safe_file_name(item.key, ".md")
        target.write_text(text, encoding="utf-8")
        return target
