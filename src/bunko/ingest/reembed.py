"""Changing a collection's embedding model without taking it offline: plan, stage, switch (`Reembedder`).

The new vectors are staged beside the live ones a batch at a time (`ingest/maintenance.stage`), while searches keep
the old model; the switch is one store transaction, after which bunko.toml is rewritten and every open collection
follows (`ingest/active_embedder.py`). A crash before the switch leaves the old model in force, after it the new one,
and a re-embed run again with the same model (or none) resumes from the batches already committed.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from bunko.config import EmbedConfig
from bunko.embed.base import Embedder
from bunko.errors import BunkoError, CollectionError
from bunko.ingest.active_embedder import EMBED_CONFIG_META, PENDING_CONFIG_META, ActiveEmbedder
from bunko.ingest.reembed_batch import REEMBED_BATCH
from bunko.store.base import STAGING_META, Store
from bunko.store.lock import WriterLock

if TYPE_CHECKING:
    from bunko.ingest.maintenance import ReembedPlan, ReembedProgress, ReembedReport
    from bunko.ingest.pipeline import UnitVectors

REEMBED_LOCK = "reembed.lock"
"""The lock file in the collection folder a re-embed holds while it runs: one re-embed of a collection at a time."""


class ReembedUnits(Protocol):
    """The collection's unit vectors as a re-embed keeps them (`rerank.collection_units.CollectionUnits`): staged with
    each batch of chunks when ingest embeds them, and each document's matrix built for the new model after the switch."""

    @property
    def at_ingest(self) -> bool: ...

    @property
    def file(self) -> UnitVectors: ...

    def build_missing(self, sources: Sequence[str]) -> str | None: ...


