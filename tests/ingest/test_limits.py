"""Per-file limits: every hostile file fails alone with its code, naming the limit and the value; good files in the
same folder end READY. The guard (a parser child process) stops what no parser check can: time, memory, crashes."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hostile import (
    GOOD,
    billion_laughs,
    csv_rows,
    deep_html,
    docx_bomb,
    docx_paragraphs,
    good_files,
    huge_page_pdf,
    many_pages_pdf,
    nested_json,
    single_line_text,
    truncated,
    xlsx_rows,
)

from bunko import Bunko, Config
from bunko.config import IngestConfig
from bunko.parse.limits import ParseLimits
from bunko.parse.registry import default_registry
from bunko.parse.text import TextParser
from bunko.schema import JobStatus, ParsedDocument


def test_the_parse_limits_default_to_the_config_defaults() -> None:
    assert ParseLimits() == ParseLimits.from_config(IngestConfig())


def _ingest(kb: Bunko, folder: Path) -> dict[str, tuple[str, str | None, str]]:
    report = kb.ingest(folder)
    return {Path(j.source).name: (str(j.status), j.error_code, j.error_detail or "") for j in report.jobs}


def _assert_alone(outcome: dict[str, tuple[str, str | None, str]], name: str, code: str, limit: str) -> str:
    """The hostile file failed with `code`, its detail naming the file and `limit`; every good file is READY."""
    status, error, detail = outcome[name]
    assert (status, error) == ("FAILED", code), outcome[name]
    assert name in detail and limit in detail, detail
    assert all(outcome[good][:2] == ("READY", None) for good in GOOD), outcome
    return detail


# name, generator, [ingest] settings, code, the limit the detail names
HOSTILE: list[tuple[str, Callable[[Path], Any], dict[str, Any], str, str]] = [
    ("bomb.md", billion_laughs, {}, "TOO_COMPLEX", "ingest.max_front_matter_values = 10,000"),
    ("nested.html", lambda p: deep_html(p, 20_000), {}, "TOO_COMPLEX", "ingest.max_depth = 256"),
    ("bomb.docx", lambda p: docx_bomb(p, 20), {"max_unpacked_mb": 5}, "TOO_LARGE", "ingest.max_unpacked_mb = 5 MB"),
    ("rows.xlsx", lambda p: xlsx_rows(p, 1_500), {"max_rows": 1_000}, "TOO_COMPLEX", "ingest.max_rows = 1,000"),
    ("rows.csv", lambda p: csv_rows(p, 1_500), {"max_rows": 1_000}, "TOO_COMPLEX", "ingest.max_rows = 1,000"),
    ("huge-page.pdf", lambda p: huge_page_pdf(p, 3_000), {"max_page_pixels": 1_000_000}, "TOO_LARGE", "ingest.max_page_pixels = 1,000,000"),
    ("one-line.txt", lambda p: single_line_text(p, 2), {"max_chars": 500_000}, "TOO_LARGE", "ingest.max_chars = 500,000"),
    ("deep.json", lambda p: nested_json(p, 5_000), {}, "TOO_COMPLEX", "nested too deeply"),
    ("small.docx", lambda p: docx_bomb(p, 0.05), {"max_zip_members": 2}, "TOO_COMPLEX", "ingest.max_zip_members = 2"),
    ("wide.xlsx", lambda p: xlsx_rows(p, 300, columns=10), {"max_cells": 1_000}, "TOO_COMPLEX", "ingest.max_cells = 1,000"),
    ("pages.pdf", lambda p: many_pages_pdf(p, 12), {"max_pages": 10}, "TOO_COMPLEX", "ingest.max_pages = 10"),
    # under every count limit (raised: its 245,000 paragraphs would pass max_elements, and are not even counted ahead
    # at 40 MB), over the memory one: the parse itself is stopped (libxml2 fails at the limit)
    ("heavy.docx", lambda p: docx_bomb(p, 40), {"max_memory_mb": 200, "max_elements": 2_000_000, "max_chars": 100_000_000},
     "TOO_LARGE", "ingest.max_memory_mb = 200 MB"),
    ("many.md", lambda p: p.write_text("\n\n".join(f"段落 {i} 段落 paragraph" for i in range(60)), encoding="utf-8"),
     {"max_elements": 50}, "TOO_COMPLEX", "ingest.max_elements = 50"),
    # counted while its body is streamed, before python-docx builds it (tests/parse/test_running_limits.py)
    ("many.docx", lambda p: docx_paragraphs(p, 1.5), {"max_elements": 1_000}, "TOO_COMPLEX", "ingest.max_elements = 1,000"),
    ("long.docx", lambda p: docx_paragraphs(p, 1.5), {"max_chars": 100_000}, "TOO_LARGE", "ingest.max_chars = 100,000"),
]


@pytest.mark.parametrize(("name", "make", "settings", "code", "limit"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_a_hostile_file_fails_alone_with_its_code(
    make_kb, tmp_path: Path, name: str, make: Callable[[Path], Any], settings: dict[str, Any], code: str, limit: str,
) -> None:
    folder = tmp_path / "docs"
    good_files(folder)
    make(folder / name)
    config = Config()
    for key, value in settings.items():
        setattr(config.ingest, key, value)
    kb = make_kb(config=config)
    outcome = _ingest(kb, folder)
    # stopped by its own limit and code, not by the guard's TIMEOUT (ingest.max_parse_seconds): how fast each is
    # refused at full size is bench/bench_hostile.py's to measure
    _assert_alone(outcome, name, code, limit)
    hits = kb.search("宿泊費の上限", k=3)
    assert hits and hits[0].chunk.source.endswith("good-ja.md")


def test_the_real_billion_laughs_fails_in_milliseconds_without_expanding(make_kb, tmp_path: Path) -> None:
    """The 9-level, 387-million-value front matter of the issue (6.2 GB and 194 s before): refused from its node graph."""
    folder = tmp_path / "docs"
    good_files(folder)
    path = billion_laughs(folder / "bomb.md")
    assert path.stat().st_size < 1000
    outcome = _ingest(make_kb(), folder)
    detail = _assert_alone(outcome, "bomb.md", "TOO_COMPLEX", "aliases expanded")
    assert "more than 10,000" in detail


def test_html_main_content_is_found_in_linear_work_at_any_depth() -> None:
    """content_root walked the tree once per tag (bs4's `decomposed` searched each subtree): 16k levels took 196 s.

    The work is counted, not timed: the Python function calls (generator steps included) one search makes, which
    no machine's speed or load changes. 8× the depth makes 8× the calls; the quadratic walk made 59× from 200 to
    1,600 levels. The seconds are bench/bench_html_depth.py's."""
    import cProfile
    import pstats

    from bs4 import BeautifulSoup

    from bunko.parse.html import HtmlWalker, content_root

    def calls(depth: int) -> int:
        html = "<html><body><nav>menu</nav>" + "<div>" * depth + "<main><p>本文 正文 body</p></main>" + "</div>" * depth + "</body></html>"
        soup = BeautifulSoup(html, "lxml")
        profile = cProfile.Profile()
        profile.enable()
        root = content_root(soup, max_depth=10 * depth)
        profile.disable()
        assert root.name == "main" and soup.find("nav") is None
        return sum(row[1] for row in pstats.Stats(profile).stats.values())

    calls(100)  # first calls compile regular expressions and fill caches: not the walk
    small, large = calls(1_000), calls(8_000)
    assert large / small < 10, (small, large)  # 8× the depth: 8× the calls, where quadratic would be 64×
    assert large < 100 * 8_000, large  # a bounded number of calls per level
    from bunko.parse.base import ElementBuilder

    builder = ElementBuilder("x.html")
    HtmlWalker(builder).walk(content_root(BeautifulSoup("<div>" * 100 + "<p>宿泊費 住宿费 hotel</p>" + "</div>" * 100, "lxml")))
    assert [e.text for e in builder.elements] == ["宿泊費 住宿费 hotel"]


@pytest.mark.parametrize("kind", ["docx", "xlsx", "pptx"])
def test_a_truncated_office_file_is_a_damaged_zip_not_an_unsupported_format(make_kb, tmp_path: Path, kind: str) -> None:
    folder = tmp_path / "docs"
    good_files(folder)
    whole = tmp_path / f"whole.{kind}"
    if kind == "docx":
        docx_bomb(whole, 0.2)
    elif kind == "xlsx":
        xlsx_rows(whole, 2_000)
    else:
        from pptx import Presentation

        deck = Presentation()
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = "出張規程 差旅制度 Travel"
        deck.save(str(whole))
    truncated(whole, folder / f"cut.{kind}")
    outcome = _ingest(make_kb(), folder)
    detail = _assert_alone(outcome, f"cut.{kind}", "PARSE_FAILED", "truncated or damaged zip")
    assert "supported:" not in detail and len(detail) < 200


def test_malformed_front_matter_is_a_warning_and_the_body_is_indexed(make_kb, tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    good_files(folder)
    (folder / "bad-yaml.md").write_text("---\ntitle: [閉じていない\ntags: 差旅\n---\n\n# 経費\n\n交通費は月末に精算します。\n", encoding="utf-8")
    (folder / "list-yaml.md").write_text("---\n- 一\n- two\n---\n\n# 规定\n\n报销须在三十天内提交。\n", encoding="utf-8")
    kb = make_kb()
    report = kb.ingest(folder)
    assert report.ok
    warnings = dict(report.warnings)
    assert "not valid YAML" in warnings["docs/bad-yaml.md"] and "front matter line 2" in warnings["docs/bad-yaml.md"]
    assert "not key: value pairs" in warnings["docs/list-yaml.md"]
    stored = {d.source: d for d in kb.documents()}
    assert stored["docs/bad-yaml.md"].meta["warnings"] == [warnings["docs/bad-yaml.md"]]
    assert "fields" not in stored["docs/bad-yaml.md"].meta
    assert kb.search("交通費の精算", k=1)[0].chunk.source == "docs/bad-yaml.md"


def test_special_files_in_a_folder_each_get_a_job_with_their_code(make_kb, tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    good_files(folder)
    os.mkfifo(folder / "pipe.md")  # opening it would block the run forever
    os.symlink(folder / "loop-b.md", folder / "loop-a.md")
    os.symlink(folder / "loop-a.md", folder / "loop-b.md")
    os.symlink(folder / "gone.md", folder / "dangling.md")
    os.symlink(folder / "good-en.md", folder / "link-to-good.md")
    kb = make_kb()
    report = kb.ingest(folder)
    outcome = {j.source: (str(j.status), j.error_code, j.error_detail or "") for j in report.jobs if j.status != JobStatus.SKIPPED}
    assert outcome["docs/pipe.md"][:2] == ("FAILED", "NOT_A_FILE") and "named pipe" in outcome["docs/pipe.md"][2]
    assert outcome["docs/loop-a.md"][:2] == ("FAILED", "BROKEN_LINK") and "loop" in outcome["docs/loop-a.md"][2]
    assert outcome["docs/loop-b.md"][:2] == ("FAILED", "BROKEN_LINK")
    assert outcome["docs/dangling.md"][:2] == ("FAILED", "BROKEN_LINK") and "gone.md" in outcome["docs/dangling.md"][2]
    assert all(outcome[f"docs/{good}"][:2] == ("READY", None) for good in GOOD)
    assert not report.ok and len(report.failed) == 4
    # a link to a good file is that file (stored once, under its own name; met a second time, it is unchanged)
    assert [str(j.status) for j in report.jobs if j.source == "docs/good-en.md"] == ["READY", "SKIPPED"]
    direct = kb.ingest([folder / "pipe.md", folder / "loop-a.md"])
    assert [j.error_code for j in direct.jobs] == ["NOT_A_FILE", "BROKEN_LINK"]


def test_the_cli_reports_special_files_and_exits_non_zero(tmp_path: Path) -> None:
    import subprocess
    import sys

    folder = tmp_path / "docs"
    good_files(folder)
    os.mkfifo(folder / "pipe.txt")
    os.symlink(folder / "nowhere.md", folder / "dangling.md")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    result = subprocess.run(
        [sys.executable, "-m", "bunko", "ingest", str(folder), "--collection", str(tmp_path / ".bunko")],
        capture_output=True, text=True, env=env, timeout=300, check=False,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert "NOT_A_FILE" in output and "BROKEN_LINK" in output and "3 indexed" in output


# -- the guard: a child process stopped past the time or memory limit, or crashing -------------------


class ProbeParser(TextParser):
    """Reads .txt files as text, except: slow-* sleeps, hog-* allocates without end, crash-* kills its process."""

    def parse(self, path: Path, source: str, mime: str) -> ParsedDocument:
        if path.name.startswith("slow-"):
            time.sleep(120)  # the behaviour under test: a parse far slower than the limit (the guard must stop it)
        elif path.name.startswith("hog-"):
            hoard = []
            while True:
                hoard.append(bytearray(64 << 20))
        elif path.name.startswith("crash-"):
            os.kill(os.getpid(), signal.SIGSEGV)
        return super().parse(path, source, mime)


def _probe_kb(tmp_path: Path, embedder: Any, **settings: Any) -> Bunko:
    registry = default_registry()
    registry.register(ProbeParser())
    config = Config()
    for key, value in settings.items():
        setattr(config.ingest, key, value)
    return Bunko(tmp_path / ".bunko", config=config, embedder=embedder, registry=registry)


def test_the_guard_stops_a_slow_parse_a_memory_hog_and_a_crash_and_goes_on(tmp_path: Path, embedder: Any) -> None:
    folder = tmp_path / "docs"
    good_files(folder)
    for name in ("slow-1.txt", "hog-1.txt", "crash-1.txt", "fine.txt"):
        (folder / name).write_text("宿泊費 住宿费 hotel " * 20, encoding="utf-8")
    kb = _probe_kb(tmp_path, embedder, max_parse_seconds=3, max_memory_mb=300)
    report = kb.ingest(folder)
    worker = kb._parser
    kb.close()
    outcome = {Path(j.source).name: (str(j.status), j.error_code, j.error_detail or "") for j in report.jobs}
    assert outcome["slow-1.txt"][:2] == ("FAILED", "TIMEOUT") and "ingest.max_parse_seconds = 3 s" in outcome["slow-1.txt"][2]
    assert outcome["hog-1.txt"][:2] == ("FAILED", "TOO_LARGE") and "ingest.max_memory_mb = 300 MB" in outcome["hog-1.txt"][2]
    assert outcome["crash-1.txt"][:2] == ("FAILED", "PARSE_FAILED") and "SIGSEGV" in outcome["crash-1.txt"][2]
    assert outcome["fine.txt"][:2] == ("READY", None)
    assert all(outcome[good][:2] == ("READY", None) for good in GOOD)
    # the slow parse was stopped at the limit, never before it; the upper bound (10× the limit; the parse itself
    # sleeps 40×) only catches a guard that fired far too late
    slow = next(j for j in report.jobs if j.source.endswith("slow-1.txt"))
    assert 3 <= slow.timings["parse"] < 30, slow.timings
    # crash-1 (dies), fine + good-* + hog-1 (MemoryError: exits), slow-1 (killed): three processes for the run
    assert worker is not None and worker.isolated and worker.starts == 3
    hog = next(j for j in report.jobs if j.source.endswith("hog-1.txt"))
    assert hog.timings["parse_peak_rss_mb"] < 300 + 200


def test_without_isolation_the_other_limits_still_hold(make_kb, tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    good_files(folder)
    csv_rows(folder / "rows.csv", 1_500)
    config = Config()
    config.ingest.isolate = False
    config.ingest.max_rows = 1_000
    kb = make_kb(config=config)
    _assert_alone(_ingest(kb, folder), "rows.csv", "TOO_COMPLEX", "ingest.max_rows = 1,000")
    assert kb._parser is not None and not kb._parser.isolated


class UnpicklableParser(TextParser):
    def __init__(self) -> None:
        self.hook = lambda: None  # a lambda does not pickle


def test_a_registry_that_cannot_reach_the_worker_is_parsed_in_process(tmp_path: Path, embedder: Any, caplog: Any) -> None:
    folder = tmp_path / "docs"
    good_files(folder)
    (folder / "note.txt").write_text("年假有十天。 Annual leave is ten days. 年次休暇は十日です。", encoding="utf-8")
    registry = default_registry()
    registry.register(UnpicklableParser())
    kb = Bunko(tmp_path / ".bunko", embedder=embedder, registry=registry)
    report = kb.ingest(folder)
    assert report.ok and kb._parser is not None and not kb._parser.isolated
    assert "does not pickle" in (kb._parser.fallback or "")
    kb.close()


def test_the_worker_is_reused_across_files_and_runs(tmp_path: Path, embedder: Any) -> None:
    folder = tmp_path / "docs"
    good_files(folder)
    kb = Bunko(tmp_path / ".bunko", embedder=embedder)
    first = kb.ingest(folder)
    (folder / "more.md").write_text("# 追加\n\n新しい規程です。新的规定。A new rule.\n", encoding="utf-8")
    second = kb.ingest(folder)
    worker = kb._parser
    assert worker is not None and worker.isolated and worker.starts == 1
    assert first.count(JobStatus.READY) == 3 and second.count(JobStatus.READY) == 1 and second.count(JobStatus.SKIPPED) == 3
    assert all("parse_peak_rss_mb" in j.timings for j in first.jobs)
    kb.close()
    assert kb._parser is None


class _Watching:
    """An embedder that notes which file the parser holds while it embeds, and can rewrite a file meanwhile."""

    def __init__(self, inner: Any, kb_ref: list[Bunko], rewrite: dict[str, str]) -> None:
        self.inner, self.kb_ref, self.rewrite = inner, kb_ref, rewrite
        self.seen: list[str | None] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def embed(self, texts: list[str]) -> Any:
        worker = self.kb_ref[0]._parser
        self.seen.append(worker.pending if worker is not None else None)
        if len(self.seen) == 2 and worker is not None and worker._proc is not None:
            # the second file is being embedded and the third was handed to the parser: once it is parsed, change it
            from bunko.ingest.isolation import _readable

            assert worker._proc.stdout is not None and _readable(worker._proc.stdout.fileno(), 30)
            for path, text in self.rewrite.items():
                Path(path).write_text(text, encoding="utf-8")
        return self.inner.embed(texts)


def test_the_next_file_is_parsed_while_this_one_is_embedded_and_a_change_meanwhile_is_reparsed(tmp_path: Path, embedder: Any) -> None:
    folder = tmp_path / "docs"
    good_files(folder)  # good-en.md, good-ja.md, good-zh.md: parsed in this order
    kb_ref: list[Bunko] = []
    watching = _Watching(embedder, kb_ref, {str(folder / "good-zh.md"): "# 差旅制度\n\n住宿费上限改为每晚九百元。\n"})
    config = Config()
    config.rerank.unit_vectors = "ask"  # one embed call per file: the calls this test counts are the chunks'
    kb = Bunko(tmp_path / ".bunko", config=config, embedder=watching)  # type: ignore[arg-type]
    kb_ref.append(kb)
    report = kb.ingest(folder)
    assert report.ok
    assert watching.seen == ["docs/good-ja.md", "docs/good-zh.md", None]  # each file's successor already at the parser
    zh = " ".join(c.text for c in kb.chunks("docs/good-zh.md"))
    assert "九百元" in zh and "八百元" not in zh  # good-zh.md changed after its prefetch: parsed again at its turn
    assert kb.ingest(folder).count(JobStatus.SKIPPED) == 3  # and stored under the hash of what was parsed
    kb.close()
