"""Honest progress: the file and stage in hand (pages parsed, chunks embedded), on the caller's callback, on the
job row (`bunko jobs`) and on the server's job endpoint, across the parse child process."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from reportlab.lib.pagesizes import A4
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.pdfgen import canvas as pdf_canvas
from typer.testing import CliRunner

from bunko import Bunko, Config
from bunko.cli.app import app
from bunko.ingest import pipeline
from bunko.schema import IngestJob, JobProgress, JobStatus

PAGES = {
    "en": "Page {n}: the backup runs every night at two; restore from the newest snapshot.",
    "ja": "第{n}頁：バックアップは毎晩二時に実行されます。最新のスナップショットから復元します。",
    "zh": "第{n}页：备份每晚两点运行，从最新的快照恢复。",
}


def _pdf(path: Path, pages: int) -> Path:
    pdfmetrics.registerFont(UnicodeCIDFont("HeiseiMin-W3"))
    pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
    canvas = pdf_canvas.Canvas(str(path), pagesize=A4)
    for n in range(1, pages + 1):
        y = 780
        for lang, line in PAGES.items():
            canvas.setFont({"en": "Helvetica", "ja": "HeiseiMin-W3", "zh": "STSong-Light"}[lang], 11)
            canvas.drawString(60, y, line.format(n=n))
            y -= 30
        canvas.showPage()
    canvas.save()
    return path


def _stages(events: list[tuple[int, int, IngestJob]], source_end: str, stage: str, unit: str = "") -> list[tuple[int, int | None]]:
    """(done, total) of each count of `stage` told for the file (of `unit` only, when given)."""
    return [(j.progress.done, j.progress.total) for _, _, j in events
            if j.source.endswith(source_end) and j.progress is not None and j.progress.stage == stage and j.progress.unit
            and (not unit or j.progress.unit == unit)]


def _recorder() -> tuple[list[tuple[int, int, IngestJob]], Callable[[int, int, IngestJob], None]]:
    events: list[tuple[int, int, IngestJob]] = []

    def progress(done: int, total: int, job: IngestJob) -> None:
        copy = IngestJob(job.job_id, job.source, job.status, progress=None if job.progress is None else JobProgress(**vars(job.progress)))
        events.append((done, total, copy))

    return events, progress


@pytest.mark.parametrize("isolate", [False, True], ids=["in-process", "child-process"])
def test_a_multi_page_pdf_reports_its_pages_in_order_while_it_is_parsed(tmp_path: Path, embedder, isolate: bool) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a-small.md").write_text("# 小さい\n\n先に終わる小さなファイルです。\n", encoding="utf-8")
    _pdf(docs / "manual.pdf", 6)
    config = Config()
    config.ingest.isolate = isolate
    events, progress = _recorder()
    with Bunko(tmp_path / ".bunko", config=config, embedder=embedder) as kb:
        report = kb.ingest(docs, progress=progress)
    assert report.ok
    pages = _stages(events, "manual.pdf", "parsing")
    assert pages, "no page progress was reported for manual.pdf"
    assert pages[-1] == (6, 6) and pages[0] == (1, 6)
    assert [done for done, _ in pages] == sorted({done for done, _ in pages})  # in order, no page twice
    if not isolate:  # in the ingesting process every page is told; the child throttles its messages
        assert pages == [(n, 6) for n in range(1, 7)]
    # while manual.pdf is in hand the bar names it, not the small file finished before it
    during = [(done, job.source) for done, _, job in events if job.progress is not None and job.progress.stage == "parsing"
              and job.source.endswith("manual.pdf")]
    assert all(done == 1 for done, _ in during)  # one file (a-small.md) finished before it
    described = [job.progress.describe() for _, _, job in events if job.source.endswith("manual.pdf") and job.progress]
    assert "parsing page 6/6" in described


class CountingEmbedder:
    """The shared model, counting the texts it was asked to embed: what a progress report can be checked against."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.texts = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def embed(self, texts: Sequence[str]) -> Any:
        self.texts += len(texts)
        return self.inner.embed(texts)


