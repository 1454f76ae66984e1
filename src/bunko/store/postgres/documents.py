"""The PostgreSQL store's documents, chunks, copy links, staged vectors and the vector column with its HNSW index."""


from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb

from bunko.errors import CollectionError
from bunko.index.memory import OPENING_CHUNKS
from bunko.schema import (
    DUPLICATE_OF_KEY,
    Chunk,
    DocumentInfo,
    Element,
    ParsedDocument,
    meta_searchable,
)
from bunko.store.base import STAGING_META, StagedVector, StageMissing, StoredChunk
from bunko.store.copies import CopyRecord, regroup, set_duplicate_of
from bunko.store.languages import label_languages
from bunko.store.postgres.base import (
    _UNSTAGED,
    DOCUMENT_NAMESPACE,
    HNSW_INDEX,
    PostgresBase,
    _dumps,
    _text,
    _vector,
    filter_record,
)
from bunko.store.postgres.schema import refresh_centroids, searchable_sql, write_document_facts
from bunko.store.rows import (
    CHUNK_COLUMNS,
    DOCUMENT_COLUMNS,
    ELEMENT_COLUMNS,
    chunk_from_row,
    document_from_row,
    element_from_row,
    mention_columns,
)


class PostgresDocuments(PostgresBase):
    """`DocumentStore`, `VectorStaging` and `DocumentCopies`' writes: each document one transaction under its advisory lock."""

    # -- documents ----------------------------------------------------------
    def document_hash(self, source: str) -> str | None:
        with self._pool.connection() as conn:
            row = conn.execute("SELECT content_hash FROM documents WHERE source = %s", (source,)).fetchone()
        return row[0] if row else None

    def document_versions(self, doc_ids: Sequence[str]) -> dict[str, float]:
        ids = list(dict.fromkeys(doc_ids))
        if not ids:
            return {}
        with self._pool.connection() as conn:
            rows = conn.execute("SELECT doc_id, ingested_at FROM documents WHERE doc_id = ANY(%s::text[])", (ids,)).fetchall()
        return {doc_id: float(ingested_at) for doc_id, ingested_at in rows}

    def replace_document(
        self, doc: ParsedDocument, content_hash: str, chunks: Sequence[StoredChunk], *, ingested_at: float | None = None,
    ) -> None:
        """Swap a document's rows in one transaction; `ingested_at` is given only when copying a collection."""
        if chunks:
            self._ensure_dimension(int(np.asarray(chunks[0].vector).size))
        ingested_at = time.time() if ingested_at is None else ingested_at
        label_languages(doc.meta, chunks)
        with self._pool.connection() as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (DOCUMENT_NAMESPACE, doc.doc_id))
            self._check_writer_embedder(conn)
            members = self._copies_of(conn, doc.doc_id)
            removed, removed_tokens = self._delete_rows(conn, doc.doc_id)
            if members:
                self._write_links(conn, regroup(CopyRecord.from_meta(doc.doc_id, doc.source, ingested_at, doc.meta), members))
            conn.execute(
                "INSERT INTO documents VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                (doc.doc_id, _text(doc.source), _text(doc.title), doc.mime, doc.parser, content_hash, ingested_at, len(chunks),
                 _dumps(doc.meta)),
            )
            with conn.cursor().copy(
                "COPY elements (doc_id, ordinal, element_id, kind, text, page, section_path, bbox, parent_id, meta) "
                "FROM STDIN (FORMAT BINARY)"
            ) as copy:
                copy.set_types(["text", "int4", "text", "text", "text", "int4", "text", "text", "text", "text"])
                for i, e in enumerate(doc.elements):
                    copy.write_row((
                        doc.doc_id, i, _text(e.element_id), str(e.kind), _text(e.text), e.page, _dumps(e.section_path),
                        _dumps(e.bbox) if e.bbox else None, _text(e.parent_id), _dumps(e.meta),
                    ))
            tokens = self._write_chunks(conn, doc, ingested_at, chunks)
            write_document_facts(conn, doc.doc_id, [stored.tokens for stored in chunks if stored.chunk.searchable])
            searchable = sum(1 for stored in chunks if stored.chunk.searchable)
            conn.execute(
                "UPDATE corpus SET chunks = chunks + %s, tokens = tokens + %s, generation = generation + 1",
                (searchable - removed, tokens - removed_tokens),
            )
        self._maybe_build_index()

    def _write_chunks(self, conn: psycopg.Connection, doc: ParsedDocument, ingested_at: float, chunks: Sequence[StoredChunk]) -> int:
        if not chunks:
            return 0
        ids = [r[0] for r in conn.execute("SELECT nextval('chunks_id_seq') FROM generate_series(1, %s)", (len(chunks),))]
        opening = {c.chunk_id for c in sorted((s.chunk for s in chunks if s.chunk.searchable), key=lambda c: c.ordinal)[:OPENING_CHUNKS]}
        total = 0
        with conn.cursor().copy(
            "COPY chunks (id, chunk_id, doc_id, source, ordinal, text, embed_text, embed_hash, element_ids, pages, "
            "section_path, kinds, parent_id, meta, tokens, dl, attrs, embedding, entities, entity_spans, opening) "
            "FROM STDIN (FORMAT BINARY)"
        ) as copy:
            copy.set_types(
                ["int8", *["text"] * 3, "int4", *["text"] * 9, "text[]", "int4", "jsonb", "vector", "text[]", "text", "bool"]
            )
            for key, stored in zip(ids, chunks, strict=True):
                c = stored.chunk
                indexed = len(stored.tokens) if c.searchable else 0
                total += indexed
                copy.write_row((
                    key, _text(c.chunk_id), c.doc_id, _text(c.source), c.ordinal, _text(c.text), _text(c.embed_text),
                    stored.embed_hash, _dumps(c.element_ids), _dumps(c.pages), _dumps(c.section_path), _dumps(c.kinds),
                    _text(c.parent_id), _dumps(c.meta), list(stored.tokens), indexed,
                    Jsonb(filter_record(doc, ingested_at, c), dumps=_dumps),
                    np.ascontiguousarray(stored.vector, dtype=np.float32), *mention_columns(stored.entities), c.chunk_id in opening,
                ))
        with conn.cursor().copy("COPY postings (term, chunk, tf, dl) FROM STDIN (FORMAT BINARY)") as copy:
            copy.set_types(["text", "int8", "int4", "int4"])
            for key, stored in zip(ids, chunks, strict=True):
                if not stored.chunk.searchable:  # kept for context, never indexed: no postings, no length in the corpus
                    continue
                dl = len(stored.tokens)
                for term, tf in Counter(stored.tokens).items():
                    copy.write_row((term, key, tf, dl))
        return total

    def expect_embedder(self, name: str | None) -> None:
        self._writer_embedder = name

    def _check_writer_embedder(self, conn: psycopg.Connection) -> None:
        """The table lock every chunk write takes anyway, taken first: a re-embed's switch (SHARE ROW EXCLUSIVE)
        either committed before it, and its embedder is read here, or waits for this write to commit."""
        if self._writer_embedder is None:
            return
        conn.execute("LOCK TABLE chunks IN ROW EXCLUSIVE MODE")
        row = conn.execute("SELECT value FROM meta WHERE key = 'embedder'").fetchone()
        if row is not None and row[0] != self._writer_embedder:
            raise CollectionError(
                f"the collection was switched to the embedder {row[0]} while this process embedded with "
                f"{self._writer_embedder}; nothing was written, ingest the file again"
            )

    def _delete_rows(self, conn: psycopg.Connection, doc_id: str) -> tuple[int, int]:
        """Remove a document's rows; return how many chunks and tokens left the corpus."""
        gone = conn.execute("DELETE FROM chunks WHERE doc_id = %s RETURNING id, dl, meta", (doc_id,)).fetchall()
        if gone:
            conn.execute("DELETE FROM postings WHERE chunk = ANY(%s)", ([r[0] for r in gone],))
        conn.execute("DELETE FROM elements WHERE doc_id = %s", (doc_id,))
        conn.execute("DELETE FROM documents WHERE doc_id = %s", (doc_id,))
        searchable = sum(1 for r in gone if meta_searchable(json.loads(r[2])))
        return searchable, sum(r[1] for r in gone)

    def delete_document(self, source: str) -> bool:
        with self._pool.connection() as conn, conn.transaction():
            row = conn.execute("SELECT doc_id FROM documents WHERE source = %s", (source,)).fetchone()
            if row is None:
                return False
            conn.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (DOCUMENT_NAMESPACE, row[0]))
            removed, tokens = self._delete_rows(conn, row[0])
            self._write_links(conn, regroup(None, self._copies_of(conn, row[0])))
            conn.execute(
                "UPDATE corpus SET chunks = chunks - %s, tokens = tokens - %s, generation = generation + 1", (removed, tokens)
            )
            return True

    def _copies_of(self, conn: psycopg.Connection, doc_id: str) -> list[CopyRecord]:
        """The documents recorded as copies of `doc_id` (inside the caller's transaction)."""
        rows = conn.execute(
            "SELECT doc_id, source, ingested_at, meta FROM documents WHERE meta::jsonb ->> 'duplicate_of' = %s ORDER BY source",
            (doc_id,),
        ).fetchall()
        return [CopyRecord.from_meta(d, s, t, json.loads(m)) for d, s, t, m in rows]

    def _write_links(self, conn: psycopg.Connection, links: Mapping[str, str | None]) -> None:
        """Set each document's original (None: it is one), inside the caller's transaction; the changed ones only."""
        for doc_id, original in links.items():
            row = conn.execute("SELECT meta FROM documents WHERE doc_id = %s FOR UPDATE", (doc_id,)).fetchone()
            if row is None:
                continue
            meta = json.loads(row[0])
            if meta.get(DUPLICATE_OF_KEY) != original:
                set_duplicate_of(meta, original)
                conn.execute("UPDATE documents SET meta = %s WHERE doc_id = %s", (_dumps(meta), doc_id))

    def copy_records(self, grouped: bool = False) -> list[CopyRecord]:
        """Every document's `CopyRecord`, or with `grouped` only those of groups: copies and the originals they point at."""
        where = (
            " WHERE meta::jsonb ? 'duplicate_of' OR doc_id IN "
            "(SELECT meta::jsonb ->> 'duplicate_of' FROM documents WHERE meta::jsonb ? 'duplicate_of')"
        ) if grouped else ""
        with self._pool.connection() as conn:
            rows = conn.execute(f"SELECT doc_id, source, ingested_at, meta FROM documents{where} ORDER BY source").fetchall()
        return [CopyRecord.from_meta(d, s, t, json.loads(m)) for d, s, t, m in rows]

    def link_copies(self, links: Mapping[str, str | None]) -> None:
        if not links:
            return
        with self._pool.connection() as conn, conn.transaction():
            self._write_links(conn, links)
            conn.execute("UPDATE corpus SET generation = generation + 1")

    def documents(self) -> list[DocumentInfo]:
        with self._pool.connection() as conn:
            rows = conn.execute(
                f"SELECT {DOCUMENT_COLUMNS} FROM documents ORDER BY source"
            ).fetchall()
        return [document_from_row(r) for r in rows]

    def elements(self, source: str) -> list[Element]:
        with self._pool.connection() as conn:
            rows = conn.execute(
                f"SELECT {ELEMENT_COLUMNS} "
                "FROM elements e JOIN documents d ON d.doc_id = e.doc_id WHERE d.source = %s ORDER BY e.ordinal",
                (source,),
            ).fetchall()
        return [element_from_row(r) for r in rows]

    def chunks(self, source: str | None = None) -> list[Chunk]:
        query = f"SELECT {CHUNK_COLUMNS} FROM chunks"
        params: tuple[Any, ...] = ()
        if source is not None:
            query += " WHERE source = %s"
            params = (source,)
        with self._pool.connection() as conn:
            rows = conn.execute(query + " ORDER BY source, ordinal", params).fetchall()
        return [chunk_from_row(r) for r in rows]

    def get_chunks(self, chunk_ids: Sequence[str]) -> list[Chunk]:
        ids = list(chunk_ids)
        if not ids:
            return []
        with self._pool.connection() as conn:
            rows = conn.execute(f"SELECT {CHUNK_COLUMNS} FROM chunks WHERE chunk_id = ANY(%s)", (ids,)).fetchall()
        found = {r[0]: chunk_from_row(r) for r in rows}
        return [found[i] for i in ids if i in found]

    def chunk_count(self) -> int:
        """Every stored chunk, parents included (the corpus row counts only searchable ones, for BM25)."""
        with self._pool.connection() as conn:
            row = conn.execute("SELECT count(*) FROM chunks").fetchone()
        return int(row[0]) if row else 0

    def cached_vectors(self, embed_hashes: Sequence[str]) -> dict[str, np.ndarray]:
        hashes = sorted(set(embed_hashes))
        if not hashes:
            return {}
        with self._pool.connection() as conn, conn.cursor(binary=True) as cur:
            cur.execute(
                # a searchable chunk's real vector wins over a parent's blank one with the same text
                "SELECT DISTINCT ON (embed_hash) embed_hash, embedding FROM chunks WHERE embed_hash = ANY(%s) "
                "ORDER BY embed_hash, " + searchable_sql("") + " DESC", (hashes,)
            )
            return {h: _vector(v) for h, v in cur.fetchall()}

    def replace_vectors(self, vectors: Mapping[str, np.ndarray], embed_hashes: Mapping[str, str]) -> None:
        """Swap chunks' vectors in one transaction (re-embedding): the index never mixes two models.

        A new dimension retypes the column in the same transaction; it fails (and changes
        nothing) unless every chunk gets a vector of the new dimension. Many new vectors drop
        the HNSW index, which is rebuilt in one pass afterwards (searches are exact meanwhile).
        """
        if not vectors:
            return
        dimension = int(np.asarray(next(iter(vectors.values()))).size)
        with self._pool.connection() as conn, conn.transaction():
            conn.execute("LOCK TABLE chunks IN SHARE ROW EXCLUSIVE MODE")
            current = self._column_dimension(conn)
            retype = current is not None and current != dimension
            if retype or len(vectors) > 1000:
                conn.execute(f"DROP INDEX IF EXISTS {HNSW_INDEX}")
            if retype:
                conn.execute("ALTER TABLE chunks ALTER COLUMN embedding TYPE vector")
            conn.execute("CREATE TEMPORARY TABLE new_vectors (chunk_id text COLLATE \"C\", embed_hash text, embedding vector) ON COMMIT DROP")
            with conn.cursor().copy("COPY new_vectors (chunk_id, embed_hash, embedding) FROM STDIN (FORMAT BINARY)") as copy:
                copy.set_types(["text", "text", "vector"])
                for chunk_id, vector in vectors.items():
                    copy.write_row((chunk_id, embed_hashes[chunk_id], np.ascontiguousarray(vector, dtype=np.float32)))
            conn.execute(
                "UPDATE chunks c SET embedding = n.embedding, embed_hash = n.embed_hash FROM new_vectors n WHERE c.chunk_id = n.chunk_id"
            )
            conn.execute("UPDATE corpus SET generation = generation + 1")
            if retype or current is None:
                stale = conn.execute("SELECT count(*) FROM chunks WHERE vector_dims(embedding) <> %s", (dimension,)).fetchone()
                if stale and stale[0]:
                    raise ValueError(
                        f"{stale[0]} chunks would keep vectors of another dimension than {dimension}; re-embed all chunks at once"
                    )
                self._type_column(conn, dimension)
            refresh_centroids(conn, "new_vectors")  # after the check: no document averages vectors of two dimensions
        self._dimension = dimension
        self._maybe_build_index()

    # -- re-embedding beside the live vectors --------------------------------
    def staging_counts(self) -> tuple[int, int]:
        with self._pool.connection() as conn:
            row = conn.execute(f"SELECT count(*), count(*) FILTER (WHERE {_UNSTAGED}) FROM chunks").fetchone()
        total, missing = (int(row[0]), int(row[1])) if row else (0, 0)
        return total - missing, total

    def chunks_to_stage(self, limit: int | None = None) -> list[tuple[Chunk, str]]:
        with self._pool.connection() as conn:
            return self._chunks_to_stage(conn, limit)

    @staticmethod
    def _chunks_to_stage(conn: psycopg.Connection, limit: int | None) -> list[tuple[Chunk, str]]:
        rows = conn.execute(
            f"SELECT {CHUNK_COLUMNS}, embed_hash FROM chunks WHERE {_UNSTAGED} ORDER BY source, ordinal LIMIT %s", (limit,)
        ).fetchall()
        return [(chunk_from_row(r[:12]), r[12]) for r in rows]

    @staticmethod
    def _insert_staged(conn: psycopg.Connection, staged: Sequence[StagedVector]) -> None:
        with conn.cursor() as cursor:
            cursor.executemany(
                "INSERT INTO staged_vectors VALUES (%s, %s, %s, %s) ON CONFLICT (chunk_id) DO UPDATE "
                "SET live_hash = EXCLUDED.live_hash, embed_hash = EXCLUDED.embed_hash, embedding = EXCLUDED.embedding",
                [(s.chunk_id, s.live_hash, s.embed_hash, np.ascontiguousarray(s.vector, dtype=np.float32)) for s in staged],
            )

    def stage_vectors(self, staged: Sequence[StagedVector]) -> None:
        with self._pool.connection() as conn, conn.transaction():
            self._insert_staged(conn, staged)

    def discard_staged(self) -> None:
        with self._pool.connection() as conn, conn.transaction():
            conn.execute("TRUNCATE staged_vectors")
            conn.execute("DELETE FROM meta WHERE key = %s", (STAGING_META,))

    def swap_staged(self, plan: str, meta: Mapping[str, str], stage_missing: StageMissing) -> int:
        """The table lock keeps document writers (of any process) out until the commit; searches read the old
        vectors until the swap's last statements, which wait for running searches and hold new ones for the
        moments the column takes to change. The HNSW index is rebuilt afterwards (searches are exact meanwhile)."""
        with self._pool.connection() as conn, conn.transaction():
            conn.execute("LOCK TABLE chunks IN SHARE ROW EXCLUSIVE MODE")
            stored = conn.execute("SELECT value FROM meta WHERE key = %s FOR UPDATE", (STAGING_META,)).fetchone()
            if stored is None or stored[0] != plan:
                raise CollectionError(f"schema {self.schema}: the re-embed was finished or aborted by another process")
            missing = self._chunks_to_stage(conn, None)
            if missing:
                self._insert_staged(conn, stage_missing(missing))
            row = conn.execute(
                f"SELECT count(*), count(*) FILTER (WHERE {_UNSTAGED}) FROM chunks"
            ).fetchone()
            count, left = (int(row[0]), int(row[1])) if row else (0, 0)
            if left:
                raise CollectionError(f"schema {self.schema}: {left} chunks have no vector from the new embedder; nothing was switched")
            dims = conn.execute("SELECT DISTINCT vector_dims(embedding) FROM staged_vectors").fetchall()
            if len(dims) > 1:
                raise CollectionError(f"schema {self.schema}: staged vectors of {len(dims)} dimensions; abort the re-embed and start again")
            dimension = int(dims[0][0]) if dims else self._column_dimension(conn)
            conn.execute(f"DROP INDEX IF EXISTS {HNSW_INDEX}")
            if dimension is not None and self._column_dimension(conn) != dimension:
                conn.execute("ALTER TABLE chunks ALTER COLUMN embedding TYPE vector")
            conn.execute(
                "UPDATE chunks c SET embedding = s.embedding, embed_hash = s.embed_hash FROM staged_vectors s WHERE s.chunk_id = c.chunk_id"
            )
            if dimension is not None and self._column_dimension(conn) != dimension:
                self._type_column(conn, dimension)
            refresh_centroids(conn)
            with conn.cursor() as cursor:
                cursor.executemany(
                    "INSERT INTO meta (key, value) VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                    list(meta.items()),
                )
            conn.execute("TRUNCATE staged_vectors")
            conn.execute("DELETE FROM meta WHERE key = %s", (STAGING_META,))
            conn.execute("UPDATE corpus SET generation = generation + 1")
        self._dimension = dimension
        with self._pool.connection() as conn:  # every chunk row was rewritten: reclaim the old versions, refresh statistics
            conn.commit()
            conn.autocommit = True
            try:
                conn.execute("VACUUM (ANALYZE) chunks")
            finally:
                conn.autocommit = False
        self._maybe_build_index()
        return count

    # -- vector column ------------------------------------------------------
    def _type_column(self, conn: psycopg.Connection, dimension: int) -> None:
        conn.execute(f"DROP INDEX IF EXISTS {HNSW_INDEX}")
        conn.execute(sql.SQL("ALTER TABLE chunks ALTER COLUMN embedding TYPE vector({})").format(sql.Literal(dimension)))

    def _maybe_build_index(self) -> None:
        if not self._bulk and self.chunk_count() > self.exact_below and not self.has_index():
            self.build_index()

    def build_index(self) -> None:
        """Build the HNSW index (cosine) in one pass; writers wait, readers go on searching exactly."""
        with self._pool.connection() as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s, 0)", (DOCUMENT_NAMESPACE,))
            if conn.execute("SELECT to_regclass(%s) IS NOT NULL", (HNSW_INDEX,)).fetchone()[0]:  # type: ignore[index]
                return
            if self._column_dimension(conn) is None:
                return  # no vectors yet
            conn.execute("SELECT set_config('maintenance_work_mem', %s, true)", (self.index_memory,))
            conn.execute(f"CREATE INDEX {HNSW_INDEX} ON chunks USING hnsw (embedding vector_cosine_ops)")

    def _ensure_dimension(self, dimension: int) -> None:
        """Type the vector column and build its HNSW index when the first vectors arrive.

        An empty collection may change dimension (a new embedder); a filled one refuses,
        as its vectors could not be compared with the new ones.
        """
        if self._dimension == dimension:
            return
        with self._pool.connection() as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s, 0)", (DOCUMENT_NAMESPACE,))
            current = self._column_dimension(conn)
            if current != dimension:
                if conn.execute("SELECT EXISTS (SELECT 1 FROM chunks)").fetchone()[0]:  # type: ignore[index]
                    raise ValueError(f"the collection holds {current}-dimensional vectors; these have {dimension}")
                self._type_column(conn, dimension)
        self._dimension = dimension

