"""Filters as properties (Hypothesis), over the ja/zh/en documents of `filterdocs.DOCS` in both stores:

* a filter drawn from the grammar of valid filters is never an error, and each store selects exactly the chunks the
  reference evaluator (`filterdocs.holds`, written from the language's definition) selects;
* ANDed with a restricted key's access filter, as the server does (`acl.combine`), no filter ever lets through a
  chunk of a document outside the key's groups;
* a valid filter with one part broken (an operand of the wrong type, NaN or ±Infinity, a string spelling NaN where a
  comparison needs a number, an unknown operator or combinator, an empty list or filter) is always a `FilterError`,
  from the validator and from both stores alike, whose message starts with the path of a part of the filter.

Bounded for CI: 200 examples per property, no deadline (PostgreSQL answers each in milliseconds).
"""

from __future__ import annotations

import copy
import math
import uuid
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bunko.errors import FilterError
from bunko.index.filters import validate_filter
from bunko.server import acl
from bunko.server.auth import Principal
from bunko.store.base import Store
from bunko.store.local import LocalStore
from filterdocs import DOCS, holds, records, stored_documents

WRITTEN = stored_documents()
RECORDS = records(WRITTEN)
ALL_IDS = list(RECORDS)
QUERY = np.ones(16, dtype=np.float32) / 4.0
READER = Principal("it-reader", "reader", ("it", "hr"))
ACCESS = acl.access_filter(READER, {"groups"})
VISIBLE = {cid for cid, record in RECORDS.items() if set(record.get("groups") or ()) & {"it", "hr"}}
SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _pool(field: str) -> list[Any]:
    found: list[Any] = []
    for record in RECORDS.values():
        value = record.get(field)
        for v in value if isinstance(value, list) else [value]:
            if v is not None and v not in found:
                found.append(v)
    return found


FIELDS: dict[str, list[Any]] = {
    "source": [*_pool("source"), "hr/none.md"],
    "title": _pool("title"),
    "lang": ["ja", "zh", "en", "ko"],
    "groups": ["hr", "finance", "it", "legal"],
    "dept": [*_pool("dept"), "法務部"],
    "year": [*_pool("year"), 1999],
    "score": [*_pool("score"), 1.5],
    "date": [*_pool("date"), "2024-06-30", "2026"],
    "tags": [*_pool("tags"), "none"],
    "draft": [True, False],
    "page": [1, 2, 3],
    "section": [*_pool("section"), *(" > ".join(d["section"]) for d in DOCS)],
    "kind": ["paragraph", "table"],
}
EVERY_VALUE = [v for values in FIELDS.values() for v in values]
NUMBERS = st.one_of(st.sampled_from([v for v in EVERY_VALUE if isinstance(v, int | float) and not isinstance(v, bool)]),
                    st.integers(-3000, 3000), st.floats(-3000, 3000, allow_nan=False, allow_infinity=False))
TEXT = st.text(st.sampled_from("ab-2024年假VPN休暇 >*?"), max_size=8)


@st.composite
def scalars(draw: st.DrawFn, field: str) -> Any:
    """Mostly a value the field holds; sometimes another field's, a number, any short text, true/false or null."""
    if draw(st.integers(0, 9)) < 7:
        return draw(st.sampled_from(FIELDS[field]))
    return draw(st.one_of(st.sampled_from(EVERY_VALUE), NUMBERS, TEXT, st.booleans(), st.none()))


@st.composite
def globs(draw: st.DrawFn, field: str) -> str:
    value = str(draw(st.sampled_from(FIELDS[field])))
    cut = draw(st.integers(0, len(value)))
    return draw(st.sampled_from([value, value[:cut] + "*", "*" + value[cut:], "?" * len(value), "[!h]*", "*[0-9]*", value[:cut] + "?*", "*"]))


