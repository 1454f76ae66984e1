"""`bunko ingest --engine ray` into a PostgreSQL-backed collection (the README's cluster setup, on one machine):
the same documents and chunks as the local engine writes into the local store. Ray runs under `unshare -n` as in
tests/ingest/test_ray_engine.py; the PostgreSQL server is reached over its Unix socket, which a network
namespace does not hide."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bunko import Bunko, Config
from bunko.schema import JobStatus

pytest.importorskip("ray")
pytestmark = pytest.mark.slow
SRC = Path(__file__).resolve().parents[2] / "src"


def test_ray_ingest_into_postgres_matches_the_local_engine(tmp_path: Path, embedder, samples_dir: Path, pg_store_dsn: str) -> None:
    if shutil.which("unshare") is None or subprocess.run(["unshare", "-n", "sh", "-c", "ip link set lo up"], capture_output=True).returncode:
        pytest.skip("unshare -n (with ip) is not permitted here; Ray needs a loopback-only network namespace")
    if "host=/" not in pg_store_dsn and "@/" not in pg_store_dsn and "%2F" not in pg_store_dsn:
        pytest.skip("the PostgreSQL server is not on a Unix socket, which the network namespace could reach")
    docs = tmp_path / "docs"
    shutil.copytree(samples_dir, docs)
    (tmp_path / "pg.bunko").mkdir()
    Config(store=pg_store_dsn).save(tmp_path / "pg.bunko" / "bunko.toml")
    command = ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$@"', "sh", sys.executable, "-m", "bunko",
               "ingest", "docs", "-c", "pg.bunko", "--engine", "ray", "--workers", "2", "--json"]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(SRC)})
    assert done.returncode == 0, done.stderr
    assert {j["status"] for j in json.loads(done.stdout)["jobs"]} == {JobStatus.READY}

    with Bunko(tmp_path / "local.bunko", embedder=embedder) as local, Bunko(tmp_path / "pg.bunko", create=False) as pg:
        local.ingest(docs)
        mine = {doc.source: (doc, digest, chunks) for doc, digest, _, chunks in local.store.export_documents()}
        theirs = {doc.source: (doc, digest, chunks) for doc, digest, _, chunks in pg.store.export_documents()}
        assert mine.keys() == theirs.keys()
        for source, (doc, digest, chunks) in mine.items():
            assert (doc.title, doc.meta, digest) == (theirs[source][0].title, theirs[source][0].meta, theirs[source][1])
            for a, b in zip(chunks, theirs[source][2], strict=True):
                assert (a.chunk.chunk_id, a.chunk.text, a.tokens, a.entities) == (b.chunk.chunk_id, b.chunk.text, b.tokens, b.entities)
                assert np.allclose(a.vector, b.vector, atol=1e-6)  # pgvector stores float4, as the local store does
        assert [h.chunk.chunk_id for h in local.search("年假有几天", mode="keyword", k=5)] == \
               [h.chunk.chunk_id for h in pg.search("年假有几天", mode="keyword", k=5)]
