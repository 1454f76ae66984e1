"""The filter language of `bunko.index.filters`, translated to a SQL WHERE clause.

The postgres store must apply filters *inside* its vector and keyword queries
(a post-filter after top-k returns fewer than k hits) and must mean exactly
what the local store means. So the filter is first validated by the same
`validate_filter` the local store uses (the same FilterError, naming the path of
the bad part, for unknown fields, operators and combinators, operands of the
wrong type and non-finite numbers), then each condition is rewritten over the chunk's
``attrs`` jsonb column, which holds the very record the local store filters
(`filter_record`).

Python semantics kept in SQL:

* list fields match when *any* value satisfies a positive condition and when
  *all* values satisfy ``$ne``/``$nin`` (so a missing field satisfies ``$ne``);
* equality is Python's: ``1 == 1.0 == True``; ``"1" != 1``;
* ``$gt``… compare numbers with numbers and strings with strings by code
  point, anything else is false (Python raises TypeError, the local store
  treats that as false);
* ``$glob`` is `fnmatch.fnmatchcase` on ``str(value)``, as an anchored POSIX
  regular expression over the value's Python spelling.

The few SQL helper functions used here (``bunko_values``, ``bunko_pystr``)
are created by the postgres store's schema migration.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from psycopg import sql

from bunko.errors import FilterError
from bunko.index.filters import BUILTIN_FIELDS, validate_filter

HIDDEN_FIELDS = frozenset({"pages", "section_path", "kinds"})
"""Raw columns in the local store's records that are never filter fields."""

STRING_COLUMNS = frozenset({"source", "doc_id", "chunk_id"})
"""Fields that are always one string per chunk and have their own (collate "C") column."""

_REGEX_SPECIAL = set("\\^$.|?*+()[]{}")
_COMPARE_SQL = {"$gt": ">", "$gte": ">=", "$lt": "<", "$lte": "<="}


def field_names(spec: Any) -> set[str]:
    """Every field a filter names (tolerant of malformed specs: `validate_filter` reports those)."""
    names: set[str] = set()
    if isinstance(spec, Mapping):
        for key, value in spec.items():
            if key in ("$and", "$or") and isinstance(value, Sequence) and not isinstance(value, str):
                for sub in value:
                    names |= field_names(sub)
            elif key == "$not":
                names |= field_names(value)
            elif isinstance(key, str) and not key.startswith("$"):
                names.add(key)
    return names


def glob_to_regex(pattern: str) -> str:
    """`fnmatch.translate` for PostgreSQL's regex dialect: ``*`` ``?`` ``[seq]`` ``[!seq]``, anchored."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        i += 1
        if c == "*":
            if not out or out[-1] != ".*":
                out.append(".*")
        elif c == "?":
            out.append(".")
        elif c == "[":
            j = i
            if j < n and pattern[j] == "!":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                j += 1
            if j >= n:
                out.append("\\[")
                continue
            out.append(_bracket(pattern[i:j]))
            i = j + 1
        else:
            out.append("\\" + c if c in _REGEX_SPECIAL else c)
    return "^(?:" + "".join(out) + ")$"


def _bracket(body: str) -> str:
    """One ``[...]`` set; reversed ranges are dropped, as CPython's fnmatch does."""
    negate = body.startswith("!")
    if negate:
        body = body[1:]
    items: list[str] = []
    k = 0
    while k < len(body):
        if k + 2 < len(body) and body[k + 1] == "-":
            lo, hi = body[k], body[k + 2]
            if lo <= hi:
                items.append(_set_char(lo) + "-" + _set_char(hi))
            k += 3
        else:
            items.append(_set_char(body[k]))
            k += 1
    if not items:
        return "." if negate else "(?!)"
    return "[" + ("^" if negate else "") + "".join(items) + "]"


def _set_char(c: str) -> str:
    return "\\" + c if c in "\\]^[-" else c


def _jsonb(value: Any) -> sql.Composable:
    return sql.SQL("{}::jsonb").format(sql.Literal(json.dumps(value, ensure_ascii=False)))


def _equal_values(operand: Any) -> list[Any]:
    """JSON values equal to `operand` under Python's ``==`` (bool is an int; 1 == 1.0)."""
    if isinstance(operand, bool):
        return [operand, int(operand)]
    if isinstance(operand, int | float):
        if not math.isfinite(operand):
            return []  # stored values are finite; nan equals nothing
        return [operand, bool(operand)] if operand in (0, 1) else [operand]
    try:
        json.dumps(operand)
    except (TypeError, ValueError):
        return [str(operand)]
    return [operand]


