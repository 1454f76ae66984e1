"""The ingest workflow: every file is a job that walks PARSING → … → READY or FAILED.

A job's status is saved before each stage, so `bunko jobs` tells the truth while a run is going and after it was
killed. The document itself becomes visible only in the final INDEXING transaction. A failure is confined to its file:
it is recorded with a code and a one-line reason, and the run goes on.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import stat
import time
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from bunko.chunk.base import Chunker, contextualize
from bunko.chunk.sizing import mark_truncated
from bunko.chunk.templates import resolve_chunker
from bunko.config import Config
from bunko.embed.base import Embedder
from bunko.errors import ConfigError, DocumentError
from bunko.ingest.copies import CopyFinder
from bunko.ingest.isolation import ParseWorker
from bunko.ingest.sources import SourceFile, SourceNames, Unreadable, classify, discover
from bunko.llm.base import LLMError, build_chat_model
from bunko.llm.entities import LLMEntityExtractor
from bunko.parse.figures import FIGURE_ID_KEY, compose_text
from bunko.parse.limits import ParseLimits
from bunko.parse.registry import ParserRegistry
from bunko.schema import (
    TERMINAL_STATUSES,
    Chunk,
    ElementKind,
    ErrorCode,
    IngestJob,
    JobProgress,
    JobStatus,
    ParsedDocument,
    doc_id_for,
)
from bunko.store.base import DocumentStore, Store, StoredChunk
from bunko.store.figure_files import FigureFiles
from bunko.text.analyzers import Analyzer
from bunko.text.entities import EntityExtractor, Mention, extract_entities
from bunko.text.languages import text_language

if TYPE_CHECKING:
    from bunko.llm.vision import FigureDescriber

Progress = Callable[[int, int, IngestJob], None]
"""(files done, files in the run, a job): called when a job enters a stage and as its stage advances (the job's
`progress` says which stage and how far: pages parsed, chunks embedded), with the files finished before it; and
once a job is finished, counting it."""

PROGRESS_SAVE_EVERY_S = 0.5
"""A job's row is rewritten with its progress at most this often (and at each stage's start and end): `bunko jobs`
and the server read it, and one write per page of a long PDF would cost more than the parse."""
EMBED_BATCH = 128
"""Chunks embedded per call, so that embedding a long document reports how far it is."""


class UnitVectors(Protocol):
    """Where a document's unit vectors go (the engine hands in `rerank.unit_vectors.UnitVectorFile`): the sentences and
    table rows the reranker and search judge a document by, embedded in the file's embedding stage while its chunk
    vectors are in hand, so none waits for a pass after the run (which the progress bar never saw) and a unit that is
    a chunk's whole embedded text is not embedded twice."""

    failure: str | None

    def embed_units(
        self, embedder: Embedder, chunks: Sequence[Chunk], known: Mapping[str, np.ndarray] | None = None,
        progress: Callable[[int, int], None] | None = None, batch: int = ...,
    ) -> np.ndarray: ...

    def keep_units(self, model: str, doc_id: str, version: float, units: np.ndarray) -> None: ...


_STAGE_ERRORS = {
    JobStatus.PENDING: ErrorCode.PARSE_FAILED,
    JobStatus.PARSING: ErrorCode.PARSE_FAILED,
    JobStatus.CHUNKING: ErrorCode.PARSE_FAILED,
    JobStatus.EMBEDDING: ErrorCode.EMBED_FAILED,
    JobStatus.INDEXING: ErrorCode.INDEX_FAILED,
}


def chunk_terms(chunk: Chunk, analyzer: Analyzer, extractor: EntityExtractor | None) -> tuple[list[str], list[Mention]]:
    """What search reads of a chunk besides its vector: keyword tokens of its embed text and the entities its cited
    text mentions (none without an extractor). A context-only chunk (a parent) is never searched, so it gets neither."""
    if not chunk.searchable:
        return [], []
    return analyzer(chunk.embed_text), extractor(chunk.text) if extractor else []


def stored_chunk(
    chunk: Chunk, vector: np.ndarray, embed_hash: str, analyzer: Analyzer, extractor: EntityExtractor | None
) -> StoredChunk:
    """A chunk as the store writes it: its vector and its `chunk_terms`."""
    tokens, entities = chunk_terms(chunk, analyzer, extractor)
    return StoredChunk(chunk, vector, tokens, embed_hash, entities)


