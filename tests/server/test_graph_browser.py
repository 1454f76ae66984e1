"""The Graph panel in headless Chromium: top entities, an entity's neighbours and passages, the mention highlighted.

Uses Debian's /usr/bin/chromium through Playwright, as test_browser.py does; skipped when that browser is absent.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from server_harness import CHROMIUM, Live, sign_in

from system_packages import missing

DOCS = {
    "server-ja.md": (
        "# サーバー運用\n\n## 起動\n\nサーバーを起動する前に /etc/fstab を確認してください。バックアップ手順は毎週実行します。\n\n"
        "## 停止\n\nサーバーを停止するときはバックアップ手順を先に終えてください。ログは /var/log/syslog に残ります。\n"
    ),
    "packages-en.md": (
        "# Package management\n\n## Installing\n\nInstall packages with apt-get. Mount points are listed in /etc/fstab.\n\n"
        "## Removing\n\nRemove a package with apt-get remove.\n"
    ),
}

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason=missing("Chromium (the chromium package)"))


@pytest.fixture
def live(reader_live: Callable[..., Live]) -> Live:
    return reader_live("ops", DOCS)


def test_graph_panel_top_entity_neighbours_and_highlighted_passages(live: Live, page) -> None:
    from playwright.sync_api import expect

    sign_in(page, live)

    page.get_by_text("Entities: what the documents mention, and where").click()
    top = page.locator("#graph-top-list button.chip")
    expect(top.first).to_be_visible()
    page.locator('#graph-top-list button[data-entity="サーバ"]').click()

    expect(page.locator("#graph-entity-h")).to_have_text("サーバ")
    expect(page.locator("#graph-entity-meta")).to_contain_text("2 passages")
    passages = page.locator("#graph-passages li.chunk")
    expect(passages).to_have_count(2)
    first = passages.first
    expect(first.locator(".where")).to_contain_text("server-ja.md › サーバー運用 › 起動")
    expect(first.locator(".snippet mark")).to_have_text("サーバー")
    expect(first.locator(".snippet")).to_contain_text("サーバーを起動する前に")

    first.locator(".where button").click()  # the whole chunk, the mention marked at its span
    full = first.locator(".chunk-text")
    expect(full).to_be_visible()
    expect(full).to_contain_text("バックアップ手順は毎週実行します")
    expect(full.locator("mark")).to_have_text("サーバー")

    page.locator('#graph-neighbours button[data-entity="/etc/fstab"]').click()  # a neighbour opens as an entity
    expect(page.locator("#graph-entity-h")).to_have_text("/etc/fstab")
    expect(page.locator("#graph-passages li.chunk")).to_have_count(2)
    expect(page.locator("#graph-passages")).to_contain_text("Mount points are listed in")

    entity = page.get_by_label("Entity", exact=True)
    entity.fill("pakage")
    entity.press("Enter")
    expect(page.locator("#graph-status")).to_contain_text("No entity “pakage”")
    page.locator('#graph-status button[data-entity="package"]').click()
    expect(page.locator("#graph-entity-h")).to_have_text("package")
    expect(page.locator("#graph-passages li.chunk").first.locator(".snippet mark")).to_have_text("packages")

    # a graph route hit's path in the trace: "via:" chips that open their entity
    page.evaluate(
        """() => document.querySelector("#trace-body").append(
            viaLine({ seeds: ["サーバ"], via: [["バックアップ手順", 0.2]], from_passages: [], bridges: [] }))"""
    )
    page.get_by_text("Trace: hits, scores and timings").evaluate("(summary) => { summary.parentElement.open = true; }")
    page.evaluate("() => document.querySelector('#answer').hidden = false")
    page.locator('#trace-body .via button[data-entity="バックアップ手順"]').click()
    expect(page.locator("#graph-entity-h")).to_have_text("バックアップ手順")