class FilterCompiler:
    """Builds the WHERE clause for one filter over chunk rows aliased ``alias``."""

    def __init__(self, alias: str = "c") -> None:
        self.alias = alias

    def col(self, name: str) -> sql.Composable:
        return sql.Identifier(self.alias, name)

    def where(self, spec: Mapping[str, Any] | None, known_fields: set[str] | frozenset[str]) -> sql.Composable | None:
        """Validate `spec` exactly as the local store does, then translate it; None means no filter."""
        validate_filter(spec, known_fields)
        if not spec:
            return None
        return self._spec(spec)

    def _spec(self, spec: Mapping[str, Any]) -> sql.Composable | None:
        parts: list[sql.Composable] = []
        for key, value in spec.items():
            if key in ("$and", "$or"):
                subs = [s for s in (self._spec(v) for v in value) if s is not None]
                if key == "$and":
                    parts.extend(subs)
                else:
                    parts.append(sql.SQL("({})").format(sql.SQL(" OR ").join(subs)) if subs else sql.SQL("FALSE"))
            elif key == "$not":
                sub = self._spec(value)
                if sub is not None:
                    parts.append(sql.SQL("NOT ({})").format(sub))
            else:
                ops = value if isinstance(value, Mapping) else {"$eq": value}
                parts.extend(self._condition(key, op, operand) for op, operand in ops.items())
        if not parts:
            return None
        return sql.SQL("({})").format(sql.SQL(" AND ").join(parts))

    # -- one field, one operator ---------------------------------------------
    def _condition(self, field: str, op: str, operand: Any) -> sql.Composable:
        if op in ("$ne", "$nin"):
            positive = self._condition(field, "$eq" if op == "$ne" else "$in", operand)
            return sql.SQL("NOT {}").format(positive)
        if field in STRING_COLUMNS:
            return self._string_column(field, op, operand)
        if op in ("$eq", "$in"):
            members = [operand] if op == "$eq" else list(_members(op, operand))
            return self._equals_any(field, [v for m in members for v in _equal_values(m)])
        if op == "$glob":
            return self._exists(field, sql.SQL("bunko_pystr(v) ~ {}").format(sql.Literal(glob_to_regex(str(operand)))))
        if op in _COMPARE_SQL:
            return self._compare(field, _COMPARE_SQL[op], operand)
        raise FilterError(f"unknown filter operator {op!r}")

    def _exists(self, field: str, condition: sql.Composable) -> sql.Composable:
        return sql.SQL("EXISTS (SELECT 1 FROM bunko_values({} -> {}) AS v WHERE {})").format(
            self.col("attrs"), sql.Literal(field), condition
        )

    def _equals_any(self, field: str, values: list[Any]) -> sql.Composable:
        """Containment tests, which the GIN index on attrs serves; objects and lists compare whole."""
        if not values:
            return sql.SQL("FALSE")
        tests: list[sql.Composable] = []
        for value in values:
            if isinstance(value, Mapping | list):
                tests.append(self._exists(field, sql.SQL("v = {}").format(_jsonb(value))))
                continue
            if value is not None:  # a scalar null field counts as "no value"
                tests.append(sql.SQL("{} @> {}").format(self.col("attrs"), _jsonb({field: value})))
            tests.append(sql.SQL("{} @> {}").format(self.col("attrs"), _jsonb({field: [value]})))
        return sql.SQL("({})").format(sql.SQL(" OR ").join(tests))

    def _compare(self, field: str, op: str, operand: Any) -> sql.Composable:
        if isinstance(operand, bool | int | float) and not (isinstance(operand, float) and math.isnan(operand)):
            number = sql.SQL("{}::numeric").format(sql.Literal(_numeric_text(operand)))
            condition = sql.SQL(
                "(CASE jsonb_typeof(v) WHEN 'number' THEN (v #>> '{{}}')::numeric {op} {x} "
                "WHEN 'boolean' THEN (v::boolean)::int::numeric {op} {x} ELSE FALSE END)"
            ).format(op=sql.SQL(op), x=number)
            return self._exists(field, condition)
        if isinstance(operand, str):
            condition = sql.SQL("(jsonb_typeof(v) = 'string' AND (v #>> '{{}}') COLLATE \"C\" {} {})").format(
                sql.SQL(op), sql.Literal(operand)
            )
            return self._exists(field, condition)
        return sql.SQL("FALSE")  # Python cannot order these against stored values either

    def _string_column(self, field: str, op: str, operand: Any) -> sql.Composable:
        column = self.col(field)
        if op in ("$eq", "$in"):
            members = [operand] if op == "$eq" else list(_members(op, operand))
            strings = sorted({m for m in members if isinstance(m, str)})
            if not strings:
                return sql.SQL("FALSE")
            return sql.SQL("{} = ANY({}::text[])").format(column, sql.Literal(strings))
        if op == "$glob":
            return sql.SQL("{} ~ {}").format(column, sql.Literal(glob_to_regex(str(operand))))
        if op in _COMPARE_SQL:
            if not isinstance(operand, str):
                return sql.SQL("FALSE")
            return sql.SQL("{} {} {}").format(column, sql.SQL(_COMPARE_SQL[op]), sql.Literal(operand))
        raise FilterError(f"unknown filter operator {op!r}")


def _numeric_text(number: bool | int | float) -> str:
    if isinstance(number, float):
        return str(number) if math.isfinite(number) else ("Infinity" if number > 0 else "-Infinity")
    return str(int(number))


def _members(op: str, operand: Any) -> Sequence[Any]:
    if not isinstance(operand, list | tuple):
        raise FilterError(f"{op} needs a list, got {operand!r}")
    return operand


def known_fields_from(extra: set[str]) -> set[str]:
    return set(BUILTIN_FIELDS) | (extra - HIDDEN_FIELDS)
