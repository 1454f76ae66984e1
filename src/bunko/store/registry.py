"""Which store a collection uses, from its config's top-level ``store`` key.

``store = "local"`` (the default) keeps everything in the collection folder;
``store = "postgresql://user@host/db"`` keeps it in PostgreSQL, optionally in a
named schema (``postgresql://…/db?schema=team_a``, default ``bunko``) so one
database can hold several collections. The password is best left out of the
DSN and given as ``PGPASSWORD`` or in ``~/.pgpass``, as libpq reads them.
"""

from __future__ import annotations

import threading
from contextlib import AbstractContextManager
from pathlib import Path
from types import TracebackType
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from bunko.config import Config
from bunko.errors import CollectionError, ConfigError
from bunko.store.base import Store
from bunko.store.local import LocalStore
from bunko.store.lock import WRITE_LOCK, WriterLock
from bunko.text.lazy_regex import lazy_compile

LOCAL = "local"
_SCHEMA_NAME = lazy_compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")


def is_postgres(store: str) -> bool:
    return store.startswith(("postgresql://", "postgres://"))


def split_dsn(dsn: str) -> tuple[str, str]:
    """(libpq DSN, schema): the ``schema`` query parameter is bunko's, libpq would refuse it."""
    parts = urlsplit(dsn)
    query = parse_qsl(parts.query, keep_blank_values=True)
    schemas = [v for k, v in query if k == "schema"]
    schema = schemas[-1] if schemas else "bunko"
    if not _SCHEMA_NAME.match(schema):
        raise ConfigError(f"store: schema {schema!r} is not a plain SQL name (letters, digits, _)")
    rest = urlencode([(k, v) for k, v in query if k != "schema"])
    return urlunsplit((parts.scheme, parts.netloc, parts.path, rest, parts.fragment)), schema


def open_store(config: Config, folder: Path) -> Store:
    """The collection's store: ``folder / "store"`` for local, else the configured PostgreSQL."""
    return open_store_at(config.store, folder, config)


def open_store_at(location: str, folder: Path, config: Config | None = None) -> Store:
    """A store by location ("local" or a postgresql:// DSN); `folder` is the collection folder."""
    if location == LOCAL:
        retrieve = (config or Config()).retrieve
        return LocalStore(
            folder / "store", ann_threshold=retrieve.ann_threshold, vector_precision=retrieve.vector_precision,
            ann_target_recall=retrieve.ann_target_recall, ann_ef_search=retrieve.ann_ef_search,
        )
    if is_postgres(location):
        try:
            from bunko.store.postgres import PostgresStore
        except ImportError as exc:
            raise CollectionError(
                f"the postgres store needs the optional dependencies: pip install 'bunko[postgres]' ({exc})"
            ) from None
        dsn, schema = split_dsn(location)
        return PostgresStore(dsn, schema)
    raise ConfigError(f"store: {location!r} is neither 'local' nor a postgresql:// DSN")


class ThreadLock(AbstractContextManager["ThreadLock"]):
    """One writer per process: PostgreSQL serialises writers of a document itself."""

    def __init__(self) -> None:
        self._lock = threading.Lock()

    def __enter__(self) -> ThreadLock:
        self._lock.acquire()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self._lock.release()


def writer_lock(config: Config, folder: Path) -> AbstractContextManager[object]:
    """The local store needs one writing process per folder; postgres takes its locks in the database."""
    if is_postgres(config.store):
        return ThreadLock()
    return WriterLock(folder / WRITE_LOCK)
