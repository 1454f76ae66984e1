"""`bunko ingest --engine ray`: the same collection as the local engine, a killed worker's document redone, and a
re-run after the driver was killed finishing only what is missing.

Ray runs here only inside a network namespace with loopback alone (docs/machines: it otherwise maps 127.0.0.1
to the machine's routable address), so each Ray ingest is the real CLI in a subprocess under
`unshare -n` (with `ip link set lo up`), and these tests skip when unshare is not permitted. Faults are real:
the worker or the driver sends itself SIGKILL at a chosen point (`BUNKO_RAY_FAULT`, ingest/distributed.py).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from bunko import Bunko, Config
from bunko.schema import JobStatus

pytest.importorskip("ray")
pytestmark = pytest.mark.slow

SRC = Path(__file__).resolve().parents[2] / "src"


def _netns_reason() -> str | None:
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return "Ray tests need unshare and ip (util-linux, iproute2) for a loopback-only network namespace"
    probe = subprocess.run(["unshare", "-n", "sh", "-c", "ip link set lo up"], capture_output=True, text=True)
    if probe.returncode != 0:
        return f"unshare -n is not permitted here ({probe.stderr.strip() or probe.returncode}); Ray needs a loopback-only namespace"
    return None


REASON = _netns_reason()
if REASON:
    pytest.skip(REASON, allow_module_level=True)


def _in_netns(cwd: Path, script: str, *args: str, env: dict[str, str] | None = None, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """A shell script under `unshare -n` with loopback up, in its own session so that whatever Ray leaves behind
    (a driver killed before it could stop its local Ray) is ended with it."""
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(SRC), os.environ.get("PYTHONPATH")]))}
    environment.pop("BUNKO_RAY_FAULT", None)
    environment.update(env or {})
    command = ["unshare", "-n", "sh", "-c", f"ip link set lo up && {script}", "sh", *args]
    process = subprocess.Popen(command, cwd=cwd, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def _bunko(cwd: Path, *args: str, fault: str | None = None, marker: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`bunko ARGS` in a loopback-only namespace; `fault` sets BUNKO_RAY_FAULT (and its marker file)."""
    env = {"BUNKO_RAY_FAULT": fault, "BUNKO_RAY_FAULT_MARKER": str(marker)} if fault else {}
    return _in_netns(cwd, 'exec "$@"', sys.executable, "-m", "bunko", *args, env=env)


def _folder(root: Path, samples_dir: Path) -> Path:
    docs = root / "docs"
    shutil.copytree(samples_dir, docs)
    (docs / "empty.md").write_text("", encoding="utf-8")
    (docs / "binary.md").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8)
    (docs / "notes-ja.md").write_text("# 会議メモ\n\n## 決定事項\n\n次回の定例会議は木曜日の午後三時に変更します。\n", encoding="utf-8")
    (docs / "notes-zh.txt").write_text("周报：本周完成了数据迁移，下周开始性能测试。\n", encoding="utf-8")
    return docs


def _snapshot(kb: Bunko) -> dict[str, tuple]:
    """Everything ingest writes of each document: the document, its hash, its chunks with vectors, tokens, entities."""
    return {doc.source: (doc, digest, chunks) for doc, digest, _, chunks in kb.store.export_documents()}


def _assert_same_collection(local: Bunko, ray: Bunko) -> None:
    mine, theirs = _snapshot(local), _snapshot(ray)
    assert mine.keys() == theirs.keys()
    for source, (doc, digest, chunks) in mine.items():
        other_doc, other_digest, other_chunks = theirs[source]
        assert (doc, digest) == (other_doc, other_digest), source
        assert len(chunks) == len(other_chunks), source
        for a, b in zip(chunks, other_chunks, strict=True):
            assert (a.chunk, a.tokens, a.embed_hash, a.entities) == (b.chunk, b.tokens, b.embed_hash, b.entities), a.chunk.chunk_id
            assert np.array_equal(a.vector, b.vector), a.chunk.chunk_id
    for key in ("embedder", "dimension", "analyzer"):
        assert local.store.get_meta(key) == ray.store.get_meta(key)
    for query in ("年假有几天", "宿泊費の上限", "API rate limit", "定例会議"):
        for mode in ("keyword", "dense", "hybrid"):
            assert [(h.chunk.chunk_id, round(h.score, 6)) for h in local.search(query, mode=mode, k=8)] == \
                   [(h.chunk.chunk_id, round(h.score, 6)) for h in ray.search(query, mode=mode, k=8)], (query, mode)


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory, embedder, samples_dir: Path) -> Iterator[tuple[Path, Bunko, dict[str, tuple[str, str | None]]]]:
    """The folder, ingested by the local engine; and each file's job status and code."""
    root = tmp_path_factory.mktemp("reference")
    docs = _folder(root, samples_dir)
    kb = Bunko(root / ".bunko", embedder=embedder)
    report = kb.ingest(docs)
    outcome = {job.source: (job.status, job.error_code) for job in report.jobs}
    assert outcome["docs/empty.md"] == (JobStatus.FAILED, "EMPTY")
    yield docs, kb, outcome
    kb.close()


def _copy(reference_docs: Path, root: Path) -> Path:
    shutil.copytree(reference_docs, root / "docs")
    return root / "docs"


