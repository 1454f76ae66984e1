"""The local store's documents, chunks, copy links and staged vectors: each write one SQLite transaction."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from bunko.errors import CollectionError
from bunko.schema import (
    DUPLICATE_OF_KEY,
    Chunk,
    DocumentInfo,
    Element,
    ParsedDocument,
)
from bunko.store.base import STAGING_META, StagedVector, StageMissing, StoredChunk
from bunko.store.copies import CopyRecord, regroup, set_duplicate_of
from bunko.store.languages import label_languages
from bunko.store.local.schema import _IN_BATCH, _UNSTAGED, LocalBase, _dumps, _entity_columns
from bunko.store.rows import (
    CHUNK_COLUMNS,
    DOCUMENT_COLUMNS,
    ELEMENT_COLUMNS,
    PACKED_CHUNK_COLUMNS,
    chunk_from_row,
    document_from_row,
    element_from_row,
)


class LocalDocuments(LocalBase):
    """`DocumentStore`, `VectorStaging` and `DocumentCopies`' writes over SQLite."""

    # -- documents ----------------------------------------------------------
    def document_hash(self, source: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT content_hash FROM documents WHERE source = ?", (source,)).fetchone()
        return row[0] if row else None

    def document_versions(self, doc_ids: Sequence[str]) -> dict[str, float]:
        ids = list(dict.fromkeys(doc_ids))
        if not ids:
            return {}
        with self._lock:
            rows = self._db.execute(
                f"SELECT doc_id, ingested_at FROM documents WHERE doc_id IN ({','.join('?' * len(ids))})", ids,
            ).fetchall()
        return {doc_id: float(ingested_at) for doc_id, ingested_at in rows}

    def replace_document(
        self, doc: ParsedDocument, content_hash: str, chunks: Sequence[StoredChunk], *, ingested_at: float | None = None,
    ) -> None:
        """Swap a document's rows in one transaction; `ingested_at` is given only when copying a collection."""
        ingested_at = time.time() if ingested_at is None else ingested_at
        label_languages(doc.meta, chunks)
        with self._lock:
            db = self._db
            db.execute("BEGIN IMMEDIATE")
            try:
                self._check_writer_embedder()
                members = self._copies_of(doc.doc_id)
                self._delete_rows(doc.doc_id)
                self._write_links(regroup(CopyRecord.from_meta(doc.doc_id, doc.source, ingested_at, doc.meta), members) if members else {})
                db.execute(
                    "INSERT INTO documents VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (doc.doc_id, doc.source, doc.title, doc.mime, doc.parser, content_hash, ingested_at, len(chunks), _dumps(doc.meta)),
                )
                db.executemany(
                    "INSERT INTO elements VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        (doc.doc_id, i, e.element_id, str(e.kind), e.text, e.page, _dumps(e.section_path),
                         _dumps(e.bbox) if e.bbox else None, e.parent_id, _dumps(e.meta))
                        for i, e in enumerate(doc.elements)
                    ],
                )
                db.executemany(
                    "INSERT INTO chunks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        (c.chunk.chunk_id, c.chunk.doc_id, c.chunk.source, c.chunk.ordinal, c.chunk.text, c.chunk.embed_text,
                         c.embed_hash, _dumps(c.chunk.element_ids), _dumps(c.chunk.pages), _dumps(c.chunk.section_path),
                         _dumps(c.chunk.kinds), c.chunk.parent_id, _dumps(c.chunk.meta), " ".join(c.tokens),
                         np.ascontiguousarray(c.vector, dtype=np.float32).tobytes(), *_entity_columns(c))
                        for c in chunks
                    ],
                )
                self._bump_generation()
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise

    def expect_embedder(self, name: str | None) -> None:
        self._writer_embedder = name

    def _check_writer_embedder(self) -> None:
        """Inside the write transaction, so no switch commits between the check and the write."""
        recorded = self.get_meta("embedder")
        if self._writer_embedder is not None and recorded is not None and recorded != self._writer_embedder:
            raise CollectionError(
                f"the collection was switched to the embedder {recorded} while this process embedded with "
                f"{self._writer_embedder}; nothing was written, ingest the file again"
            )

    def _delete_rows(self, doc_id: str) -> None:
        for table in ("chunks", "elements", "documents"):
            self._db.execute(f"DELETE FROM {table} WHERE doc_id = ?", (doc_id,))

    def delete_document(self, source: str) -> bool:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                row = self._db.execute("SELECT doc_id FROM documents WHERE source = ?", (source,)).fetchone()
                if row:
                    self._delete_rows(row[0])
                    self._write_links(regroup(None, self._copies_of(row[0])))
                    self._bump_generation()
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return row is not None

    def _copies_of(self, doc_id: str) -> list[CopyRecord]:
        """The documents recorded as copies of `doc_id` (inside the caller's transaction)."""
        rows = self._db.execute(
            "SELECT doc_id, source, ingested_at, meta FROM documents WHERE json_extract(meta, '$.duplicate_of') = ? ORDER BY source",
            (doc_id,),
        ).fetchall()
        return [CopyRecord.from_meta(d, s, t, json.loads(m)) for d, s, t, m in rows]

    def _write_links(self, links: Mapping[str, str | None]) -> None:
        """Set each document's original (None: it is one), inside the caller's transaction; the changed ones only."""
        for doc_id, original in links.items():
            row = self._db.execute("SELECT meta FROM documents WHERE doc_id = ?", (doc_id,)).fetchone()
            if row is None:
                continue
            meta = json.loads(row[0])
            if meta.get(DUPLICATE_OF_KEY) != original:
                set_duplicate_of(meta, original)
                self._db.execute("UPDATE documents SET meta = ? WHERE doc_id = ?", (_dumps(meta), doc_id))

    def copy_records(self, grouped: bool = False) -> list[CopyRecord]:
        """Every document's `CopyRecord`, or with `grouped` only those of groups: copies and the originals they point at."""
        where = (
            " WHERE json_extract(meta, '$.duplicate_of') IS NOT NULL OR doc_id IN "
            "(SELECT json_extract(meta, '$.duplicate_of') FROM documents WHERE json_extract(meta, '$.duplicate_of') IS NOT NULL)"
        ) if grouped else ""
        with self._lock:
            rows = self._db.execute(f"SELECT doc_id, source, ingested_at, meta FROM documents{where} ORDER BY source").fetchall()
        return [CopyRecord.from_meta(d, s, t, json.loads(m)) for d, s, t, m in rows]

    def link_copies(self, links: Mapping[str, str | None]) -> None:
        if not links:
            return
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._write_links(links)
                self._bump_generation()
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def documents(self) -> list[DocumentInfo]:
        with self._lock:
            rows = self._db.execute(
                f"SELECT {DOCUMENT_COLUMNS} FROM documents ORDER BY source"
            ).fetchall()
        return [document_from_row(r) for r in rows]

    def elements(self, source: str) -> list[Element]:
        with self._lock:
            rows = self._db.execute(
                f"SELECT {ELEMENT_COLUMNS} "
                "FROM elements e JOIN documents d ON d.doc_id = e.doc_id WHERE d.source = ? ORDER BY e.ordinal",
                (source,),
            ).fetchall()
        return [element_from_row(r) for r in rows]

    def chunks(self, source: str | None = None) -> list[Chunk]:
        sql = f"SELECT {CHUNK_COLUMNS} FROM chunks"
        params: tuple[Any, ...] = ()
        if source is not None:  # through the document's id: chunks are indexed by document, not by source
            sql += " WHERE doc_id = (SELECT doc_id FROM documents WHERE source = ?)"
            params = (source,)
        with self._lock:
            rows = self._db.execute(sql + " ORDER BY source, ordinal", params).fetchall()
        return [chunk_from_row(r) for r in rows]

    def get_chunks(self, chunk_ids: Sequence[str]) -> list[Chunk]:
        """The chunks of `chunk_ids` that exist, in that order, from the chunk cache of the current generation.

        The rows not cached are read with the generation in one statement (`_read_hits`), one snapshot: a
        search's hits cost one SQLite statement, not two (a statement is ~7 µs, and ~15 µs of a keyword search
        at 10k chunks). When that generation is not the cache's, a write came between: the cache is emptied and
        the ids it held are read again."""
        ids = list(chunk_ids)
        with self._lock:
            cache = self._chunk_cache
            missing = cache.missing(ids)
            generation, fetched = self._read_hits(missing) if missing else (None, [])
            if generation is None:  # no row was read: the generation on its own
                generation = self.generation()
            if generation != cache.generation:
                cache.at(generation)
                read = {row[0] for row in fetched}
                fetched += self._hit_rows([cid for cid in cache.missing(ids) if cid not in read])
            return cache.take(ids, fetched)

    def _read_hits(self, ids: list[str]) -> tuple[int | None, list[Any]]:
        """The rows (PACKED_CHUNK_COLUMNS) of `ids` and the generation they were read at (None when none was
        found), in one statement for up to `_IN_BATCH` ids; more are read after the generation, in batches."""
        if len(ids) > _IN_BATCH:
            generation = self.generation()
            return generation, self._hit_rows(ids)
        rows = self._db.execute(
            f"SELECT {PACKED_CHUNK_COLUMNS}, (SELECT value FROM meta WHERE key = 'generation') "
            f"FROM chunks WHERE chunk_id IN ({','.join('?' * len(ids))})", ids,
        ).fetchall()
        return (int(rows[0][8] or 0) if rows else None), rows

    def _hit_rows(self, ids: list[str]) -> list[Any]:
        rows: list[Any] = []
        for start in range(0, len(ids), _IN_BATCH):
            batch = ids[start : start + _IN_BATCH]
            rows += self._db.execute(f"SELECT {PACKED_CHUNK_COLUMNS} FROM chunks WHERE chunk_id IN ({','.join('?' * len(batch))})", batch).fetchall()
        return rows

    def chunk_count(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0])

    def cached_vectors(self, embed_hashes: Sequence[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        hashes = list(set(embed_hashes))
        with self._lock:
            for start in range(0, len(hashes), 500):
                batch = hashes[start : start + 500]
                marks = ",".join("?" * len(batch))
                for h, blob in self._db.execute(f"SELECT embed_hash, vector FROM chunks WHERE embed_hash IN ({marks})", batch):
                    if h not in out or not out[h].any():  # a real vector over a parent's blank one
                        out[h] = np.frombuffer(blob, dtype=np.float32)
        return out

    def replace_vectors(self, vectors: Mapping[str, np.ndarray], embed_hashes: Mapping[str, str]) -> None:
        """Swap chunks' vectors in one transaction (re-embedding): the index never mixes two models."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.executemany(
                    "UPDATE chunks SET vector = ?, embed_hash = ? WHERE chunk_id = ?",
                    [(np.ascontiguousarray(v, dtype=np.float32).tobytes(), embed_hashes[cid], cid) for cid, v in vectors.items()],
                )
                self._bump_generation()
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    # -- re-embedding beside the live vectors --------------------------------
    def staging_counts(self) -> tuple[int, int]:
        with self._lock:
            total = int(self._db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0])
            missing = int(self._db.execute(f"SELECT COUNT(*) FROM chunks WHERE {_UNSTAGED}").fetchone()[0])
        return total - missing, total

    def chunks_to_stage(self, limit: int | None = None) -> list[tuple[Chunk, str]]:
        sql = f"SELECT {CHUNK_COLUMNS}, embed_hash FROM chunks WHERE {_UNSTAGED} ORDER BY source, ordinal"
        with self._lock:
            rows = self._db.execute(sql + " LIMIT ?", (limit if limit is not None else -1,)).fetchall()
        return [(chunk_from_row(r[:12]), r[12]) for r in rows]

    def _insert_staged(self, staged: Sequence[StagedVector]) -> None:
        self._db.executemany(
            "INSERT OR REPLACE INTO staged_vectors VALUES (?, ?, ?, ?)",
            [(s.chunk_id, s.live_hash, s.embed_hash, np.ascontiguousarray(s.vector, dtype=np.float32).tobytes()) for s in staged],
        )

    def stage_vectors(self, staged: Sequence[StagedVector]) -> None:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._insert_staged(staged)
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def discard_staged(self) -> None:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute("DELETE FROM staged_vectors")
                self._db.execute("DELETE FROM meta WHERE key = ?", (STAGING_META,))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def swap_staged(self, plan: str, meta: Mapping[str, str], stage_missing: StageMissing) -> int:
        """BEGIN IMMEDIATE keeps every other writer out until the commit, so nothing is written between the last
        staged chunk and the swap; searches go on reading the last committed generation meanwhile (WAL)."""
        with self._lock:
            db = self._db
            db.execute("BEGIN IMMEDIATE")
            try:
                if self.get_meta(STAGING_META) != plan:
                    raise CollectionError(f"{self.folder}: the re-embed was finished or aborted by another process")
                missing = self.chunks_to_stage()
                if missing:
                    self._insert_staged(stage_missing(missing))
                left = int(db.execute(f"SELECT COUNT(*) FROM chunks WHERE {_UNSTAGED}").fetchone()[0])
                if left:
                    raise CollectionError(f"{self.folder}: {left} chunks have no vector from the new embedder; nothing was switched")
                db.execute(
                    "UPDATE chunks SET vector = s.vector, embed_hash = s.embed_hash FROM staged_vectors s "
                    "WHERE s.chunk_id = chunks.chunk_id"
                )
                count = int(db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0])
                db.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", list(meta.items()))
                db.execute("DELETE FROM staged_vectors")
                db.execute("DELETE FROM meta WHERE key = ?", (STAGING_META,))
                self._bump_generation()
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return count