class Reembedder:
    """Re-embeds one collection: `run` (plan, stage, switch), `status`, `abort`, `stop`.

    `models` is the collection's embedder in force, which the switch hands the new embedder to; `lock` the collection's
    writer lock, held from the last staging pass to the switch so no ingest writes in between.
    """

    def __init__(
        self, store: Store, path: Path, models: ActiveEmbedder, lock: AbstractContextManager[object], units: ReembedUnits,
    ) -> None:
        self.store = store
        self.path = path
        self.models = models
        self._lock = lock
        self._units = units
        self._stop = threading.Event()
        """Set to stop the re-embed this object runs at its next batch (`stop`, `abort`)."""
        self._discard = False

    def run(
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

        with self._guard():
            plan_text = self.store.get_meta(STAGING_META) or None
            plan = ReembedPlan.loads(plan_text) if plan_text else None
            recorded = self.store.get_meta("embedder")
            target, embed = self._target(model, embedder, plan, recorded)
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
            self.models.staging = (target, embed)
            self._stop.clear()
            self._discard = False
            try:
                units = self._units.file if self._units.at_ingest else None
                embedded = maintenance.stage(self.store, target, progress, batch=batch, stop=self._stop, units=units)
                with self._lock:  # no ingest of this collection from here to the switch (postgres: the swap locks writers out)
                    embedded += maintenance.stage(self.store, target, progress, batch=batch, stop=self._stop, units=units)
                    meta = {"embedder": target.name, "dimension": str(target.dimension)}
                    if embed is not None:
                        meta[EMBED_CONFIG_META] = meta[PENDING_CONFIG_META] = embed.model_dump_json(exclude_none=True)
                    count = self.store.swap_staged(plan_text, meta, lambda todo: maintenance.embed_chunks(target, todo))
                    self.models.switch_to(target, embed)
                    self.store.expect_embedder(target.name)
                    if embed is not None:
                        self.models.write_config(embed)
                        self.store.set_meta(PENDING_CONFIG_META, "")
            except ReembedStopped:
                still = plan.replaces or "the old model"
                if not self._discard:
                    done, total = self.store.staging_counts()
                    raise ReembedStopped(
                        f"{self.path}: the re-embed to {target.name} stopped at {done}/{total} chunks; {still} stays in force "
                        "until it is run again"
                    ) from None
                self.store.discard_staged()
                raise ReembedStopped(f"{self.path}: the re-embed to {target.name} was aborted; {still} stays in force") from None
            finally:
                self.models.staging = None
            if progress:
                progress(count, count)
            # the documents' unit matrices for the new model, from the units staged with their chunks (those of chunks the
            # switch itself embedded are embedded here); a failure leaves questions embedding them as they come
            self._units.build_missing([document.source for document in self.store.documents()])
            return ReembedReport(target.name, plan.replaces, count, embedded, round(time.perf_counter() - started, 3))

    def status(self) -> dict[str, Any] | None:
        """The re-embed in progress (staged, running or interrupted), or None: its model, chunks embedded of all."""
        from bunko.ingest.maintenance import ReembedPlan

        text = self.store.get_meta(STAGING_META)
        if not text:
            return None
        plan = ReembedPlan.loads(text)
        done, total = self.store.staging_counts()
        return {
            "embedder": plan.embedder, "dimension": plan.dimension, "replaces": plan.replaces, "model": plan.embed.get("model"),
            "chunks_embedded": done, "chunks": total, "started_at": plan.started_at, "running": self.running(),
        }

    def abort(self) -> str:
        """Discard the re-embed in progress (its staged vectors); the old model was in force all along. A re-embed
        running in this process stops at its next batch and discards them itself; one running in another process
        must be stopped there first. Returns the embedder it was re-embedding with."""
        from bunko.ingest.maintenance import ReembedPlan

        staging = self.models.staging
        if staging is not None:
            self._discard = True
            self._stop.set()
            return staging[0].name
        with self._guard():
            text = self.store.get_meta(STAGING_META)
            if not text:
                raise BunkoError(f"{self.path}: no re-embed in progress")
            self.store.discard_staged()
            return ReembedPlan.loads(text).embedder

    def stop(self) -> bool:
        """Stop a re-embed this object runs at its next batch, keeping what it staged (a server shutting down):
        the next `run` resumes it. False when none runs here."""
        if self.models.staging is None:
            return False
        self._stop.set()
        return True

    def running(self) -> bool:
        """Whether a re-embed of this collection runs, in this process or another (which holds the lock file)."""
        if self.models.staging is not None:
            return True
        if not (self.path / REEMBED_LOCK).exists():
            return False
        try:
            with WriterLock(self.path / REEMBED_LOCK, timeout=0):
                return False
        except CollectionError:
            return True

    def _target(
        self, model: str | EmbedConfig | None, embedder: Embedder | None, plan: ReembedPlan | None, recorded: str | None,
    ) -> tuple[Embedder, EmbedConfig | None]:
        """The embedder to switch to and, when it is built from config, the [embed] section that builds it."""
        config = self.models.config
        embed: EmbedConfig | None = None
        if isinstance(model, str):
            embed = config.embed.model_copy(update={"model": model})
        elif model is not None:
            embed = model.model_copy()
        if embedder is not None:
            return embedder, embed
        if embed is not None:
            return self.models.build(embed), embed
        if plan is not None:
            if not plan.embed:
                raise BunkoError(
                    f"{self.path}: the re-embed to {plan.embedder} in progress was started with an embedder handed in by "
                    "its caller; hand it in again to continue, or abort it"
                )
            embed = EmbedConfig.model_validate(plan.embed)
            return self.models.build(embed), embed
        if recorded is not None and recorded != self.models.name:  # bunko.toml (or the caller) names another embedder already
            return self.models.embedder, None if self.models.injected else config.embed.model_copy()
        raise BunkoError(
            f"{self.path}: the collection is embedded with {recorded or self.models.name} already; name another model "
            "(`bunko reembed --model NAME`)"
        )

    @contextmanager
    def _guard(self) -> Iterator[None]:
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
