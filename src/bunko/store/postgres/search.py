"""The PostgreSQL store's search: pgvector cosine, BM25 in SQL over the postings, filters compiled to WHERE, the entity graph."""


from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import psycopg
from psycopg import sql
from psycopg_pool import ConnectionPool

from bunko.index.bm25_formula import idf, sql_term_score
from bunko.index.filters import validate_filter
from bunko.index.graph import EntityGraph
from bunko.index.memory import SIMILAR_CHUNKS
from bunko.schema import DocumentMatch
from bunko.store.graph_sync import DOCUMENT_VERSIONS, sync_graph
from bunko.store.postgres.base import _SEARCHABLE, _query_vector, _vector
from bunko.store.postgres.sql_filters import FilterCompiler, field_names, known_fields_from
from bunko.store.rows import mentions_from_columns
from bunko.store.search_fallbacks import SearchFallbacks
from bunko.store.store_reads import StoreReads
from bunko.text.entities import Mention
from bunko.text.languages import tokens_language

if TYPE_CHECKING:
    from bunko.store.postgres.store import PostgresStore

_KEYWORD_SQL = (
    """
WITH q AS (SELECT DISTINCT t AS term FROM unnest(%(terms)s::text[]) AS t),
p AS MATERIALIZED (SELECT p.term, p.chunk, p.tf, p.dl FROM postings p JOIN q ON p.term = q.term),
df AS (SELECT term, count(*)::float8 AS df FROM p GROUP BY term),
s AS (SELECT chunks::float8 AS n, CASE WHEN tokens > 0 THEN tokens::float8 / chunks ELSE 1.0 END AS avgdl FROM corpus),
scored AS (
    SELECT p.chunk,
           sum("""
    + sql_term_score(tf="p.tf", df="df.df", n="s.n", doc_len="p.dl", avg_len="s.avgdl")
    + """) AS score
    FROM p JOIN df ON df.term = p.term CROSS JOIN s
    GROUP BY p.chunk
)
SELECT c.chunk_id, scored.score FROM scored JOIN chunks c ON c.id = scored.chunk
WHERE {where}
ORDER BY scored.score DESC, c.doc_id, c.ordinal
LIMIT %(k)s
"""
)

_DOCUMENT_KEYWORD_SQL = (
    """
WITH q AS (SELECT DISTINCT t AS term FROM unnest(%(terms)s::text[]) AS t),
p AS MATERIALIZED (
    SELECT p.term, c.doc_id, sum(p.tf)::float8 AS tf
    FROM postings p JOIN q ON p.term = q.term JOIN chunks c ON c.id = p.chunk
    GROUP BY p.term, c.doc_id
),
df AS (SELECT term, count(*)::float8 AS df FROM p GROUP BY term),
dl AS (SELECT c.doc_id, sum(c.dl)::float8 AS dl FROM chunks c WHERE c.doc_id IN (SELECT DISTINCT doc_id FROM p) GROUP BY c.doc_id),
s AS (
    SELECT d.n, CASE WHEN corpus.tokens > 0 AND d.n > 0 THEN corpus.tokens::float8 / d.n ELSE 1.0 END AS avgdl
    FROM corpus CROSS JOIN (SELECT count(*)::float8 AS n FROM documents WHERE chunk_count > 0) d
),
scored AS (
    SELECT p.doc_id,
           sum("""
    + sql_term_score(tf="p.tf", df="df.df", n="s.n", doc_len="dl.dl", avg_len="s.avgdl")
    + """) AS score
    FROM p JOIN df ON df.term = p.term JOIN dl ON dl.doc_id = p.doc_id CROSS JOIN s
    GROUP BY p.doc_id
)
SELECT scored.doc_id, scored.score FROM scored
WHERE {documents} AND EXISTS (SELECT 1 FROM chunks c WHERE c.doc_id = scored.doc_id AND {where} AND """
    + _SEARCHABLE
    + """)
ORDER BY scored.score DESC, scored.doc_id
LIMIT %(k)s
"""
)
"""Document-level BM25: a document's term frequencies and length are its chunks' sums, as the local store's document index."""

_OPENING_TOTALS_SQL = "SELECT count(DISTINCT doc_id), coalesce(sum(dl), 0) FROM chunks WHERE opening"
"""The openings' count and summed length (an index-only scan of `chunks_openings`), kept per generation."""