@st.composite
def comparables(draw: st.DrawFn, field: str) -> Any:
    """Mostly a number or string the field holds; sometimes any number or short text."""
    own = [v for v in FIELDS[field] if isinstance(v, str) or (isinstance(v, int | float) and not isinstance(v, bool))]
    if own and draw(st.integers(0, 9)) < 7:
        return draw(st.sampled_from(own))
    return draw(st.one_of(NUMBERS, TEXT.filter(lambda t: not _spells_non_finite(t))))


def _spells_non_finite(text: str) -> bool:
    try:
        return not math.isfinite(float(text))
    except ValueError:
        return False


@st.composite
def conditions(draw: st.DrawFn, field: str) -> Any:
    """A field's condition: a bare value, or one or two operators."""
    if draw(st.integers(0, 3)) == 0:
        return draw(scalars(field))
    ops: dict[str, Any] = {}
    size = draw(st.sampled_from([1, 1, 1, 2]))
    for op in draw(st.lists(st.sampled_from(["$eq", "$ne", "$in", "$nin", "$glob", "$gt", "$gte", "$lt", "$lte"]), min_size=size,
                            max_size=size, unique=True)):
        if op in ("$eq", "$ne"):
            ops[op] = draw(scalars(field))
        elif op in ("$in", "$nin"):
            ops[op] = draw(st.lists(scalars(field), max_size=4))
        elif op == "$glob":
            ops[op] = draw(globs(field))
        else:
            ops[op] = draw(comparables(field))
    return ops


@st.composite
def field_filters(draw: st.DrawFn) -> dict[str, Any]:
    size = draw(st.sampled_from([1, 1, 1, 2]))
    names = draw(st.lists(st.sampled_from(sorted(FIELDS)), min_size=size, max_size=size, unique=True))
    return {name: draw(conditions(name)) for name in names}