def test_embedding_reports_chunks_then_units_embedded_batch_by_batch_while_the_model_runs(
    tmp_path: Path, embedder, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The file's chunks, then its sentences' unit vectors, are told batch by batch inside its embedding stage, each
    report after the model embedded that batch: no embedding is left for after the file's bar has moved on."""
    monkeypatch.setattr(pipeline, "EMBED_BATCH", 3)
    body = "\n\n".join(
        f"## 節 {n}\n\n{PAGES['ja'].format(n=n)}\n\n{PAGES['zh'].format(n=n)}\n\n{PAGES['en'].format(n=n)}" for n in range(1, 9)
    )
    path = tmp_path / "long.md"
    path.write_text("# 手順書\n\n" + body + "\n", encoding="utf-8")
    config = Config()
    config.chunk.strategy = "heading"
    counting = CountingEmbedder(embedder)
    events: list[tuple[str, int, int | None, str, int]] = []

    def progress(done: int, total: int, job: IngestJob) -> None:
        if job.progress is not None:
            events.append((job.progress.stage, job.progress.done, job.progress.total, job.progress.unit, counting.texts))

    with Bunko(tmp_path / ".bunko", config=config, embedder=counting) as kb:
        report = kb.ingest(path, progress=progress)
        searched = sum(1 for c in kb.chunks() if c.searchable)
        units = kb.units.file.count()
    assert report.ok and searched > 3 and units > searched
    chunks = [(done, total, seen) for stage, done, total, unit, seen in events if stage == "embedding" and unit == "chunks"]
    told = [(done, total, seen) for stage, done, total, unit, seen in events if stage == "embedding" and unit == "units"]
    assert chunks[0][:2] == (0, searched) and chunks[-1][:2] == (searched, searched)
    assert len(chunks) == 1 + -(-searched // 3)  # the start, then one report per batch of three
    assert [done for done, _, _ in chunks] == sorted(done for done, _, _ in chunks)
    assert told, "no unit progress was reported during embedding"
    assert told[-1][0] == told[-1][1] == units and len(told) == 1 + -(-units // 3)
    # each batch's report comes after the model embedded it: the texts embedded so far cover what the count says
    assert all(seen >= done for done, _, seen in chunks)
    assert all(seen >= searched + done for done, _, seen in told)
    stages = [stage for stage, *_ in events]
    assert stages.index("indexing") > max(i for i, (stage, *_rest) in enumerate(events) if stage == "embedding")
    assert counting.texts == searched + units  # nothing embedded after the file's stages, nothing twice
    described = [f"{stage} {done:,}/{total:,} {unit}" for stage, done, total, unit, _ in events if unit and total is not None]
    assert f"embedding {searched}/{searched} chunks" in described and f"embedding {units}/{units} units" in described


def test_a_running_job_s_row_says_its_stage_and_bunko_jobs_shows_it(tmp_path: Path, embedder) -> None:
    """A job another process is running: `bunko jobs` reads its row, stage and count included."""
    with Bunko(tmp_path / ".bunko", embedder=embedder) as kb:
        now = time.time()
        job = IngestJob("job-running", "manuals/取扱説明書.pdf", JobStatus.PARSING, created_at=now, updated_at=now,
                        progress=JobProgress("parsing", 57, 272, "page"))
        kb.store.save_job(job, "run-1")
        stored = kb.store.get_job("job-running")
        assert stored is not None and stored.progress == JobProgress("parsing", 57, 272, "page")
    result = CliRunner().invoke(app, ["jobs", "-c", str(tmp_path / ".bunko")], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "取扱説明書.pdf" in result.output and "parsing page 57/272" in result.output
    as_json = CliRunner().invoke(app, ["jobs", "-c", str(tmp_path / ".bunko"), "--json"])
    assert '"stage": "parsing"' in as_json.output and '"done": 57' in as_json.output


def test_progress_text_in_each_unit() -> None:
    assert JobProgress("parsing", 57, 272, "page").describe() == "parsing page 57/272"
    assert JobProgress("embedding", 640, 2421, "chunks").describe() == "embedding 640/2,421 chunks"
    assert JobProgress("chunking").describe() == "chunking"
