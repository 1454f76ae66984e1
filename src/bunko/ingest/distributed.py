"""Ingest on Ray: files parsed, chunked and embedded by a pool of actors, committed by one writer.

`RayIngestor` is the pipeline (`Ingestor`) with `run_files` spread over Ray; everything that decides what a
document becomes is the local pipeline's own functions (`accept_parsed`, `chunk_document`, `chunk_terms`,
`reusable_vectors`, `fill_vectors`), so a Ray ingest stores what a local one would.

- The driver (this process, holding the collection's writer lock) hashes each file and skips those stored with
  the same content, exactly as the local engine does; Ray is started only when something is left to do.
- Each `DocumentWorker` actor loads the embedder once and keeps a parse process (`ingest/isolation.py`, with
  the `[ingest]` limits); it receives a file's bytes (so workers on other machines need no shared disk),
  parses and chunks it and finds each chunk's keyword tokens and entities (`prepare`), and embeds the chunks
  whose vectors the store does not already hold (`embed`). The pool is smaller than the cluster's CPUs (one is left to the driver and Ray itself).
- The driver is the single writer and does little else (entity extraction, most of a local engine's index
  step, is the workers'): a document is written in one `replace_document` transaction when its vectors are in,
  idempotently (a document is replaced, never added twice). Jobs walk the same states
  (PENDING → PARSING → CHUNKING → EMBEDDING → INDEXING → READY / SKIPPED / FAILED) with the same codes.
- A worker that dies (killed, out of memory, its node lost) fails the tasks it held with `RayActorError`: it
  is replaced and its documents are redone from their bytes, up to `MAX_ATTEMPTS` times (then FAILED
  INTERRUPTED); nothing of them was written. A driver that dies leaves its unfinished jobs to be marked
  INTERRUPTED by the next run, which skips every document already committed and does only the rest.

Ray 2.x: `address` None starts a local Ray for the run (and stops it after); "auto" or "ray://host:10001"
joins a running cluster, whose nodes need bunko installed. On this kind of sandbox Ray must run inside a
network namespace with only loopback (`unshare -n`, with `ip link set lo up`).
"""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bunko.chunk.registry import get_chunker
from bunko.config import Config
from bunko.embed.base import Embedder
from bunko.embed.registry import build_embedder
from bunko.errors import BunkoError, DocumentError
from bunko.ingest.pipeline import (
    Ingestor,
    IngestReport,
    Progress,
    accept_parsed,
    chunk_document,
    chunk_terms,
    embed_hash,
    entity_extractor,
    fill_vectors,
    parse_worker,
    reusable_vectors,
)
from bunko.ingest.sources import SourceFile, Unreadable
from bunko.llm.base import LLMError
from bunko.parse.registry import ParserRegistry
from bunko.schema import Chunk, ErrorCode, IngestJob, JobStatus, ParsedDocument
from bunko.store.base import StoredChunk
from bunko.text.analyzers import get_analyzer
from bunko.text.entities import Mention

MAX_ATTEMPTS = 3
"""Times a document is handed to a worker before a worker dying on it fails it (INTERRUPTED)."""
IN_FLIGHT_PER_WORKER = 2
"""Tasks queued on each actor: the next file's bytes are there when the current one is done."""
FAULT_ENV = "BUNKO_RAY_FAULT"
"""Fault injection for the tests only: "kill-worker:SOURCE" kills the worker (SIGKILL) as it starts on SOURCE, once
(BUNKO_RAY_FAULT_MARKER names the file that records it did); "kill-driver:N" kills the driver after N commits."""
FAULT_MARKER_ENV = "BUNKO_RAY_FAULT_MARKER"


def ray_module() -> Any:
    try:
        import ray
    except ImportError:
        raise BunkoError("the ray engine needs Ray: pip install 'bunko[ray]'") from None
    return ray


@dataclass
class Prepared:
    """A document parsed and chunked by a worker, with its chunks' embed hashes."""

    doc: ParsedDocument
    chunks: list[Chunk]
    hashes: list[str]
    terms: list[tuple[list[str], list[Mention]]]
    """Each chunk's keyword tokens and entity mentions (`chunk_terms`), found here so the writer only writes."""
    warnings: list[tuple[str, str]]
    timings: dict[str, float]


