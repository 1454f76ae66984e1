"""A manual's "operation | command" table answers "which command does X": its row beats prose that only names a
program, even when X is described with a quantity ("how long each unit took")."""

from __future__ import annotations

import pytest

from bunko.rerank.evidence import best_unit
from bunko.text.answer_types import states_number
from bunko.text.languages import query_language

CASES = [
    ("The gallery opens slowly. Which command lists every album by how long it took to index?",
     "pixdb offers not only the indexing but also the general album management with the pixctl(1) command.",
     ("Operation", "Command snippets"), ("List of all albums by the time to index", '"pixdb-stats slowest"'),
     "4.2. Other gallery tools"),
    ("ギャラリーの表示が遅いので、各アルバムの索引作成に何秒かかったかを一覧したい。どのコマンドを使いますか？",
     "pixdb は索引作成だけでなく pixctl(1) コマンドで一般的なアルバム管理操作も提供します。",
     ("操作", "コマンド断片"), ("索引作成にかかった時間を全てのアルバムに関してリストする", '"pixdb-stats slowest"'),
     "4.2. その他のギャラリーツール"),
    ("图库打开很慢，想列出每个相册建索引各用了多少时间，该用哪个命令？",
     "pixdb 不仅仅提供索引，还用 pixctl(1) 命令提供通用的相册管理操作。",
     ("操作", "命令片段"), ("列出所有相册的索引时间", '"pixdb-stats slowest"'),
     "4.2. 其它图库工具"),
]


@pytest.mark.parametrize(("question", "prose", "header", "cells", "section"), CASES)
def test_the_command_row_answers_over_prose_naming_a_manual_page(
    units_of, question: str, prose: str, header: tuple[str, str], cells: tuple[str, str], section: str
) -> None:
    table = f"| {header[0]} | {header[1]} |\n|---|---|\n| {cells[0]} | {cells[1]} |"
    row = f"{header[0]}: {cells[0]} / {header[1]}: {cells[1]}"
    scored = units_of(question, section, f"{prose}\n\n{table}")
    assert {s.unit.text for s in scored} == {prose, row}
    assert all(s.typed for s in scored)
    assert best_unit(scored, query_language(question)).unit.text == row


def test_the_digits_of_a_reference_are_not_a_number() -> None:
    assert not states_number("the pixctl(1) command")
    assert not states_number("参见第 3.6 节和表 3.7")
    assert not states_number("詳細は 第 3 章 を参照")
    assert states_number("IndexTimeoutSec=90s")
    assert states_number("デフォルトは 90 秒です")
