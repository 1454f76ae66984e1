"""One filter validator (`bunko.index.filters.validate_filter`) for both stores and the Python API: every malformed
filter of `filterdocs.CASES` is a `FilterError` whose message starts with the path of its bad part, whichever store
and whichever entry point (the store's searches, `Bunko.search`, `Bunko.ask`, `Bunko.ask_stream`, `bunko search
--where`); the edge cases of `VALID_EDGES` pass everywhere and mean the same in both stores."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from bunko import Bunko, Config
from bunko.cli import app
from bunko.errors import FilterError
from bunko.index.filters import BUILTIN_FIELDS, compile_filter, validate_filter
from bunko.store.base import Store
from bunko.store.local import LocalStore
from filterdocs import CASES, VALID_EDGES, holds, parsed, records, stored_documents, write_markdown
from hash_embedder import HashEmbedder

IDS = [case[0] for case in CASES]
KNOWN = set(BUILTIN_FIELDS) | {"groups", "dept", "year", "score", "date", "tags", "draft"}
NEEDS_FIELDS = {"unknown-field", "unknown-field-with-a-dot"}
"""Cases only a validator that knows the collection's fields can refuse (the engine and the CLI leave those to the store)."""


def assert_reported(exc: pytest.ExceptionInfo[FilterError], path: str, fragment: str) -> None:
    message = str(exc.value)
    assert message.startswith(f"{path}: "), message
    assert fragment in message, message


@pytest.mark.parametrize(("name", "text", "path", "fragment"), CASES, ids=IDS)
def test_the_validator_names_the_path_of_the_bad_part(name: str, text: str, path: str, fragment: str) -> None:
    with pytest.raises(FilterError) as raised:
        validate_filter(parsed(text), KNOWN)
    assert_reported(raised, path, fragment)
    with pytest.raises(FilterError) as compiled:  # the local store's predicate is built only after the same check
        compile_filter(parsed(text), KNOWN)
    assert str(compiled.value) == str(raised.value)
    if name not in NEEDS_FIELDS:
        with pytest.raises(FilterError) as formal:  # the form alone, without the fields, finds the same fault
            validate_filter(parsed(text))
        assert str(formal.value) == str(raised.value)
    else:
        validate_filter(parsed(text))


@pytest.mark.parametrize("text", VALID_EDGES)
def test_edge_cases_are_valid(text: str) -> None:
    validate_filter(parsed(text), KNOWN)
    validate_filter(parsed(text))


def test_odd_python_values_are_refused_too() -> None:
    """The Python API accepts any object: keys that are not strings and values JSON cannot hold are errors as well."""
    for where, path in (({1: "x"}, "where"), ({"year": {"$eq": np.int64(3)}}, "where.year.$eq"),
                        ({"year": {"$in": [{1, 2}]}}, "where.year.$in[0]"), ({"$and": [{"lang": "ja"}, None]}, "where.$and[1]")):
        with pytest.raises(FilterError) as raised:
            validate_filter(where, KNOWN)
        assert str(raised.value).startswith(path + ": ")
    validate_filter({"year": {"$in": (2024, 2025)}}, KNOWN)  # a tuple is a list