def entity_extractor(config: Config) -> EntityExtractor | None:
    """`[ingest] entities`: the rules (default), the `[llm]` model, or none."""
    if config.ingest.entities == "none":
        return None
    if config.ingest.entities == "rules":
        return extract_entities
    model = build_chat_model(config)
    if model is None:
        raise ConfigError('[ingest] entities = "llm" needs a model: set [llm] base_url and model, or model_path')
    return LLMEntityExtractor(model)


class JobTally:
    """What a run's jobs add up to: the counts a report prints (ingest's and a source sync's)."""

    jobs: list[IngestJob]

    def count(self, status: JobStatus) -> int:
        return sum(1 for job in self.jobs if job.status == status)

    @property
    def failed(self) -> list[IngestJob]:
        return [job for job in self.jobs if job.status == JobStatus.FAILED]


@dataclass
class IngestReport(JobTally):
    run_id: str
    jobs: list[IngestJob] = field(default_factory=list)
    pruned: list[str] = field(default_factory=list)
    warnings: list[tuple[str, str]] = field(default_factory=list)
    """(source, warning) for documents indexed with a problem set aside, e.g. malformed front matter ignored."""

    @property
    def ok(self) -> bool:
        return not self.failed


def content_hash(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def embed_hash(embedder_name: str, text: str) -> str:
    return hashlib.sha1(f"{embedder_name}\0{text}".encode()).hexdigest()


def parse_worker(registry: ParserRegistry, config: Config) -> ParseWorker:
    """The parser process for `[ingest]`'s limits (`ingest/isolation.py`); its owner closes it."""
    return ParseWorker(registry, ParseLimits.from_config(config.ingest), isolate=config.ingest.isolate)


def accept_parsed(doc: ParsedDocument, source: str, fields: Mapping[str, Any], warnings: list[tuple[str, str]]) -> None:
    """A parsed document made ready to chunk: its id from its name, the caller's fields over its own, the parser's
    warnings (malformed front matter set aside…) added to `warnings`; EMPTY when it holds no text."""
    doc.doc_id = doc_id_for(source)
    warnings.extend((source, str(warning)) for warning in doc.meta.get("warnings", []))
    if fields:
        doc.meta["fields"] = {**doc.meta.get("fields", {}), **fields}
    if not any(e.text.strip() for e in doc.elements):
        raise DocumentError(ErrorCode.EMPTY, f"{source}: no text found")


def chunk_document(doc: ParsedDocument, config: Config, default: Chunker, embedder: Embedder) -> list[Chunk]:
    """A parsed document's chunks as ingest stores them: the strategy its kind and `[chunk]` rules pick (recorded in
    ``doc.meta["chunk_strategy"]``), the context prefix, the figures each holds named, and chunks past the
    embedder's input limit marked."""
    chunker = resolve_chunker(doc, config.chunk, default)
    chunks = contextualize(chunker.chunk(doc, config.chunk, embedder=embedder), doc.title, config.chunk.context)
    if not chunks:
        raise DocumentError(ErrorCode.EMPTY, f"{doc.source}: no text to index after chunking")
    mark_figures(doc, chunks)
    truncated = mark_truncated(chunks, embedder, doc.source)
    if truncated:
        doc.meta["truncated_chunks"] = truncated
    return chunks


def reusable_vectors(chunks: Sequence[Chunk], hashes: Sequence[str], store: DocumentStore) -> tuple[dict[str, np.ndarray], list[int]]:
    """The stored vectors of chunks whose embedded text is unchanged, and the positions of the searched chunks left
    to embed. A blank vector (stored for a parent) is never reused for a chunk that is searched."""
    searched = [c.searchable for c in chunks]
    cached = store.cached_vectors([h for h, s in zip(hashes, searched, strict=True) if s])
    vectors = {h: v for h, v in cached.items() if v.any()}
    return vectors, [i for i, h in enumerate(hashes) if searched[i] and h not in vectors]


def embed_texts(embedder: Embedder, texts: list[str], source: str) -> np.ndarray:
    try:
        return embedder.embed(texts)
    except Exception as exc:
        raise DocumentError(ErrorCode.EMBED_FAILED, f"{source}: {type(exc).__name__}: {exc}".splitlines()[0]) from exc


def fill_vectors(
    vectors: dict[str, np.ndarray], chunks: Sequence[Chunk], hashes: Sequence[str], missing: Sequence[int],
    fresh: np.ndarray | None, dimension: int,
) -> dict[str, np.ndarray]:
    """`vectors` completed: the fresh rows for the `missing` chunks, a blank vector for each context-only chunk
    (parent_child's parents are never embedded)."""
    for row, i in enumerate(missing):
        assert fresh is not None
        vectors[hashes[i]] = fresh[row]
    if not all(c.searchable for c in chunks):
        blank = np.zeros(dimension, dtype=np.float32)
        for chunk, h in zip(chunks, hashes, strict=True):
            if not chunk.searchable:
                vectors.setdefault(h, blank)
    return vectors


class Ingestor:
    def __init__(
        self, store: Store, registry: ParserRegistry, chunker: Chunker, embedder: Callable[[], Embedder],
        analyzer: Analyzer, config: Config, root: Path, extractor: EntityExtractor | None = extract_entities,
        parser: ParseWorker | None = None, figures: FigureFiles | None = None, describer: FigureDescriber | None = None,
        units: UnitVectors | None = None, passages: Callable[[], Embedder | None] | None = None,
    ) -> None:
        """`extractor` finds each chunk's entities for the graph route (`entity_extractor(config)`); None finds none.
        `units` embeds and keeps each document's unit vectors after its chunks (`[rerank] unit_vectors = "ingest"`),
        and with `passages` (`[answer] query_passage`: e5, loaded at the first document with units) for e5 too.
        `parser` parses under the `[ingest]` limits (the engine keeps one across runs); None: one for this run only.
        `figures` keeps figure thumbnails; `describer` (`[figures] describe`) writes a description into each's text."""
        self.extractor = extractor
        self.figures = figures
        self.describer = describer
        self.units = units
        self.passages = passages
        self.units_failure: str | None = None
        """Why unit vectors could not be embedded (the first failure; later files skip them): a warning of the run, the
        documents indexed all the same (asks embed their units)."""
        self.store = store
        self.registry = registry
        self.parser = parser
        self.chunker = chunker
        self._embedder_factory = embedder
        self.analyzer = analyzer
        self.config = config
        self.root = root
        self.names = SourceNames.load(store, root)
        """How files are named as documents (`ingest/sources.py`), with the anchors earlier runs recorded."""
        self._hashed: tuple[tuple[str, int, int], str] | None = None
        self._prefetched: tuple[str, str] | None = None
        self._progress: Progress | None = None
        self._position = (0, 0)
        """(files finished before the one in hand, files in the run): what `_progress` is told beside the job."""
        self._saved_at = 0.0
        self.copies = CopyFinder(store)
        """The stored documents' fingerprints: which one a new document copies (`ingest/copies.py`)."""

    def run(
        self, paths: Iterable[Path], prune: bool = False, progress: Progress | None = None, fields: Mapping[str, Any] | None = None,
        root: Path | None = None, within: Path | None = None,
    ) -> IngestReport:
        """`fields` are caller-given metadata (e.g. the server's access `groups`) stored in every document's
        ``meta["fields"]``, where filters see them; they override the file's own front-matter fields. Files are named
        by `SourceNames`: relative to `root` when given, else to the collection's root or the folder given from
        outside it; `within`: the paths were found in this folder (a watched one) and are named as its files."""
        paths = list(paths)
        anchor = self.names.anchor(within) if within is not None else None
        anchored = [(p, anchor or self.names.anchor(p, root)) for p in paths]  # a clash is refused before any job
        self.names.save(self.store)
        items = list(discover(
            anchored, self.config.ingest.include, self.config.ingest.exclude,
            follow_links=self.config.ingest.follow_links, within_folder=within,
        ))
        report = self.run_files(items, progress=progress, fields=fields)
        if prune:
            seen = {item.source for item in items if isinstance(item, SourceFile)}
            report.pruned = self._prune([(p, a) for p, a in anchored if p.is_dir()], seen)
        return report

    def run_files(
        self, items: Sequence[SourceFile | Unreadable | Path], progress: Progress | None = None,
        fields: Mapping[str, Any] | None = None, run_id: str | None = None,
    ) -> IngestReport:
        """Ingest files already named: each `SourceFile.source` is the document's name, whatever its local path.
        How sources other than a folder come in (`ingest/sync.py` fetches an item to a file, then hands it here);
        jobs are saved under `run_id`, a new run by default."""
        report = IngestReport(run_id=run_id or uuid.uuid4().hex[:12])
        self._run_items(report, [(item, dict(fields or {})) for item in items], progress)
        return report

    def retry(self, failed: Sequence[IngestJob], progress: Progress | None = None) -> IngestReport:
        """Each failed job's file ingested again as one new run, with the fields it was first ingested with; a file
        that is gone fails again as NOT_FOUND under its source name (a failed upload's file is not kept)."""
        report = IngestReport(run_id=uuid.uuid4().hex[:12])
        items: list[tuple[SourceFile | Unreadable | Path, dict[str, Any]]] = []
        for old in failed:
            path = self._path_of(old.source)
            gone = f"{old.source}: the file is gone ({path}); ingest or upload it again"
            boundary = self.names.folder_of(old.source) if self.config.ingest.follow_links == "inside" else None
            found = classify(path, boundary or path.parent, boundary) if path.is_file() else None
            item: SourceFile | Unreadable = (
                Unreadable(path, old.source, ErrorCode.NOT_FOUND, gone) if found is None
                else SourceFile(path, old.source) if isinstance(found, SourceFile)
                else Unreadable(path, old.source, found.code, found.detail)
            )
            items.append((item, dict(old.fields or {})))
        self._run_items(report, items, progress)
        return report

    def _run_items(
        self, report: IngestReport, items: Sequence[tuple[SourceFile | Unreadable | Path, dict[str, Any]]], progress: Progress | None,
    ) -> None:
        """Each item as one job of `report`'s run, with its fields, the next file parsed while this one is embedded."""
        owned = self.parser is None
        worker = self.parser = self.parser or parse_worker(self.registry, self.config)
        if any(isinstance(item, SourceFile) for item, _ in items):
            worker.start()  # the child imports the parsers while the first file is hashed
        self._progress = progress
        try:
            for done, (item, fields) in enumerate(items, start=1):
                upcoming = items[done][0] if done < len(items) else None
                self._position = (done - 1, len(items))
                job = self._process(item, report.run_id, fields, report, upcoming)
                report.jobs.append(job)
                if progress:
                    progress(done, len(items), job)
        finally:
            self._progress = None
            if owned:
                worker.close()
                self.parser = None
            elif worker.pending is not None:  # stopped between a prefetch and its turn
                worker.close()

    def _prune(self, folders: list[tuple[Path, Path]], seen: set[str]) -> list[str]:
        prefixes = [self.names.name(folder, anchor).rstrip("/") + "/" for folder, anchor in folders]
        pruned = []
        for doc in self.store.documents():
            under = any(doc.source.startswith(p) or p == "./" for p in prefixes)
            if under and doc.source not in seen and not self._path_of(doc.source).exists():
                self.store.delete_document(doc.source)
                self.copies.forget(doc.doc_id)
                pruned.append(doc.source)
        return pruned

    def _path_of(self, source: str) -> Path:
        return self.names.path_of(source)

    def _forget_legacy(self, item: SourceFile) -> None:
        """A collection written before names were relative stored this file under its absolute path: the document
        now stored (or found unchanged) under its relative name replaces that one instead of standing beside it."""
        legacy = item.path.resolve().as_posix()
        if legacy != item.source and self.store.document_hash(legacy) is not None:
            self.store.delete_document(legacy)
            self.copies.forget(doc_id_for(legacy))

    def _save(self, job: IngestJob, run_id: str, status: JobStatus) -> None:
        """Enter a stage (or finish): the row says so at once, and the caller's progress hears it."""
        job.status = status
        job.progress = None if status in TERMINAL_STATUSES or status == JobStatus.PENDING else JobProgress(status.lower())
        job.updated_at = self._saved_at = time.time()
        self.store.save_job(job, run_id)
        if self._progress is not None and job.progress is not None:
            self._progress(*self._position, job)

    def _advance(self, job: IngestJob, run_id: str, done: int, total: int | None, unit: str) -> None:
        """The stage in hand got further: told to the caller each time, written to the row now and then."""
        first = job.progress is None or job.progress.unit != unit  # the stage's first count (of chunks, of units): news
        job.progress = JobProgress(str(job.status).lower(), done, total, unit)
        now = time.time()
        if first or done == total or now - self._saved_at >= PROGRESS_SAVE_EVERY_S:
            job.updated_at = self._saved_at = now
            self.store.save_job(job, run_id)
        if self._progress is not None:
            self._progress(*self._position, job)

    def _process(
        self, item: SourceFile | Unreadable | Path, run_id: str, fields: dict[str, Any], report: IngestReport,
        upcoming: SourceFile | Unreadable | Path | None = None,
    ) -> IngestJob:
        now = time.time()
        source = item.source if isinstance(item, SourceFile | Unreadable) else str(item)
        job = IngestJob(job_id=uuid.uuid4().hex[:16], source=source, created_at=now, updated_at=now, fields=fields or None)
        self._save(job, run_id, JobStatus.PENDING)
        started = time.perf_counter()
        try:
            if isinstance(item, Unreadable):
                raise DocumentError(item.code, item.detail)
            if not isinstance(item, SourceFile):
                raise DocumentError(ErrorCode.NOT_FOUND, f"{item}: no such file or directory")
            self._ingest_file(item, job, run_id, fields, report, upcoming)
            self._forget_legacy(item)
        except DocumentError as exc:
            self._fail(job, run_id, exc.code, exc.detail)
        except Exception as exc:
            code = _STAGE_ERRORS.get(JobStatus(job.status), ErrorCode.PARSE_FAILED)
            self._fail(job, run_id, code, f"{source}: {type(exc).__name__}: {exc}".splitlines()[0])
        job.timings["total"] = round(time.perf_counter() - started, 4)
        self.store.save_job(job, run_id)
        return job

    def _load_embedder(self, source: str) -> Embedder:
        try:
            return self._embedder_factory()
        except Exception as exc:
            raise DocumentError(ErrorCode.EMBED_FAILED, f"{source}: {type(exc).__name__}: {exc}".splitlines()[0]) from exc

    def _fail(self, job: IngestJob, run_id: str, code: ErrorCode, detail: str) -> None:
        job.error_code = code.value
        job.error_detail = detail
        self._save(job, run_id, JobStatus.FAILED)

    def _digest(self, item: SourceFile, fields: dict[str, Any]) -> str:
        """The file's content hash (with the caller's fields), after the checks that need no parser."""
        path, source = item.path, item.source
        status = path.stat()
        if not stat.S_ISREG(status.st_mode):  # replaced since it was found: a pipe would block the hash below
            raise DocumentError(ErrorCode.NOT_A_FILE, f"{source}: no longer a regular file; it is not read")
        size = status.st_size
        limit = self.config.ingest.max_file_mb * 1024 * 1024
        if size > limit:
            raise DocumentError(ErrorCode.TOO_LARGE, f"{source}: {size / 1048576:.1f} MB is over the {self.config.ingest.max_file_mb:g} MB limit (ingest.max_file_mb)")
        if size == 0:
            raise DocumentError(ErrorCode.EMPTY, f"{source}: the file is empty")
        key = (source, status.st_mtime_ns, size)
        if self._hashed is None or self._hashed[0] != key:
            self._hashed = (key, content_hash(path))  # hashed once when the file was prefetched, reused at its turn
        digest = self._hashed[1]
        if fields:  # same bytes with other fields (say, new access groups) must be re-indexed, not skipped
            digest = hashlib.sha256(f"{digest}\0{json.dumps(fields, sort_keys=True, default=str)}".encode()).hexdigest()
        return digest

    def _prefetch(self, item: SourceFile | Unreadable | Path | None, fields: dict[str, Any]) -> None:
        """Hand the next file to the parser before this one is chunked, embedded and stored (they then overlap)."""
        assert self.parser is not None
        if not isinstance(item, SourceFile) or self.parser.pending is not None:
            return
        try:
            digest = self._digest(item, fields)
        except (DocumentError, OSError):
            return  # its own turn reports it
        if self.store.document_hash(item.source) != digest:
            self.parser.submit(item.path, item.source)
            self._prefetched = (item.source, digest)

    def _ingest_file(
        self, item: SourceFile, job: IngestJob, run_id: str, fields: dict[str, Any], report: IngestReport,
        upcoming: SourceFile | Unreadable | Path | None = None,
    ) -> None:
        path, source = item.path, item.source
        parser = self.parser
        assert parser is not None
        digest = self._digest(item, fields)
        if self.store.document_hash(source) == digest:
            if parser.pending == source:  # prefetched, then stored by a link to the same file just before
                with contextlib.suppress(DocumentError):
                    parser.result(source)
            self._save(job, run_id, JobStatus.SKIPPED)
            return

        self._save(job, run_id, JobStatus.PARSING)
        if parser.pending != source or self._prefetched != (source, digest):  # none, or of bytes changed since
            parser.submit(path, source)
        self._prefetched = None
        try:  # loaded while the parser works (chunkers may measure with it: semantic, token sizes, input limit)
            embedder: Embedder | None = self._load_embedder(source)
            embedder_error = None
        except DocumentError as exc:
            embedder, embedder_error = None, exc
        try:
            doc = parser.result(source, lambda done, total, unit: self._advance(job, run_id, done, total, unit))
        finally:
            job.timings["parse"] = parser.last.seconds
            if parser.last.peak_rss_mb is not None:
                job.timings["parse_peak_rss_mb"] = parser.last.peak_rss_mb
        accept_parsed(doc, source, fields, report.warnings)
        if embedder_error is not None:
            raise embedder_error
        assert embedder is not None
        self._prefetch(upcoming, fields)
        if self.describer is not None and doc.images:
            timer = time.perf_counter()
            self._describe_figures(doc, report)
            job.timings["describe_figures"] = round(time.perf_counter() - timer, 4)

        self._save(job, run_id, JobStatus.CHUNKING)
        timer = time.perf_counter()
        chunks = chunk_document(doc, self.config, self.chunker, embedder)
        job.timings["chunk"] = round(time.perf_counter() - timer, 4)

        timer = time.perf_counter()
        self._save(job, run_id, JobStatus.EMBEDDING)
        hashes = [embed_hash(embedder.name, c.embed_text) for c in chunks]
        vectors, missing = reusable_vectors(chunks, hashes, self.store)
        missing.sort(key=lambda i: len(chunks[i].embed_text))  # batches of like lengths: less padding for the model
        wanted = sum(c.searchable for c in chunks)
        self._advance(job, run_id, wanted - len(missing), wanted, "chunks")  # those cached are done already
        fresh = np.zeros((len(missing), embedder.dimension), dtype=np.float32)
        for start in range(0, len(missing), EMBED_BATCH):
            batch = missing[start:start + EMBED_BATCH]
            fresh[start:start + len(batch)] = embed_texts(embedder, [chunks[i].embed_text for i in batch], source)
            self._advance(job, run_id, wanted - len(missing) + start + len(batch), wanted, "chunks")
        fill_vectors(vectors, chunks, hashes, missing, fresh, embedder.dimension)
        job.timings["embed"] = round(time.perf_counter() - timer, 4)
        timer = time.perf_counter()
        if units := self._embed_units(job, run_id, embedder, chunks, hashes, vectors):
            job.timings["embed_units"] = round(time.perf_counter() - timer, 4)

        timer = time.perf_counter()
        self._save(job, run_id, JobStatus.INDEXING)
        try:
            stored = [stored_chunk(c, vectors[h], h, self.analyzer, self.extractor) for c, h in zip(chunks, hashes, strict=True)]
        except LLMError as exc:
            raise DocumentError(ErrorCode.INDEX_FAILED, f"{source}: entity extraction failed: {exc}".splitlines()[0]) from exc
        self._keep_figures(doc, report)
        try:
            self._write(doc, digest, stored)
        except Exception as exc:
            raise DocumentError(ErrorCode.INDEX_FAILED, f"{source}: {type(exc).__name__}: {exc}".splitlines()[0]) from exc
        if units and self.units is not None:
            version = self.store.document_versions([doc.doc_id]).get(doc.doc_id)
            if version is not None:
                for model, matrix in units.items():
                    self.units.keep_units(model, doc.doc_id, version, matrix)
        job.timings["index"] = round(time.perf_counter() - timer, 4)
        self._save(job, run_id, JobStatus.READY)

    def _write(self, doc: ParsedDocument, digest: str, stored: Sequence[StoredChunk]) -> None:
        """One document's transaction, with the copy it is of recorded first and, when it becomes its group's
        original, the group linked to it after (`ingest/copies.py`)."""
        links = self.copies.link(doc, time.time())
        self.store.replace_document(doc, digest, stored)
        self.store.link_copies(links)

    def _embed_units(
        self, job: IngestJob, run_id: str, embedder: Embedder, chunks: Sequence[Chunk], hashes: Sequence[str],
        vectors: Mapping[str, np.ndarray],
    ) -> dict[str, np.ndarray]:
        """The document's unit matrix by model name: the collection's (units not stored yet, told as "embedding n/m
        units"), then `passages`' ("n/m e5 units"); none without `units` or once they failed in this run."""
        if self.units is None or self.units_failure is not None:
            return {}
        known = {c.embed_text: vectors[h] for c, h in zip(chunks, hashes, strict=True) if c.searchable}
        matrices: dict[str, np.ndarray] = {}
        try:
            for model, stored, told in ((embedder, known, "units"), (self.passages and self.passages(), None, "e5 units")):
                if model:  # e5 only with `passages`, loaded here so that a failure to load it is a unit failure
                    matrices[model.name] = self.units.embed_units(
                        model, chunks, stored, partial(self._advance, job, run_id, unit=told), batch=EMBED_BATCH)
        except Exception as exc:  # whatever the embedder raises: the document is indexed without (a cache never fails it)
            self.units_failure = f"unit vectors not embedded: {type(exc).__name__}: {exc}".splitlines()[0]
            return {}
        return matrices

    def _keep_figures(self, doc: ParsedDocument, report: IngestReport) -> None:
        """Thumbnails first: a crash before the commit leaves the old content hash stored, so the next ingest parses
        the file again and writes both; after it, a document whose figures were never written would be skipped."""
        if self.figures is None:
            return
        try:
            self.figures.write(doc.doc_id, doc.images)
        except (OSError, ValueError) as exc:  # the text is still indexed; the pictures are what is missing
            report.warnings.append((doc.source, f"figure thumbnails not kept: {type(exc).__name__}: {exc}".splitlines()[0]))

    def _describe_figures(self, doc: ParsedDocument, report: IngestReport) -> None:
        """Ask the vision model about each figure; one that fails keeps its caption and OCR text (a warning says so)."""
        assert self.describer is not None
        # the document's language (stored meta is labelled later, at write): descriptions are asked for in it
        lang = text_language(" ".join(e.text for e in doc.elements[:200] if e.text)[:4000])
        for element in doc.elements:
            figure_id = element.meta.get(FIGURE_ID_KEY) if element.kind == ElementKind.FIGURE else None
            image = doc.images.get(str(figure_id)) if figure_id else None
            if image is None:
                continue
            try:
                description = self.describer.describe(image, str(element.meta.get("caption") or ""), lang)
            except LLMError as exc:
                report.warnings.append((doc.source, f"figure {figure_id} not described: {exc}".splitlines()[0]))
                continue
            if description:
                element.meta["description"] = description
                element.meta["described_by"] = self.describer.name
                element.text = compose_text(element.meta)


def mark_figures(doc: ParsedDocument, chunks: Sequence[Chunk]) -> None:
    """Each chunk that holds a figure names it in ``meta["figures"]``, so a citation of it can show the picture."""
    figure_of = {e.element_id: str(e.meta[FIGURE_ID_KEY]) for e in doc.elements if e.kind == ElementKind.FIGURE and FIGURE_ID_KEY in e.meta}
    if not figure_of:
        return
    for chunk in chunks:
        held = [figure_of[e] for e in chunk.element_ids if e in figure_of]
        if held:
            chunk.meta["figures"] = held
