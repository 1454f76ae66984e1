"""The metadata filter language, applied inside retrievers before top-k.

A filter is a JSON-like dict, in the style of MongoDB / Chroma ``where``:

    {"source": {"$glob": "policies/*.md"}}
    {"$and": [{"kind": "table"}, {"page": {"$gte": 3, "$lte": 5}}]}
    {"$or": [{"tags": {"$in": ["hr", "finance"]}}, {"$not": {"section": "Appendix"}}]}

A bare value means equality. Operators: ``$eq $ne $in $nin $glob $gt $gte
$lt $lte``; combinators: ``$and $or $not``. For list-valued fields (section,
page, kind, tags) a condition holds when *any* element satisfies it; ``section``
also matches its joined path ``"A > B"`` with ``$glob``; ``lang`` is the chunk's
detected language (``"en"``, ``"ja"``, ``"zh"``).

Every filter is checked once, by `validate_filter`, before any store reads it:
the local store (`compile_filter`), the PostgreSQL store (`store/postgres/sql_filters.py`),
the engine's search and ask, the CLI's ``--where`` and the HTTP API all call it.
A malformed part raises `FilterError` whose message starts with the path of that
part (``where.$and[0]: …``, ``where.source.$ne: …``): a filter that is silently
ignored, or matches nothing because of a typo, returns documents the user meant to
exclude or hides the ones they asked for. The rules:

* a filter is an object; the whole filter may be empty (no filter), a filter
  inside ``$and``/``$or``/``$not`` may not (it would match everything);
* ``$and``/``$or`` take a non-empty list of filters, ``$not`` one filter; other
  ``$`` keys at this level are unknown combinators; combinators nest at most
  `MAX_FILTER_DEPTH` deep;
* any other key is a field, which must be known (when the caller knows the fields);
  its condition is a bare value (``$eq``) or a non-empty object of operators;
* ``$eq``/``$ne`` take a string, number, boolean or null; ``$in``/``$nin`` a list
  (maybe empty) of those; ``$glob`` a string; ``$gt $gte $lt $lte`` a number
  (not a boolean) or a string (compared by code point, e.g. ISO dates);
* every number is finite: NaN and ±Infinity (what an overflowing literal such as
  ``1e309`` parses to) are refused, as are integers beyond a double's range, and so
  is a string spelling a non-finite number (``"NaN"``, ``"-inf"``) where a comparison
  needs a number;
* every string (and key) is text either store can hold: no NUL character, no lone
  surrogate.
"""

from __future__ import annotations

import fnmatch
import json
import math
import sys
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

import numpy as np

from bunko.errors import FilterError
from bunko.text.lazy_regex import lazy_compile

Record = Mapping[str, Any]
Predicate = Callable[[Record], bool]

BUILTIN_FIELDS = frozenset({"source", "section", "page", "kind", "tags", "doc_id", "title", "mime", "ingested_at", "chunk_id", "lang"})
OPERATORS = ("$eq", "$ne", "$in", "$nin", "$glob", "$gt", "$gte", "$lt", "$lte")
COMBINATORS = ("$and", "$or", "$not")
_COMPARATORS = {"$gt", "$gte", "$lt", "$lte"}
SCALARS = (str, int, float, bool, type(None))
"""What $eq and $ne take and $in and $nin may list: values compared one by one (a list or object is refused)."""
MAX_FILTER_DEPTH = 32
"""How deep ``$and``/``$or``/``$not`` may nest: deeper filters are refused before any recursion could overflow."""
ROOT = "where"
_PLAIN_KEY = lazy_compile(r"[\w$-]+")


# -- validation -------------------------------------------------------------------
def validate_filter(spec: Any, known_fields: Collection[str] | None = None) -> None:
    """Raise `FilterError` for the first malformed part of `spec`, its message starting with that part's path.

    `known_fields`: the field names a filter may use; None checks the form and values only (the engine and the
    CLI, which do not know the store's fields; the store checks the names when it searches). None and ``{}``
    are "no filter".
    """
    if spec is None:
        return
    if not isinstance(spec, Mapping):
        raise FilterError(f"{ROOT}: expected a filter object, got {_kind(spec)}")
    if spec:
        _check_filter(spec, ROOT, known_fields, 0)


def _check_filter(spec: Any, path: str, known: Collection[str] | None, depth: int) -> None:
    if depth > MAX_FILTER_DEPTH:
        raise FilterError(f"{path}: filters nest more than {MAX_FILTER_DEPTH} deep")
    if not isinstance(spec, Mapping):
        raise FilterError(f"{path}: expected a filter object, got {_kind(spec)}")
    if not spec:
        raise FilterError(f"{path}: an empty filter object, which would match everything; give it a condition or leave it out")
    for key, value in spec.items():
        if not isinstance(key, str):
            raise FilterError(f"{path}: a key must be a string, got {_kind(key)}")
        _check_text(key, path, "a key")
        here = _step(path, key)
        if key in ("$and", "$or"):
            if not isinstance(value, list | tuple):
                raise FilterError(f"{here}: expected a non-empty list of filter objects, got {_kind(value)}")
            if not value:
                raise FilterError(f"{here}: an empty list; {key} needs one filter object or more")
            for i, sub in enumerate(value):
                _check_filter(sub, f"{here}[{i}]", known, depth + 1)
        elif key == "$not":
            _check_filter(value, here, known, depth + 1)
        elif key.startswith("$"):
            hint = f" (an operator goes inside a field: {{\"field\": {{\"{key}\": …}}}})" if key in OPERATORS else ""
            raise FilterError(f"{here}: unknown filter combinator {key!r}; use $and, $or or $not{hint}")
        elif known is not None and key not in known:
            raise FilterError(f"{here}: unknown filter field {key!r}; known fields: {', '.join(sorted(known))}")
        else:
            _check_condition(value, here)


