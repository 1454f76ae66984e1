"""`bunko migrate`: local → PostgreSQL → local keeps every row, vector and answer, and re-embeds nothing."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from bunko import Bunko, Config
from bunko.cli import app
from bunko.errors import CollectionError
from bunko.store.migrate import migrate_collection


class NoEmbedder:
    """Fails on use: a migration must not embed anything."""

    name = "use-m3"
    dimension = 512

    def embed(self, texts):  # pragma: no cover - reaching it is the failure
        raise AssertionError("migrate re-embedded")


def snapshot(kb: Bunko, query_vector: np.ndarray) -> dict:
    store = kb.store
    return {
        "documents": [(d.doc_id, d.source, d.title, d.content_hash, d.chunk_count, d.ingested_at, d.meta) for d in kb.documents()],
        "elements": {d.source: kb.elements(d.source) for d in kb.documents()},
        "chunks": kb.chunks(),
        "jobs": [(j.job_id, j.status, j.created_at, j.timings) for j in kb.jobs(all_runs=True)],
        "last_run": store.last_run_id(),
        "meta": (store.get_meta("embedder"), store.get_meta("dimension")),
        "dense": [(cid, round(s, 5)) for cid, s in store.search().dense_search(query_vector, 8, {"source": {"$glob": "*-ja.md"}})],
        "keyword": [(cid, round(s, 4)) for cid, s in store.search().keyword_search(kb.analyzer("婚假 宿泊費 invoice"), 8)],
    }


def test_round_trip_local_postgres_local(tmp_path: Path, embedder, samples_dir: Path, pg_store_dsn: str) -> None:
    path = tmp_path / ".bunko"
    kb = Bunko(path, embedder=embedder)
    kb.ingest(samples_dir)
    answer = kb.ask("婚假有几天？")
    query_vector = embedder.embed(["出張の宿泊費"])[0]
    before = snapshot(kb, query_vector)
    kb.close()

    report = migrate_collection(path, pg_store_dsn)
    assert (report.documents, report.jobs, report.traces, report.switched) == (12, len(before["jobs"]), 1, True)
    assert Config.load(path / "bunko.toml").store == pg_store_dsn
    remote = Bunko(path, embedder=NoEmbedder())  # type: ignore[arg-type]
    assert remote.store.__class__.__name__ == "PostgresStore"
    assert snapshot(remote, query_vector) == before
    assert remote.trace(answer.trace_id)["answer"]["text"] == answer.text
    remote.close()

    with pytest.raises(CollectionError, match="already holds"):
        migrate_collection(path, "local")  # the old local copy is still there
    report = migrate_collection(path, "local", replace=True)
    assert report.documents == 12 and Config.load(path / "bunko.toml").store == "local"
    back = Bunko(path, embedder=embedder)
    assert snapshot(back, query_vector) == before
    assert back.ask("婚假有几天？").text == answer.text
    back.close()


def test_vectors_and_tokens_are_copied_bit_for_bit(tmp_path: Path, embedder, samples_dir: Path, pg_store_dsn: str) -> None:
    from bunko.store.migrate import open_endpoint

    path = tmp_path / ".bunko"
    Bunko(path, embedder=embedder).ingest(samples_dir / "leave-policy-zh.md")
    source = open_endpoint("local", path)
    local_docs = list(source.export_documents())
    source.close()
    migrate_collection(path, pg_store_dsn, switch=False)
    assert Config.load(path / "bunko.toml").store == "local"
    target = open_endpoint(pg_store_dsn, path)
    remote_docs = list(target.export_documents())
    target.close()
    assert len(local_docs) == len(remote_docs) == 1
    (ldoc, lhash, lat, lchunks), (rdoc, rhash, rat, rchunks) = local_docs[0], remote_docs[0]
    assert (ldoc, lhash, lat) == (rdoc, rhash, rat)
    for a, b in zip(lchunks, rchunks, strict=True):
        assert (a.chunk, a.tokens, a.embed_hash) == (b.chunk, b.tokens, b.embed_hash)
        assert a.vector.tobytes() == b.vector.tobytes()


def test_cli_migrate(tmp_path: Path, embedder, pg_store_dsn: str) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# 経費\n\n経費精算は三十日以内に行います。\n", encoding="utf-8")
    path = tmp_path / ".bunko"
    Bunko(path, embedder=embedder).ingest(docs)
    runner = CliRunner()
    result = runner.invoke(app, ["migrate", "--to", pg_store_dsn, "-c", str(path), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert (report["documents"], report["chunks"], report["switched"]) == (1, 1, True)
    result = runner.invoke(app, ["docs", "-c", str(path), "--json"])
    assert [d["source"] for d in json.loads(result.output)] == ["docs/a.md"]
    result = runner.invoke(app, ["migrate", "--to", pg_store_dsn, "-c", str(path)])
    assert result.exit_code == 2 and "already uses" in result.stderr
