"""Unit vectors kept on disk beside the collection: a sentence embedded once is never embedded again.

The light reranker and the extractive answer judge a chunk by its sentences and table rows, each
embedded with its section heading. At query time that is 50–90 units an ask, three quarters of
its time on a 1,000-page collection (`bench/results/ask-latency.md`), though the units are the
same from one ask to the next: they are the collection's own text. This file keeps each unit's
vector, keyed by the embedding model and a hash of the exact text embedded, so:

- vectors are content-addressed: a changed document brings new texts (new keys); an old key is
  never wrong, only unused, and a different model reads and writes its own keys;
- `build` (``bunko reindex --unit-vectors``) embeds every unit of every chunk ahead of the
  questions, as ingest builds the chunk vectors; without it the file fills as questions are asked (with
  whatever else the answerer embeds through its `CachingEmbedder`: vectors and hashes, never the text);
- float32 bytes as the embedder returned them, so a stored vector scores exactly as a fresh one.

Beside them, each document's unit vectors as one float16 matrix (`document_units`), which hybrid
search reads to judge a document by its best sentence (`bunko.retrieve.document_sentences`): the
search cannot afford to split a document into units and look each up. The matrix is keyed by the
model, the document and the version of its rows (when they were last written), so a changed
document, or one chunked anew, finds none until `build` writes its new one, and a search finds it
without reading the document's chunks.

SQLite in WAL mode: several processes (the server's workers, a CLI) can read and add at once.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np

from bunko.embed.base import Embedder
from bunko.rerank.evidence import unit_context, unit_text
from bunko.rerank.memo import judged_once, quotable_units
from bunko.schema import Chunk, Hit
from bunko.text.units import Unit, definition_terms

FILE_NAME = "unit-vectors.db"
PAGE_SIZE = 16384
"""A 2 kB vector row does not fit twice in SQLite's default 4 kB page, which doubled the file; seven fit in 16 kB."""
BUILD_BATCH = 256
"""Units embedded and written per step of `build` (a few hundred kB of vectors per transaction)."""


def chunk_unit_texts(chunk: Chunk, judge: Callable[[str], bool] | None = None) -> list[str]:
    """The texts the reranker and the extractive answer embed for this chunk's quotable units; `judge`: a memo of the
    injection check shared by the chunks split together (`memo.judged_once`)."""
    hit = Hit(chunk, 0.0)
    typed = quotable_units(chunk.text, judge or judged_once())
    terms = definition_terms(chunk.text, typed)
    return [unit_text(unit_context(hit, Unit(unit, 0, position, kind, term)), unit)
            for position, ((unit, kind), term) in enumerate(zip(typed, terms, strict=True))]


def _matrix_row(key: bytes, vectors: Sequence[np.ndarray], dimension: int) -> tuple[bytes, int, bytes]:
    """A `document_units` row: the vectors as unit-normed float16 rows."""
    matrix = np.array(vectors, dtype=np.float32).reshape(-1, dimension)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    unit = (matrix / np.where(norms > 0, norms, 1.0)).astype(np.float16)
    return key, len(unit), unit.tobytes()


def _key(model: str, text: str) -> bytes:
    return hashlib.sha1(f"{model}\0{text}".encode()).digest()


def document_key(model: str, doc_id: str, version: float) -> bytes:
    """A document's matrix key: the model, the document and the version of its rows (`DocumentStore.document_versions`,
    which moves whenever its chunks are written), so a search finds its matrix without reading its chunks."""
    return hashlib.sha1(f"{model}\0{doc_id}\0{version!r}".encode()).digest()


