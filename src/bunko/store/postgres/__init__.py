"""The PostgreSQL + pgvector store: the local store's behaviour, shared by many processes and machines.

* One document's ingest is one transaction (its row, elements, chunks with
  vectors, keyword postings and the corpus totals), taken under a
  transaction-level advisory lock on the document, so two writers of the same
  document serialise and never leave two copies.
* Dense search is cosine distance over a pgvector column with an HNSW index;
  small collections (and filtered queries the index cannot fill) are searched
  exactly, so a filtered search returns k hits whenever k rows match. The
  index is built when a collection outgrows exact search (building it once is
  ~10x cheaper than inserting into it row by row), and after a `bulk_load`.
* Keyword search is BM25 computed in SQL over a postings table with the
  formula of `bunko.index.bm25_formula` (its `sql_term_score`: Lucene idf, k1, b,
  each distinct query term once), over the same analyzer tokens the local store indexes.
* Filters are translated to SQL by `postgres/sql_filters.py` and applied in those queries.
* Jobs carry their writer's id; a live writer holds a session advisory lock on
  it, so `fail_unfinished_jobs` fails only jobs whose writer is gone, not
  those of another process ingesting right now.

PostgreSQL text cannot hold NUL characters; they are stored as U+FFFD.
"""

from bunko.store.postgres.base import filter_record
from bunko.store.postgres.store import PostgresStore

__all__ = ["PostgresStore", "filter_record"]
