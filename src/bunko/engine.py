"""`Bunko`: one collection, its stages wired together. The CLI and server are shells over it."""

from __future__ import annotations

import json
import os
import threading
import time
import uuid
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from bunko.collection_paths import DEFAULT_COLLECTION
from bunko.config import CONFIG_FILE, Config, EmbedConfig
from bunko.embed.base import Embedder
from bunko.embed.registry import build_embedder, embedder_name
from bunko.errors import BunkoError, CollectionError, DocumentError
from bunko.index.filters import validate_filter
from bunko.ingest.reembed_batch import REEMBED_BATCH
from bunko.retrieve.base import RetrieverFactory
from bunko.retrieve.copies import CopyGroups
from bunko.retrieve.document_sentences import DocumentSentences
from bunko.retrieve.explain import explain_hit, thresholds
from bunko.retrieve.searcher import Searcher, SearchResult
from bunko.retrieve.table_plan import TablePlanner
from bunko.retrieve.tables import CollectionTables
from bunko.retrieve.trees import DocumentTrees
from bunko.schema import Answer, Chunk, DocumentInfo, Element, ErrorCode, Hit, IngestJob, JobStatus, doc_id_for
from bunko.store.base import STAGING_META, Store
from bunko.store.figure_files import FigureFiles
from bunko.store.lock import WRITE_LOCK, WriterLock, lock_state
from bunko.store.registry import open_store, writer_lock
from bunko.text.analyzers import get_analyzer

if TYPE_CHECKING:
    from bunko.chunk.base import Chunker
    from bunko.generate.answerer import Answerer
    from bunko.generate.conversation import Turn
    from bunko.ingest.connectors.base import SourceSpec
    from bunko.ingest.connectors.registry import SourceBook
    from bunko.ingest.isolation import ParseWorker
    from bunko.ingest.maintenance import ReembedPlan, ReembedProgress, ReembedReport
    from bunko.ingest.pipeline import Ingestor, IngestReport, Progress
    from bunko.ingest.sync import SyncReport
    from bunko.ingest.watch import FolderChanges, WatchBatch
    from bunko.llm.vision import OpenAIFigureDescriber
    from bunko.parse.registry import ParserRegistry

EMBED_CONFIG_META = "embed_config"
"""Store meta: the [embed] section of the recorded embedder, written by a re-embed's switch, so every process
serving the collection can build the new embedder when it sees the switch."""
PENDING_CONFIG_META = "embed_config_pending"
"""Store meta set in the switch's transaction and emptied once bunko.toml names the new embedder: a process
killed between the two leaves the store switched, and the next open writes bunko.toml to match."""
REEMBED_LOCK = "reembed.lock"

