"""`bunko migrate`: copy a collection between the local store and PostgreSQL, both ways.

Parsing and embedding are the expensive, sometimes irreproducible steps, so a
migration copies their results as they are: documents with their elements,
chunks with their vectors, keyword tokens and embed hashes, jobs with their
run ids, traces, and the collection's meta (embedder, dimension). Each
document is one transaction at the destination, as in an ingest. Both sides
are plain stores: what is copied is the `Portable` protocol (store/base.py),
which keeps the original ingest and trace times.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from bunko.config import CONFIG_FILE, Config
from bunko.errors import CollectionError
from bunko.store.base import DocumentRecord, Store
from bunko.store.local import SCHEMA_VERSION, LocalStore
from bunko.store.registry import LOCAL, is_postgres, open_store_at

Progress = Callable[[int, int], None]

STORE_INTERNAL_META = frozenset({"generation", "schema_version"})
"""Meta keys each store keeps for itself; they are not copied."""


def open_endpoint(location: str, folder: Path) -> Store:
    """The collection's store at `location` ("local" or a PostgreSQL DSN), opened for copying."""
    if location == LOCAL:
        store = LocalStore(folder / "store")
        version = store.get_meta("schema_version")
        if version != SCHEMA_VERSION:
            store.close()
            raise CollectionError(f"{folder / 'store'}: local store schema {version} is not {SCHEMA_VERSION}")
        return store
    if is_postgres(location):
        return open_store_at(location, folder)
    raise CollectionError(f"--to {location!r}: use 'local' or a postgresql:// DSN")


def is_empty(store: Store) -> bool:
    return not store.documents() and not store.jobs(limit=1) and next(store.export_traces(), None) is None


@dataclass
class MigrationReport:
    source: str
    destination: str
    documents: int
    chunks: int
    jobs: int
    traces: int
    seconds: float
    switched: bool


def copy_collection(source: Store, destination: Store, progress: Progress | None = None) -> tuple[int, int, int, int]:
    """Copy everything from `source` to `destination`; returns (documents, chunks, jobs, traces)."""
    total = len(source.documents())
    counts = {"documents": 0, "chunks": 0}

    def counted() -> Iterator[DocumentRecord]:
        for record in source.export_documents():
            counts["chunks"] += len(record[3])
            yield record

    def step() -> None:
        counts["documents"] += 1
        if progress:
            progress(counts["documents"], total)

    for key, value in source.all_meta().items():
        if key not in STORE_INTERNAL_META:
            destination.set_meta(key, value)
    with destination.bulk_load():
        for doc, content_hash, ingested_at, chunks in counted():
            destination.replace_document(doc, content_hash, chunks, ingested_at=ingested_at)
            step()
    jobs = 0
    for job, run_id in source.export_jobs():
        destination.save_job(job, run_id)
        jobs += 1
    traces = 0
    for trace_id, created_at, question, payload in source.export_traces():
        destination.save_trace(trace_id, question, payload, created_at=created_at)
        traces += 1
    return counts["documents"], counts["chunks"], jobs, traces


def migrate_collection(path: Path, to: str, *, replace: bool = False, switch: bool = True, progress: Progress | None = None) -> MigrationReport:
    """Copy the collection at `path` into store `to`; with `switch`, its bunko.toml then points there.

    The destination must be empty unless `replace`, which empties it first: a
    migration never merges two collections by accident.
    """
    config_file = path / CONFIG_FILE
    if not config_file.exists():
        raise CollectionError(f"{path}: no bunko collection here")
    config = Config.load(config_file)
    if to == config.store:
        raise CollectionError(f"{path}: the collection already uses {_display(to)}")
    started = time.perf_counter()
    source = open_endpoint(config.store, path)
    try:
        destination = open_endpoint(to, path)
        try:
            if not is_empty(destination):
                if not replace:
                    raise CollectionError(f"{_display(to)} already holds a collection; pass --replace to empty it first")
                destination.clear()
            documents, chunks, jobs, traces = copy_collection(source, destination, progress)
        finally:
            destination.close()
    finally:
        source.close()
    origin = config.store
    if switch:
        config.store = to
        config.save(config_file)
    return MigrationReport(_display(origin), _display(to), documents, chunks, jobs, traces, round(time.perf_counter() - started, 2), switch)


def _display(location: str) -> str:
    """A store location without a password, for messages."""
    if not is_postgres(location):
        return location
    scheme, _, rest = location.partition("://")
    credentials, at, host = rest.rpartition("@")
    if at and ":" in credentials:
        credentials = credentials.split(":", 1)[0] + ":***"
    return f"{scheme}://{credentials}{at}{host}"