def test_ray_ingest_with_two_workers_stores_what_the_local_engine_stores(reference, tmp_path: Path) -> None:
    docs, local, outcome = reference
    _copy(docs, tmp_path)
    done = _bunko(tmp_path, "ingest", "docs", "--engine", "ray", "--workers", "2", "--json")
    assert done.returncode == 1, done.stderr  # the two bad files fail, as they do locally
    jobs = json.loads(done.stdout)["jobs"]
    assert {j["source"]: (j["status"], j["error_code"]) for j in jobs} == outcome
    with Bunko(tmp_path / ".bunko", create=False) as ray:
        _assert_same_collection(local, ray)
        assert {j.source: j.status for j in ray.jobs()} == {s: status for s, (status, _) in outcome.items()}

    again = _bunko(tmp_path, "ingest", "docs", "--engine", "ray", "--workers", "2", "--json")
    statuses = {j["source"]: j["status"] for j in json.loads(again.stdout)["jobs"]}
    assert {s for s, status in statuses.items() if status == "SKIPPED"} == {s for s, (status, _) in outcome.items() if status == "READY"}


def test_a_worker_killed_mid_document_leaves_it_to_be_redone(reference, tmp_path: Path) -> None:
    docs, local, _ = reference
    _copy(docs, tmp_path)
    (tmp_path / "docs" / "empty.md").unlink()
    (tmp_path / "docs" / "binary.md").unlink()
    marker = tmp_path / "killed"
    done = _bunko(tmp_path, "ingest", "docs", "--engine", "ray", "--workers", "2", "--json",
                  fault="kill-worker:docs/leave-policy-zh.md", marker=marker)
    assert done.returncode == 0, done.stderr
    assert marker.exists()  # the worker did die, holding that document
    with Bunko(tmp_path / ".bunko", create=False) as ray:
        chunk_ids = [c.chunk_id for c in ray.chunks()]
        assert len(chunk_ids) == len(set(chunk_ids))  # nothing written twice
        assert all(j.status == JobStatus.READY for j in ray.jobs())
        local_docs = {d.source for d in local.documents()}
        assert {d.source for d in ray.documents()} == local_docs  # nothing lost
        for source in local_docs:
            assert [(c.chunk_id, c.text) for c in ray.chunks(source)] == [(c.chunk_id, c.text) for c in local.chunks(source)]


def test_a_rerun_after_the_driver_was_killed_finishes_only_what_is_missing(reference, tmp_path: Path) -> None:
    docs, local, _ = reference
    _copy(docs, tmp_path)
    (tmp_path / "docs" / "empty.md").unlink()
    (tmp_path / "docs" / "binary.md").unlink()
    crashed = _bunko(tmp_path, "ingest", "docs", "--engine", "ray", "--workers", "2", "--json", fault="kill-driver:3")
    assert crashed.returncode != 0
    with Bunko(tmp_path / ".bunko", create=False) as ray:
        committed = {d.source for d in ray.documents()}
        assert len(committed) == 3  # the driver died right after its third commit
        unfinished = [j for j in ray.jobs() if j.status not in (JobStatus.READY, JobStatus.SKIPPED, JobStatus.FAILED)]
        assert unfinished  # jobs left mid-flight by the dead driver

    config = Config.load(tmp_path / ".bunko" / "bunko.toml")  # this time from the config: [ingest] engine = "ray"
    config.ingest.engine = "ray"
    config.ingest.ray_workers = 2
    config.save(tmp_path / ".bunko" / "bunko.toml")
    rerun = _bunko(tmp_path, "ingest", "docs", "--json")
    assert rerun.returncode == 0, rerun.stderr
    statuses = {j["source"]: j["status"] for j in json.loads(rerun.stdout)["jobs"]}
    assert {s for s, status in statuses.items() if status == "SKIPPED"} == committed
    assert {s for s, status in statuses.items() if status == "READY"} == {d.source for d in local.documents()} - committed
    with Bunko(tmp_path / ".bunko", create=False) as ray:
        every_run = ray.jobs(all_runs=True)
        assert {j.error_code for j in every_run if j.status == JobStatus.FAILED} == {"INTERRUPTED"}  # the dead run's jobs
        _assert_same_collection(local, ray)


def test_ingest_on_a_running_cluster_and_an_unreachable_one(reference, tmp_path: Path) -> None:
    """`ray start --head` then `--address auto`, as the README tells; and a cluster that is not there."""
    docs, local, _ = reference
    _copy(docs, tmp_path)
    (tmp_path / "docs" / "empty.md").unlink()
    (tmp_path / "docs" / "binary.md").unlink()
    ray_cli = str(Path(sys.executable).with_name("ray"))
    script = ('"$1" start --head --num-cpus 3 --disable-usage-stats --include-dashboard=false >/dev/null 2>&1 || exit 90; '
              '"$2" -m bunko ingest docs --engine ray --address auto --json; rc=$?; "$1" stop --force >/dev/null 2>&1; exit $rc')
    done = _in_netns(tmp_path, script, ray_cli, sys.executable)
    assert done.returncode == 0, done.stderr
    with Bunko(tmp_path / ".bunko", create=False) as ray:
        assert {d.source for d in ray.documents()} == {d.source for d in local.documents()}

    (tmp_path / "docs" / "new.md").write_text("# New\n\nThe okapi rota changes on Mondays.\n", encoding="utf-8")
    missing = _bunko(tmp_path, "ingest", "docs", "--engine", "ray", "--address", "auto")  # no cluster in this namespace
    assert missing.returncode == 2 and "Ray could not be started or reached (auto)" in missing.stderr
    with Bunko(tmp_path / ".bunko", create=False) as ray:
        [job] = [j for j in ray.jobs() if j.source == "docs/new.md"]
        assert (job.status, job.error_code) == (JobStatus.FAILED, "INTERRUPTED") and "not started" in (job.error_detail or "")
