"""A SQL source reading a PostgreSQL table (pgserver's, like the store tests), synced into a PostgreSQL-backed
collection: rows added, changed and deleted reach every index of that store too. Here rather than in
tests/ingest because the PostgreSQL server fixture is this folder's."""

from __future__ import annotations

from pathlib import Path

from bunko import Bunko, Config
from bunko.schema import JobStatus


def test_sql_source_on_postgres_syncs_rows_into_a_postgres_store(
    tmp_path: Path, embedder, pg_dsn: str, pg_schema: str, pg_store_dsn: str, present, gone,
) -> None:
    import psycopg

    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {pg_schema}")
        conn.execute(f"CREATE TABLE {pg_schema}.articles (id int PRIMARY KEY, title text, body text, updated date)")
        conn.execute(f"INSERT INTO {pg_schema}.articles VALUES "
                     "(1, 'Zebracorn', 'The zebracorn protocol uses port 4711.', '2026-01-02'), "
                     "(2, '経費', '経費の精算期限は三十日以内です。', '2026-01-03')")
    kb = Bunko(tmp_path / ".bunko", config=Config(store=pg_store_dsn), embedder=embedder)
    try:
        kb.sources.add("articles", {"type": "sql", "url": pg_dsn, "table": f"{pg_schema}.articles", "title_column": "title",
                                   "field_columns": ["updated"]})
        [first] = kb.sources.sync()
        assert first.ok and first.count(JobStatus.READY) == 2
        assert {d.source: d.title for d in kb.documents()} == {"articles:1": "Zebracorn", "articles:2": "経費"}

        expense_chunks = [c.chunk_id for c in kb.chunks("articles:2")]
        with psycopg.connect(pg_dsn, autocommit=True) as conn:
            conn.execute(f"UPDATE {pg_schema}.articles SET body = 'The quokkaline protocol uses port 9000.' WHERE id = 1")
            conn.execute(f"DELETE FROM {pg_schema}.articles WHERE id = 2")
            conn.execute(f"INSERT INTO {pg_schema}.articles VALUES (3, '年假', '年假申请需要提前五天提交。', '2026-01-04')")
        [second] = kb.sources.sync()
        assert sorted(j.source for j in second.jobs if j.status == JobStatus.READY) == ["articles:1", "articles:3"]
        assert second.deleted == ["articles:2"]
        gone(kb, "articles:2", "精算期限", expense_chunks)
        present(kb, "articles:1", "quokkaline")
        present(kb, "articles:3", "年假申请")
    finally:
        kb.close()
