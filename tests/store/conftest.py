"""A real PostgreSQL with pgvector for the store tests, started once per session.

``BUNKO_TEST_PG_DSN`` points the tests at an existing server (it needs the
pgvector extension, or the right to create it). Otherwise the ``pgserver``
package starts its bundled PostgreSQL 16 + pgvector in a temporary folder;
as root it runs the server as a system user ``pgserver`` it creates, which is
why the data folder is made with ``mkdtemp`` outside pytest's private tmp.
Each test gets its own schema, dropped afterwards.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import pytest

from bunko.store.base import Store
from bunko.store.local import LocalStore


@pytest.fixture(scope="session")
def pg_dsn() -> Iterator[str]:
    pytest.importorskip("psycopg")
    pytest.importorskip("pgvector")
    existing = os.environ.get("BUNKO_TEST_PG_DSN")
    if existing:
        yield existing
        return
    pgserver = pytest.importorskip("pgserver")
    root = Path(tempfile.mkdtemp(prefix="bunko-pg-"))
    server = pgserver.get_server(root / "data", cleanup_mode="delete")
    try:
        yield server.get_uri()
    finally:
        server.cleanup()
        shutil.rmtree(root, ignore_errors=True)


def with_schema(dsn: str, schema: str) -> str:
    parts = urlsplit(dsn)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "schema"] + [("schema", schema)]
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), parts.fragment))


@pytest.fixture(scope="session", name="with_schema")
def with_schema_fixture() -> object:
    """`with_schema(dsn, name)`: the DSN of a named schema, for fixtures wider than one test."""
    return with_schema


@pytest.fixture
def pg_schema(pg_dsn: str) -> Iterator[str]:
    """A fresh schema name; the schema is dropped after the test."""
    import psycopg

    name = "t_" + uuid.uuid4().hex[:12]
    yield name
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE")


@pytest.fixture
def pg_store_dsn(pg_dsn: str, pg_schema: str) -> str:
    """A `store = "postgresql://…?schema=…"` value for a fresh schema."""
    return with_schema(pg_dsn, pg_schema)


@pytest.fixture(params=["local", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """A fresh store of each backend: the storage and search contracts run on both."""
    if request.param == "local":
        opened: Store = LocalStore(tmp_path / "store")
    else:
        dsn = request.getfixturevalue("pg_dsn")  # skips when the postgres extra is not installed
        from bunko.store.postgres import PostgresStore

        opened = PostgresStore(dsn, request.getfixturevalue("pg_schema"))
    yield opened
    opened.close()
