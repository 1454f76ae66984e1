"""Questions that ask for the row ranked first or last by time ("the oldest", 一番新しい, 最早), in en, ja and zh.

Each language's page holds a table with a column that says when (a release year), which answers the ranking; a
table without one, whose rows cannot rank themselves, so the answer abstains saying the table has no column for
it (abstain reason ``table_cannot_rank``) instead of quoting rows; and a table without dates beside prose that
says which came first, which is answered from the prose.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bunko import Bunko
from bunko.embed.use_m3 import UseM3Embedder
from bunko.generate.steps.state import TABLE_CANNOT_RANK
from bunko.schema import Answer
from bunko.text.table_questions import MAX, MIN, table_intent

PAGES = {
    "en": {
        "title": "Utilities",
        "viewers": ("Image viewers", ["package", "size", "description"],
                    [("pixshow", 812, "a quick viewer"), ("lumaview", 2310, "a viewer with a library"), ("thumbly", 455, "a thumbnail browser")]),
        "archivers": ("Compression tools", ["tool", "release year", "size"],
                      [("squashit", 1998, 120), ("packzip", 1991, 88), ("tinyarc", 2007, 64)]),
        "clocks": ("Clock daemons", ["package", "size"], [("chronyx", 310), ("ntpfast", 275), ("tickd", 198)],
                   "The oldest of the clock daemons is tickd, written in 1987 at a university; chronyx and ntpfast came "
                   "much later."),
    },
    "ja": {
        "title": "ユーティリティ",
        "viewers": ("画像ビューア", ["パッケージ", "サイズ", "説明"],
                    [("pixshow", 812, "軽いビューア"), ("lumaview", 2310, "ライブラリ付き"), ("thumbly", 455, "サムネイル表示")]),
        "archivers": ("圧縮ツール", ["ツール", "リリース日", "サイズ"],
                      [("squashit", "1998-04-02", 120), ("packzip", "1991-11-20", 88), ("tinyarc", "2007-06-15", 64)]),
        "clocks": ("時刻デーモン", ["パッケージ", "サイズ"], [("chronyx", 310), ("ntpfast", 275), ("tickd", 198)],
                   "時刻デーモンの中で一番古いのは tickd で、1987年に大学で書かれました。chronyx と ntpfast はずっと後に登場しました。"),
    },
    "zh": {
        "title": "实用工具",
        "viewers": ("图片查看器", ["软件包", "大小", "说明"],
                    [("pixshow", 812, "轻量查看器"), ("lumaview", 2310, "带图库"), ("thumbly", 455, "缩略图浏览")]),
        "archivers": ("压缩工具", ["工具", "发布年份", "大小"],
                      [("squashit", 1998, 120), ("packzip", 1991, 88), ("tinyarc", 2007, 64)]),
        "clocks": ("时钟守护进程", ["软件包", "大小"], [("chronyx", 310), ("ntpfast", 275), ("tickd", 198)],
                   "时钟守护进程中最早的是 tickd，它于1987年在一所大学写成；chronyx 和 ntpfast 要晚得多。"),
    },
}


def html_table(header: list[str], rows: list[tuple[object, ...]]) -> str:
    head = "".join(f"<th>{h}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def write_page(path: Path, page: dict) -> None:
    viewers, archivers, clocks = page["viewers"], page["archivers"], page["clocks"]
    path.write_text(
        f"<html><head><title>{page['title']}</title></head><body><h1>{page['title']}</h1>"
        f"<h2>{viewers[0]}</h2>" + html_table(viewers[1], viewers[2])
        + f"<h2>{archivers[0]}</h2>" + html_table(archivers[1], archivers[2])
        + f"<h2>{clocks[0]}</h2>" + html_table(clocks[1], clocks[2]) + f"<p>{clocks[3]}</p></body></html>",
        encoding="utf-8")


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory, embedder: UseM3Embedder) -> Iterator[Bunko]:
    root = tmp_path_factory.mktemp("ranking")
    docs = root / "docs"
    docs.mkdir()
    for language, page in PAGES.items():
        write_page(docs / f"utilities-{language}.html", page)
    collection = Bunko(root / "kb", embedder=embedder)
    assert collection.ingest(docs).ok
    yield collection
    collection.close()


def abstain_reason(answer: Answer) -> str | None:
    assert answer.trace is not None
    return answer.trace.abstain_reason


@pytest.mark.parametrize(("question", "operation"), [
    ("Which compression tool is the newest?", MAX),
    ("Which of these tools came out first?", MIN),
    ("最も古い圧縮ツールはどれ？", MIN),
    ("一番新しい圧縮ツールは？", MAX),
    ("哪个压缩工具最早发布？", MIN),
    ("最新的压缩工具是哪个？", MAX),
])
def test_a_ranking_by_time_is_read_as_one(question: str, operation: str) -> None:
    intent = table_intent(question)
    assert intent is not None and intent.by_time and intent.operation == operation


@pytest.mark.parametrize("question", ["What is the first step of the setup?", "最初にすることは？", "最后一步是什么？"])
def test_an_ordinal_that_asks_for_no_row_is_no_ranking(question: str) -> None:
    assert table_intent(question) is None


@pytest.mark.parametrize(("question", "expected", "when", "later"), [
    ("Which compression tool was released first?", "packzip", "1991", "tinyarc"),
    ("一番新しい圧縮ツールはどれ？", "tinyarc", "2007-06-15", "packzip"),  # a date-typed column
    ("哪个压缩工具最早发布？", "packzip", "1991", "tinyarc"),
])
def test_a_table_with_a_release_column_answers_the_ranking(kb: Bunko, question: str, expected: str, when: str, later: str) -> None:
    answer = kb.ask(question)
    assert not answer.abstained, answer.text
    assert expected in answer.text and when in answer.text and later not in answer.text
    assert any(c.cells for s in answer.sentences for c in s.citations)


@pytest.mark.parametrize(("question", "table"), [
    ("Which image viewer is the oldest?", "Image viewers"),
    ("一番古い画像ビューアはどれ？", "画像ビューア"),
    ("哪个图片查看器最早发布？", "图片查看器"),
])
def test_a_table_without_a_date_declines_to_rank_its_rows(kb: Bunko, question: str, table: str) -> None:
    answer = kb.ask(question)
    assert answer.abstained and abstain_reason(answer) == TABLE_CANNOT_RANK
    assert table in answer.text  # the abstention says which table has no column for it
    assert not any(name in answer.text for name in ("pixshow", "lumaview", "thumbly"))


@pytest.mark.parametrize("question", [
    "Which clock daemon is the oldest?",
    "一番古い時刻デーモンはどれ？",
    "哪个时钟守护进程最早？",
])
def test_prose_that_says_which_came_first_still_answers(kb: Bunko, question: str) -> None:
    answer = kb.ask(question)
    assert abstain_reason(answer) != TABLE_CANNOT_RANK
    assert not answer.abstained and "tickd" in answer.text and "1987" in answer.text, answer.text