_OPENING_KEYWORD_SQL = (
    """
WITH q AS (SELECT DISTINCT t AS term FROM unnest(%(terms)s::text[]) AS t),
p AS MATERIALIZED (
    SELECT p.term, c.doc_id, sum(p.tf)::float8 AS tf
    FROM postings p JOIN q ON p.term = q.term JOIN chunks c ON c.id = p.chunk
    WHERE c.opening
    GROUP BY p.term, c.doc_id
),
df AS (SELECT term, count(*)::float8 AS df FROM p GROUP BY term),
dl AS (SELECT doc_id, sum(dl)::float8 AS dl FROM chunks WHERE opening AND doc_id = ANY(%(docs)s::text[]) GROUP BY doc_id)
SELECT p.doc_id, sum("""
    + sql_term_score(tf="p.tf", df="df.df", n="%(n)s", doc_len="dl.dl", avg_len="%(avgdl)s")
    + """) AS score
FROM p JOIN df ON df.term = p.term JOIN dl ON dl.doc_id = p.doc_id
WHERE p.doc_id = ANY(%(docs)s::text[])
GROUP BY p.doc_id
"""
)
"""BM25 over every document's opening (its first OPENING_CHUNKS searchable chunks, flagged `opening` when written) as
one text, with the openings' own document count and average length (`n`, `avgdl`: `_OPENING_TOTALS_SQL`), as the local
store's opening index."""


DOCUMENTS_KEPT = 20_000
"""Documents whose centroid and language are kept between queries (40 MB of 512-d centroids); past it they are read again."""