class UnitVectorFile:
    """Vectors by (model, text) in one SQLite file; missing keys are simply absent."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self.embedded = 0
        """Units this object has embedded (`embed_units`, `build`): what a benchmark or a test reads to tell work done
        from work found stored."""
        self.failure: str | None = None
        """Why the file could not be read or written (a read-only folder, a full disk): asks then embed as if it
        were empty, since a missing cache must not fail an answer."""

    def _usable(self) -> bool:
        return self.failure is None and self.path.parent.exists()

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
            db = sqlite3.connect(self.path, check_same_thread=False, timeout=30.0)
            db.execute(f"PRAGMA page_size={PAGE_SIZE}")  # takes effect only on a new file, before WAL mode
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")  # a cache: a power cut may lose the last writes, never corrupt the file
            db.execute("CREATE TABLE IF NOT EXISTS unit_vectors (key BLOB PRIMARY KEY, vector BLOB NOT NULL)")
            db.execute("CREATE TABLE IF NOT EXISTS document_units (key BLOB PRIMARY KEY, rows INTEGER NOT NULL, vectors BLOB NOT NULL)")
            self._db = db
        return self._db

    def get(self, model: str, texts: Sequence[str], dimension: int) -> dict[str, np.ndarray]:
        """The stored vectors of those texts that have one."""
        if not texts or not self._usable():
            return {}
        keys = {_key(model, t): t for t in texts}
        found: dict[str, np.ndarray] = {}
        with self._lock:
            try:
                db = self._connection()
                listed = list(keys)
                for start in range(0, len(listed), 500):
                    part = listed[start : start + 500]
                    rows = db.execute(f"SELECT key, vector FROM unit_vectors WHERE key IN ({', '.join('?' * len(part))})", part)
                    for key, blob in rows:
                        vector = np.frombuffer(blob, dtype=np.float32)
                        if vector.shape == (dimension,):
                            found[keys[bytes(key)]] = vector
            except sqlite3.Error as exc:
                self.failure = f"{self.path}: {exc}"
        return found

    def put(self, model: str, vectors: Mapping[str, np.ndarray]) -> None:
        if not vectors or not self._usable():
            return
        rows = [(_key(model, t), np.asarray(v, dtype=np.float32).tobytes()) for t, v in vectors.items()]
        self._write("INSERT OR REPLACE INTO unit_vectors (key, vector) VALUES (?, ?)", rows)

    def _write(self, statement: str, rows: Sequence[tuple[bytes | int, ...]]) -> None:
        """Rows written in one transaction; a failure is kept in `failure`, not raised (a cache never fails an answer)."""
        if not rows or not self._usable():
            return
        with self._lock:
            try:
                db = self._connection()
                with db:
                    db.executemany(statement, rows)
            except sqlite3.Error as exc:
                self.failure = f"{self.path}: {exc}"

    @staticmethod
    def document_key(model: str, doc_id: str, version: float) -> bytes:
        """The key of a document's matrix at a version of its rows, for `document_units`."""
        return document_key(model, doc_id, version)

    def document_units(self, key: bytes, dimension: int) -> np.ndarray | None:
        """A document's unit vectors by its `document_key`, unit-normed float16 rows; None when none are stored."""
        if not self._usable() or not self.path.exists():
            return None
        with self._lock:
            try:
                row = self._connection().execute("SELECT rows, vectors FROM document_units WHERE key = ?", (key,)).fetchone()
            except sqlite3.Error as exc:
                self.failure = f"{self.path}: {exc}"
                return None
        if row is None or len(row[1]) != row[0] * dimension * 2:
            return None
        return np.frombuffer(row[1], dtype=np.float16).reshape(row[0], dimension)

    def present_documents(self, keys: Sequence[bytes]) -> set[bytes]:
        """The keys among `keys` whose document matrix is stored (none when the file cannot be read)."""
        if not keys or not self._usable() or not self.path.exists():
            return set()
        present: set[bytes] = set()
        with self._lock:
            try:
                db = self._connection()
                for start in range(0, len(keys), 500):
                    part = list(keys[start : start + 500])
                    rows = db.execute(f"SELECT key FROM document_units WHERE key IN ({', '.join('?' * len(part))})", part)
                    present.update(bytes(key) for (key,) in rows)
            except sqlite3.Error as exc:
                self.failure = f"{self.path}: {exc}"
        return present

    def embed_units(
        self, embedder: Embedder, chunks: Sequence[Chunk], known: Mapping[str, np.ndarray] | None = None,
        progress: Callable[[int, int], None] | None = None, batch: int = BUILD_BATCH,
    ) -> np.ndarray:
        """The unit vectors of `chunks` (one document's, or a re-embed's batch), each distinct unit once, in the order
        of the document's matrix (the distinct units of its searched chunks; a parent's units are stored too, as `build`
        stores them): those stored are read, those in `known` (vectors the caller embedded with the same
        model for the same texts: a chunk made of one sentence under its heading is its own unit) reused, the rest
        embedded `batch` at a time and stored; `progress(done, to embed)` after each batch. What ingest and a re-embed
        call while the chunks' own vectors are in hand, so no unit waits for a second pass, and none is embedded twice."""
        model, dimension = embedder.name, embedder.dimension
        judge = judged_once()  # a parent's units are its children's: each judged once
        split = {chunk.chunk_id: chunk_unit_texts(chunk, judge) for chunk in chunks}
        texts = list(dict.fromkeys(text for chunk in chunks if chunk.searchable for text in split[chunk.chunk_id]))
        every = list(dict.fromkeys([*texts, *(text for units in split.values() for text in units)]))  # parents' too, as `build`
        vectors = self.get(model, every, dimension)
        reused = {text: np.asarray(known[text], dtype=np.float32) for text in every if text not in vectors and known and text in known}
        self.put(model, reused)
        vectors.update(reused)
        missing = sorted((text for text in every if text not in vectors), key=len)  # batches of like lengths: less padding
        if progress is not None and missing:
            progress(0, len(missing))
        for start in range(0, len(missing), batch):
            part = missing[start : start + batch]
            fresh = dict(zip(part, embedder.embed(part), strict=True))
            self.put(model, fresh)
            vectors.update(fresh)
            self.embedded += len(part)
            if progress is not None:
                progress(start + len(part), len(missing))
        return np.array([vectors[text] for text in texts], dtype=np.float32).reshape(-1, dimension)

    def keep_units(self, model: str, doc_id: str, version: float, units: np.ndarray) -> None:
        """A document's matrix (`embed_units` of its chunks) under its `document_key` at the version of its rows as
        just written, so the build after the run finds it and passes the document over."""
        self._write("INSERT OR REPLACE INTO document_units (key, rows, vectors) VALUES (?, ?, ?)",
                    [_matrix_row(document_key(model, doc_id, version), list(units), units.shape[1])])

    def count(self) -> int:
        if not self.path.exists():
            return 0
        with self._lock:
            return int(self._connection().execute("SELECT COUNT(*) FROM unit_vectors").fetchone()[0])

    def build(
        self, embedder: Embedder, chunks: Iterable[Chunk], progress: Callable[[int, int], None] | None = None,
        versions: Mapping[str, float] | None = None, known: Callable[[Sequence[Chunk]], Mapping[str, np.ndarray]] | None = None,
        batch: int = BUILD_BATCH,
    ) -> int:
        """Embed and store every unit of `chunks` not stored yet; returns how many were embedded. With `versions` (each
        document's, `DocumentStore.document_versions`), also each document's matrix: `chunks` then hold whole documents
        (as `store.chunks()` returns them), and a document whose matrix is stored at its version is passed over, its
        units with it. Documents are then embedded one at a time, in the order given, by `embed_units` with the vectors
        `known(chunks)` gives (the document's stored chunk vectors by their text), exactly as the ingest pipeline
        embeds a file's units: a folder ingested on Ray, or a document whose units a killed run never embedded, gets
        the vectors a local ingest would have stored (`batch`: the pipeline's). `progress(done, total)` after each batch (of documents, with
        `versions`)."""
        model = embedder.name
        documents: dict[str, list[Chunk]] = {}
        for chunk in chunks:
            documents.setdefault(chunk.doc_id, []).append(chunk)
        if versions is not None:
            keyed = {document_key(model, doc_id, versions[doc_id]): grouped
                     for doc_id, grouped in documents.items() if doc_id in versions}
            present = self.present_documents(list(keyed))
            unbuilt = [(key, grouped) for key, grouped in keyed.items() if key not in present]
            embedded = self.embedded
            for done, (key, grouped) in enumerate(unbuilt, start=1):
                units = self.embed_units(embedder, grouped, known(grouped) if known is not None else None, batch=batch)
                self._write("INSERT OR REPLACE INTO document_units (key, rows, vectors) VALUES (?, ?, ?)",
                            [_matrix_row(key, list(units), embedder.dimension)])
                if progress is not None:
                    progress(done, len(unbuilt))
            return self.embedded - embedded
        judge = judged_once()
        texts = list(dict.fromkeys(t for grouped in documents.values() for chunk in grouped for t in chunk_unit_texts(chunk, judge)))
        missing: list[str] = []
        for start in range(0, len(texts), 5000):
            part = texts[start : start + 5000]
            stored = self.get(model, part, embedder.dimension)
            missing.extend(t for t in part if t not in stored)
        for start in range(0, len(missing), batch):
            part = missing[start : start + batch]
            self.put(model, dict(zip(part, embedder.embed(part), strict=True)))
            self.embedded += len(part)
            if progress is not None:
                progress(start + len(part), len(missing))
        return len(missing)

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None
