from __future__ import annotations

import pytest

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


RAW_HTML = {
    "en": ("Set HTTP_PROXY in /etc/environment.", "Windows", "Press", "to stop."),
    "ja": ("HTTP_PROXY は /etc/environment に書きます。", "Windows の場合", "止めるには", "を押します。"),
    "zh": ("在 /etc/environment 中设置 HTTP_PROXY。", "Windows 系统", "按", "停止。"),
}


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_raw_html_in_markdown_is_read_as_the_text_it_shows(lang: str) -> None:
    """A README's <div>, <details> and <kbd> show text, not tags; a comment shows nothing and is not indexed."""
    note, summary, before, after = RAW_HTML[lang]
    text = (
        f"# Setup\n\n<!-- TODO: draft, do not quote -->\n\n<div class=\"admonition note\">\n<p>{note}</p>\n</div>\n\n"
        f"<details>\n<summary>{summary}</summary>\n\nwinget install foo\n\n</details>\n\n"
        f"{before} <kbd>Ctrl</kbd>+<kbd>C</kbd> {after}<br>exit <!-- hidden -->\n"
    )
    texts = [e.text for e in MarkdownParser().parse_text(text, f"{lang}.md").elements]
    assert texts == ["Setup", note, summary, "winget install foo", f"{before} Ctrl+C {after}\nexit"]
