"""`Bunko`: one collection, its stages wired together. The CLI and server are shells over it.

The engine owns the store, the writer lock and the wiring; each concern beyond that is an object it holds:
`models` the embedder in force (`ingest/active_embedder.py`), `reembedder` the change of model (`ingest/reembed.py`),
`units` the unit vectors (`rerank/collection_units.py`), `pages` the figures and page images (`pages.py`), `sources`
the sources and watched folders it is kept in line with (`ingest/source_upkeep.py`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bunko.collection_paths import DEFAULT_COLLECTION
from bunko.config import CONFIG_FILE, Config, EmbedConfig
from bunko.embed.base import Embedder
from bunko.errors import BunkoError, CollectionError
from bunko.index.filters import validate_filter
from bunko.ingest.active_embedder import ActiveEmbedder
from bunko.ingest.after_writes import ReadyingLock
from bunko.ingest.reembed import Reembedder
from bunko.ingest.source_upkeep import Sources
from bunko.pages import Pages
from bunko.rerank.collection_units import CollectionUnits
from bunko.retrieve.base import RetrieverFactory
from bunko.retrieve.copies import CopyGroups
from bunko.retrieve.explain import explain_hit, thresholds
from bunko.retrieve.hit_chunks import HitChunks
from bunko.retrieve.kept_searcher import KeptSearcher, SearcherParts
from bunko.retrieve.searcher import Searcher, SearchResult
from bunko.retrieve.table_plan import TablePlanner
from bunko.retrieve.tables import CollectionTables
from bunko.retrieve.trees import DocumentTrees
from bunko.schema import Answer, Chunk, DocumentInfo, Element, Hit, IngestJob, JobStatus, doc_id_for
from bunko.store.base import Store
from bunko.store.lock import WRITE_LOCK, lock_state
from bunko.store.registry import open_store, writer_lock
from bunko.text.analyzers import get_analyzer

if TYPE_CHECKING:
    from bunko.chunk.base import Chunker
    from bunko.generate.answerer import Answerer
    from bunko.generate.conversation import Turn
    from bunko.ingest.isolation import ParseWorker
    from bunko.ingest.pipeline import Ingestor, IngestReport, Progress
    from bunko.parse.registry import ParserRegistry


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
        another process, build the new embedder with. `allow_embedder_change` opens a collection whose recorded
        embedder differs from the configured one, to re-embed it."""
        self.path = Path(path)
        self.retrievers = tuple(retrievers)
        config_file = self.path / CONFIG_FILE
        if not config_file.exists():
            if not create:
                raise CollectionError(f"{self.path}: no bunko collection here (run `bunko init` or `bunko ingest` first)")
            self.path.mkdir(parents=True, exist_ok=True)
            (config or Config()).save(config_file)
        self.config = config or Config.load(config_file)
        holder, declared = self.path.resolve().parent, self.config.ingest.root
        self.root = holder if not declared else (holder / Path(declared).expanduser()).resolve()
        """The folder document names are relative to (`[ingest] root`, else the folder holding the collection)."""
        self.store: Store = open_store(self.config, self.path)
        self._registry = registry
        self.analyzer = get_analyzer(self.config.retrieve.analyzer)
        self._chunker: Chunker | None = None
        search = self.store.search()
        # What search reads of the documents, each kept until the store's generation changes: section trees (`bunko
        # tree`, the tree route, auto-merging), copy groups to fold, hits' chunks, and tables as SQL tables (`tables.db`).
        self.trees, self.copies = DocumentTrees(search, self.analyzer), CopyGroups(search)
        self.hit_chunks, self.tables = HitChunks(search, search.generation), CollectionTables(search, self.path)
        self._searchers = KeptSearcher()
        self.models = ActiveEmbedder(self.store, self.path, self.config, embedder=embedder, factory=embedder_factory,
                                     allow_change=allow_embedder_change)
        """The embedder in force, followed when a re-embed switches the collection to another."""
        self.units = CollectionUnits(self.store, self.path, self.config, self.models)
        """The chunks' sentences and rows as vectors (`unit-vectors.db`), which the reranker, the extractive answer and
        search read instead of embedding them at each question (`bunko reindex --unit-vectors`)."""
        self.pages = Pages(self.store, self.path, self.config, self.source_path)
        """The figures' thumbnails and PDF page images (`bunko show`, the server's figure and page routes)."""
        self._lock = ReadyingLock(writer_lock(self.config, self.path), self.store)
        """The writer lock; a write that moved the generation readies its search before letting go (`ingest/after_writes.py`)."""
        self.reembedder = Reembedder(self.store, self.path, self.models, self._lock, self.units)
        """Changing the embedding model beside the live vectors (`bunko reembed`)."""
        self.sources = Sources(self.store, self.path, self.root, self.config, self._lock, ingestor=self._ingestor,
                               ingest=lambda folder: self.ingest(folder, prune=True), after_run=self.units.after_run,
                               after_delete=self.pages.sweep)
        """The sources of `sources.toml` (`bunko sources`) and watched folders (`bunko watch`), kept in line."""
        self._answerer: tuple[Embedder, Answerer] | None = None
        """The answer pipeline and the embedder it was built with."""
        self._parser: ParseWorker | None = None
        """The parse worker process (`ingest/isolation.py`), started by the first ingest and kept until close()."""
        self.models.finish_switch()
        if not allow_embedder_change:
            self.models.check()
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

    # -- wiring -------------------------------------------------------------
    @property
    def embedder_name(self) -> str:
        return self.models.name

    @property
    def embedder(self) -> Embedder:
        return self.models.embedder

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

    @property
    def searcher(self) -> Searcher:
        """The searcher over the parts in force, kept while they are the same (`retrieve/kept_searcher.py`)."""
        parts = SearcherParts(self.store.search(), self.embedder, self.analyzer, self.config.retrieve, self.trees, self.tables,
                              self.units.sentences(), self.copies, self.hit_chunks)
        return self._searchers.current(parts, lambda config: [build(self.store, config) for build in self.retrievers])

    def close(self) -> None:
        self.pages.close()
        if self._parser is not None:
            self._parser.close()
            self._parser = None
        self.units.close()
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
        items = [Path(paths)] if isinstance(paths, str | Path) else [Path(p) for p in paths]
        with self._lock:
            ingestor = self._ingestor(engine, address, workers)
            report = ingestor.run(items, prune=prune, progress=progress, fields=fields, root=Path(root) if root else None)
            if report.pruned:
                self.pages.sweep()
            failure = self.units.after_run(ingestor, report.jobs)
            if failure:
                report.warnings.append((self.units.file.path.name, failure))
            return report

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
        self.models.sync()  # a re-embed another process switched: new chunks get the new model's vectors
        on_ray = engine == "ray"
        if self.store.get_meta("embedder") is None or self.store.chunk_count() == 0:
            if not on_ray:  # Ray's workers load the embedder, and the first one's name and dimension are recorded
                self.models.record()
            self.store.set_meta("analyzer", self.config.retrieve.analyzer)
        self.store.expect_embedder(self.embedder_name)
        if self._parser is None:
            self._parser = parse_worker(self.registry, self.config)
        args = (self.store, self.registry, self.chunker, lambda: self.embedder, self.analyzer, self.config, self.root,
                entity_extractor(self.config))
        if on_ray:
            from bunko.ingest.distributed import RayIngestor

            return RayIngestor(*args, parser=self._parser, address=address or self.config.ingest.ray_address,
                               workers=workers or self.config.ingest.ray_workers, figures=self.pages.figures)
        return Ingestor(*args, parser=self._parser, figures=self.pages.figures, describer=self.pages.describer(),
                        units=self.units.file if self.units.at_ingest else None, passages=self.units.passages)

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
            self.pages.figures.remove(doc_id_for(name))
            return deleted

    def source_path(self, source: str) -> Path:
        """Where the file a document was named from is (or was): the inverse of how ingest names files."""
        from bunko.ingest.sources import SourceNames

        return SourceNames.load(self.store, self.root).path_of(source)

    def resolve_source(self, given: str) -> str:
        """A document's name from what a person types: a stored name, a path to its file, or the end of one name
        (`ingest/sources.SourceNames.resolve`). Unknown names come back unchanged."""
        from bunko.ingest.sources import SourceNames

        return SourceNames.load(self.store, self.root).resolve(given, {doc.source for doc in self.store.documents()})

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
            "index": self.store.search().index_stats(),
            "reembed": self.reembedder.status(),
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
        validate_filter(filters)  # the form and values here, whatever route runs; the store checks the field names
        searcher = self.searcher
        if mode is not None and not searcher.retriever(mode).needs_vector:  # no query vector: no model to be current
            result = searcher.search(query, k=k, where=filters, mode=mode, group_by=group_by, language=language)
        else:
            result = self.models.on_current_model(
                lambda: self.searcher.search(query, k=k, where=filters, mode=mode, group_by=group_by, language=language)
            )
        result.hits = _hit_guard()(result.hits, self.config.answer.policy)
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

        embedder = self.embedder
        if self._answerer is None or self._answerer[0] is not embedder:  # none yet, or built before a re-embed's switch
            chat_model = build_chat_model(self.config)
            self._answerer = embedder, Answerer(
                self.store, self.searcher, embedder, self.analyzer, self.config, chat_model=chat_model,
                tables=TableAnswerer(self.tables, TablePlanner(self.analyzer), self.store, chat_model, self.config.answer.table_sql),
                unit_vectors=self.units.file, passages=self.units.passages(),
            )
        return self._answerer[1]

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
        return self.models.on_current_model(lambda: self.answerer.ask(question, filters=filters, k=k, mode=mode, history=history))

    def ask_stream(
        self, question: str, filters: Mapping[str, Any] | None = None, k: int | None = None, mode: str | None = None,
        history: Sequence[Turn] | None = None,
    ) -> Iterator[str | Answer]:
        """Text deltas of the answer as each sentence passes the citation check, then the final `Answer` (with its trace)."""
        validate_filter(filters)  # before the stream starts
        self.models.sync()
        return self.answerer.ask_stream(question, filters=filters, k=k, mode=mode, history=history)


@functools.cache
def _hit_guard() -> Callable[[Sequence[Hit], str], list[Hit]]:
    """The guardrails' filter of hits, imported on the first search (opening a collection imports no answer code); an
    import statement in `search_detailed` cost a hundredth of a keyword search."""
    from bunko.generate.guardrails import guard_hits

    return guard_hits
