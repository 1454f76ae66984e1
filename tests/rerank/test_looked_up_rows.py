"""A table row the question looks up by a value it gives is scored, however few of the question's words it shares:
"阅览室第 5 架是放什么书的？" is answered by the row whose cell is 5, not by the sentences about shelves around it
(ja/zh/en)."""

from __future__ import annotations

import pytest

from bunko.rerank.evidence import hit_units, looked_up_rows, most_covering
from bunko.retrieve.coverage import keyword_coverage
from bunko.retrieve.question import read_question
from bunko.schema import Chunk, Hit
from bunko.text.analyzers import multilingual
from bunko.text.units import ROW, Unit

CASES = [
    ("Which kind of book goes on reading room shelf 5?", "Shelving",
     ["Every book goes on one shelf of the reading room.", "Check that your book is on the right reading room shelf.",
      "The kind of a book decides which shelf it goes on."],
     "| Shelf | Description | Notes |\n|---|---|---|\n| 1 | Atlases | Large formats only |\n"
     "| 5 | Sea charts | e.g. harbour approaches |\n| 8 | Logbooks | Usually only for staff |",
     "Shelf: 5 / Description: Sea charts / Notes: e.g. harbour approaches"),
    ("閲覧室の第 5 棚にはどんな種類の本を置きますか？", "配架",
     ["本はどれも閲覧室の一つの棚に置きます。", "本が閲覧室の正しい棚に置かれているか確認してください。",
      "本の種類によって、どの棚に置くかが決まります。"],
     "| 棚 | 説明 | 注 |\n|---|---|---|\n| 1 | 地図帳 | 大判のみ |\n"
     "| 5 | 海図 | 例: 港の進入路 |\n| 8 | 航海日誌 | 通常は職員専用 |",
     "棚: 5 / 説明: 海図 / 注: 例: 港の進入路"),
    ("阅览室第 5 架是放什么种类的书的？", "上架",
     ["每本书都放在阅览室的某一架上。", "请检查书是否放在阅览室正确的架上。", "书的种类决定它放在哪一架。"],
     "| 架 | 描述 | 提示 |\n|---|---|---|\n| 1 | 地图集 | 仅限大开本 |\n"
     "| 5 | 海图 | 例如港口进港航道 |\n| 8 | 航海日志 | 通常只供馆员使用 |",
     "架: 5 / 描述: 海图 / 提示: 例如港口进港航道"),
]


@pytest.mark.parametrize(("question", "section", "sentences", "table", "row"), CASES)
def test_a_row_the_question_looks_up_is_scored_whatever_its_coverage(
    question: str, section: str, sentences: list[str], table: str, row: str,
) -> None:
    text = "\n\n".join([" ".join(sentences), table])
    hits = [Hit(Chunk("doc.md#0", "d0", "doc.md", 0, text, f"{section}\n{text}", section_path=[section]), 1.0)]
    units = hit_units(hits, 50)
    assert row in {u.text for u in units}
    kept = most_covering(read_question(question, multilingual(question)), hits, units, None, multilingual, per_hit=2)
    coverage = {u.text: keyword_coverage(multilingual(question), set(multilingual(f"{section} {u.text}"))) for u in units}
    assert sorted(coverage.values(), reverse=True).index(coverage[row]) >= 2  # two units cover more of the question
    assert row in {u.text for u in kept} and len(kept) == 3  # the two most covering units, and the looked-up row


@pytest.mark.parametrize(
    ("question", "rows", "looked_up"),
    [
        ("東京23区に出張する一般社員の宿泊費の上限は？",
         ["地域: 東京23区 / 一般社員: 12,000円", "地域: 大阪市 / 一般社員: 10,000円"], [0]),
        ("去北京市区出差的普通员工住宿费上限是多少？", ["地区: 其他城市 / 普通员工: 450元", "地区: 北京市区 / 普通员工: 600元"], [1]),
        ("How do I keep anchorages out of a chart for every harbour?", ["package: anchor / harbour: Yes"], []),
    ],
)
def test_a_cjk_name_the_question_writes_looks_its_row_up(question: str, rows: list[str], looked_up: list[int]) -> None:
    """A Japanese or Chinese name is no key term (its tokens are bigrams), so the cell the question writes as it stands
    names the row; a Latin cell must be a whole key term ("anchor" is written inside "anchorages", and names nothing)."""
    units = [Unit(text, 0, position, ROW) for position, text in enumerate(rows)]
    tokens = multilingual(question)
    assert sorted(looked_up_rows(units, read_question(question, tokens), multilingual)) == looked_up
