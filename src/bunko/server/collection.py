"""One served collection: its `Bunko`, keys, ingest worker, and access-checked reads.

Concurrent searches during ingest are safe because the store itself never lets
a search see half of an index reload (see `LocalStore`, "search").
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bunko.engine import Bunko
from bunko.errors import FilterError
from bunko.generate.conversation import Turn
from bunko.index.filters import BUILTIN_FIELDS, validate_filter
from bunko.index.tree import DocumentTree
from bunko.retrieve.graph_lookup import GraphLookup
from bunko.retrieve.searcher import SearchResult
from bunko.schema import Answer, DocumentInfo
from bunko.server import acl
from bunko.server.auth import ANONYMOUS, KeyStore, Principal
from bunko.server.reembed import ReembedRunner
from bunko.server.uploads import INCOMING, UPLOADS, accepted_extensions
from bunko.server.worker import IngestWorker, UploadJob
from bunko.store.lock import WRITE_LOCK, WriterLock
from bunko.store.registry import is_postgres


@dataclass
class AskOutcome:
    answer: Answer
    timings: dict[str, float]
    withheld: bool = False
    """Streaming only: the final access check removed sentences already streamed; the client must drop them."""


class ServedCollection:
    def __init__(self, name: str, kb: Bunko, max_upload_mb: float | None = None) -> None:
        self.name = name
        self.kb = kb
        self.keys = KeyStore(kb.path)
        self.max_upload_bytes = int((max_upload_mb or kb.config.ingest.max_file_mb) * 1024 * 1024)
        self.allowed_extensions = accepted_extensions(kb.registry)
        self.uploads = kb.path / UPLOADS
        self.uploads_root = kb.path.resolve().parent
        """Uploads are named relative to the folder holding the collection (`kb/uploads/a.md`), whatever `[ingest]
        root` says: the same name on every server, and the name uploads had before roots could be declared."""
        self.incoming = self.uploads / INCOMING
        self.worker = IngestWorker(kb, self._may_replace)
        self.reembed = ReembedRunner(kb)
        self._docs_cache: tuple[int, dict[str, DocumentInfo]] = (-1, {})
        self._docs_lock = threading.Lock()
        self._fields_cache: tuple[int, dict[tuple[str, ...], frozenset[str]]] = (-1, {})

    # -- life ---------------------------------------------------------------
    @staticmethod
    def check_writable(kb: Bunko) -> None:
        """Refuse to serve a local collection another process is writing: say who, instead of hanging uploads."""
        if is_postgres(kb.config.store):
            return  # postgres serialises writers in the database
        with WriterLock(kb.path / WRITE_LOCK, timeout=0):
            pass

    def start(self) -> None:
        self.kb.embedder.embed(["warm up"])  # load the model now, not in the first user's request
        self.worker.start(self.incoming)

    def stop(self) -> None:
        self.reembed.stop()
        self.worker.stop()
        self.keys.close()

    @property
    def open_access(self) -> bool:
        """No keys at all: anyone reaching the server is admin (the CLI allows this on loopback only)."""
        return not self.keys.has_keys()

    def authenticate(self, key: str | None) -> Principal | None:
        if self.open_access:
            return ANONYMOUS
        return self.keys.verify(key) if key else None

    # -- visibility ---------------------------------------------------------
    def documents_by_id(self) -> dict[str, DocumentInfo]:
        """All documents, cached per store generation (a write anywhere bumps it)."""
        generation = self.kb.store.generation()
        with self._docs_lock:
            if self._docs_cache[0] != generation:
                self._docs_cache = (generation, {d.doc_id: d for d in self.kb.documents()})
            return self._docs_cache[1]

    def visible_documents(self, who: Principal) -> dict[str, DocumentInfo]:
        docs = self.documents_by_id()
        return docs if who.unrestricted else {i: d for i, d in docs.items() if who.can_see(acl.document_groups(d))}

    def document(self, who: Principal, doc_id: str) -> DocumentInfo | None:
        return self.visible_documents(who).get(doc_id)

    def _visible_source(self, who: Principal) -> Any:
        sources = {d.source for d in self.visible_documents(who).values()}
        return lambda source: source in sources

    def _may_replace(self, job: UploadJob) -> str | None:
        """An upload may replace a stored document only if its uploader can see that document."""
        stored = next((d for d in self.documents_by_id().values() if d.source == job.source), None)
        if stored is None:
            return None
        if Principal(job.owner, "editor", job.owner_groups).can_see(acl.document_groups(stored)):
            return None
        return f"{job.filename}: a document of this name exists that you may not access; rename the file"

    # -- deletes, in order with uploads ------------------------------------------
    def delete(self, who: Principal, doc_id: str) -> dict[str, Any] | None:
        """Remove a document and its file in ``uploads/``, after the upload of it in hand and instead of those queued.

        Queued uploads of the same name accepted before this call are cancelled (FAILED, CANCELLED), so the
        document does not come back; the file is removed while the worker holds off that name, so it is
        never a newer upload's. A document not stored yet but uploaded by the caller (by anyone, for an
        unrestricted key) is deleted the same way: the upload in hand is waited for, the queued ones are
        cancelled. None: the caller can see no such document.
        """
        doc = self.document(who, doc_id)
        if doc is not None:
            source = doc.source
        else:
            theirs = [j for j in self.worker.unfinished(doc_id) if who.unrestricted or j.owner == who.name]
            if not theirs:
                return None
            source = theirs[0].source
        with self.worker.holding(source) as before:
            if doc is None:  # the upload that was in hand may have stored it meanwhile
                doc = self.document(who, doc_id)
            cancelled = self.worker.cancel(
                source, before, "cancelled: the document was deleted after this upload was accepted",
                allowed=lambda job: doc is not None or who.unrestricted or job.owner == who.name,
            )
            removed = self.kb.delete(source) if doc is not None else False
            path = (self.uploads_root / source).resolve()
            if (removed or cancelled) and path.parent == self.uploads.resolve():
                with contextlib.suppress(OSError):
                    path.unlink()
        return {
            "doc_id": doc_id, "source": source, "removed": removed, "cancelled_jobs": [j.job_id for j in cancelled],
            "groups": acl.document_groups(doc) if doc is not None else (cancelled[0].groups if cancelled else None),
        }

    # -- index reads ------------------------------------------------------------
    def filter_fields(self, who: Principal) -> set[str]:
        """The filter fields `who` may name and be told about: the built-in ones and those of documents they can see
        (cached per store generation and access groups)."""
        known = self.kb.store.search().filter_fields()
        if who.unrestricted:
            return known
        generation, groups = self.kb.store.generation(), who.groups or ()
        with self._docs_lock:
            if self._fields_cache[0] != generation:
                self._fields_cache = (generation, {})
            cached = self._fields_cache[1].get(groups)
        if cached is None:
            theirs = {name for d in self.visible_documents(who).values() for name in (d.meta.get("fields") or {})}
            cached = frozenset(name for name in known if name in BUILTIN_FIELDS or name in theirs)
            with self._docs_lock:
                self._fields_cache[1][groups] = cached
        return set(cached)

    def _guarded(self, who: Principal, filters: Mapping[str, Any] | None) -> dict[str, Any] | None:
        """The caller's filter, validated against the fields they can see, ANDed with their access filter."""
        # the caller's own mistakes, reported with the path of the bad part and naming only fields of documents they may see
        validate_filter(filters, self.filter_fields(who))
        return acl.combine(filters, acl.access_filter(who, self.kb.store.search().filter_fields()))

    def check_filters(self, who: Principal, filters: Mapping[str, Any] | None) -> None:
        """Raise `FilterError` for a filter naming unknown fields or operators, or holding values no field can have."""
        self._guarded(who, filters)

    def _retrying(self, who: Principal, filters: Mapping[str, Any] | None, call: Callable[[dict[str, Any] | None], Any]) -> Any:
        where = self._guarded(who, filters)  # the caller's mistakes: a 400 naming only fields they may see
        try:
            return call(where)
        except FilterError:
            if who.unrestricted:
                raise
            # a field vanished between validation and search (the last document holding it was deleted): the
            # store's message would list every field, and this caller sees nothing through the filter anyway
            return call(acl.MATCH_NOTHING)

    def search(
        self, who: Principal, query: str, k: int | None, mode: str | None, filters: Mapping[str, Any] | None, group_by: str | None = None,
        language: str | None = None,
    ) -> SearchResult:
        result: SearchResult = self._retrying(
            who, filters, lambda where: self.kb.search_detailed(query, k=k, filters=where, mode=mode, group_by=group_by, language=language))
        visible = self.visible_documents(who)
        result.hits = acl.visible_hits(result.hits, lambda doc_id: doc_id in visible)
        return result

    def _outcome(self, who: Principal, answer: Answer) -> AskOutcome:
        self.keys.own_trace(answer.trace_id, who.name)
        answer = acl.redact_answer(answer, self._visible_source(who))
        return AskOutcome(answer=answer, timings=answer.trace.timings if answer.trace is not None else {})

    def ask(
        self, who: Principal, question: str, k: int | None, filters: Mapping[str, Any] | None, mode: str | None = None,
        history: Sequence[Turn] | None = None,
    ) -> AskOutcome:
        """`history`: the caller's conversation so far, which a follow-up question is made standalone from."""
        answer = self._retrying(who, filters, lambda where: self.kb.ask(question, filters=where, k=k, mode=mode, history=history))
        return self._outcome(who, answer)

    def ask_stream(
        self, who: Principal, question: str, k: int | None, filters: Mapping[str, Any] | None, mode: str | None = None,
        history: Sequence[Turn] | None = None,
    ) -> Iterator[str | AskOutcome]:
        """Text deltas as the engine checks each sentence, then the `AskOutcome`.

        Retrieval runs before the first delta, under the caller's access filter, so
        every streamed sentence comes from a visible chunk. If the final check would
        still remove a sentence, the outcome says so (`withheld`) and the client is
        told to discard the streamed text.
        """

        def start(where: dict[str, Any] | None) -> tuple[Iterator[str | Answer], str | Answer]:
            items = self.kb.ask_stream(question, filters=where, k=k, mode=mode, history=history)
            return items, next(items)

        items, first = self._retrying(who, filters, start)
        item: str | Answer = first
        while not isinstance(item, Answer):
            yield item
            item = next(items)
        streamed_sentences = len(item.sentences)
        outcome = self._outcome(who, item)
        outcome.withheld = len(outcome.answer.sentences) != streamed_sentences
        yield outcome

    def graph(self, who: Principal) -> GraphLookup:
        """The entity graph as `who` sees it: every passage, or (a restricted key) only those their access filter lets through."""
        graph = self.kb.store.search().entity_graph()
        where = acl.access_filter(who, self.kb.store.search().filter_fields())
        if where is None:
            return GraphLookup(graph)
        chunk_ids = graph.matrices.chunk_ids
        return GraphLookup(graph, self.kb.store.search().allowed_chunks(chunk_ids, where) if chunk_ids else set())

    def tree(self, who: Principal, doc_id: str) -> DocumentTree | None:
        """A document's section tree, only when `who` may see the document (None as for a document that does not exist)."""
        if self.document(who, doc_id) is None:
            return None
        return self.kb.trees.tree(doc_id)

    def trace(self, who: Principal, trace_id: str) -> dict[str, Any] | None:
        """A trace is its asker's (admins see all), and only while every document it names is visible to them."""
        if who.role != "admin" and self.keys.trace_owner(trace_id) != who.name:
            return None
        trace = self.kb.trace(trace_id)
        if trace is None:
            return None
        visible = self._visible_source(who)
        if not all(visible(source) for source in acl.trace_sources(trace)):
            return None
        return trace

    def status(self) -> dict[str, Any]:
        return {
            "name": self.name, "documents": len(self.documents_by_id()), "chunks": self.kb.store.chunk_count(),
            "queued": self.worker.queued, "embedder": self.kb.embedder_name,
        }

