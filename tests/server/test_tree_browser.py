"""The Sections view in headless Chromium: a document's outline, folded, with page ranges and summaries.

Uses Debian's /usr/bin/chromium through Playwright, as test_browser.py does; skipped when that browser is absent.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from server_harness import CHROMIUM, Live, sign_in

from system_packages import missing
from treedocs import PDF_NAME, write_docs

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason=missing("Chromium (the chromium package)"))


@pytest.fixture
def live(reader_live: Callable[..., Live], tmp_path: Path) -> Live:
    docs = write_docs(tmp_path / "docs")
    return reader_live("ops", [docs / "manual-ja.md", docs / PDF_NAME])


def test_sections_view_shows_the_outline_with_pages_and_summaries(live: Live, page) -> None:
    from playwright.sync_api import expect

    sign_in(page, live)

    page.get_by_role("button", name=f"Sections of docs/{PDF_NAME}").click()
    expect(page.locator("#sections-panel")).to_have_attribute("open", "")
    expect(page.locator("#sections-status")).to_have_text("6 sections · pp. 1–4")
    chapters = page.locator("#sections-tree > li.section")
    expect(chapters).to_have_count(2)
    first = chapters.first
    expect(first.locator("> details > summary")).to_have_text("1 第1章 概要 pp. 1–2 · 3 chunks")
    scope = first.locator('li.section[data-number="1.1"]')
    expect(scope).to_be_hidden()  # folded until its chapter is opened

    first.locator("> details > summary").click()
    expect(scope).to_be_visible()
    expect(scope.locator("summary .title")).to_have_text("1.1 範囲")
    expect(scope.locator("summary .size")).to_have_text("p. 1 · 1 chunk")
    scope.locator("summary").click()
    summary = scope.locator("p.summary")
    expect(summary).to_have_text("本書の範囲は社内のLinuxサーバーです。 クラウド上の仮想マシンは対象外です。")
    expect(summary).to_have_attribute("lang", "ja")

    page.get_by_role("button", name="Expand all").click()
    expect(page.locator('#sections-tree li.section[data-number="2.2"] p.summary')).to_contain_text("復元後はサービスを再起動してください。")

    # another document: its own outline, with the third-level section
    page.get_by_role("button", name="Sections of docs/manual-ja.md").click()
    expect(page.locator("#context-h")).to_have_text("第1章 概要")
    expect(page.locator("#sections-status")).to_have_text("7 sections")
    page.get_by_role("button", name="Expand all").click()
    expect(page.locator('#sections-tree li.section[data-number="2.2.1"] .title')).to_have_text("2.2.1 注意事項")