@dataclass
class Failed:
    code: str
    detail: str


class DocumentWorker:
    """One Ray actor's state: the embedder (loaded once), a parse process, the chunker. Wrapped by `ray.remote`."""

    def __init__(self, config_data: dict[str, Any], registry: ParserRegistry) -> None:
        self.config = Config.from_dict(config_data)
        self.chunker = get_chunker(self.config.chunk.strategy)
        self.analyzer = get_analyzer(self.config.retrieve.analyzer)
        self.extractor = entity_extractor(self.config)
        self.parser = parse_worker(registry, self.config)
        self.parser.start()
        self.folder = Path(tempfile.mkdtemp(prefix="bunko-ray-"))
        self._embedder: Embedder | None = None
        self._embedder_error: str | None = None
        try:
            self._embedder = build_embedder(self.config.embed)
            self._embedder.embed(["warm-up"])  # models that load on first use (use-m3: ~3 s) load here, once per actor
        except Exception as exc:
            self._embedder_error = f"{type(exc).__name__}: {exc}".splitlines()[0]

    def info(self) -> dict[str, Any]:
        """Who this worker is: its process, and the embedder it loaded (name and dimension), or why it could not."""
        embedder = self._embedder
        return {"pid": os.getpid(), "embedder": embedder.name if embedder else None,
                "dimension": embedder.dimension if embedder else None, "error": self._embedder_error}

    def _embedder_for(self, source: str) -> Embedder:
        if self._embedder is None:
            raise DocumentError(ErrorCode.EMBED_FAILED, f"{source}: {self._embedder_error}")
        return self._embedder

    def prepare(self, source: str, suffix: str, data: bytes, fields: dict[str, Any]) -> Prepared | Failed:
        """Parse and chunk one file; a failure is returned with the code the local pipeline gives it."""
        _fault_in_worker(source)
        path = self.folder / f"{uuid.uuid4().hex}{suffix}"
        stage = JobStatus.PARSING
        try:
            path.write_bytes(data)
            started = time.perf_counter()
            doc = self.parser.parse(path, source)
            timings = {"parse": self.parser.last.seconds}
            if self.parser.last.peak_rss_mb is not None:
                timings["parse_peak_rss_mb"] = self.parser.last.peak_rss_mb
            warnings: list[tuple[str, str]] = []
            accept_parsed(doc, source, fields, warnings)
            embedder = self._embedder_for(source)
            stage = JobStatus.CHUNKING
            started = time.perf_counter()
            chunks = chunk_document(doc, self.config, self.chunker, embedder)
            timings["chunk"] = round(time.perf_counter() - started, 4)
            started = time.perf_counter()
            try:
                terms = [chunk_terms(c, self.analyzer, self.extractor) for c in chunks]
            except LLMError as exc:
                raise DocumentError(ErrorCode.INDEX_FAILED, f"{source}: entity extraction failed: {exc}".splitlines()[0]) from exc
            timings["terms"] = round(time.perf_counter() - started, 4)
            hashes = [embed_hash(embedder.name, c.embed_text) for c in chunks]
            return Prepared(doc, chunks, hashes, terms, warnings, timings)
        except DocumentError as exc:
            return Failed(exc.code.value, exc.detail)
        except Exception as exc:
            code = ErrorCode.PARSE_FAILED if stage in (JobStatus.PARSING, JobStatus.CHUNKING) else ErrorCode.EMBED_FAILED
            return Failed(code.value, f"{source}: {type(exc).__name__}: {exc}".splitlines()[0])
        finally:
            path.unlink(missing_ok=True)

    def embed(self, source: str, texts: list[str]) -> np.ndarray | Failed:
        try:
            return self._embedder_for(source).embed(texts)
        except DocumentError as exc:
            return Failed(exc.code.value, exc.detail)
        except Exception as exc:
            return Failed(ErrorCode.EMBED_FAILED.value, f"{source}: {type(exc).__name__}: {exc}".splitlines()[0])

    def close(self) -> None:
        self.parser.close()
        shutil.rmtree(self.folder, ignore_errors=True)


def _fault_in_worker(source: str) -> None:
    fault = os.environ.get(FAULT_ENV, "")
    marker = os.environ.get(FAULT_MARKER_ENV)
    if fault == f"kill-worker:{source}" and marker and not Path(marker).exists():
        Path(marker).touch()
        os.kill(os.getpid(), signal.SIGKILL)


