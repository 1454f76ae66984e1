"""`bunko tree`: the section tree of a ja, zh and en manual and a paged PDF, as JSON and as an indented tree."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from bunko import Bunko
from bunko.cli import app
from bunko.cli.tree import close_sources
from bunko.embed.use_m3 import UseM3Embedder
from bunko.text.languages import text_language
from treedocs import LANGUAGE, LEAF_SUMMARIES, MARKDOWN, OUTLINE, PDF_NAME, PDF_SECTION_PAGES, PDF_TITLE, write_docs


@pytest.fixture(scope="module")
def collection(tmp_path_factory: pytest.TempPathFactory, embedder: UseM3Embedder) -> Path:
    """One collection for the module (the command only reads it)."""
    root = tmp_path_factory.mktemp("tree")
    kb = Bunko(root / ".bunko", embedder=embedder)
    report = kb.ingest(write_docs(root / "docs"))
    kb.close()
    assert report.ok, report.failed
    return root / ".bunko"


@pytest.fixture
def runner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("BUNKO_COLLECTION", raising=False)
    return CliRunner()


def _invoke(runner: CliRunner, collection: Path, *args: str):
    return runner.invoke(app, ["tree", *args, "--collection", str(collection)])


def _json(runner: CliRunner, collection: Path, *args: str) -> dict[str, Any]:
    result = _invoke(runner, collection, *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _outline(section: dict[str, Any]) -> list[tuple[str | None, str, list]]:
    return [(c["number"], c["title"], _outline(c)) for c in section["children"]]


def _walk(section: dict[str, Any]):
    for child in section["children"]:
        yield child
        yield from _walk(child)


def _section_text(markdown: str, title: str) -> str:
    """The section's heading line up to the next heading of its level or above: its text and its subsections'."""
    lines = markdown.splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip("#").strip() == title)
    level = len(lines[start]) - len(lines[start].lstrip("#"))
    end = next((i for i in range(start + 1, len(lines)) if re.match(rf"#{{1,{level}}} ", lines[i])), len(lines))
    return "\n".join(lines[start + 1 : end])


@pytest.mark.parametrize("name", list(MARKDOWN))
def test_json_is_the_document_tree_with_numbers_chunks_and_summaries(runner: CliRunner, collection: Path, name: str) -> None:
    tree = _json(runner, collection, f"docs/{name}")
    assert tree["source"] == f"docs/{name}" and len(tree["doc_id"]) == 16
    assert tree["title"] == OUTLINE[name][0][1]  # a Markdown document is titled by its first heading
    assert set(tree) == {"doc_id", "source", "title", "path", "number", "pages", "summary", "chunks", "children"}
    assert tree["path"] == [] and tree["number"] is None and tree["chunks"] == 0
    assert _outline(tree) == OUTLINE[name]

    sections = list(_walk(tree))
    assert len(sections) == 7
    for section in sections:
        assert set(section) == {"title", "path", "number", "pages", "summary", "chunks", "children"}
        assert section["path"][-1] == section["title"]
        assert section["pages"] == []  # Markdown has no pages
        assert section["chunks"] == 1  # one paragraph under each heading
        assert section["summary"] and text_language(section["summary"]) == LANGUAGE[name]
        own = _section_text(MARKDOWN[name], section["title"])
        for sentence in re.split(r"(?<=[。.])\s+", section["summary"]):
            assert sentence in own, (section["title"], sentence)
    by_title = {s["title"]: s for s in sections}
    for title, summary in LEAF_SUMMARIES[name].items():
        assert by_title[title]["summary"] == summary
    assert [s["path"] for s in sections if s["number"] == "2.2.1"] == [[OUTLINE[name][1][1], OUTLINE[name][1][2][1][1], OUTLINE[name][1][2][1][2][0][1]]]
    assert text_language(tree["summary"]) == LANGUAGE[name]


def test_a_pdf_section_spans_its_pages(runner: CliRunner, collection: Path) -> None:
    tree = _json(runner, collection, f"docs/{PDF_NAME}")
    assert tree["title"] == PDF_TITLE and tree["pages"] == [1, 4]
    assert _outline(tree) == [
        ("1", "第1章 概要", [("1.1", "1.1 範囲", []), ("1.2", "1.2 用語", [])]),
        ("2", "第2章 バックアップ", [("2.1", "2.1 取得手順", []), ("2.2", "2.2 復元手順", [])]),
    ]
    assert {s["title"]: s["pages"] for s in _walk(tree)} == PDF_SECTION_PAGES
    assert all(s["chunks"] == 1 and text_language(s["summary"]) == "ja" for s in _walk(tree))

    text = _invoke(runner, collection, f"docs/{PDF_NAME}")
    assert text.exit_code == 0, text.output
    out = text.stdout
    assert f"{PDF_TITLE}  docs/{PDF_NAME} · 6 sections · pp. 1–4, 6 chunks" in out
    assert "1 第1章 概要  (pp. 1–2, 3 chunks)" in out  # the implied number, then the title as printed
    assert "1.1 範囲  (p. 1, 1 chunk)" in out and "1 1.1" not in out  # a printed number is not repeated
    assert "2 第2章 バックアップ  (pp. 3–4, 3 chunks)" in out and "2.2 復元手順  (p. 4, 1 chunk)" in out
    assert "本書の範囲は社内のLinuxサーバーです。" in out  # summaries, under their section


def test_human_output_indents_sections_and_shows_summaries_unless_told_not_to(runner: CliRunner, collection: Path) -> None:
    result = _invoke(runner, collection, "docs/handbook-en.md")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    indent = {title: next(line.index(title) for line in lines if title + "  (" in line) for title in ("1 Overview", "1.1 Scope", "2.2.1 Checking a restore")}
    assert indent["1 Overview"] < indent["1.1 Scope"] < indent["2.2.1 Checking a restore"]
    assert "1 Overview  (3 chunks)" in result.stdout and "2 Backups  (4 chunks)" in result.stdout
    assert "2.2 Restoring  (2 chunks)" in result.stdout  # a section counts its subsections' chunks, like its pages
    assert "Always check the date of the snapshot before restoring it." in result.stdout

    zh = _invoke(runner, collection, "docs/guide-zh.md").stdout
    assert "1.2 术语  (1 chunk)" in zh and "年假是指员工每年享有的带薪休假。" in zh

    bare = _invoke(runner, collection, "docs/guide-zh.md", "--no-summaries")
    assert bare.exit_code == 0 and "1.2 术语  (1 chunk)" in bare.stdout
    assert "年假是指" not in bare.stdout and "本制度" not in bare.stdout


def test_depth_keeps_the_top_sections(runner: CliRunner, collection: Path) -> None:
    top = _invoke(runner, collection, "docs/manual-ja.md", "--depth", "1", "--no-summaries")
    assert top.exit_code == 0, top.output
    assert "1 第1章 概要  (3 chunks)" in top.stdout and "2 第2章 バックアップ  (4 chunks)" in top.stdout
    assert "1.1 範囲" not in top.stdout and "2.2.1" not in top.stdout
    assert "… 2 more subsections (--depth)" in top.stdout and "… 3 more subsections (--depth)" in top.stdout

    trimmed = _json(runner, collection, "docs/manual-ja.md", "--depth", "2")
    assert _outline(trimmed) == [
        ("1", "第1章 概要", [("1.1", "1.1 範囲", []), ("1.2", "1.2 用語", [])]),
        ("2", "第2章 バックアップ", [("2.1", "2.1 取得手順", []), ("2.2", "2.2 復元手順", [])]),
    ]
    assert _invoke(runner, collection, "docs/manual-ja.md", "--depth", "0").exit_code == 2


def test_a_source_is_matched_like_chunks_matches_it(runner: CliRunner, collection: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    docs = collection.parent / "docs"
    by_path = _json(runner, collection, str(docs / "guide-zh.md"))  # the file as given to ingest, from anywhere
    assert by_path["source"] == "docs/guide-zh.md"
    monkeypatch.chdir(docs)
    assert _json(runner, collection, "guide-zh.md")["doc_id"] == by_path["doc_id"]  # relative to this folder


def test_unknown_source_exits_1_naming_it_and_the_close_sources(runner: CliRunner, collection: Path) -> None:
    result = _invoke(runner, collection, "docs/manul-ja.md")
    assert result.exit_code == 1 and not result.stdout
    assert "no document 'docs/manul-ja.md'" in result.stderr
    assert result.stderr.split("close:")[1].split()[0].rstrip(",") == "docs/manual-ja.md"

    moved = _invoke(runner, collection, "other/handbook-en.md")  # the same file name in another folder
    assert moved.exit_code == 1 and "close: docs/handbook-en.md" in moved.stderr

    nothing = _invoke(runner, collection, "kubernetes.txt", "--json")
    assert nothing.exit_code == 1 and "no document 'kubernetes.txt'" in nothing.stderr and "close:" not in nothing.stderr
    assert json.loads(nothing.stdout) == {"error": "no document 'kubernetes.txt' in the collection (see `bunko docs`)", "exit_code": 1}


def test_close_sources_prefers_the_same_file_name() -> None:
    sources = ["docs/guide-zh.md", "docs/manual-ja.md", "hr/guide-zh.md", "docs/handbook-en.md"]
    assert close_sources("guide-zh.md", sources) == ["docs/guide-zh.md", "hr/guide-zh.md"]
    assert close_sources("docs/guide-ja.md", sources)[0] == "docs/guide-zh.md"
    assert close_sources("manual-ja", sources) == ["docs/manual-ja.md"]
    assert close_sources("kubernetes.txt", sources) == []


def test_an_empty_collection_says_to_ingest(runner: CliRunner, tmp_path: Path, embedder: UseM3Embedder) -> None:
    Bunko(tmp_path / ".bunko", embedder=embedder).close()
    result = _invoke(runner, tmp_path / ".bunko", "docs/manual-ja.md")
    assert result.exit_code == 1 and "bunko ingest" in result.stderr
    assert _invoke(runner, tmp_path / "nowhere", "docs/manual-ja.md").exit_code == 2
