"""Sync: bring a collection in line with a source — new and changed items ingested, deleted items' documents deleted.

For each item the source lists, the item is passed over (a SKIPPED job) when its version is the one recorded
at the last sync and the stored document still has the content hash recorded with it; otherwise it is read
into a local file and ingested through the pipeline under the source's name for it (`Ingestor.run_files`),
which skips it too when the bytes are the same. A stored document the source owns but no longer lists is
deleted from every index (`DocumentStore.delete_document`: chunks, vectors, keyword index and the entity
mentions go in one transaction; traces are kept). Nothing is deleted when the listing failed or is
incomplete (`Listing.complete`), because an item that could not be reached is not an item that is gone.

The record of versions (`<collection>/sync/<name>.json`) only saves re-reading: the store stays the truth.
A sync killed midway leaves every document either as it was or as the source has it, and the next sync
redoes what is missing.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bunko.errors import BunkoError, DocumentError
from bunko.ingest.connectors.base import Item, Listing, Source
from bunko.ingest.connectors.registry import matches
from bunko.ingest.pipeline import Ingestor, JobTally, Progress
from bunko.ingest.sources import SourceFile
from bunko.schema import ErrorCode, IngestJob, JobStatus
from bunko.store.base import Store

SAVE_EVERY = 50
"""Items between writes of the version record during a long sync."""


@dataclass
class SyncReport(JobTally):
    source: str
    run_id: str
    jobs: list[IngestJob] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    complete: bool = True
    """False when the listing may have missed items; then nothing was deleted."""
    problems: list[str] = field(default_factory=list)
    error: str | None = None
    """The source could not be listed: nothing was synced or deleted."""
    detail: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.error is None and not self.failed

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source, "run_id": self.run_id, "ok": self.ok, "error": self.error, "complete": self.complete,
            "problems": self.problems, "detail": self.detail, "deleted": self.deleted,
            "counts": {status.value: self.count(status) for status in (JobStatus.READY, JobStatus.SKIPPED, JobStatus.FAILED)},
        }


class SyncState:
    """What the last sync of each source recorded: item key → (version, the stored document's content hash)."""

    def __init__(self, collection: Path) -> None:
        self.folder = collection / "sync"

    def _path(self, name: str) -> Path:
        return self.folder / f"{name}.json"

    def load(self, name: str) -> dict[str, tuple[str, str]]:
        try:
            data = json.loads(self._path(name).read_text(encoding="utf-8"))
            return {key: (str(value[0]), str(value[1])) for key, value in data.get("items", {}).items()}
        except (OSError, ValueError, TypeError, IndexError, AttributeError):
            return {}  # no record (or a damaged one): every item is read again, and unchanged ones are skipped by hash

    def save(self, name: str, items: dict[str, tuple[str, str]], detail: dict[str, Any]) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self._path(name)
        temporary = path.with_name(f".{path.name}.{os.getpid()}")
        temporary.write_text(json.dumps({"synced_at": time.time(), **detail, "items": items}), encoding="utf-8")
        os.replace(temporary, path)

    def last_sync(self, name: str) -> dict[str, Any]:
        try:
            data = json.loads(self._path(name).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return {k: v for k, v in data.items() if k != "items"} | {"items": len(data.get("items", {}))}

    def remove(self, name: str) -> None:
        self._path(name).unlink(missing_ok=True)


def _job(source: str, run_id: str, store: Store, status: JobStatus, code: ErrorCode | None = None, detail: str | None = None) -> IngestJob:
    now = time.time()
    job = IngestJob(job_id=uuid.uuid4().hex[:16], source=source, status=status, created_at=now, updated_at=now,
                    error_code=code.value if code else None, error_detail=detail)
    store.save_job(job, run_id)
    return job


def sync_source(
    name: str, source: Source, ingestor: Ingestor, store: Store, state: SyncState, *, include: list[str], exclude: list[str],
    max_bytes: int, run_id: str, progress: Progress | None = None,
) -> SyncReport:
    """Sync one source into the store; the caller holds the collection's writer lock."""
    report = SyncReport(name, run_id)
    try:
        listing: Listing = source.list_items()
    except BunkoError as exc:
        report.error, report.complete = str(exc), False
        return report
    report.complete, report.problems, report.detail = listing.complete, list(listing.problems), dict(listing.detail)
    items = [item for item in listing.items if matches(item.key, include) and not matches(item.key, exclude)]
    recorded = state.load(name)
    current: dict[str, tuple[str, str]] = {}
    listed: set[str] = set()
    scratch = Path(tempfile.mkdtemp(prefix=f"bunko-sync-{name}-"))
    try:
        for done, item in enumerate(items, start=1):
            document = source.document_name(item.key)
            listed.add(document)
            job = _sync_item(source, item, document, recorded.get(item.key), ingestor, store, scratch, max_bytes, run_id)
            report.jobs.append(job)
            if job.status in (JobStatus.READY, JobStatus.SKIPPED):
                digest = store.document_hash(document)
                if digest is not None:
                    current[item.key] = (item.version, digest)
            # a failed item is not recorded: the next sync reads it again
            if progress:
                progress(done, len(items), job)
            if done % SAVE_EVERY == 0:
                state.save(name, {**recorded, **current}, report.detail)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if listing.complete:
        for doc in store.documents():
            if source.owns(doc.source) and doc.source not in listed and store.delete_document(doc.source):
                report.deleted.append(doc.source)
        state.save(name, current, report.detail)
    else:  # keep what was recorded of items this listing did not reach
        state.save(name, {**{k: v for k, v in recorded.items() if k not in {i.key for i in items}}, **current}, report.detail)
    return report


def _sync_item(
    source: Source, item: Item, document: str, recorded: tuple[str, str] | None, ingestor: Ingestor, store: Store,
    scratch: Path, max_bytes: int, run_id: str,
) -> IngestJob:
    if recorded is not None and recorded[0] == item.version and store.document_hash(document) == recorded[1]:
        return _job(document, run_id, store, JobStatus.SKIPPED)
    if item.size is not None and item.size > max_bytes:
        return _job(document, run_id, store, JobStatus.FAILED, ErrorCode.TOO_LARGE,
                    f"{document}: {item.size / 1048576:.1f} MB is over the {max_bytes / 1048576:g} MB limit (ingest.max_file_mb)")
    folder = Path(tempfile.mkdtemp(dir=scratch))
    try:
        try:
            path = source.fetch(item, folder)
        except DocumentError as exc:
            return _job(document, run_id, store, JobStatus.FAILED, exc.code, exc.detail)
        except Exception as exc:
            return _job(document, run_id, store, JobStatus.FAILED, ErrorCode.FETCH_FAILED, f"{document}: {type(exc).__name__}: {exc}".splitlines()[0])
        return ingestor.run_files([SourceFile(path, document)], run_id=run_id).jobs[0]
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def remove_documents(source: Source, store: Store) -> list[str]:
    """Delete every stored document a source owns (when the source itself is removed)."""
    return [doc.source for doc in store.documents() if source.owns(doc.source) and store.delete_document(doc.source)]