def _combined(children: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    return st.one_of(
        st.builds(lambda subs: {"$and": subs}, st.lists(children, min_size=1, max_size=3)),
        st.builds(lambda subs: {"$or": subs}, st.lists(children, min_size=1, max_size=3)),
        st.builds(lambda sub: {"$not": sub}, children),
        st.builds(lambda a, b: {**a, **b}, children, field_filters()),  # a combinator beside field conditions
    )


VALID = st.recursive(field_filters(), _combined, max_leaves=8)


# -- breaking a valid filter ------------------------------------------------------------------
BAD_OPERANDS: list[tuple[str, Any]] = [
    ("$glob", 5), ("$glob", None), ("$glob", ["*"]), ("$gt", [1]), ("$gte", {"x": 1}), ("$lt", True), ("$lte", None),
    ("$lt", "NaN"), ("$gt", "-Infinity"), ("$gte", math.nan), ("$lte", math.inf), ("$eq", {"x": 1}), ("$ne", {"x": 1}),
    ("$eq", ["hr"]), ("$ne", -math.inf), ("$eq", math.nan), ("$in", "hr"), ("$in", {"hr": 1}), ("$nin", [[1]]), ("$in", [2024, math.nan]),
    ("$nin", None), ("$in", [{"a": 1}]), ("$regex", "x"), ("$exists", True), ("$like", "a%"), ("$size", 1), ("gt", 1), ("$and", []),
    ("$eq", 10**400), ("$eq", "a\x00b"),
]
BAD_CONDITIONS: list[Any] = [{}, ["hr"], math.nan, math.inf, {"x": 1}, [], (1, 2)]
BAD_FILTER_PARTS: list[tuple[str, Any]] = [
    ("$and", []), ("$or", []), ("$and", [[]]), ("$or", [{}]), ("$not", {}), ("$not", []), ("$and", {"lang": "ja"}), ("$or", "lang"),
    ("$xor", [{"lang": "ja"}]), ("$nor", []), ("$eq", "hr"), ("$in", ["hr"]),
]


def _filter_nodes(where: Any) -> Iterator[dict[str, Any]]:
    if isinstance(where, dict):
        yield where
        for key, value in where.items():
            if key in ("$and", "$or"):
                for sub in value:
                    yield from _filter_nodes(sub)
            elif key == "$not":
                yield from _filter_nodes(value)


@st.composite
def broken(draw: st.DrawFn) -> dict[str, Any]:
    """A valid filter with one part broken, anywhere in it."""
    where = copy.deepcopy(draw(VALID))
    nodes = list(_filter_nodes(where))
    node = draw(st.sampled_from(nodes))
    fields = [key for key in node if not key.startswith("$")]
    how = draw(st.sampled_from(["operand", "condition", "filter"] if fields else ["filter"]))
    if how == "filter":
        key, value = draw(st.sampled_from(BAD_FILTER_PARTS))
        node[key] = copy.deepcopy(value)
    else:
        field = draw(st.sampled_from(fields))
        if how == "condition":
            node[field] = copy.deepcopy(draw(st.sampled_from(BAD_CONDITIONS)))
        else:
            op, operand = draw(st.sampled_from(BAD_OPERANDS))
            condition = node[field] if isinstance(node[field], dict) else {"$eq": node[field]}
            node[field] = {**condition, op: copy.deepcopy(operand)}
    return where


# -- the stores -------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def stores(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Store]]:
    """The documents in a local and a PostgreSQL store, written once."""
    dsn = request.getfixturevalue("pg_dsn")
    from bunko.store.postgres import PostgresStore

    schema = "t_" + uuid.uuid4().hex[:12]
    opened: dict[str, Store] = {"local": LocalStore(tmp_path_factory.mktemp("filter-properties") / "store"), "postgres": PostgresStore(dsn, schema)}
    for store in opened.values():
        for doc, stored in WRITTEN:
            store.replace_document(doc, f"hash-{doc.source}", stored)
    yield opened
    for store in opened.values():
        store.close()
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")


def selected(store: Store, where: dict[str, Any] | None) -> set[str]:
    """The chunks `where` lets through, asked two ways that must agree: a lookup and an exhaustive dense search."""
    allowed = store.search().allowed_chunks(ALL_IDS, where or {})
    found = {cid for cid, _ in store.search().dense_search(QUERY, len(ALL_IDS), where)}
    assert allowed == found, (where, allowed ^ found)
    return allowed


@SETTINGS
@given(where=VALID)
def test_a_valid_filter_never_errors_and_selects_what_the_reference_selects(stores: dict[str, Store], where: dict[str, Any]) -> None:
    validate_filter(where, stores["local"].search().filter_fields())
    expected = {cid for cid, record in RECORDS.items() if holds(where, record)}
    for name, store in stores.items():
        assert selected(store, where) == expected, (name, where)


@SETTINGS
@given(where=VALID)
def test_no_filter_widens_the_access_filter(stores: dict[str, Store], where: dict[str, Any]) -> None:
    guarded = acl.combine(where, ACCESS)
    expected = {cid for cid, record in RECORDS.items() if holds(where, record) and holds(ACCESS, record)}
    assert expected <= VISIBLE
    for name, store in stores.items():
        got = selected(store, guarded)
        assert got <= VISIBLE, (name, where, got - VISIBLE)
        assert got == expected, (name, where)
        keyword = {cid for cid, _ in store.search().keyword_search(["vpn", "年", "leave", "budget"], len(ALL_IDS), guarded)}
        assert keyword <= expected, (name, where, keyword - expected)


@SETTINGS
@given(where=broken())
def test_a_broken_filter_always_errors_alike_in_both_stores(stores: dict[str, Store], where: dict[str, Any]) -> None:
    with pytest.raises(FilterError) as raised:
        validate_filter(where)
    message = str(raised.value)
    assert message.startswith("where") and ": " in message, message
    for name, store in stores.items():
        for search in (lambda s=store: s.search().allowed_chunks(ALL_IDS, where), lambda s=store: s.search().dense_search(QUERY, 3, where),
                       lambda s=store: s.search().keyword_search(["vpn"], 3, acl.combine(where, ACCESS))):
            with pytest.raises(FilterError) as again:
                search()
            assert str(again.value).split(": ", 1)[1] == message.split(": ", 1)[1], (name, message, str(again.value))