# -- both stores ------------------------------------------------------------------------------
@pytest.fixture(scope="module", params=["local", "postgres"])
def filled(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    """The documents of `filterdocs.DOCS` in each store, written once for the module."""
    schema = None
    if request.param == "local":
        store: Store = LocalStore(tmp_path_factory.mktemp("filters") / "store")
    else:
        dsn = request.getfixturevalue("pg_dsn")
        from bunko.store.postgres import PostgresStore

        schema = "t_" + uuid.uuid4().hex[:12]
        store = PostgresStore(dsn, schema)
    for doc, stored in stored_documents():
        store.replace_document(doc, f"hash-{doc.source}", stored)
    yield store
    store.close()
    if schema is not None:
        import psycopg

        with psycopg.connect(request.getfixturevalue("pg_dsn"), autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")


QUERY = np.ones(16, dtype=np.float32) / 4.0
ALL_IDS = list(records(stored_documents()))


@pytest.mark.parametrize(("name", "text", "path", "fragment"), CASES, ids=IDS)
def test_every_store_search_refuses_a_malformed_filter_with_its_path(filled: Store, name: str, text: str, path: str, fragment: str) -> None:
    where = parsed(text)
    for search in (lambda: filled.search().dense_search(QUERY, 3, where), lambda: filled.search().keyword_search(["vpn"], 3, where),
                   lambda: filled.search().document_keyword_search(["vpn"], 3, where), lambda: filled.search().allowed_chunks(ALL_IDS, where)):
        with pytest.raises(FilterError) as raised:
            search()
        assert_reported(raised, path, fragment)


@pytest.mark.parametrize("text", VALID_EDGES)
def test_edge_cases_select_the_same_chunks_in_both_stores(filled: Store, text: str) -> None:
    where = parsed(text)
    recs = records(stored_documents())
    expected = {cid for cid, record in recs.items() if holds(where, record)}
    assert filled.search().allowed_chunks(ALL_IDS, where) == expected
    assert {cid for cid, _ in filled.search().dense_search(QUERY, len(ALL_IDS), where)} == expected


# -- the Python API ------------------------------------------------------------------------------
@pytest.fixture(scope="module", params=["local", "postgres"])
def kb(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bunko]:
    root = tmp_path_factory.mktemp("filters-kb")
    schema = None
    if request.param == "local":
        opened = Bunko(root / "kb", embedder=HashEmbedder())
    else:
        schema = "t_" + uuid.uuid4().hex[:12]
        dsn = request.getfixturevalue("with_schema")(request.getfixturevalue("pg_dsn"), schema)
        opened = Bunko(root / "kb", config=Config(store=dsn), embedder=HashEmbedder())
    for path, fields in write_markdown(root / "docs"):
        assert opened.ingest([path], fields=fields).ok
    yield opened
    opened.close()
    if schema is not None:
        import psycopg

        with psycopg.connect(request.getfixturevalue("pg_dsn"), autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")


@pytest.mark.parametrize(("name", "text", "path", "fragment"), CASES, ids=IDS)
def test_search_and_ask_raise_the_error_with_its_path(kb: Bunko, name: str, text: str, path: str, fragment: str) -> None:
    where = parsed(text)
    calls: dict[str, Any] = {
        "search": lambda: kb.search("VPN", k=3, filters=where),
        "search keyword": lambda: kb.search("VPN", k=3, filters=where, mode="keyword"),
        "ask": lambda: kb.ask("VPNのトークンはいつ失効しますか？", filters=where),
        "ask_stream": lambda: list(kb.ask_stream("VPNのトークンはいつ失効しますか？", filters=where)),
    }
    for call in calls.values():
        with pytest.raises(FilterError) as raised:
            call()
        assert_reported(raised, path, fragment)


def test_valid_filters_still_search(kb: Bunko) -> None:
    hits = kb.search("VPN", k=5, filters={"$and": [{"lang": "ja"}, {"year": {"$lte": 2024}}, {"groups": {"$in": ["it"]}}]})
    assert hits and all(h.chunk.source.endswith("it/vpn-ja.md") for h in hits)
    assert kb.search("VPN", k=5, filters={}) and kb.search("VPN", k=5, filters=None)


# -- the CLI ----------------------------------------------------------------------------------------
CLI_CASES = [case for case in CASES if case[0] not in NEEDS_FIELDS]


@pytest.mark.parametrize(("name", "text", "path", "fragment"), CLI_CASES, ids=[case[0] for case in CLI_CASES])
def test_the_cli_prints_the_path_and_exits_non_zero(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, text: str, path: str,
                                                     fragment: str) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("BUNKO_COLLECTION", raising=False)
    runner = CliRunner()
    assert runner.invoke(app, ["init"]).exit_code == 0
    for command in (["search", "VPN", "--where", text], ["ask", "VPN?", "--where", text], ["search", "VPN", "--source", "it/*", "--where", text]):
        result = runner.invoke(app, command)
        assert result.exit_code == 2, (command, result.output)
        line = " ".join(result.stderr.split())  # rich may wrap a long message
        assert f"error: {path}: " in line and " ".join(fragment.split()) in line, line
