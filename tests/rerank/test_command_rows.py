"""A manual's "operation | command" table answers "which command does X": its row beats prose that only names a
program, even when X is described with a quantity ("how long each unit took")."""

from __future__ import annotations

import pytest

from bunko.rerank.evidence import best_unit
from bunko.text.answer_types import states_number

CASES = [
    ("Boot is slow. Which command lists every systemd unit by how long it took to initialize?",
     "systemd offers not only the initialization but also the general system management with the systemctl(1) command.",
     ("Operation", "Command snippets"), ("List of all units by the time to initialize", '"systemd-analyze blame"'),
     "3.6. Other system monitors"),
    ("起動が遅いので、各 systemd unit の初期化に何秒かかったかを一覧したい。どのコマンドを使いますか？",
     "systemd は初期化だけでなく systemctl(1) コマンドで一般的なシステム管理操作も提供します。",
     ("操作", "コマンド断片"), ("初期化にかかった時間を全ての unit に関してリストする", '"systemd-analyze blame"'),
     "3.6. その他のシステムモニター"),
    ("开机很慢，想列出每个 systemd 单元初始化各用了多少时间，该用哪个命令？",
     "systemd 不仅仅提供系统初始化，还用 systemctl(1) 命令提供通用的系统管理操作。",
     ("操作", "命令片段"), ("列出所有单元的初始化时间", '"systemd-analyze blame"'),
     "3.6. 其它系统监控"),
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
    assert best_unit(scored, question).unit.text == row


def test_the_digits_of_a_reference_are_not_a_number() -> None:
    assert not states_number("the systemctl(1) command")
    assert not states_number("参见第 3.6 节和表 3.7")
    assert not states_number("詳細は 第 3 章 を参照")
    assert states_number("DefaultTimeoutStartSec=90s")
    assert states_number("デフォルトは 90 秒です")
