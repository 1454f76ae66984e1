"""The metadata filter language, applied inside retrievers before top-k.

A filter is a JSON-like dict, in the style of MongoDB / Chroma ``where``:

    {"source": {"$glob": "policies/*.md"}}
    {"$and": [{"kind": "table"}, {"page": {"$gte": 3, "$lte": 5}}]}
    {"$or": [{"tags": {"$in": ["hr", "finance"]}}, {"$not": {"section": "Appendix"}}]}

A bare value means equality. Operators: ``$eq $ne $in $nin $glob $gt $gte
$lt $lte``; combinators: ``$and $or $not``. For list-valued fields (section,
page, kind, tags) a condition holds when *any* element satisfies it; ``section``
also matches its joined path ``"A > B"`` with ``$glob``; ``lang`` is the chunk's
detected language (``"en"``, ``"ja"``, ``"zh"``). Unknown fields and
operators raise `FilterError`: a filter that is silently ignored returns
documents the user meant to exclude.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from bunko.errors import FilterError

Record = Mapping[str, Any]
Predicate = Callable[[Record], bool]

BUILTIN_FIELDS = frozenset({"source", "section", "page", "kind", "tags", "doc_id", "title", "mime", "ingested_at", "chunk_id", "lang"})
_COMPARATORS = {"$gt", "$gte", "$lt", "$lte"}
SCALARS = (str, int, float, bool, type(None))
"""What $in and $nin may list: values compared one by one (a list or object member is refused, not hashed into a 500)."""


def _values(record: Record, field: str) -> list[Any]:
    value = record.get(field)
    if value is None:
        return []
    if isinstance(value, list | tuple):
        return list(value)
    return [value]


def _condition(op: str, operand: Any) -> Callable[[Any], bool]:
    if op == "$eq":
        return lambda v: v == operand
    if op == "$ne":
        return lambda v: v != operand
    if op in ("$in", "$nin"):
        if not isinstance(operand, list | tuple):
            raise FilterError(f"{op} needs a list, got {operand!r}")
        odd = next((m for m in operand if not isinstance(m, SCALARS)), None)
        if odd is not None:
            raise FilterError(f"{op} takes a list of strings, numbers, true/false or null; got {_short(odd)} in it")
        members = set(operand)
        return (lambda v: v in members) if op == "$in" else (lambda v: v not in members)
    if op == "$glob":
        pattern = str(operand)
        return lambda v: fnmatch.fnmatchcase(str(v), pattern)
    if op in _COMPARATORS:
        def compare(v: Any) -> bool:
            try:
                if op == "$gt":
                    return bool(v > operand)
                if op == "$gte":
                    return bool(v >= operand)
                if op == "$lt":
                    return bool(v < operand)
                return bool(v <= operand)
            except TypeError:
                return False
        return compare
    raise FilterError(f"unknown filter operator {op!r}; use one of $eq $ne $in $nin $glob $gt $gte $lt $lte")


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def _field_predicate(field: str, spec: Any) -> Predicate:
    ops = spec if isinstance(spec, Mapping) else {"$eq": spec}
    if not ops:
        raise FilterError(f"empty condition for field {field!r}")
    negative = {"$ne", "$nin"}
    checks = [(op, _condition(op, operand)) for op, operand in ops.items()]

    def holds(record: Record) -> bool:
        values = _values(record, field)
        if field == "section" and values:
            values = [*values, " > ".join(str(v) for v in values)]
        for op, check in checks:
            ok = all(check(v) for v in values) if op in negative else any(check(v) for v in values)
            if not ok:
                return False
        return True

    return holds


def _all_of(predicates: list[Predicate]) -> Predicate:
    return lambda record: all(p(record) for p in predicates)


def _any_of(predicates: list[Predicate]) -> Predicate:
    return lambda record: any(p(record) for p in predicates)


def _negated(predicate: Predicate) -> Predicate:
    return lambda record: not predicate(record)


def compile_filter(spec: Mapping[str, Any] | None, known_fields: frozenset[str] | set[str] = BUILTIN_FIELDS) -> Predicate | None:
    """Turn a filter dict into a predicate over chunk records; validate every field."""
    if not spec:
        return None
    if not isinstance(spec, Mapping):
        raise FilterError(f"a filter must be an object, got {spec!r}")
    parts: list[Predicate] = []
    for key, value in spec.items():
        if key in ("$and", "$or"):
            if not isinstance(value, Sequence) or isinstance(value, str) or not value:
                raise FilterError(f"{key} needs a non-empty list of filters")
            subs = [p for p in (compile_filter(v, known_fields) for v in value) if p is not None]
            parts.append(_all_of(subs) if key == "$and" else _any_of(subs))
        elif key == "$not":
            sub = compile_filter(value, known_fields)
            if sub is not None:
                parts.append(_negated(sub))
        elif key.startswith("$"):
            raise FilterError(f"unknown filter combinator {key!r}; use $and, $or or $not")
        elif key not in known_fields:
            raise FilterError(f"unknown filter field {key!r}; known fields: {', '.join(sorted(known_fields))}")
        else:
            parts.append(_field_predicate(key, value))
    return lambda record: all(p(record) for p in parts)


def filter_key(spec: Mapping[str, Any] | None) -> str:
    return json.dumps(spec or {}, sort_keys=True, ensure_ascii=False, default=str)


def mask_for(spec: Mapping[str, Any] | None, records: Sequence[Record], known_fields: frozenset[str] | set[str] = BUILTIN_FIELDS) -> np.ndarray | None:
    """Boolean mask over rows; None means "no filter" (every row allowed)."""
    predicate = compile_filter(spec, known_fields)
    if predicate is None:
        return None
    return np.fromiter((predicate(r) for r in records), dtype=bool, count=len(records))
