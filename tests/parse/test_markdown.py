from __future__ import annotations

from bunko.parse.markdown import MarkdownParser

DOC = """---
title: 休暇規程
tags: [hr, leave]
---
# 休暇規程

## 年次休暇

年次休暇は**二十日**です。

| 勤続年数 | 日数 |
|---|---|
| 1年 | 10日 |
| 5年 \\| 以上 | 20日 |

- 申請は人事部へ
- 3日前まで

### 手順

```bash
leave apply --days 3
```
"""


def test_headings_become_section_paths_and_blocks_are_elements() -> None:
    doc = MarkdownParser().parse_text(DOC, "leave.md")
    kinds = [(e.kind, e.section_path) for e in doc.elements]
    assert kinds == [
        ("heading", ["休暇規程"]),
        ("heading", ["休暇規程", "年次休暇"]),
        ("paragraph", ["休暇規程", "年次休暇"]),
        ("table", ["休暇規程", "年次休暇"]),
        ("list", ["休暇規程", "年次休暇"]),
        ("heading", ["休暇規程", "年次休暇", "手順"]),
        ("code", ["休暇規程", "年次休暇", "手順"]),
    ]
    assert doc.title == "休暇規程"
    assert doc.meta["fields"]["tags"] == ["hr", "leave"]


def test_table_keeps_its_cells_and_renders_markdown() -> None:
    table = next(e for e in MarkdownParser().parse_text(DOC, "leave.md").elements if e.kind == "table")
    assert table.meta["cells"] == {"header": ["勤続年数", "日数"], "rows": [["1年", "10日"], ["5年 | 以上", "20日"]]}
    assert table.text.splitlines()[0] == "| 勤続年数 | 日数 |"
    assert "5年 \\| 以上" in table.text


def test_code_block_keeps_language_and_fences() -> None:
    code = next(e for e in MarkdownParser().parse_text(DOC, "leave.md").elements if e.kind == "code")
    assert code.text == "```bash\nleave apply --days 3\n```"
    assert code.meta["language"] == "bash"