class PostgresSearch(StoreReads["PostgresStore"], SearchFallbacks):
    """`SearchBackend` in SQL: every search one query or transaction over the store's pool. Translations, document
    languages, the term matrix and hybrid search are the shared fallbacks', over each document's centroid and language
    stored when it was written (`document_facts`) and kept per generation."""

    def __init__(self, store: PostgresStore) -> None:
        super().__init__(store)
        self._compiler = FilterCompiler("c")
        self._graph = EntityGraph()
        self._graph_generation = -1
        self._graph_lock = threading.Lock()
        self._opening_totals_of: tuple[int, float, float] | None = None
        """(generation, openings' count, their average length): `_opening_totals`."""
        self._kept_at = -1
        self._kept_facts: dict[str, dict[str, Any]] = {}
        """Per kind (centroids, languages), what is known of documents at generation `_kept_at`: `_kept`."""

    @property
    def _pool(self) -> ConnectionPool:
        return self._store._pool

    @property
    def exact_below(self) -> int:
        return self._store.exact_below

    @property
    def ef_search(self) -> int:
        return self._store.ef_search

    def _column_dimension(self, conn: psycopg.Connection) -> int | None:
        return self._store._column_dimension(conn)

    def has_index(self) -> bool:
        return self._store.has_index()

    def document_centroids(self, docs: Sequence[str]) -> tuple[list[str], np.ndarray]:
        """Read as every write stored them (`document_facts`: pgvector's `avg` of the searchable chunks' vectors, kept
        by each write, delete and re-embed) and kept for the generation, as the local index keeps its own: no
        document's chunks are read or averaged at query time."""
        wanted = list(dict.fromkeys(docs))
        known = self._kept("centroids")
        missing = [doc for doc in wanted if doc not in known]
        if missing:
            with self._pool.connection() as conn:
                rows = conn.execute("SELECT doc_id, centroid FROM document_facts WHERE doc_id = ANY(%s::text[])", (missing,)).fetchall()
            for doc_id, mean in rows:
                vector = _vector(mean)
                norm = float(np.linalg.norm(vector))
                known[doc_id] = vector / norm if norm > 0 else vector
        present = [doc for doc in wanted if doc in known]
        if not present:
            return [], np.zeros((0, 0), dtype=np.float32)
        return present, np.vstack([known[doc] for doc in present]).astype(np.float32)

    def _kept(self, kind: str) -> dict[str, Any]:
        """What is kept of documents for the current generation (a new one when it moves, or past DOCUMENTS_KEPT)."""
        generation = self.generation()
        if self._kept_at != generation:
            self._kept_at, self._kept_facts = generation, {}
        kept = self._kept_facts.setdefault(kind, {})
        if len(kept) > DOCUMENTS_KEPT:  # replaced, not emptied: a query holding the old one reads it whole
            kept = self._kept_facts[kind] = {}
        return kept

    def document_language_indexes(self, docs: Sequence[str]) -> dict[str, int]:
        """The shared judgement, made when the document was written (`document_facts`) and kept for the generation:
        no document's chunk tokens are read at query time."""
        known = self._kept("languages")
        missing = [doc for doc in dict.fromkeys(docs) if doc not in known]
        if missing:
            with self._pool.connection() as conn:
                rows = conn.execute("SELECT doc_id, language FROM document_facts WHERE doc_id = ANY(%s::text[])", (missing,)).fetchall()
            known.update((doc_id, int(language)) for doc_id, language in rows)
        return {doc: known[doc] for doc in docs if doc in known}

    def document_chunk_ids(self, doc_ids: Sequence[str]) -> dict[str, list[str]]:
        docs = list(dict.fromkeys(doc_ids))
        if not docs:
            return {}
        with self._pool.connection() as conn:
            rows = conn.execute(
                "SELECT doc_id, chunk_id FROM chunks c WHERE doc_id = ANY(%s::text[]) AND " + _SEARCHABLE + " ORDER BY doc_id, ordinal",
                (docs,),
            ).fetchall()
        members: dict[str, list[str]] = {}
        for doc_id, chunk_id in rows:
            members.setdefault(doc_id, []).append(chunk_id)
        return members

    # -- search -------------------------------------------------------------
    def _where(self, conn: psycopg.Connection, where: Mapping[str, Any] | None) -> sql.Composable | None:
        """Validate a filter against this collection's fields (as the local store does) and translate it."""
        validate_filter(where)  # its form first: a malformed filter costs no query
        extra = field_names(where) - set(known_fields_from(set()))
        present = set()
        for name in sorted(extra):
            row = conn.execute("SELECT EXISTS (SELECT 1 FROM chunks WHERE attrs ? %s)", (name,)).fetchone()
            if row and row[0]:
                present.add(name)
        return self._compiler.where(where, known_fields_from(present))

    def filter_fields(self) -> set[str]:
        with self._pool.connection() as conn:
            rows = conn.execute("SELECT DISTINCT jsonb_object_keys(attrs) FROM chunks").fetchall()
        return known_fields_from({r[0] for r in rows})

    def dense_search(self, vector: np.ndarray, k: int, where: Mapping[str, Any] | None = None) -> list[tuple[str, float]]:
        query = _query_vector(vector)
        with self._pool.connection() as conn, conn.transaction():
            condition = self._where(conn, where)
            if k <= 0:
                return []
            total = self.chunk_count_in(conn)
            if total == 0:
                return []
            dimension = self._column_dimension(conn)
            if dimension is not None and query.shape[0] != dimension:
                raise ValueError(f"query vector has dimension {query.shape[0]}, the collection {dimension}")
            rows: list[tuple[Any, ...]] = []
            if total > self.exact_below:
                conn.execute("SELECT set_config('hnsw.ef_search', %s, true)", (str(min(1000, max(self.ef_search, 2 * k))),))
                rows = self._dense_rows(conn, query, k, condition, exact=False)
            if len(rows) < k:
                rows = self._dense_rows(conn, query, k, condition, exact=True)
        rows.sort(key=lambda r: (-r[1], r[2], r[3]))
        return [(r[0], r[1]) for r in rows]

    def _dense_rows(
        self, conn: psycopg.Connection, query: np.ndarray, k: int, condition: sql.Composable | None, exact: bool,
    ) -> list[tuple[Any, ...]]:
        """One query; `exact` orders by an expression the index cannot serve, so every matching row is ranked."""
        order = sql.SQL("(c.embedding <=> %(q)s) + 0" if exact else "c.embedding <=> %(q)s")
        statement = sql.SQL(
            "SELECT c.chunk_id, 1 - (c.embedding <=> %(q)s), c.doc_id, c.ordinal FROM chunks c "
            "WHERE {} AND " + _SEARCHABLE + " ORDER BY {} LIMIT %(k)s"
        ).format(condition or sql.SQL("TRUE"), order)
        return conn.execute(statement, {"q": query, "k": k}).fetchall()

    @staticmethod
    def chunk_count_in(conn: psycopg.Connection) -> int:
        row = conn.execute("SELECT chunks FROM corpus").fetchone()
        return int(row[0]) if row else 0

    def keyword_search(self, tokens: Sequence[str], k: int, where: Mapping[str, Any] | None = None) -> list[tuple[str, float]]:
        with self._pool.connection() as conn:
            condition = self._where(conn, where)
            terms = sorted(set(tokens))
            if not terms or k <= 0:
                return []
            statement = sql.SQL(_KEYWORD_SQL).format(where=condition or sql.SQL("TRUE"))
            rows = conn.execute(statement, {"terms": terms, "k": k}).fetchall()
        return [(r[0], float(r[1])) for r in rows]

    def document_keyword_search(
        self, tokens: Sequence[str], k: int, where: Mapping[str, Any] | None = None, vector: np.ndarray | None = None
    ) -> list[DocumentMatch]:
        terms = sorted(set(tokens))
        if not terms or k <= 0:
            return []
        with self._pool.connection() as conn, conn.transaction():
            condition = self._where(conn, where) or sql.SQL("TRUE")
            documents = self._document_rows(conn, terms, condition, sql.SQL("TRUE"), {"k": k})
            best = self._best_chunks(conn, [doc_id for doc_id, _ in documents], terms, condition, vector)
        return [DocumentMatch(doc_id, score, best[doc_id]) for doc_id, score in documents if doc_id in best]

    def document_similarities(self, chunk_ids: Sequence[str], vector: np.ndarray) -> dict[str, float]:
        """The mean cosine of each chunk's document's SIMILAR_CHUNKS searchable chunks closest to `vector`."""
        def closest_chunks(conn: psycopg.Connection, docs: list[str]) -> dict[str, float]:
            return dict(conn.execute(
                "SELECT doc_id, avg(similarity) FROM ("
                " SELECT c.doc_id, 1 - (c.embedding <=> %(q)s) AS similarity,"
                " row_number() OVER (PARTITION BY c.doc_id ORDER BY c.embedding <=> %(q)s, c.ordinal) AS place"
                " FROM chunks c WHERE c.doc_id = ANY(%(docs)s::text[]) AND " + _SEARCHABLE + ") ranked "
                "WHERE place <= %(top)s GROUP BY doc_id",
                {"q": _query_vector(vector), "docs": docs, "top": SIMILAR_CHUNKS},
            ).fetchall())

        return self._by_chunk_document(chunk_ids, closest_chunks)

    def document_opening_similarities(self, chunk_ids: Sequence[str], vector: np.ndarray) -> dict[str, float]:
        """The mean cosine of each chunk's document's opening chunks (flagged `opening` when written) with `vector`."""
        def opening_chunks(conn: psycopg.Connection, docs: list[str]) -> dict[str, float]:
            return dict(conn.execute(
                "SELECT doc_id, avg(1 - (embedding <=> %(q)s)) FROM chunks WHERE opening AND doc_id = ANY(%(docs)s::text[]) "
                "GROUP BY doc_id",
                {"q": _query_vector(vector), "docs": docs},
            ).fetchall())

        return self._by_chunk_document(chunk_ids, opening_chunks)

    def chunk_languages(self, chunk_ids: Sequence[str]) -> dict[str, str]:
        ids = list(dict.fromkeys(chunk_ids))
        if not ids:
            return {}
        with self._pool.connection() as conn:
            rows = conn.execute(
                "SELECT chunk_id, tokens FROM chunks c WHERE chunk_id = ANY(%s::text[]) AND " + _SEARCHABLE, (ids,)
            ).fetchall()
        return {chunk_id: tokens_language(tokens) for chunk_id, tokens in rows}

    def document_keyword_scores(self, chunk_ids: Sequence[str], tokens: Sequence[str]) -> dict[str, float]:
        terms = sorted(set(tokens))

        def whole_documents(conn: psycopg.Connection, docs: list[str]) -> dict[str, float]:
            scores = dict(self._document_rows(
                conn, terms, sql.SQL("TRUE"), sql.SQL("scored.doc_id = ANY(%(docs)s::text[])"), {"k": len(docs), "docs": docs},
            ))
            return {doc_id: scores.get(doc_id, 0.0) for doc_id in docs}

        return self._by_chunk_document(chunk_ids, whole_documents) if terms else {}

    def document_opening_keyword_scores(self, chunk_ids: Sequence[str], tokens: Sequence[str]) -> dict[str, float]:
        terms = sorted(set(tokens))

        def openings(conn: psycopg.Connection, docs: list[str]) -> dict[str, float]:
            count, avgdl = self._opening_totals(conn)
            rows = conn.execute(_OPENING_KEYWORD_SQL, {"terms": terms, "docs": docs, "n": count, "avgdl": avgdl}).fetchall()
            scores = {doc_id: float(score) for doc_id, score in rows}
            return {doc_id: scores.get(doc_id, 0.0) for doc_id in docs}

        return self._by_chunk_document(chunk_ids, openings) if terms else {}

    def _opening_totals(self, conn: psycopg.Connection) -> tuple[float, float]:
        """The number of documents' openings and their average length, read once per generation (a scan of two index
        entries per document) instead of by every topic query. The generation is read first, so totals read after a
        newer write are filed under the older generation and read again."""
        row = conn.execute("SELECT generation FROM corpus").fetchone()
        generation = int(row[0]) if row else 0
        known = self._opening_totals_of
        if known is not None and known[0] == generation:
            return known[1], known[2]
        count, length = conn.execute(_OPENING_TOTALS_SQL).fetchone() or (0, 0)
        totals = float(count), float(length) / count if count and length else 1.0
        self._opening_totals_of = (generation, *totals)
        return totals

    def _by_chunk_document(
        self, chunk_ids: Sequence[str], score_documents: Callable[[psycopg.Connection, list[str]], dict[str, float]],
    ) -> dict[str, float]:
        """Each searchable chunk's document's score, the chunks' documents scored in one transaction by
        `score_documents(conn, doc_ids)`; a chunk whose document it leaves out is left out."""
        ids = list(dict.fromkeys(chunk_ids))
        if not ids:
            return {}
        with self._pool.connection() as conn, conn.transaction():
            doc_of: dict[str, str] = dict(conn.execute(
                "SELECT chunk_id, doc_id FROM chunks c WHERE chunk_id = ANY(%s::text[]) AND " + _SEARCHABLE, (ids,)
            ).fetchall())
            scores = score_documents(conn, sorted(set(doc_of.values())))
        return {chunk_id: float(scores[doc_id]) for chunk_id, doc_id in doc_of.items() if doc_id in scores}

    @staticmethod
    def _document_rows(
        conn: psycopg.Connection, terms: list[str], condition: sql.Composable, documents: sql.Composable, params: dict[str, Any]
    ) -> list[tuple[str, float]]:
        statement = sql.SQL(_DOCUMENT_KEYWORD_SQL).format(where=condition, documents=documents)
        return [(r[0], float(r[1])) for r in conn.execute(statement, {"terms": terms, **params}).fetchall()]

    def _best_chunks(
        self, conn: psycopg.Connection, doc_ids: list[str], terms: list[str], condition: sql.Composable, vector: np.ndarray | None
    ) -> dict[str, str]:
        """Each document's allowed chunk closest to `vector`, or best by BM25 without one; ties and no-match go to the first."""
        if not doc_ids:
            return {}
        best: dict[str, str] = {}
        in_documents = sql.SQL("c.doc_id = ANY(%(docs)s::text[]) AND {}").format(condition)
        if vector is not None:
            statement = sql.SQL(
                "SELECT DISTINCT ON (c.doc_id) c.doc_id, c.chunk_id FROM chunks c WHERE {} AND " + _SEARCHABLE
                + " ORDER BY c.doc_id, c.embedding <=> %(q)s, c.ordinal"
            ).format(in_documents)
            query = _query_vector(vector)
            return dict(conn.execute(statement, {"docs": doc_ids, "q": query}).fetchall())
        statement = sql.SQL(_KEYWORD_SQL.replace("LIMIT %(k)s", "")).format(where=in_documents)
        ranked = conn.execute(statement, {"terms": terms, "docs": doc_ids}).fetchall()
        doc_of: dict[str, str] = dict(conn.execute("SELECT chunk_id, doc_id FROM chunks WHERE chunk_id = ANY(%s::text[])", ([r[0] for r in ranked],)).fetchall())
        for chunk_id, _ in ranked:
            best.setdefault(doc_of[chunk_id], chunk_id)
        first = sql.SQL(
            "SELECT DISTINCT ON (c.doc_id) c.doc_id, c.chunk_id FROM chunks c WHERE {} AND " + _SEARCHABLE + " ORDER BY c.doc_id, c.ordinal"
        ).format(in_documents)
        for doc_id, chunk_id in conn.execute(first, {"docs": [d for d in doc_ids if d not in best]}).fetchall():
            best[doc_id] = chunk_id
        return best

    def term_weights(self, tokens: Sequence[str]) -> dict[str, float]:
        """BM25 idf per distinct token; a token the corpus lacks gets the idf of df = 0."""
        terms = sorted(set(tokens))
        with self._pool.connection() as conn:
            n = float(self.chunk_count_in(conn))
            df: dict[str, int] = dict(conn.execute(
                "SELECT term, count(*) FROM postings WHERE term = ANY(%s::text[]) GROUP BY term", (terms,)
            ).fetchall()) if terms else {}
        return {t: float(idf(float(df.get(t, 0)), n)) for t in terms}

    def matching_terms(self, chunk_ids: Sequence[str], tokens: Sequence[str]) -> dict[str, set[str]]:
        ids, terms = list(dict.fromkeys(chunk_ids)), sorted(set(tokens))
        if not ids:
            return {}
        with self._pool.connection() as conn:
            rows = conn.execute(
                "SELECT chunk_id, ARRAY(SELECT DISTINCT t FROM unnest(tokens) AS t WHERE t = ANY(%s::text[])) "
                "FROM chunks WHERE chunk_id = ANY(%s::text[])", (terms, ids),
            ).fetchall()
        return {chunk_id: set(found) for chunk_id, found in rows}

    def vectors_for(self, chunk_ids: Sequence[str]) -> np.ndarray:
        """Stored vectors of the given chunks, in the order asked (for MMR); a zero row for a chunk no longer stored."""
        ids = list(chunk_ids)
        if not ids:
            return np.zeros((0, 0), dtype=np.float32)
        with self._pool.connection() as conn, conn.cursor(binary=True) as cur:
            cur.execute("SELECT chunk_id, embedding FROM chunks WHERE chunk_id = ANY(%s)", (ids,))
            found = {cid: _vector(v) for cid, v in cur.fetchall()}
            width = len(next(iter(found.values()))) if found else (self._column_dimension(conn) or 0)
        zero = np.zeros(width, dtype=np.float32)  # a chunk deleted since a search picked it: cosine 0
        return np.vstack([found.get(cid, zero) for cid in ids]).astype(np.float32)

    def chunk_documents(self, chunk_ids: Sequence[str]) -> dict[str, str]:
        ids = list(chunk_ids)
        if not ids:
            return {}
        with self._pool.connection() as conn:
            rows = conn.execute("SELECT chunk_id, doc_id FROM chunks c WHERE chunk_id = ANY(%s::text[]) AND " + _SEARCHABLE, (ids,)).fetchall()
        return dict(rows)

    def index_stats(self) -> dict[str, Any]:
        """What the dense index is: pgvector's HNSW once the collection outgrows exact search, exact before."""
        return {"dense_index": "pgvector-hnsw" if self.has_index() else "exact", "exact_below": self.exact_below}

    # -- entity graph -------------------------------------------------------
    def entity_graph(self) -> EntityGraph:
        """Synced in one repeatable-read transaction, so the versions and the rows read are one snapshot."""
        with self._graph_lock:
            generation = self.generation()
            if self._graph_generation != generation:
                with self._pool.connection() as conn, conn.transaction():
                    conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                    sync_graph(self._graph, conn.execute(DOCUMENT_VERSIONS), lambda doc_ids: self._entity_rows(conn, doc_ids))
                self._graph_generation = generation
            return self._graph

    @staticmethod
    def _entity_rows(conn: psycopg.Connection, doc_ids: list[str]) -> Iterator[tuple[str, str, list[str]]]:
        rows = conn.execute(
            "SELECT doc_id, chunk_id, entities FROM chunks c WHERE doc_id = ANY(%s::text[]) AND " + _SEARCHABLE
            + " ORDER BY doc_id, ordinal",
            (doc_ids,),
        )
        for doc_id, chunk_id, keys in rows:
            yield doc_id, chunk_id, list(keys)

    def mentions(self, chunk_ids: Sequence[str]) -> dict[str, list[Mention]]:
        ids = list(dict.fromkeys(chunk_ids))
        with self._pool.connection() as conn:
            rows = conn.execute("SELECT chunk_id, entities, entity_spans, text FROM chunks WHERE chunk_id = ANY(%s::text[])", (ids,)).fetchall()
        return {chunk_id: mentions_from_columns(list(keys), spans, text) for chunk_id, keys, spans, text in rows}

    def allowed_chunks(self, chunk_ids: Sequence[str], where: Mapping[str, Any]) -> set[str]:
        ids = list(dict.fromkeys(chunk_ids))
        with self._pool.connection() as conn, conn.transaction():
            condition = self._where(conn, where)
            statement = sql.SQL("SELECT c.chunk_id FROM chunks c WHERE c.chunk_id = ANY(%s::text[]) AND {} AND " + _SEARCHABLE).format(
                condition or sql.SQL("TRUE")
            )
            return {row[0] for row in conn.execute(statement, (ids,))}

