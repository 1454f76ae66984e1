"""The embedder in force for one open collection: built from [embed] on first use, checked against the one the store
recorded, and followed when a re-embed (here or in another process) switches the collection to another.

Every stage that embeds (a search's query, an ingest's chunks, a re-embed's target) asks this object, so a switch is
seen once, in one place: the store's recorded embedder is the truth, bunko.toml follows it (a switch killed between
the two is finished at the next open), and a search that met a switch while it ran runs again on the new model.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from bunko.config import CONFIG_FILE, Config, EmbedConfig
from bunko.embed.base import Embedder
from bunko.embed.registry import build_embedder, embedder_name
from bunko.errors import CollectionError
from bunko.store.base import Store

EMBED_CONFIG_META = "embed_config"
"""Store meta: the [embed] section of the recorded embedder, written by a re-embed's switch, so every process
serving the collection can build the new embedder when it sees the switch."""
PENDING_CONFIG_META = "embed_config_pending"
"""Store meta set in the switch's transaction and emptied once bunko.toml names the new embedder: a process
killed between the two leaves the store switched, and the next open writes bunko.toml to match."""

T = TypeVar("T")


class ActiveEmbedder:
    """The collection's embedder (`embedder`, `name`) and the switch to another one.

    `embedder` is one handed in (tests share one loaded model), else built by `factory` (default `build_embedder`)
    from `config.embed` when first asked for. What is built with the embedder (the engine's answerer) compares it
    with the one it was built with, so a switch rebuilds it.
    """

    def __init__(
        self, store: Store, path: Path, config: Config, *, embedder: Embedder | None = None,
        factory: Callable[[EmbedConfig], Embedder] | None = None, allow_change: bool = False,
    ) -> None:
        self.store = store
        self.path = path
        self.config = config
        self._embedder = embedder
        self._factory = factory or build_embedder
        self.injected = embedder is not None
        """Whether the embedder was handed in: a switch then leaves `config.embed` as the caller gave it."""
        self.allow_change = allow_change
        self._lock = threading.RLock()
        self.staging: tuple[Embedder, EmbedConfig | None] | None = None
        """The embedder a re-embed run by this process is staging vectors for (`ingest/reembed.py`): searches switch to
        it, without building it again, once the store has."""

    @property
    def name(self) -> str:
        if self._embedder is None and self._factory is not build_embedder:
            return self.embedder.name  # a caller's factory: only the embedder it builds knows its name
        return self._embedder.name if self._embedder is not None else embedder_name(self.config.embed)

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = self._factory(self.config.embed)
        return self._embedder

    def build(self, embed: EmbedConfig) -> Embedder:
        """An embedder for an [embed] section, built as this collection builds its own (the factory it was given)."""
        return self._factory(embed)

    def check(self) -> None:
        """Refuse a collection embedded with another model than the configured one: its vectors and the queries' would
        not compare."""
        name = self.name
        recorded = self.store.get_meta("embedder")
        if recorded is not None and recorded != name and self.store.chunk_count() > 0:
            raise CollectionError(
                f"{self.path}: this collection was embedded with {recorded!r} "
                f"({self.store.get_meta('dimension')} dimensions) but the embedder now is {name!r}; "
                f"run `bunko reembed` to re-embed the stored chunks with it, or restore the [embed] settings "
                f"(model, remote_model, model_path) that produced {recorded!r}"
            )

    def record(self) -> None:
        """Record the embedder's name and width in the store (the first ingest of an empty collection)."""
        embedder = self.embedder
        self.store.set_meta("embedder", embedder.name)
        self.store.set_meta("dimension", str(embedder.dimension))

    def switch_to(self, embedder: Embedder, embed: EmbedConfig | None) -> None:
        """From now on this collection embeds queries and new chunks with `embedder` (the store has switched)."""
        with self._lock:
            self._use(embedder, embed)

    def _use(self, embedder: Embedder, embed: EmbedConfig | None) -> None:
        """`switch_to` for a caller holding the lock."""
        self._embedder = embedder
        if embed is not None:
            self.config.embed = embed.model_copy()

    def write_config(self, embed: EmbedConfig) -> None:
        """bunko.toml with the new [embed] section, replaced in one rename (never a half-written file)."""
        path = self.path / CONFIG_FILE
        on_disk = Config.load(path) if path.exists() else Config()
        on_disk.embed = embed.model_copy()
        partial = path.with_name(path.name + ".partial")
        on_disk.save(partial)
        os.replace(partial, path)

    def finish_switch(self) -> None:
        """A switch whose process died after the store's commit but before bunko.toml was rewritten: finish it."""
        pending = self.store.get_meta(PENDING_CONFIG_META)
        if not pending:
            return
        embed = EmbedConfig.model_validate(json.loads(pending))
        self.write_config(embed)
        if not self.injected:
            self.config.embed = embed
        self.store.set_meta(PENDING_CONFIG_META, "")

    def sync(self) -> str | None:
        """The recorded embedder, with this object switched to it if a re-embed (here or in another process)
        switched the collection since this object last looked."""
        recorded = self.store.get_meta("embedder")
        if recorded is None or self.allow_change or recorded == self.name:
            return recorded
        with self._lock:
            if recorded == self.name:
                return recorded
            staging = self.staging
            if staging is not None and staging[0].name == recorded:
                self._use(*staging)
                return recorded
            stored = self.store.get_meta(EMBED_CONFIG_META)
            if stored:
                embed = EmbedConfig.model_validate(json.loads(stored))
                built = self._factory(embed)
                if built.name == recorded:
                    self._use(built, embed)
                    return recorded
            self.check()
            return recorded

    def on_current_model(self, action: Callable[[], T]) -> T:
        """Run a search with the query embedded by the model whose vectors it reads: if a switch committed while
        it ran (its result, or its error, came from a mix of old and new), it runs again on the new model."""
        for _ in range(3):
            name = self.sync()
            try:
                result = action()
            except Exception:
                if self.store.get_meta("embedder") == name:
                    raise
                continue
            if self.store.get_meta("embedder") == name:
                return result
        return action()
