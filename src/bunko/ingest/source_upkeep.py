"""Keeping a collection in line with the places its documents come from (`Sources`): the sources of `sources.toml`
(connectors: a folder, a web site, an SQL table…), synced on demand, and a folder people edit, watched.

Each is one run under the collection's writer lock: what changed is ingested, what vanished is deleted, and what the
engine keeps beside the store follows (the run's unit vectors, the thumbnails of deleted documents), through the
callables the engine hands in, since this layer imports neither.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bunko.config import Config
from bunko.errors import BunkoError, CollectionError
from bunko.schema import IngestJob
from bunko.store.base import Store

if TYPE_CHECKING:
    from bunko.ingest.connectors.base import SourceSpec
    from bunko.ingest.connectors.registry import SourceBook
    from bunko.ingest.pipeline import Ingestor, IngestReport, Progress
    from bunko.ingest.sync import SyncReport
    from bunko.ingest.watch import FolderChanges, WatchBatch


class Sources:
    """One collection's sources and watched folders.

    `ingestor(engine)` readies the store and the pipeline for a run (the caller holds `lock`); `ingest(folder)` is a
    whole ingest of a folder with prune (a watch's catch-up); `after_run(ingestor, jobs)` builds what the run's
    documents still lack beside the store; `after_delete()` sweeps what deleted documents left beside it.
    """

    def __init__(
        self, store: Store, path: Path, root: Path, config: Config, lock: AbstractContextManager[object], *,
        ingestor: Callable[[str | None], Ingestor], ingest: Callable[[Path], IngestReport],
        after_run: Callable[[Ingestor, Sequence[IngestJob]], object], after_delete: Callable[[], None],
    ) -> None:
        self.store = store
        self.path = path
        self.root = root
        self.config = config
        self._lock = lock
        self._ingestor = ingestor
        self._ingest = ingest
        self._after_run = after_run
        self._after_delete = after_delete

    @property
    def book(self) -> SourceBook:
        """The collection's sources (`sources.toml` in the collection folder; no credentials)."""
        from bunko.ingest.connectors.registry import SourceBook

        return SourceBook(self.path)

    def add(self, name: str, options: Mapping[str, Any], *, replace: bool = False) -> SourceSpec:
        """Record a source (`options` as its sources.toml table: type and where its items are); nothing is read yet."""
        with self._lock:
            return self.book.add(name, dict(options), replace=replace)

    def remove(self, name: str, *, keep_documents: bool = False) -> list[str]:
        """Forget a source and, unless `keep_documents`, delete the documents it brought in; returns those deleted."""
        from bunko.ingest.connectors.registry import build_source
        from bunko.ingest.sync import SyncState, remove_documents

        with self._lock:
            spec = self.book.get(name)
            deleted: list[str] = []
            if not keep_documents:
                source = build_source(name, spec, self.path, self.root, self.config)
                try:
                    deleted = remove_documents(source, self.store)
                finally:
                    source.close()
            self.book.remove(name)
            SyncState(self.path).remove(name)
            if deleted:
                self._after_delete()
            return deleted

    def sync(self, names: Sequence[str] | None = None, progress: Progress | None = None) -> list[SyncReport]:
        """Sync the named sources (all by default), one run: new and changed items ingested, vanished ones deleted."""
        from bunko.ingest.connectors.registry import build_source, key_filter
        from bunko.ingest.sync import SyncReport, SyncState, sync_source

        specs = self.book.load()
        for name in names or ():
            if name not in specs:
                raise CollectionError(f"no source {name!r} (see `bunko sources list`)")
        chosen = [name for name in specs if not names or name in names]
        reports = []
        with self._lock:
            ingestor = self._ingestor("local")  # one item at a time, as each is fetched
            run_id = uuid.uuid4().hex[:12]
            for name in chosen:
                spec = specs[name]
                try:
                    source = build_source(name, spec, self.path, self.root, self.config)
                except BunkoError as exc:
                    reports.append(SyncReport(name, run_id, complete=False, error=str(exc)))
                    continue
                include, exclude = key_filter(spec, self.config)
                try:
                    reports.append(sync_source(
                        name, source, ingestor, self.store, SyncState(self.path), include=include, exclude=exclude,
                        max_bytes=int(self.config.ingest.max_file_mb * 1024 * 1024), run_id=run_id, progress=progress,
                    ))
                finally:
                    source.close()
            self._after_delete()
        return reports

    def apply_changes(self, changes: FolderChanges, folder: str | Path | None = None) -> WatchBatch:
        """Bring the collection in line with changed paths, in one run: those that exist are ingested (unchanged
        files skipped), documents at or under those that are gone are deleted from every index. `folder`: the
        watched folder they are in, whose files are named as `ingest(folder)` names them."""
        from bunko.ingest.watch import WatchBatch

        with self._lock:
            batch = WatchBatch(run_id=uuid.uuid4().hex[:12])
            ingestor = self._ingestor(None)
            within = Path(folder) if folder is not None else None
            if changes.updated:
                report = ingestor.run(changes.updated, within=within)
                batch.run_id, batch.jobs = report.run_id, report.jobs
                self._after_run(ingestor, report.jobs)
            names = [ingestor.names.name(path, ingestor.names.anchor(within or path, record=False)) for path in changes.removed]
            for doc in self.store.documents() if names else []:
                under = any(doc.source == name or doc.source.startswith(name + "/") for name in names)
                if under and self.store.delete_document(doc.source):
                    batch.deleted.append(doc.source)
            if batch.deleted:
                self._after_delete()
            return batch

    def watch(
        self, folder: str | Path, *, debounce: float = 1.0, catch_up: bool = True,
        on_batch: Callable[[WatchBatch], None] | None = None, stop: threading.Event | None = None,
    ) -> None:
        """Keep the collection in line with a folder people edit until `stop` is set: first (`catch_up`, once the
        watcher is in place) an ingest with prune for what changed while nobody watched, then each debounced batch
        of changes (`ingest/watch.py`); `on_batch` is told what each did."""
        from bunko.ingest.watch import WatchBatch, watch_folder

        folder = Path(folder)
        if not folder.is_dir():
            raise CollectionError(f"{folder}: not a folder")

        def catch_up_now() -> None:
            report = self._ingest(folder)
            if on_batch:
                on_batch(WatchBatch(report.run_id, report.jobs, report.pruned))

        for changes in watch_folder(
            folder, include=self.config.ingest.include, exclude=self.config.ingest.exclude, ignore=[self.path],
            debounce=debounce, stop=stop, on_ready=catch_up_now if catch_up else None,
        ):
            batch = self.apply_changes(changes, folder)
            if on_batch:
                on_batch(batch)