def _check_condition(spec: Any, path: str) -> None:
    if not isinstance(spec, Mapping):
        if isinstance(spec, list | tuple):
            raise FilterError(f"{path}: expected a string, number, boolean or null, got {_kind(spec)}; "
                              "for any of several values use {\"$in\": [...]}")
        _check_scalar(spec, path)
        return
    if not spec:
        raise FilterError(f"{path}: an empty condition; give a value or an operator such as {{\"$eq\": …}}")
    for op, operand in spec.items():
        here = _step(path, op) if isinstance(op, str) else path
        if op not in OPERATORS:
            raise FilterError(f"{here}: unknown filter operator {op!r}; use one of {' '.join(OPERATORS)}")
        if op in ("$eq", "$ne"):
            _check_scalar(operand, here)
        elif op in ("$in", "$nin"):
            if not isinstance(operand, list | tuple):
                raise FilterError(f"{here}: expected a list of strings, numbers, booleans or nulls, got {_kind(operand)}")
            for i, member in enumerate(operand):
                _check_scalar(member, f"{here}[{i}]")
        elif op == "$glob":
            if not isinstance(operand, str):
                raise FilterError(f"{here}: expected a glob pattern (a string), got {_kind(operand)}")
            _check_text(operand, here)
        else:
            _check_comparable(operand, here)


def _check_scalar(value: Any, path: str) -> None:
    if not isinstance(value, SCALARS):
        raise FilterError(f"{path}: expected a string, number, boolean or null, got {_kind(value)}")
    _check_number(value, path)
    _check_text(value, path)


def _check_comparable(value: Any, path: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise FilterError(f"{path}: expected a number or a string, got {_kind(value)}")
    _check_number(value, path)
    _check_text(value, path)
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return
        if not math.isfinite(number):
            raise FilterError(f"{path}: got the string {_short(value)}, which spells a non-finite number; compare with a finite number or another string")


def _check_number(value: Any, path: str) -> None:
    """Numbers are finite doubles, as JSON numbers are everywhere else (and as the PostgreSQL store compares them)."""
    if isinstance(value, float) and not math.isfinite(value):
        raise FilterError(f"{path}: {_non_finite(value)}")
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > sys.float_info.max:
        raise FilterError(f"{path}: got an integer of {len(str(abs(value)))} digits, too large for a finite number (at most about 1.8e308)")


def _check_text(value: Any, path: str, what: str = "a string") -> None:
    """Strings are text a store can hold: no NUL character (PostgreSQL refuses it) and no lone surrogate (not UTF-8)."""
    if not isinstance(value, str):
        return
    if "\x00" in value:
        raise FilterError(f"{path}: {what} holding the NUL character (\\u0000), which filters do not take (PostgreSQL cannot store it)")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise FilterError(f"{path}: {what} holding a lone surrogate (a half of a \\ud800-\\udfff pair), which is not text") from None


def _non_finite(value: float) -> str:
    if math.isnan(value):
        return "got NaN; numbers in a filter must be finite"
    name = "-Infinity" if value < 0 else "Infinity"
    return f"got {name}; numbers in a filter must be finite (a literal too large for a float, such as 1e309, reads as Infinity)"


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return f"a string ({_short(value)})"
    if isinstance(value, Mapping):
        return "an object" if value else "an empty object"
    if isinstance(value, list | tuple):
        return "a list" if value else "an empty list"
    return f"a value of Python type {type(value).__name__}"


def _step(path: str, key: str) -> str:
    """`path` extended by one object key: ``where.source``, or ``where["a.b"]`` for a key a dot would garble."""
    return f"{path}.{key}" if _PLAIN_KEY.fullmatch(key) else f"{path}[{json.dumps(key, ensure_ascii=False)}]"


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


# -- evaluation ---------------------------------------------------------------------
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
    raise FilterError(f"unknown filter operator {op!r}; use one of {' '.join(OPERATORS)}")  # validate_filter ran first


def _field_predicate(field: str, spec: Any) -> Predicate:
    ops = spec if isinstance(spec, Mapping) else {"$eq": spec}
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


def _compiled(spec: Mapping[str, Any]) -> Predicate:
    """The predicate of a filter `validate_filter` accepted."""
    parts: list[Predicate] = []
    for key, value in spec.items():
        if key == "$and":
            parts.append(_all_of([_compiled(v) for v in value]))
        elif key == "$or":
            parts.append(_any_of([_compiled(v) for v in value]))
        elif key == "$not":
            parts.append(_negated(_compiled(value)))
        else:
            parts.append(_field_predicate(key, value))
    return _all_of(parts)


def compile_filter(spec: Mapping[str, Any] | None, known_fields: Collection[str] = BUILTIN_FIELDS) -> Predicate | None:
    """Turn a filter dict into a predicate over chunk records, after `validate_filter`; None means no filter."""
    validate_filter(spec, known_fields)
    if not spec:
        return None
    return _compiled(spec)


def filter_key(spec: Mapping[str, Any] | None) -> str:
    """A cache key for a filter's mask; a filter too odd to sort (keys of several types) gets its repr, and
    `mask_for` then reports what is wrong with it."""
    try:
        return json.dumps(spec or {}, sort_keys=True, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return repr(spec)


def mask_for(spec: Mapping[str, Any] | None, records: Sequence[Record], known_fields: frozenset[str] | set[str] = BUILTIN_FIELDS) -> np.ndarray | None:
    """Boolean mask over rows; None means "no filter" (every row allowed)."""
    predicate = compile_filter(spec, known_fields)
    if predicate is None:
        return None
    return np.fromiter((predicate(r) for r in records), dtype=bool, count=len(records))