T = TypeVar("T")


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
        embedder_factory: Callable[[EmbedConfig], Embedder] | None = None,
    ) -> None:
        """`retrievers` add search modes (a graph or tree route) beside dense, keyword and hybrid; each is
        built over this collection's store and retrieve config. `embedder_factory` builds an embedder from an
        [embed] section (default `build_embedder`): what a re-embed to a named model, and a switch seen from
        another process, build the new embedder with."""
        from bunko.rerank.unit_vectors import FILE_NAME as UNIT_VECTORS_FILE
        from bunko.rerank.unit_vectors import UnitVectorFile

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
        self._registry = registry
        self.analyzer = get_analyzer(self.config.retrieve.analyzer)
        self._chunker: Chunker | None = None
        self.trees = DocumentTrees(self.store, self.analyzer)
        self.figures = FigureFiles(self.path)
        self._describer: OpenAIFigureDescriber | None = None
        """The documents' section trees (`bunko tree`, the tree route, auto-merging), rebuilt as documents change."""
        self.copies = CopyGroups(self.store)
        """The copy groups search folds (`retrieve/copies.py`), read again when the store's generation changes."""
        self.tables = CollectionTables(self.store, self.path)
        """The documents' tables as typed SQL tables (`tables.db`; the table route), updated as documents change."""
        self.unit_vectors = UnitVectorFile(self.path / UNIT_VECTORS_FILE)
        """Vectors of the chunks' sentences and rows (`unit-vectors.db`), which the reranker and the extractive answer
        read instead of embedding them at each question (`build_unit_vectors`, `bunko reindex --unit-vectors`)."""
        self._sentences: DocumentSentences | None = None
        self._embedder = embedder
        self._build_embedder = embedder_factory or build_embedder
        self._injected = embedder is not None
        self._allow_embedder_change = allow_embedder_change
        self._switch_lock = threading.RLock()
        self._staging: tuple[Embedder, EmbedConfig | None] | None = None
        """The embedder a re-embed run by this object is staging vectors for (searches switch to it once the store has)."""
        self._reembed_stop = threading.Event()
        self._reembed_discard = False
        self._answerer: Answerer | None = None
        self._parser: ParseWorker | None = None
        """The parse worker process (`ingest/isolation.py`), started by the first ingest and kept until close()."""
        self._lock = writer_lock(self.config, self.path)
        self._finish_switch()
        if not allow_embedder_change:
            self._check_embedder(self.embedder_name)
        if not allow_analyzer_change:
            self._check_analyzer()

    @property
    def chunker(self) -> Chunker:
        """The `[chunk] strategy`'s chunker, built when a document is first chunked (a search imports no chunker)."""
        if self._chunker is None:
            from bunko.chunk.registry import get_chunker

            self._chunker = get_chunker(self.config.chunk.strategy)
        return self._chunker

    @property
    def registry(self) -> ParserRegistry:
        """The parsers (`default_registry` unless one was given), built when a document is first parsed, so opening
        a collection to search imports none of them."""
        if self._registry is None:
            from bunko.parse.registry import default_registry

            self._registry = default_registry()
        return self._registry

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
        if self._embedder is None and self._build_embedder is not build_embedder:
            return self.embedder.name  # a caller's factory: only the embedder it builds knows its name
        return self._embedder.name if self._embedder is not None else embedder_name(self.config.embed)

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = self._build_embedder(self.config.embed)
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
                        retrievers=[build(self.store, self.config.retrieve) for build in self.retrievers], trees=self.trees,
                        tables=self.tables, sentences=self._document_sentences(), copies=self.copies)

    def _document_sentences(self) -> DocumentSentences | None:
        """The documents' best sentences, read from the unit vectors when ingest builds them (a file filled by questions
        would make the ranking depend on which were asked); one reader per embedding model, so its cache outlives a
        searcher."""
        if not self._units_at_ingest():
            return None
        embedder = self.embedder
        if self._sentences is None or self._sentences.model != embedder.name:
            self._sentences = DocumentSentences(self.store, self.unit_vectors, embedder.name, embedder.dimension)
        return self._sentences

    def _units_at_ingest(self) -> bool:
        """Whether ingest embeds the chunks' units (`[rerank] unit_vectors = "ingest"` with the light reranker that
        reads them)."""
        return self.config.rerank.unit_vectors == "ingest" and self.config.rerank.method == "light"

    def close(self) -> None:
        if self._describer is not None:
            self._describer.close()
            self._describer = None
        if self._parser is not None:
            self._parser.close()
            self._parser = None
        self.unit_vectors.close()
        self.store.close()

    def __enter__(self) -> Bunko:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- ingest -------------------------------------------------------------
    def ingest(
        self, paths: str | Path | Iterable[str | Path], *, prune: bool = False, progress: Progress | None = None,
        fields: Mapping[str, Any] | None = None, root: str | Path | None = None, engine: str | None = None,
        address: str | None = None, workers: int | None = None,
    ) -> IngestReport:
        """Parse, chunk, embed and index files and folders; unchanged files are skipped.

        `fields` are stored in each document's ``meta["fields"]`` and become filter fields, e.g.
        ``fields={"groups": ["hr"]}`` lets the server restrict retrieval with ``{"groups": {"$in": [...]}}``.
        Documents are named relative to `root` when given, else to the collection's root (`[ingest] root`), and a
        folder given from outside it from the folder's own name down (`ingest/sources.SourceNames`).
        `engine` "ray" parses, chunks and embeds on Ray actors (`ingest/distributed.py`; `address` a running cluster,
        `workers` the pool's size, by default `[ingest] ray_address` and `ray_workers`). The default is this process:
        `[ingest] engine` is what `bunko ingest` picks, while uploads to the server, sync and watch, one file at a
        time, never pay Ray's start-up.
        """
        from bunko.rerank.unit_vectors import FILE_NAME as UNIT_VECTORS_FILE

        items = [Path(paths)] if isinstance(paths, str | Path) else [Path(p) for p in paths]
        with self._lock:
            ingestor = self._ingestor(engine, address, workers)
            report = ingestor.run(items, prune=prune, progress=progress, fields=fields, root=Path(root) if root else None)
            if report.pruned:
                self._sweep_figures()
            failure = self._embed_units(ingestor, report.jobs)
            if failure:
                report.warnings.append((UNIT_VECTORS_FILE, failure))
            return report

    def _embed_units(self, ingestor: Ingestor, jobs: Sequence[IngestJob]) -> str | None:
        """The unit vectors of the documents a run ingested or found unchanged (`[rerank] unit_vectors = "ingest"`), so
        no question pays for them; why they could not be embedded, if so (the documents are indexed all the same: asks
        embed the units, and search judges them without their best sentence). The local pipeline embeds each file's
        units in its embedding stage (`Ingestor.units`); what is left here is a document without its matrix: one
        found unchanged after a run killed between storing it and its units, or one ingested on Ray."""
        if ingestor.units_failure is not None:
            return ingestor.units_failure
        return self._build_missing_units([job.source for job in jobs if job.status in (JobStatus.READY, JobStatus.SKIPPED)])

    def _build_missing_units(self, sources: Sequence[str]) -> str | None:
        """`_build_units` for `sources`, its failure told instead of raised; nothing when the unit file is unusable (a
        build would only embed what it cannot keep)."""
        if not sources or not self._units_at_ingest() or self.unit_vectors.failure:
            return self.unit_vectors.failure if sources and self._units_at_ingest() else None
        try:
            self._build_units(sources)
        except Exception as exc:  # whatever the embedder raises, as the pipeline takes any embed error as EMBED_FAILED
            return f"unit vectors not embedded: {type(exc).__name__}: {exc}".splitlines()[0]
        return self.unit_vectors.failure

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

    def _ingestor(self, engine: str | None = None, address: str | None = None, workers: int | None = None) -> Ingestor:
        """Ready the store for a run (half-done jobs failed, the embedder recorded) and the pipeline to run it, local
        or on Ray (`engine` "ray"); the caller holds the writer lock."""
        from bunko.ingest.pipeline import Ingestor, entity_extractor, parse_worker

        self.store.fail_unfinished_jobs("the ingest process stopped before this job finished; it will be retried")
        self._sync_embedder()  # a re-embed another process switched: new chunks get the new model's vectors
        on_ray = engine == "ray"
        if self.store.get_meta("embedder") is None or self.store.chunk_count() == 0:
            if not on_ray:  # Ray's workers load the embedder, and the first one's name and dimension are recorded
                self._record_embedder()
            self.store.set_meta("analyzer", self.config.retrieve.analyzer)
        self.store.expect_embedder(self.embedder_name)
        if self._parser is None:
            self._parser = parse_worker(self.registry, self.config)
        args = (self.store, self.registry, self.chunker, lambda: self.embedder, self.analyzer, self.config, self.root,
                entity_extractor(self.config))
        if on_ray:
            from bunko.ingest.distributed import RayIngestor

            return RayIngestor(*args, parser=self._parser, address=address or self.config.ingest.ray_address,
                               workers=workers or self.config.ingest.ray_workers, figures=self.figures)
        return Ingestor(*args, parser=self._parser, figures=self.figures, describer=self._figure_describer(),
                        units=self.unit_vectors if self._units_at_ingest() else None)

    def _figure_describer(self) -> OpenAIFigureDescriber | None:
        from bunko.llm.vision import figure_describer

        if self._describer is None:
            self._describer = figure_describer(self.config)
        return self._describer

    def _sweep_figures(self) -> None:
        """Thumbnails of documents deleted by the run just done (pruned, unlisted by a source, removed) go too."""
        if self.figures.documents():
            self.figures.sweep(d.doc_id for d in self.store.documents())

    # -- watching a folder --------------------------------------------------
    def apply_changes(self, changes: FolderChanges, folder: str | Path | None = None) -> WatchBatch:
        """Bring the collection in line with changed paths, in one run: those that exist are ingested (unchanged
        files skipped), documents at or under those that are gone are deleted from every index. `folder`: the
        watched folder they are in, whose files are named as `ingest(folder)` names them."""
        from bunko.ingest.watch import WatchBatch

        with self._lock:
            batch = WatchBatch(run_id=uuid.uuid4().hex[:12])
            ingestor = self._ingestor()
            within = Path(folder) if folder is not None else None
            if changes.updated:
                report = ingestor.run(changes.updated, within=within)
                batch.run_id, batch.jobs = report.run_id, report.jobs
                self._embed_units(ingestor, report.jobs)
            names = [ingestor.names.name(path, ingestor.names.anchor(within or path, record=False)) for path in changes.removed]
            for doc in self.store.documents() if names else []:
                under = any(doc.source == name or doc.source.startswith(name + "/") for name in names)
                if under and self.store.delete_document(doc.source):
                    batch.deleted.append(doc.source)
            if batch.deleted:
                self._sweep_figures()
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
        from bunko.ingest.connectors.registry import SourceBook

        return SourceBook(self.path)

    def add_source(self, name: str, options: Mapping[str, Any], *, replace: bool = False) -> SourceSpec:
        """Record a source (`options` as its sources.toml table: type and where its items are); nothing is read yet."""
        with self._lock:
            return self.source_book.add(name, dict(options), replace=replace)

    def remove_source(self, name: str, *, keep_documents: bool = False) -> list[str]:
        """Forget a source and, unless `keep_documents`, delete the documents it brought in; returns those deleted."""
        from bunko.ingest.connectors.registry import build_source
        from bunko.ingest.sync import SyncState, remove_documents

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
            if deleted:
                self._sweep_figures()
            return deleted

    def sync(self, names: Sequence[str] | None = None, progress: Progress | None = None) -> list[SyncReport]:
        """Sync the named sources (all by default), one run: new and changed items ingested, vanished ones deleted."""
        from bunko.ingest.connectors.registry import build_source, key_filter
        from bunko.ingest.sync import SyncReport, SyncState, sync_source

        specs = self.source_book.load()
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
            self._sweep_figures()
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
            name = self.resolve_source(source)
            deleted = self.store.delete_document(name)
            self.figures.remove(doc_id_for(name))
            return deleted

    def source_path(self, source: str) -> Path:
        """Where the file a document was named from is (or was): the inverse of how ingest names files."""
        from bunko.ingest.sources import SourceNames

        return SourceNames.load(self.store, self.root).path_of(source)

    def resolve_source(self, given: str) -> str:
        """A document's name from what a person types: a stored name as is; a path to a file, named as ingest names
        it; else the one stored name that ends with it (a collection written with absolute names: ``zh/说明.md``
        finds ``/data/corpus/zh/说明.md``). Unknown names come back unchanged."""
        from bunko.ingest.sources import SourceNames

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

    # -- changing the embedding model -----------------------------------------
    def reembed(
        self, model: str | EmbedConfig | None = None, *, embedder: Embedder | None = None,
        progress: ReembedProgress | None = None, batch: int = REEMBED_BATCH,
    ) -> ReembedReport:
        """Re-embed every stored chunk with another model beside the live vectors, then switch to it at once.

        The new vectors are staged `batch` chunks at a time, each batch committed, while searches (here and in
        other processes) keep using the old model and its vectors, and ingests go on; chunks written meanwhile
        are embedded at the switch. The switch (vectors, hashes, recorded embedder, [embed] in bunko.toml) is
        one store transaction; a crash before it leaves the old model in force, after it the new one. An
        interrupted re-embed resumes where it stopped when run again with the same model (or none).

        `model` names an embedder of the registry (the rest of [embed] kept) or gives a whole [embed] section;
        `embedder` hands one in (tests, applications). With neither, an interrupted re-embed is resumed, or a
        collection whose bunko.toml already names another embedder is re-embedded with it.
        """
        from bunko.ingest import maintenance
        from bunko.ingest.maintenance import ReembedPlan, ReembedReport, ReembedStopped

        with self._reembed_guard():
            plan_text = self.store.get_meta(STAGING_META) or None
            plan = ReembedPlan.loads(plan_text) if plan_text else None
            recorded = self.store.get_meta("embedder")
            target, embed = self._reembed_target(model, embedder, plan, recorded)
            if plan is not None and plan.embedder != target.name:
                done, total = self.store.staging_counts()
                raise CollectionError(
                    f"{self.path}: a re-embed to {plan.embedder} is in progress ({done}/{total} chunks); continue it "
                    f"(`bunko reembed --model {plan.embed.get('model', plan.embedder)}`) or discard it (`bunko reembed --abort`) first"
                )
            if plan is None:
                if recorded == target.name:
                    raise BunkoError(f"{self.path}: the collection is embedded with {target.name} already; name another model")
                self.store.discard_staged()  # rows a killed `--abort` may have left
                plan = ReembedPlan(target.name, target.dimension, recorded or "", embed.model_dump(exclude_none=True) if embed else {})
                plan_text = plan.dumps()
                self.store.set_meta(STAGING_META, plan_text)
            assert plan_text is not None
            started = time.perf_counter()
            self._staging = (target, embed)
            self._reembed_stop.clear()
            self._reembed_discard = False
            try:
                units = self.unit_vectors if self._units_at_ingest() else None
                embedded = maintenance.stage(self.store, target, progress, batch=batch, stop=self._reembed_stop, units=units)
                with self._lock:  # no ingest of this collection from here to the switch (postgres: the swap locks writers out)
                    embedded += maintenance.stage(self.store, target, progress, batch=batch, stop=self._reembed_stop, units=units)
                    meta = {"embedder": target.name, "dimension": str(target.dimension)}
                    if embed is not None:
                        meta[EMBED_CONFIG_META] = meta[PENDING_CONFIG_META] = embed.model_dump_json(exclude_none=True)
                    count = self.store.swap_staged(plan_text, meta, lambda todo: maintenance.embed_chunks(target, todo))
                    with self._switch_lock:
                        self._use_embedder(target, embed)
                    self.store.expect_embedder(target.name)
                    if embed is not None:
                        self._write_embed_config(embed)
                        self.store.set_meta(PENDING_CONFIG_META, "")
            except ReembedStopped:
                still = plan.replaces or "the old model"
                if not self._reembed_discard:
                    done, total = self.store.staging_counts()
                    raise ReembedStopped(
                        f"{self.path}: the re-embed to {target.name} stopped at {done}/{total} chunks; {still} stays in force "
                        "until it is run again"
                    ) from None
                self.store.discard_staged()
                raise ReembedStopped(f"{self.path}: the re-embed to {target.name} was aborted; {still} stays in force") from None
            finally:
                self._staging = None
            if progress:
                progress(count, count)
            # the documents' unit matrices for the new model, from the units staged with their chunks (those of chunks the
            # switch itself embedded are embedded here); a failure leaves questions embedding them as they come
            self._build_missing_units([document.source for document in self.store.documents()])
            return ReembedReport(target.name, plan.replaces, count, embedded, round(time.perf_counter() - started, 3))

    def reembed_status(self) -> dict[str, Any] | None:
        """The re-embed in progress (staged, running or interrupted), or None: its model, chunks embedded of all."""
        from bunko.ingest.maintenance import ReembedPlan

        text = self.store.get_meta(STAGING_META)
        if not text:
            return None
        plan = ReembedPlan.loads(text)
        done, total = self.store.staging_counts()
        return {
            "embedder": plan.embedder, "dimension": plan.dimension, "replaces": plan.replaces, "model": plan.embed.get("model"),
            "chunks_embedded": done, "chunks": total, "started_at": plan.started_at, "running": self._reembed_running(),
        }

    def abort_reembed(self) -> str:
        """Discard the re-embed in progress (its staged vectors); the old model was in force all along. A re-embed
        running in this process stops at its next batch and discards them itself; one running in another process
        must be stopped there first. Returns the embedder it was re-embedding with."""
        from bunko.ingest.maintenance import ReembedPlan

        staging = self._staging
        if staging is not None:
            self._reembed_discard = True
            self._reembed_stop.set()
            return staging[0].name
        with self._reembed_guard():
            text = self.store.get_meta(STAGING_META)
            if not text:
                raise BunkoError(f"{self.path}: no re-embed in progress")
            self.store.discard_staged()
            return ReembedPlan.loads(text).embedder

    def stop_reembed(self) -> bool:
        """Stop a re-embed this object runs at its next batch, keeping what it staged (a server shutting down):
        the next `reembed` resumes it. False when none runs here."""
        if self._staging is None:
            return False
        self._reembed_stop.set()
        return True

    def _reembed_target(
        self, model: str | EmbedConfig | None, embedder: Embedder | None, plan: ReembedPlan | None, recorded: str | None,
    ) -> tuple[Embedder, EmbedConfig | None]:
        """The embedder to switch to and, when it is built from config, the [embed] section that builds it."""
        embed: EmbedConfig | None = None
        if isinstance(model, str):
            embed = self.config.embed.model_copy(update={"model": model})
        elif model is not None:
            embed = model.model_copy()
        if embedder is not None:
            return embedder, embed
        if embed is not None:
            return self._build_embedder(embed), embed
        if plan is not None:
            if not plan.embed:
                raise BunkoError(
                    f"{self.path}: the re-embed to {plan.embedder} in progress was started with an embedder handed in by "
                    "its caller; hand it in again to continue, or abort it"
                )
            embed = EmbedConfig.model_validate(plan.embed)
            return self._build_embedder(embed), embed
        if recorded is not None and recorded != self.embedder_name:  # bunko.toml (or the caller) names another embedder already
            return self.embedder, None if self._injected else self.config.embed.model_copy()
        raise BunkoError(
            f"{self.path}: the collection is embedded with {recorded or self.embedder_name} already; name another model "
            "(`bunko reembed --model NAME`)"
        )

    @contextmanager
    def _reembed_guard(self) -> Iterator[None]:
        """One re-embed of a collection at a time (a lock file in its folder, held while it runs)."""
        lock = WriterLock(self.path / REEMBED_LOCK, timeout=0)
        try:
            lock.__enter__()
        except CollectionError:
            try:
                holder = (self.path / REEMBED_LOCK).read_text(errors="replace").strip() or "unknown"
            except FileNotFoundError:  # it finished meanwhile, and removed its lock
                holder = "unknown"
            raise CollectionError(
                f"{self.path}: a re-embed is running (pid {holder}); watch it with `bunko reembed --status`, or stop it "
                "(Ctrl-C) before starting or aborting one"
            ) from None
        try:
            yield
        finally:
            lock.__exit__(None, None, None)

    def _reembed_running(self) -> bool:
        if self._staging is not None:
            return True
        if not (self.path / REEMBED_LOCK).exists():
            return False
        try:
            with WriterLock(self.path / REEMBED_LOCK, timeout=0):
                return False
        except CollectionError:
            return True

    def _use_embedder(self, embedder: Embedder, embed: EmbedConfig | None) -> None:
        """From now on this object embeds queries and new chunks with `embedder` (the caller holds _switch_lock)."""
        self._embedder = embedder
        if embed is not None:
            self.config.embed = embed.model_copy()
        self._answerer = None

    def _write_embed_config(self, embed: EmbedConfig) -> None:
        """bunko.toml with the new [embed] section, replaced in one rename (never a half-written file)."""
        path = self.path / CONFIG_FILE
        on_disk = Config.load(path) if path.exists() else Config()
        on_disk.embed = embed.model_copy()
        partial = path.with_name(path.name + ".partial")
        on_disk.save(partial)
        os.replace(partial, path)

    def _finish_switch(self) -> None:
        """A switch whose process died after the store's commit but before bunko.toml was rewritten: finish it."""
        pending = self.store.get_meta(PENDING_CONFIG_META)
        if not pending:
            return
        embed = EmbedConfig.model_validate(json.loads(pending))
        self._write_embed_config(embed)
        if not self._injected:
            self.config.embed = embed
        self.store.set_meta(PENDING_CONFIG_META, "")

    def _sync_embedder(self) -> str | None:
        """The recorded embedder, with this object switched to it if a re-embed (here or in another process)
        switched the collection since this object last looked."""
        recorded = self.store.get_meta("embedder")
        if recorded is None or self._allow_embedder_change or recorded == self.embedder_name:
            return recorded
        with self._switch_lock:
            if recorded == self.embedder_name:
                return recorded
            staging = self._staging
            if staging is not None and staging[0].name == recorded:
                self._use_embedder(*staging)
                return recorded
            stored = self.store.get_meta(EMBED_CONFIG_META)
            if stored:
                embed = EmbedConfig.model_validate(json.loads(stored))
                built = self._build_embedder(embed)
                if built.name == recorded:
                    self._use_embedder(built, embed)
                    return recorded
            self._check_embedder(self.embedder_name)
            return recorded

    def _on_current_model(self, action: Callable[[], T]) -> T:
        """Run a search with the query embedded by the model whose vectors it reads: if a switch committed while
        it ran (its result, or its error, came from a mix of old and new), it runs again on the new model."""
        for _ in range(3):
            name = self._sync_embedder()
            try:
                result = action()
            except Exception:
                if self.store.get_meta("embedder") == name:
                    raise
                continue
            if self.store.get_meta("embedder") == name:
                return result
        return action()

    def reindex(self, progress: Progress | None = None) -> int:
        """Re-tokenize every document's chunks with the configured analyzer and find their entities again, one
        transaction per document (also how a collection ingested before the entity graph gets one)."""
        from bunko.ingest import maintenance
        from bunko.ingest.pipeline import entity_extractor

        with self._lock:
            count = maintenance.reindex(
                self.store, self.analyzer, self.store.get_meta("embedder") or self.embedder_name, progress, entity_extractor(self.config)
            )
            self.store.set_meta("analyzer", self.config.retrieve.analyzer)
            return count

    # -- read ---------------------------------------------------------------
    def documents(self) -> list[DocumentInfo]:
        return self.store.documents()

    def document(self, source_or_id: str) -> DocumentInfo | None:
        """The document stored under this source name, or with this id."""
        return next((d for d in self.store.documents() if source_or_id in (d.source, d.doc_id)), None)

    def figure_file(self, doc_id: str, figure_id: str) -> Path | None:
        """The thumbnail of a document's figure (`store/figure_files.py`), or None."""
        return self.figures.path(doc_id, figure_id)

    def highlight_boxes(self, source: str, chunk_id: str, page: int) -> list[tuple[float, float, float, float]]:
        """Where on `page` a chunk was read: the stored boxes of its elements there (a table that runs over a page
        break has a box on each page). Empty when the chunk is not this document's or not on this page."""
        chunks = [c for c in self.store.get_chunks([chunk_id]) if c.source == source]
        if not chunks:
            return []
        wanted = set(chunks[0].element_ids)
        boxes: list[tuple[float, float, float, float]] = []
        for element in self.store.elements(source):
            if element.element_id not in wanted:
                continue
            if element.page == page and element.bbox is not None:
                boxes.append(tuple(element.bbox))  # type: ignore[arg-type]
            for more in element.meta.get("continued_bboxes") or []:
                if more.get("page") == page and more.get("bbox"):
                    boxes.append(tuple(more["bbox"]))
        return boxes

    def page_image(self, source: str, page: int | None = None, highlight: str | None = None, dpi: float | None = None) -> tuple[bytes, int, int]:
        """A PDF document's page as PNG, with the regions of chunk `highlight` drawn on it; returns (png, page, boxes
        drawn). Without `page`, the first page the chunk is on; without `dpi`, `page_render.PAGE_DPI`."""
        from bunko.parse import page_render

        doc = self.document(source)
        if doc is None:
            raise DocumentError(ErrorCode.NOT_FOUND, f"{source}: no such document in {self.path} (see `bunko docs`)")
        if doc.mime != "application/pdf":
            raise DocumentError(ErrorCode.UNSUPPORTED_FORMAT, f"{doc.source}: pages can be shown for PDF documents only; this one is {doc.mime}")
        if page is None and highlight:
            chunk = next((c for c in self.store.get_chunks([highlight]) if c.source == doc.source), None)
            if chunk is None:
                raise DocumentError(ErrorCode.NOT_FOUND, f"{doc.source}: no chunk {highlight} in this document")
            page = chunk.pages[0] if chunk.pages else 1
        page = page or 1
        boxes = self.highlight_boxes(doc.source, highlight, page) if highlight else []
        path = self.source_path(doc.source)
        image = page_render.render_page(path, doc.source, page, boxes, page_render.PAGE_DPI if dpi is None else dpi)
        return page_render.png(image), page, len(boxes)

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
            "reembed": self.reembed_status(),
            "writer": lock_state(self.path / WRITE_LOCK),
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
        masked (`generate/guardrails.py`), as it is in answers. A malformed filter is a `FilterError` naming its bad part."""
        from bunko.generate.guardrails import guard_hits

        validate_filter(filters)  # the form and values here, whatever route runs; the store checks the field names
        result = self._on_current_model(
            lambda: self.searcher.search(query, k=k, where=filters, mode=mode, group_by=group_by, language=language)
        )
        result.hits = guard_hits(result.hits, self.config.answer.policy)
        return result

    def trace(self, trace_id: str) -> dict[str, Any] | None:
        return self.store.get_trace(trace_id)

    # -- ask ----------------------------------------------------------------
    @property
    def answerer(self) -> Answerer:
        """The answer pipeline (generate/answerer.py); its models (LLM, cross-encoder) load on first use."""
        from bunko.generate.answerer import Answerer
        from bunko.generate.table_answer import TableAnswerer
        from bunko.llm.base import build_chat_model

        if self._answerer is None:
            chat_model = build_chat_model(self.config)
            self._answerer = Answerer(
                self.store, self.searcher, self.embedder, self.analyzer, self.config, chat_model=chat_model,
                tables=TableAnswerer(self.tables, TablePlanner(self.analyzer), self.store, chat_model, self.config.answer.table_sql),
                unit_vectors=self.unit_vectors,
            )
        return self._answerer

    def build_unit_vectors(self, progress: Callable[[int, int], None] | None = None) -> int:
        """Embed every quotable unit of every chunk into the collection's unit-vector file (`rerank/unit_vectors.py`),
        so no question embeds them; returns how many were new. Asks fill the file too, one question at a time."""
        return self._on_current_model(lambda: self._build_units(None, progress))

    def _build_units(self, sources: Collection[str] | None, progress: Callable[[int, int], None] | None = None) -> int:
        """The units and matrix of each document of `sources` (every document when None) that has no matrix at the
        version of its rows. Only those documents' chunks are read: an ingest over an unchanged folder costs a lookup
        per document, not a read of every chunk (about 3 s at 46k chunks)."""
        from bunko.ingest.pipeline import EMBED_BATCH

        unbuilt, _ = self._documents_without_units(sources)
        chunks = [chunk for source, _ in unbuilt.values() for chunk in self.store.chunks(source)]
        versions = {doc_id: version for doc_id, (_, version) in unbuilt.items()}
        return self.unit_vectors.build(self.embedder, chunks, progress, versions=versions, known=self._chunk_vectors, batch=EMBED_BATCH)

    def _chunk_vectors(self, chunks: Sequence[Chunk]) -> dict[str, Any]:
        """The stored vectors of a document's searched chunks by their embedded text: a unit that is a chunk's whole
        text takes it, at a build as at ingest."""
        searched = [chunk for chunk in chunks if chunk.searchable]
        rows = self.store.vectors_for([chunk.chunk_id for chunk in searched])  # a zero row: not indexed (any more)
        return {chunk.embed_text: row for chunk, row in zip(searched, rows, strict=True) if row.any()}

    def _documents_without_units(self, sources: Collection[str] | None = None) -> tuple[dict[str, tuple[str, float]], int]:
        """(doc id → (source, version of its rows) of each document of `sources`, every one when None, whose units'
        matrix is not stored for the current model at that version; how many documents were looked at). In order of
        source, whatever order the store lists them in: the units are embedded in batches, and a batch's make-up moves a
        vector in its last bits, so both stores embed a folder alike."""
        chosen = None if sources is None else set(sources)
        listed = sorted(self.store.documents(), key=lambda doc: doc.source)
        documents = {doc.doc_id: doc.source for doc in listed if chosen is None or doc.source in chosen}
        versions = self.store.document_versions(list(documents))
        keys = {doc_id: self.unit_vectors.document_key(self.embedder.name, doc_id, versions[doc_id]) for doc_id in documents if doc_id in versions}
        present = self.unit_vectors.present_documents(list(keys.values()))
        return {doc_id: (documents[doc_id], versions[doc_id]) for doc_id, key in keys.items() if key not in present}, len(keys)

    def documents_with_units(self) -> tuple[int, int]:
        """(documents whose units' matrix is stored for the current model and their rows as written, documents): how many
        searches can judge by their best sentence."""
        unbuilt, looked_at = self._documents_without_units()
        return looked_at - len(unbuilt), looked_at

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
        validate_filter(filters)
        return self._on_current_model(lambda: self.answerer.ask(question, filters=filters, k=k, mode=mode, history=history))

    def ask_stream(
        self, question: str, filters: Mapping[str, Any] | None = None, k: int | None = None, mode: str | None = None,
        history: Sequence[Turn] | None = None,
    ) -> Iterator[str | Answer]:
        """Text deltas of the answer as each sentence passes the citation check, then the final `Answer` (with its trace)."""
        validate_filter(filters)  # before the stream starts
        self._sync_embedder()
        return self.answerer.ask_stream(question, filters=filters, k=k, mode=mode, history=history)
