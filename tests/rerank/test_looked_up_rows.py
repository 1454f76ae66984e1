"""A table row the question looks up by a value it gives is scored, however few of the question's words it shares:
"man 手册页第 5 节是放什么内容的？" is answered by the row whose cell is 5, not by the twelve sentences about manual
pages around it (ja/zh/en)."""

from __future__ import annotations

import pytest

from bunko.rerank.evidence import hit_units, looked_up_rows, most_covering
from bunko.retrieve.coverage import keyword_coverage
from bunko.schema import Chunk, Hit
from bunko.text.analyzers import multilingual
from bunko.text.answer_types import question_type
from bunko.text.units import ROW, Unit

CASES = [
    ("Which kind of manual page goes in section 5?", "Conventions",
     ["Every manual page goes in one section of the manual.", "Check that your manual page is in the right section.",
      "The kind of a manual page decides which section it goes in."],
     "| Section | Description | Notes |\n|---|---|---|\n| 1 | User commands | Executable commands or scripts |\n"
     "| 5 | File formats | e.g. /etc/passwd |\n| 8 | System administration commands | Usually only for root |",
     "Section: 5 / Description: File formats / Notes: e.g. /etc/passwd"),
    ("man ページの第 5 節にはどんな内容のページを置きますか？", "規約",
     ["man ページはどれも man の一つの節に置きます。", "man ページが正しい節に置かれているか確認してください。",
      "ページの内容によって、どの節に置くかが決まります。"],
     "| 節 | 説明 | 注 |\n|---|---|---|\n| 1 | ユーザーコマンド | 実行可能なコマンドやスクリプト |\n"
     "| 5 | ファイル形式 | 例: /etc/passwd |\n| 8 | システム管理コマンド | 通常 root 専用 |",
     "節: 5 / 説明: ファイル形式 / 注: 例: /etc/passwd"),
    ("man 手册页第 5 节是放什么内容的？", "约定",
     ["每个 man 手册页都放在手册的某一节中。", "请检查 man 手册页是否放在正确的节。", "手册页的内容决定它放在哪一节。"],
     "| 节 | 描述 | 提示 |\n|---|---|---|\n| 1 | 用户命令 | 可执行的命令或脚本 |\n"
     "| 5 | 文件格式 | 例如 /etc/passwd 的格式 |\n| 8 | 系统管理命令 | 通常只供 root 使用 |",
     "节: 5 / 描述: 文件格式 / 提示: 例如 /etc/passwd 的格式"),
]


@pytest.mark.parametrize(("question", "section", "sentences", "table", "row"), CASES)
def test_a_row_the_question_looks_up_is_scored_whatever_its_coverage(
    question: str, section: str, sentences: list[str], table: str, row: str,
) -> None:
    text = "\n\n".join([" ".join(sentences), table])
    hits = [Hit(Chunk("doc.md#0", "d0", "doc.md", 0, text, f"{section}\n{text}", section_path=[section]), 1.0)]
    units = hit_units(hits, 50)
    assert row in {u.text for u in units}
    kept = most_covering(question, hits, units, multilingual(question), None, multilingual, per_hit=2)
    coverage = {u.text: keyword_coverage(multilingual(question), set(multilingual(f"{section} {u.text}"))) for u in units}
    assert sorted(coverage.values(), reverse=True).index(coverage[row]) >= 2  # two units cover more of the question
    assert row in {u.text for u in kept} and len(kept) == 3  # the two most covering units, and the looked-up row


@pytest.mark.parametrize(
    ("question", "rows", "looked_up"),
    [
        ("東京23区に出張する一般社員の宿泊費の上限は？",
         ["地域: 東京23区 / 一般社員: 12,000円", "地域: 大阪市 / 一般社員: 10,000円"], [0]),
        ("去北京市区出差的普通员工住宿费上限是多少？", ["地区: 其他城市 / 普通员工: 450元", "地区: 北京市区 / 普通员工: 600元"], [1]),
        ("How do I keep bashisms out of a script for every POSIX shell?", ["package: bash / POSIX shell: Yes"], []),
    ],
)
def test_a_cjk_name_the_question_writes_looks_its_row_up(question: str, rows: list[str], looked_up: list[int]) -> None:
    """A Japanese or Chinese name is no key term (its tokens are bigrams), so the cell the question writes as it stands
    names the row; a Latin cell must be a whole key term ("bash" is written inside "bashisms", and names nothing)."""
    units = [Unit(text, 0, position, ROW) for position, text in enumerate(rows)]
    tokens = multilingual(question)
    assert sorted(looked_up_rows(units, question, question_type(question), tokens, multilingual)) == looked_up
