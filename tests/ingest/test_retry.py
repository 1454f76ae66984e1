"""`Bunko.retry`: the files of failed jobs ingested again, with the fields they were first ingested with."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bunko import Bunko, BunkoError
from bunko.schema import JobStatus

TEXTS = {
    "ja": "# 在宅勤務\n\n在宅勤務は週に三日まで認められます。申請は前日までに行ってください。\n",
    "zh": "# 远程办公\n\n远程办公每周最多三天，请提前一天提交申请。\n",
    "en": "# Remote work\n\nRemote work is allowed up to three days a week; apply the day before.\n",
}


class FlakyEmbedder:
    """The session's embedder, failing while `down` is set (a remote embedding service that was unreachable)."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.name = inner.name
        self.dimension = inner.dimension
        self.down = True

    def embed(self, texts: list[str]) -> np.ndarray:
        if self.down:
            raise ConnectionError("embedding service unreachable")
        return self.inner.embed(texts)

    def __getattr__(self, name: str):
        return getattr(self.inner, name)


def test_failed_files_are_retried_with_their_fields_once_the_cause_is_gone(tmp_path: Path, embedder) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for lang, text in TEXTS.items():
        (docs / f"remote-{lang}.md").write_text(text, encoding="utf-8")
    flaky = FlakyEmbedder(embedder)
    with Bunko(tmp_path / ".bunko", embedder=flaky) as kb:
        first = kb.ingest(docs, fields={"groups": ["hr"]})
        assert {(j.status, j.error_code) for j in first.jobs} == {(JobStatus.FAILED, "EMBED_FAILED")}
        assert all(j.fields == {"groups": ["hr"]} for j in kb.jobs())

        flaky.down = False
        report = kb.retry(failed=True)
        assert report.run_id != first.run_id and report.ok
        assert sorted((Path(j.source).name, j.status) for j in report.jobs) == [
            (f"remote-{lang}.md", JobStatus.READY) for lang in ("en", "ja", "zh")
        ]
        assert {j.job_id for j in kb.jobs()} == {j.job_id for j in report.jobs}  # the retry is the last run
        for doc in kb.documents():  # ingested with the groups of the first attempt
            assert doc.meta["fields"]["groups"] == ["hr"]
        for lang, question in (("ja", "在宅勤務は週に何日"), ("zh", "远程办公每周几天"), ("en", "remote work days a week")):
            hits = kb.search(question, k=1, filters={"groups": "hr"})
            assert Path(hits[0].chunk.source).name == f"remote-{lang}.md"
        assert kb.retry(failed=True).jobs == []  # nothing is failing any more


def test_retry_by_id_and_what_it_refuses(make_kb, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "notes-ja.md").write_bytes(b"")
    (docs / "notes-zh.md").write_text(TEXTS["zh"], encoding="utf-8")
    (docs / "gone-en.md").write_bytes(b"")
    kb = make_kb()
    first = kb.ingest(docs)
    failed = {Path(j.source).name: j for j in first.failed}
    ready = next(j for j in first.jobs if j.status == JobStatus.READY)
    assert set(failed) == {"notes-ja.md", "gone-en.md"}

    (docs / "notes-ja.md").write_text(TEXTS["ja"], encoding="utf-8")
    (docs / "gone-en.md").unlink()
    report = kb.retry([failed["notes-ja.md"].job_id, failed["gone-en.md"].job_id])
    outcome = {Path(j.source).name: (j.status, j.error_code) for j in report.jobs}
    assert outcome == {"notes-ja.md": (JobStatus.READY, None), "gone-en.md": (JobStatus.FAILED, "NOT_FOUND")}
    gone = next(j for j in report.jobs if j.source.endswith("gone-en.md"))
    assert gone.source == failed["gone-en.md"].source and "ingest or upload it again" in (gone.error_detail or "")
    assert kb.search("在宅勤務", k=1)[0].chunk.source.endswith("notes-ja.md")

    # --failed takes each source's latest job: notes-ja.md succeeded since, gone-en.md is still failing
    assert [Path(j.source).name for j in kb.store.failed_jobs()] == ["gone-en.md"]
    with pytest.raises(BunkoError, match="did not fail"):
        kb.retry([ready.job_id])
    with pytest.raises(BunkoError, match="no job nope"):
        kb.retry(["nope"])
    with pytest.raises(BunkoError, match="--failed"):
        kb.retry()
