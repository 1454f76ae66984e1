"""Document views render Markdown tables as tables (issue 50, item 9), in headless Chromium.

A document's table is stored as Markdown (`| 区分 | 上限 |`, `|---|---|`, rows); the page showed those pipes. It
shows a <table> now, with the text around it as text, and a citation of one row marks that row.
Uses Debian's /usr/bin/chromium through Playwright, as test_browser.py does; skipped when that browser is absent.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from server_harness import CHROMIUM, Live, sign_in

from system_packages import missing

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason=missing("Chromium (the chromium package)"))

DOCS = {
    "parking-ja.md": """# 駐車場規程

## 月額料金

社員駐車場の月額料金は車種ごとに次のとおりです。

| 車種 | 月額料金 | 備考 |
|---|---|---|
| 軽自動車 | 4,000円 | 屋根なし |
| 普通車 | 6,500円 | 屋根付き \\| 充電器あり |
| 大型車 | 9,000円 | 事前申請が必要 |

料金は毎月の給与から差し引かれます。
""",
    "parking-zh.md": """# 停车场规定

## 月费

| 车型 | 月费 |
|---|---|
| 小型车 | 300元 |
| 普通车 | 450元 |
""",
    "parking-en.md": """# Parking rules

## Monthly fees

| Vehicle | Monthly fee |
|---|---|
| Motorcycle | $40 |
| Car | $95 |
""",
}


@pytest.fixture
def live(reader_live: Callable[..., Live]) -> Live:
    return reader_live("facilities", DOCS)


@pytest.mark.parametrize(("title", "header", "row"), [
    ("駐車場規程", ["車種", "月額料金", "備考"], ["普通車", "6,500円", "屋根付き | 充電器あり"]),
    ("停车场规定", ["车型", "月费"], ["普通车", "450元"]),
    ("Parking rules", ["Vehicle", "Monthly fee"], ["Car", "$95"]),
])
def test_a_document_view_shows_its_table_as_a_table(live: Live, page, title: str, header: list[str], row: list[str]) -> None:
    from playwright.sync_api import expect

    sign_in(page, live)
    page.locator("#docs-table").get_by_role("button", name=title).click()
    table = page.locator("#context-chunks table.md-table").first
    expect(table).to_be_visible()
    expect(table.locator("thead th")).to_have_text(header)
    expect(table.locator("tbody tr", has_text=row[0]).locator("td")).to_have_text(row)
    assert "|---|" not in page.locator("#context-chunks").inner_text()
    assert not any(line.strip().startswith("|") for line in page.locator("#context-chunks").inner_text().splitlines())


def test_the_text_around_a_table_stays_and_a_cited_row_is_marked(live: Live, page) -> None:
    from playwright.sync_api import expect

    sign_in(page, live)
    question = page.get_by_label("Question (日本語・中文・English)")
    question.fill("普通車の駐車場の月額料金はいくらですか？")
    question.press("Enter")
    expect(page.locator("#answer-text")).to_contain_text("6,500円", timeout=60_000)
    page.locator("#answer-text button.cite").first.click()
    cited = page.locator("#context .chunk.cited")
    expect(cited).to_be_visible()
    expect(cited.locator("table.md-table tr.cited")).to_have_count(1)
    expect(cited.locator("table.md-table tr.cited td").first).to_have_text("普通車")
    expect(cited.locator("table.md-table tr.cited mark").first).to_have_text("普通車")
    text = page.locator("#context-chunks").inner_text()
    assert "社員駐車場の月額料金は車種ごとに次のとおりです。" in text and "料金は毎月の給与から差し引かれます。" in text
