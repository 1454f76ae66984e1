"""`Bunko`: one collection, its stages wired together. The CLI and server are shells over it."""

from __future__ import annotations

import os
import threading
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from bunko.chunk.registry import get_chunker
from bunko.config import CONFIG_FILE, Config
from bunko.embed.base import Embedder
from bunko.embed.registry import build_embedder, embedder_name
from bunko.errors import BunkoError, CollectionError
from bunko.generate.answerer import Answerer
from bunko.generate.conversation import Turn
from bunko.generate.guardrails import guard_hits
from bunko.ingest import maintenance
from bunko.ingest.connectors.base import SourceSpec
from bunko.ingest.connectors.registry import SourceBook, build_source, key_filter
from bunko.ingest.isolation import ParseWorker
from bunko.ingest.pipeline import Ingestor, IngestReport, Progress, entity_extractor, parse_worker
from bunko.ingest.sources import SourceNames
from bunko.ingest.sync import SyncReport, SyncState, remove_documents, sync_source
from bunko.ingest.watch import FolderChanges, WatchBatch, watch_folder
from bunko.llm.base import build_chat_model
from bunko.parse.registry import ParserRegistry, default_registry
from bunko.retrieve.base import RetrieverFactory
from bunko.retrieve.explain import explain_hit, thresholds
from bunko.retrieve.searcher import Searcher, SearchResult
from bunko.retrieve.trees import DocumentTrees
from bunko.schema import Answer, Chunk, DocumentInfo, Element, Hit, IngestJob, JobStatus
from bunko.store.base import Store
from bunko.store.registry import open_store, writer_lock
from bunko.text.analyzers import get_analyzer

DEFAULT_COLLECTION = ".bunko"