@dataclass
class _Task:
    index: int
    item: SourceFile
    digest: str
    job: IngestJob
    started: float
    attempts: int = 0
    worker: int = -1
    prepared: Prepared | None = None
    vectors: dict[str, np.ndarray] = field(default_factory=dict)
    missing: list[int] = field(default_factory=list)
    embed_started: float = 0.0


@dataclass
class _Pool:
    """The actors by slot, and what each holds: future → (task, "prepare" | "embed")."""

    handles: dict[int, Any] = field(default_factory=dict)
    flights: dict[Any, tuple[_Task, str]] = field(default_factory=dict)
    next_slot: int = 0

    def load(self, slot: int) -> int:
        return sum(1 for task, _ in self.flights.values() if task.worker == slot)


class RayIngestor(Ingestor):
    """`Ingestor` whose `run_files` runs parse → chunk → embed on Ray actors (see the module's docstring)."""

    def __init__(self, *args: Any, address: str | None = None, workers: int | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.address = address
        self.workers = workers
        self.worker_info: list[dict[str, Any]] = []
        """What each worker started reported (`DocumentWorker.info`): process id, embedder, dimension."""
        self.phases: dict[str, float] = {}
        """Seconds of the last run's phases: ray_start, workers_ready (their embedders loaded), process (first file
        sent to last commit), ray_stop; and write, the writer's own time (stored-vector lookups and commits)."""
        self._commits = 0

    def run_files(
        self, items: Sequence[SourceFile | Unreadable | Path], progress: Progress | None = None,
        fields: Mapping[str, Any] | None = None, run_id: str | None = None,
    ) -> IngestReport:
        report = IngestReport(run_id=run_id or uuid.uuid4().hex[:12])
        given = dict(fields or {})
        jobs: list[IngestJob | None] = [None] * len(items)
        todo: list[_Task] = []
        done = 0

        def finished(index: int, job: IngestJob, started: float) -> None:
            nonlocal done
            job.timings["total"] = round(time.perf_counter() - started, 4)
            self.store.save_job(job, report.run_id)
            jobs[index] = job
            done += 1
            if progress:
                progress(done, len(items), job)

        for index, item in enumerate(items):  # what the local engine does before parsing: checks, hash, skip
            started = time.perf_counter()
            now = time.time()
            source = item.source if isinstance(item, SourceFile | Unreadable) else str(item)
            job = IngestJob(job_id=uuid.uuid4().hex[:16], source=source, created_at=now, updated_at=now, fields=given or None)
            self._save(job, report.run_id, JobStatus.PENDING)
            try:
                if isinstance(item, Unreadable):
                    raise DocumentError(item.code, item.detail)
                if not isinstance(item, SourceFile):
                    raise DocumentError(ErrorCode.NOT_FOUND, f"{item}: no such file or directory")
                digest = self._digest(item, given)
                if self.store.document_hash(source) == digest:
                    self._save(job, report.run_id, JobStatus.SKIPPED)
                    finished(index, job, started)
                    continue
                todo.append(_Task(index, item, digest, job, started))
            except DocumentError as exc:
                self._fail(job, report.run_id, exc.code, exc.detail)
                finished(index, job, started)
            except Exception as exc:
                self._fail(job, report.run_id, ErrorCode.PARSE_FAILED, f"{source}: {type(exc).__name__}: {exc}".splitlines()[0])
                finished(index, job, started)

        if todo:
            self._distribute(todo, given, report, finished)
        report.jobs = [job for job in jobs if job is not None]
        return report

    # -- the distributed part -------------------------------------------------------------------------
    def _distribute(self, todo: list[_Task], fields: dict[str, Any], report: IngestReport, finished: Any) -> None:
        ray = ray_module()
        started_here = not ray.is_initialized()
        self.phases = {"write": 0.0}
        timer = time.perf_counter()
        try:
            if started_here:
                options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "logging_level": "ERROR"}
                if self.address:
                    ray.init(address=self.address, **options)
                else:
                    ray.init(num_cpus=os.cpu_count() or 1, **options)
        except Exception as exc:
            detail = f"Ray could not be started or reached ({self.address or 'local'}): {type(exc).__name__}: {exc}".splitlines()[0]
            for task in todo:
                self._fail(task.job, report.run_id, ErrorCode.INTERRUPTED, f"{task.item.source}: not started: {detail}")
                finished(task.index, task.job, task.started)
            raise BunkoError(detail) from None
        self.phases["ray_start"] = round(time.perf_counter() - timer, 3)
        try:
            self._run_pool(ray, todo, fields, report, finished)
        finally:
            timer = time.perf_counter()
            if started_here:
                ray.shutdown()
            self.phases["ray_stop"] = round(time.perf_counter() - timer, 3)

    def _pool_shape(self, ray: Any) -> tuple[int, float]:
        """(workers, CPUs per worker): by default one worker per CPU but one; never every CPU."""
        cpus = float(ray.cluster_resources().get("CPU", 1.0))
        spare = cpus - 1.0 if cpus >= 2 else cpus / 2
        workers = self.workers or max(1, int(spare))
        return workers, min(1.0, spare / workers)

    def _run_pool(self, ray: Any, todo: list[_Task], fields: dict[str, Any], report: IngestReport, finished: Any) -> None:
        from ray.exceptions import RayActorError, RayTaskError, WorkerCrashedError

        workers, cpus = self._pool_shape(ray)
        env = {k: v for k, v in os.environ.items() if k in (FAULT_ENV, FAULT_MARKER_ENV)}
        env["OMP_NUM_THREADS"] = str(self.config.embed.threads)
        actor_class = ray.remote(DocumentWorker).options(num_cpus=cpus, max_restarts=0, runtime_env={"env_vars": env})
        config_data = self.config.model_dump(exclude_none=True)
        registry_ref = ray.put(self.registry)
        pool = _Pool()
        queue = list(todo)

        def start_worker() -> None:
            pool.handles[pool.next_slot] = actor_class.remote(config_data, registry_ref)
            pool.next_slot += 1

        timer = time.perf_counter()
        for _ in range(min(workers, len(queue))):
            start_worker()
        self._record_workers(ray, list(pool.handles.values()))
        self.phases["workers_ready"] = round(time.perf_counter() - timer, 3)
        timer = time.perf_counter()

        def submit(task: _Task, slot: int) -> None:
            task.worker = slot
            if task.attempts == 0:
                task.started = time.perf_counter()  # a job's total is its own time, not its wait for Ray and its turn
            task.attempts += 1
            self._save(task.job, report.run_id, JobStatus.PARSING)
            data = task.item.path.read_bytes()
            future = pool.handles[slot].prepare.remote(task.item.source, task.item.path.suffix, data, fields)
            pool.flights[future] = (task, "prepare")

        def fail(task: _Task, code: ErrorCode | str, detail: str) -> None:
            self._fail(task.job, report.run_id, ErrorCode(code), detail)
            finished(task.index, task.job, task.started)

        while queue or pool.flights:
            for slot in list(pool.handles):
                while queue and pool.load(slot) < IN_FLIGHT_PER_WORKER:
                    task = queue.pop(0)
                    try:
                        submit(task, slot)
                    except OSError as exc:
                        fail(task, ErrorCode.NOT_FOUND, f"{task.item.source}: {exc.strerror or exc}")
            if not pool.flights:
                continue
            ready, _ = ray.wait(list(pool.flights), num_returns=1, timeout=5.0)
            for future in ready:
                task, kind = pool.flights.pop(future)
                try:
                    result = ray.get(future)
                except (RayActorError, WorkerCrashedError):
                    self._worker_died(ray, pool, task, queue, start_worker, fail)
                    continue
                except RayTaskError as exc:
                    code = ErrorCode.PARSE_FAILED if kind == "prepare" else ErrorCode.EMBED_FAILED
                    fail(task, code, f"{task.item.source}: {type(exc.cause).__name__}: {exc.cause}".splitlines()[0])
                    continue
                if isinstance(result, Failed):
                    fail(task, result.code, result.detail)
                elif kind == "prepare":
                    self._prepared(task, result, pool, report, fail, finished)
                else:
                    self._commit(task, result, report, fail, finished)
        self.phases["process"] = round(time.perf_counter() - timer, 3)
        for handle in pool.handles.values():
            ray.kill(handle)

    def _record_workers(self, ray: Any, handles: list[Any]) -> None:
        """Wait for the workers to load their embedder; record it for a new collection, as the local engine does."""
        self.worker_info = ray.get([handle.info.remote() for handle in handles])
        loaded = next((info for info in self.worker_info if info["embedder"]), None)
        if loaded and (self.store.get_meta("embedder") is None or self.store.chunk_count() == 0):
            self.store.set_meta("embedder", loaded["embedder"])
            self.store.set_meta("dimension", str(loaded["dimension"]))

    def _worker_died(self, ray: Any, pool: _Pool, task: _Task, queue: list[_Task], start_worker: Any, fail: Any) -> None:
        """A worker died: the documents it held go back to the queue (nothing of them was written) and a new worker
        takes its place. A document that has now seen MAX_ATTEMPTS workers die fails INTERRUPTED."""
        held = [task]
        if task.worker in pool.handles:
            del pool.handles[task.worker]
            for future, (other, _) in list(pool.flights.items()):
                if other.worker == task.worker:
                    del pool.flights[future]
                    held.append(other)
            start_worker()
        for lost in held:
            lost.prepared, lost.vectors, lost.missing = None, {}, []
            if lost.attempts >= MAX_ATTEMPTS:
                fail(lost, ErrorCode.INTERRUPTED,
                     f"{lost.item.source}: the Ray worker processing it died {lost.attempts} times; nothing of it was written")
            else:
                queue.insert(0, lost)

    def _prepared(self, task: _Task, prepared: Prepared, pool: _Pool, report: IngestReport, fail: Any, finished: Any) -> None:
        """Parsed and chunked: reuse the stored vectors of unchanged chunk texts, as the local engine does, and have
        the rest embedded (on the least busy worker)."""
        task.job.timings.update(prepared.timings)
        report.warnings.extend(prepared.warnings)
        self._save(task.job, report.run_id, JobStatus.CHUNKING)
        self._save(task.job, report.run_id, JobStatus.EMBEDDING)
        task.prepared = prepared
        task.embed_started = time.perf_counter()
        task.vectors, task.missing = reusable_vectors(prepared.chunks, prepared.hashes, self.store)
        self.phases["write"] += time.perf_counter() - task.embed_started
        if not task.missing:
            self._commit(task, None, report, fail, finished)
            return
        slot = task.worker if task.worker in pool.handles else min(pool.handles, key=pool.load)
        task.worker = slot
        future = pool.handles[slot].embed.remote(task.item.source, [prepared.chunks[i].embed_text for i in task.missing])
        pool.flights[future] = (task, "embed")

    def _commit(self, task: _Task, fresh: np.ndarray | None, report: IngestReport, fail: Any, finished: Any) -> None:
        """The single writer: one transaction for the document, then READY."""
        prepared = task.prepared
        assert prepared is not None
        dimension = int(self.store.get_meta("dimension") or (fresh.shape[1] if fresh is not None else 0))
        vectors = fill_vectors(task.vectors, prepared.chunks, prepared.hashes, task.missing, fresh, dimension)
        task.job.timings["embed"] = round(time.perf_counter() - task.embed_started, 4)
        timer = time.perf_counter()
        self._save(task.job, report.run_id, JobStatus.INDEXING)
        source = task.item.source
        stored = [StoredChunk(chunk, vectors[h], tokens, h, entities)
                  for chunk, h, (tokens, entities) in zip(prepared.chunks, prepared.hashes, prepared.terms, strict=True)]
        self._keep_figures(prepared.doc, report)
        try:
            self._write(prepared.doc, task.digest, stored)
        except Exception as exc:
            fail(task, ErrorCode.INDEX_FAILED, f"{source}: {type(exc).__name__}: {exc}".splitlines()[0])
            return
        task.job.timings["index"] = round(time.perf_counter() - timer, 4)
        self._save(task.job, report.run_id, JobStatus.READY)
        finished(task.index, task.job, task.started)
        self.phases["write"] += time.perf_counter() - timer
        self._commits += 1
        if os.environ.get(FAULT_ENV) == f"kill-driver:{self._commits}":
            os.kill(os.getpid(), signal.SIGKILL)
