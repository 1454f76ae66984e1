"""A description's later sentence is read with the term it describes, as a section's sentence is read with its heading."""

from __future__ import annotations

import pytest

from bunko.embed.base import embed_queries
from bunko.rerank.evidence import best_unit, hit_units, score_units
from bunko.retrieve.question import read_question
from bunko.schema import Chunk, Hit
from bunko.text.analyzers import multilingual

CASES = [
    ("TIDE_ARCHIVE\n  The folder searched for station logs when a report is built. If it is not set, the working directory is used.\n"
     "TIDE_STATION\n  The name of the gauge station, printed at the top of every report.",
     "Which folder is used when TIDE_ARCHIVE is not set?", "If it is not set, the working directory is used."),
    ("TIDE_ARCHIVE\n  報告書を作るときに観測所のログを探すフォルダ。設定されていない場合は作業ディレクトリを使う。\n"
     "TIDE_STATION\n  報告書の先頭に印刷される観測所の名前。",
     "TIDE_ARCHIVE が設定されていないとき、どのフォルダが使われますか？", "設定されていない場合は作業ディレクトリを使う。"),
    ("TIDE_ARCHIVE\n  生成报告时查找观测站日志的文件夹。如果未设置，则使用工作目录。\n"
     "TIDE_STATION\n  打印在每份报告顶部的观测站名称。",
     "没有设置 TIDE_ARCHIVE 时，使用哪个文件夹？", "如果未设置，则使用工作目录。"),
]


@pytest.mark.parametrize(("text", "question", "answer"), CASES)
def test_the_sentence_that_answers_about_a_term_is_quoted_though_it_does_not_name_it(
    embedder, text: str, question: str, answer: str,
) -> None:
    hits = [Hit(Chunk("t.html#0", "d0", "t.html", 0, text, text, section_path=["Environment variables"]), 1.0)]
    units = hit_units(hits, 50)
    assert {u.text: u.term for u in units}[answer] == "TIDE_ARCHIVE"
    vector = embed_queries(embedder, [question])[0]
    scored = score_units(read_question(question, multilingual(question)), hits, units, vector, embedder, multilingual)
    assert best_unit(scored).unit.text == answer