class Bunko:
    """A collection folder (``bunko.toml`` + store), opened for ingest, search and ask.

    ``embedder`` and ``registry`` may be injected (tests share one loaded model;
    applications add parsers); by default they are built from the config.
    """

    def __init__(
        self,
        path: str | Path = DEFAULT_COLLECTION,
        *,
        config: Config | None = None,
        embedder: Embedder | None = None,
        registry: ParserRegistry | None = None,
        create: bool = True,
        allow_embedder_change: bool = False,
        allow_analyzer_change: bool = False,
        retrievers: Sequence[RetrieverFactory] = (),
    ) -> None:
        """`retrievers` add search modes (a graph or tree route) beside dense, keyword and hybrid; each is
        built over this collection's store and retrieve config."""
        self.path = Path(path)
        self.retrievers = tuple(retrievers)
        config_file = self.path / CONFIG_FILE
        if not config_file.exists():
            if not create:
                raise CollectionError(f"{self.path}: no bunko collection here (run `bunko init` or `bunko ingest` first)")
            self.path.mkdir(parents=True, exist_ok=True)
            (config or Config()).save(config_file)
        self.config = config or Config.load(config_file)
        self.root = self._root()
        """The folder document names are relative to (`[ingest] root`, else the folder holding the collection)."""
        self.store: Store = open_store(self.config, self.path)
        self.registry = registry or default_registry()
        self.analyzer = get_analyzer(self.config.retrieve.analyzer)
        self.chunker = get_chunker(self.config.chunk.strategy)
        self.trees = DocumentTrees(self.store, self.analyzer)
        """The documents' section trees (`bunko tree`, the tree route, auto-merging), rebuilt as documents change."""
        self._embedder = embedder
        self._answerer: Answerer | None = None
        self._parser: ParseWorker | None = None
        """The parse worker process (`ingest/isolation.py`), started by the first ingest and kept until close()."""
        self._lock = writer_lock(self.config, self.path)
        if not allow_embedder_change:
            self._check_embedder(self.embedder_name)
        if not allow_analyzer_change:
            self._check_analyzer()

    def _root(self) -> Path:
        holder = self.path.resolve().parent
        declared = self.config.ingest.root
        return holder if not declared else (holder / Path(declared).expanduser()).resolve()

    @classmethod
    def for_reembed(cls, path: str | Path, config: Config | None = None) -> Bunko:
        """Open a collection whose recorded embedder differs from the configured one, to re-embed it."""
        return cls(path, config=config, create=False, allow_embedder_change=True)

    # -- wiring -------------------------------------------------------------
    @property
    def embedder_name(self) -> str:
        return self._embedder.name if self._embedder is not None else embedder_name(self.config.embed)

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = build_embedder(self.config.embed)
        return self._embedder

    def _check_embedder(self, name: str) -> None:
        recorded = self.store.get_meta("embedder")
        if recorded is not None and recorded != name and self.store.chunk_count() > 0:
            raise CollectionError(
                f"{self.path}: this collection was embedded with {recorded!r} "
                f"({self.store.get_meta('dimension')} dimensions) but the embedder now is {name!r}; "
                f"run `bunko reembed` to re-embed the stored chunks with it, or restore the [embed] settings "
                f"(model, remote_model, model_path) that produced {recorded!r}"
            )

    def _check_analyzer(self) -> None:
        """Keyword tokens stored with one analyzer never match queries analyzed by another."""
        recorded = self.store.get_meta("analyzer") or "multilingual"
        wanted = self.config.retrieve.analyzer
        if recorded != wanted and self.store.chunk_count() > 0:
            raise CollectionError(
                f"{self.path}: this collection's keyword index was built with analyzer {recorded!r} but "
                f"[retrieve] analyzer is now {wanted!r}; run `bunko reindex` to re-tokenize the stored chunks "
                f"(no re-parsing or re-embedding), or set analyzer = {recorded!r}"
            )

    def _record_embedder(self) -> None:
        embedder = self.embedder
        self.store.set_meta("embedder", embedder.name)
        self.store.set_meta("dimension", str(embedder.dimension))

    def lift_distance_limit(self) -> None:
        """Let every dense candidate through from now on, whatever max_distance says (this session only, not saved).

        Calibration must see the distances a threshold would cut in order to suggest one.
        """
        self.config.retrieve.max_distance = None

    @property
    def searcher(self) -> Searcher:
        return Searcher(self.store, self.embedder, self.analyzer, self.config.retrieve,
                        retrievers=[build(self.store, self.config.retrieve) for build in self.retrievers], trees=self.trees)

    def close(self) -> None:
        if self._parser is not None:
            self._parser.close()
            self._parser = None
        self.store.close()

    def __enter__(self) -> Bunko:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- ingest -------------------------------------------------------------
    def ingest(
        self, paths: str | Path | Iterable[str | Path], *, prune: bool = False, progress: Progress | None = None,
        fields: Mapping[str, Any] | None = None, root: str | Path | None = None,
    ) -> IngestReport:
        """Parse, chunk, embed and index files and folders; unchanged files are skipped.

        `fields` are stored in each document's ``meta["fields"]`` and become filter fields, e.g.
        ``fields={"groups": ["hr"]}`` lets the server restrict retrieval with ``{"groups": {"$in": [...]}}``.
        Documents are named relative to `root` when given, else to the collection's root (`[ingest] root`), and a
        folder given from outside it from the folder's own name down (`ingest/sources.SourceNames`).
        """
        items = [Path(paths)] if isinstance(paths, str | Path) else [Path(p) for p in paths]
        with self._lock:
            return self._ingestor().run(items, prune=prune, progress=progress, fields=fields, root=Path(root) if root else None)

    def retry(self, job_ids: Sequence[str] = (), *, failed: bool = False, progress: Progress | None = None) -> IngestReport:
        """Ingest again the files of failed jobs, as one new run: the jobs named by id, or (`failed`) every source whose
        latest job failed. Each file is ingested with the fields it first was (the server's access groups)."""
        if not job_ids and not failed:
            raise BunkoError("name the failed jobs to retry (their ids, see `bunko jobs --all`), or retry every failure with --failed")
        with self._lock:
            ingestor = self._ingestor()  # first: it marks jobs a killed process left unfinished as failed
            chosen: dict[str, IngestJob] = {}
            for job_id in job_ids:
                job = self.store.get_job(job_id)
                if job is None:
                    raise BunkoError(f"no job {job_id} (see `bunko jobs --all`)")
                if job.status != JobStatus.FAILED:
                    raise BunkoError(f"job {job_id} ({job.source}) did not fail: it is {job.status}")
                chosen.setdefault(job.source, job)
            if failed:
                for job in self.store.failed_jobs():
                    chosen.setdefault(job.source, job)
            return ingestor.retry(list(chosen.values()), progress)

    def _ingestor(self) -> Ingestor:
        """Ready the store for a run (half-done jobs failed, the embedder recorded) and the pipeline to run it; the
        caller holds the writer lock."""
        self.store.fail_unfinished_jobs("the ingest process stopped before this job finished; it will be retried")
        if self.store.get_meta("embedder") is None or self.store.chunk_count() == 0:
            self._record_embedder()
            self.store.set_meta("analyzer", self.config.retrieve.analyzer)
        if self._parser is None:
            self._parser = parse_worker(self.registry, self.config)
        return Ingestor(
            self.store, self.registry, self.chunker, lambda: self.embedder, self.analyzer, self.config, self.root,
            entity_extractor(self.config), parser=self._parser,
        )

    # -- watching a folder --------------------------------------------------
    def apply_changes(self, changes: FolderChanges, folder: str | Path | None = None) -> WatchBatch:
        """Bring the collection in line with changed paths, in one run: those that exist are ingested (unchanged
        files skipped), documents at or under those that are gone are deleted from every index. `folder`: the
        watched folder they are in, whose files are named as `ingest(folder)` names them."""
        with self._lock:
            batch = WatchBatch(run_id=uuid.uuid4().hex[:12])
            ingestor = self._ingestor()
            within = Path(folder) if folder is not None else None
            if changes.updated:
                report = ingestor.run(changes.updated, within=within)
                batch.run_id, batch.jobs = report.run_id, report.jobs
            names = [ingestor.names.name(path, ingestor.names.anchor(within or path, record=False)) for path in changes.removed]
            for doc in self.store.documents() if names else []:
                under = any(doc.source == name or doc.source.startswith(name + "/") for name in names)
                if under and self.store.delete_document(doc.source):
                    batch.deleted.append(doc.source)
            return batch

    def watch(
        self, folder: str | Path, *, debounce: float = 1.0, catch_up: bool = True,
        on_batch: Callable[[WatchBatch], None] | None = None, stop: threading.Event | None = None,
    ) -> None:
        """Keep the collection in line with a folder people edit until `stop` is set: first (`catch_up`, once the
        watcher is in place) an ingest with prune for what changed while nobody watched, then each debounced batch
        of changes (`ingest/watch.py`); `on_batch` is told what each did."""
        folder = Path(folder)
        if not folder.is_dir():
            raise CollectionError(f"{folder}: not a folder")

        def catch_up_now() -> None:
            report = self.ingest(folder, prune=True)
            if on_batch:
                on_batch(WatchBatch(report.run_id, report.jobs, report.pruned))

        for changes in watch_folder(
            folder, include=self.config.ingest.include, exclude=self.config.ingest.exclude, ignore=[self.path],
            debounce=debounce, stop=stop, on_ready=catch_up_now if catch_up else None,
        ):
            batch = self.apply_changes(changes, folder)
            if on_batch:
                on_batch(batch)

    # -- sources ------------------------------------------------------------
    @property
    def source_book(self) -> SourceBook:
        """The collection's sources (`sources.toml` in the collection folder; no credentials)."""
        return SourceBook(self.path)

    def add_source(self, name: str, options: Mapping[str, Any], *, replace: bool = False) -> SourceSpec:
        """Record a source (`options` as its sources.toml table: type and where its items are); nothing is read yet."""
        with self._lock:
            return self.source_book.add(name, dict(options), replace=replace)

    def remove_source(self, name: str, *, keep_documents: bool = False) -> list[str]:
        """Forget a source and, unless `keep_documents`, delete the documents it brought in; returns those deleted."""
        with self._lock:
            spec = self.source_book.get(name)
            deleted: list[str] = []
            if not keep_documents:
                source = build_source(name, spec, self.path, self.root, self.config)
                try:
                    deleted = remove_documents(source, self.store)
                finally:
                    source.close()
            self.source_book.remove(name)
            SyncState(self.path).remove(name)
            return deleted

    def sync(self, names: Sequence[str] | None = None, progress: Progress | None = None) -> list[SyncReport]:
        """Sync the named sources (all by default), one run: new and changed items ingested, vanished ones deleted."""
        specs = self.source_book.load()
        for name in names or ():
            if name not in specs:
                raise CollectionError(f"no source {name!r} (see `bunko sources list`)")
        chosen = [name for name in specs if not names or name in names]
        reports = []
        with self._lock:
            ingestor = self._ingestor()
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
        return reports

    def fail_unfinished_jobs(self) -> int:
        """Mark the ingest jobs a killed process left mid-flight (PARSING, EMBEDDING, …) FAILED with INTERRUPTED;
        their documents were never committed, and the next ingest of their files redoes them."""
        with self._lock:
            return self.store.fail_unfinished_jobs("the ingest process stopped before this job finished; it will be retried")

    def delete(self, source: str) -> bool:
        """Remove a document from every index; `source` as listed by `documents()`, or a path to its file
        (`resolve_source`)."""
        with self._lock:
            return self.store.delete_document(self.resolve_source(source))

    def resolve_source(self, given: str) -> str:
        """A document's name from what a person types: a stored name as is; a path to a file, named as ingest names
        it; else the one stored name that ends with it (a collection written with absolute names: ``zh/说明.md``
        finds ``/data/corpus/zh/说明.md``). Unknown names come back unchanged."""
        stored = {doc.source for doc in self.store.documents()}
        if given in stored:
            return given
        path = Path(given)
        if os.path.lexists(path):
            names = SourceNames.load(self.store, self.root)
            name = names.name(path, names.anchor(path, record=False))
            if name in stored:
                return name
            if path.resolve().as_posix() in stored:
                return path.resolve().as_posix()
        tail = "/" + given.strip("/")
        ending = [source for source in stored if source.endswith(tail)]
        return ending[0] if len(ending) == 1 else given

    def reembed(self, progress: Progress | None = None) -> int:
        """Re-embed every stored chunk with the configured embedder; no re-parsing."""
        with self._lock:
            count = maintenance.reembed(self.store, self.embedder)
            self._record_embedder()
            return count

    def reindex(self, progress: Progress | None = None) -> int:
        """Re-tokenize every document's chunks with the configured analyzer and find their entities again, one
        transaction per document (also how a collection ingested before the entity graph gets one)."""
        with self._lock:
            count = maintenance.reindex(
                self.store, self.analyzer, self.store.get_meta("embedder") or self.embedder_name, progress, entity_extractor(self.config)
            )
            self.store.set_meta("analyzer", self.config.retrieve.analyzer)
            return count

    # -- read ---------------------------------------------------------------
    def documents(self) -> list[DocumentInfo]:
        return self.store.documents()

    def chunks(self, source: str | None = None) -> list[Chunk]:
        return self.store.chunks(source)

    def elements(self, source: str) -> list[Element]:
        return self.store.elements(source)

    def jobs(self, all_runs: bool = False, limit: int = 1000) -> list[IngestJob]:
        run_id = None if all_runs else self.store.last_run_id()
        return self.store.jobs(run_id, limit)

    def status(self) -> dict[str, Any]:
        jobs = self.jobs()
        by_status: dict[str, int] = {}
        for job in jobs:
            by_status[job.status] = by_status.get(job.status, 0) + 1
        return {
            "collection": str(self.path),
            "documents": len(self.store.documents()),
            "chunks": self.store.chunk_count(),
            "embedder": self.store.get_meta("embedder") or self.embedder_name,
            "dimension": int(self.store.get_meta("dimension") or 0) or None,
            "chunk_strategy": self.config.chunk.strategy,
            "last_run": by_status,
            "index": self.store.index_stats(),
        }

    def explain(self, hit: Hit, mode: str, filtered: bool) -> list[str]:
        """Why `hit`, found in search mode `mode`, ranked where it did: its route's signals, the limits it passed."""
        route_lines = self.searcher.retriever(mode).explain(hit.signals)
        return explain_hit(hit, route_lines, thresholds(self.config.retrieve), filtered)

    def search(
        self, query: str, k: int | None = None, filters: Mapping[str, Any] | None = None, mode: str | None = None,
        group_by: str | None = None, language: str | None = None,
    ) -> list[Hit]:
        return self.search_detailed(query, k=k, filters=filters, mode=mode, group_by=group_by, language=language).hits

    def search_detailed(
        self, query: str, k: int | None = None, filters: Mapping[str, Any] | None = None, mode: str | None = None,
        group_by: str | None = None, language: str | None = None,
    ) -> SearchResult:
        """`group_by` "document" or "section": one hit per document or section (its best chunk); `language`: the
        language to prefer ("en", "ja", "zh") instead of the question's, or "any".

        The hits are what `[answer] policy` lets out: under strict and regulated, personal data in their text is
        masked (`generate/guardrails.py`), as it is in answers."""
        result = self.searcher.search(query, k=k, where=filters, mode=mode, group_by=group_by, language=language)
        result.hits = guard_hits(result.hits, self.config.answer.policy)
        return result

    def trace(self, trace_id: str) -> dict[str, Any] | None:
        return self.store.get_trace(trace_id)

    # -- ask ----------------------------------------------------------------
    @property
    def answerer(self) -> Answerer:
        """The answer pipeline (generate/answerer.py); its models (LLM, cross-encoder) load on first use."""
        if self._answerer is None:
            self._answerer = Answerer(
                self.store, self.searcher, self.embedder, self.analyzer, self.config, chat_model=build_chat_model(self.config)
            )
        return self._answerer

    def ask(
        self, question: str, filters: Mapping[str, Any] | None = None, k: int | None = None, mode: str | None = None,
        history: Sequence[Turn] | None = None,
    ) -> Answer:
        """A grounded answer: cited sentences from the evidence, or an abstention in the question's language.

        ``answer.trace`` is what each stage did (timings, evidence, grade, token use), the record `trace()` reads back later.
        `mode` forces a search mode (``graph``, ``graph-local``…) instead of the router's choice. `history` is the
        conversation so far (`Turn`s, oldest first): a follow-up ("それの上限は？", "那年假呢？", "and its config file?") is
        searched as a standalone question made from it (``answer.trace.condensed``); the answer keeps the question asked.
        """
        return self.answerer.ask(question, filters=filters, k=k, mode=mode, history=history)

    def ask_stream(
        self, question: str, filters: Mapping[str, Any] | None = None, k: int | None = None, mode: str | None = None,
        history: Sequence[Turn] | None = None,
    ) -> Iterator[str | Answer]:
        """Text deltas of the answer as each sentence passes the citation check, then the final `Answer` (with its trace)."""
        return self.answerer.ask_stream(question, filters=filters, k=k, mode=mode, history=history)
