"""The web page in headless Chromium: key, drag-and-drop upload, jobs to READY and FAILED, a Japanese question, a citation opened.

Uses Debian's /usr/bin/chromium through Playwright (never `playwright install`);
skipped only when that browser is absent.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from server_harness import CHROMIUM, Live, running, sign_in

from bunko.server.collection import ServedCollection
from system_packages import missing

TRAVEL = (Path(__file__).resolve().parents[2] / "src" / "bunko" / "samples" / "docs" / "travel-expense-policy-ja.md").read_text("utf-8")

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason=missing("Chromium (the chromium package)"))


@pytest.fixture
def live(served_factory: Callable[..., ServedCollection]) -> Iterator[Live]:
    served = served_factory("handbook")
    key = served.keys.create("web", "editor")
    with running([served]) as server:
        server.keys = {"web": key}
        yield server


def test_upload_ask_in_japanese_and_open_a_citation(live: Live, page) -> None:
    from playwright.sync_api import expect

    sign_in(page, live, role="editor")
    expect(page.locator("#upload-section")).to_be_visible()

    # drag and drop: a DataTransfer holding the file, dropped on the zone, as a browser does it
    page.evaluate(
        """([name, text, png]) => {
            const data = new DataTransfer();
            data.items.add(new File([text], name, { type: "text/markdown" }));
            data.items.add(new File([new Uint8Array(png)], "scan.md", { type: "text/markdown" }));
            const zone = document.querySelector("#dropzone");
            zone.dispatchEvent(new DragEvent("dragenter", { dataTransfer: data, bubbles: true, cancelable: true }));
            zone.dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
        }""",
        ["出張旅費規程.md", TRAVEL, list(b"\x89PNG\r\n\x1a\n" + bytes(64))],
    )
    expect(page.locator("#dropped")).to_contain_text("2 file(s): 出張旅費規程.md, scan.md")
    page.get_by_role("button", name="Upload").click()
    expect(page.locator("#upload-status")).to_contain_text("Queued 2 file")
    travel_job = page.locator("#jobs-table tbody tr", has_text="出張旅費規程.md")
    expect(travel_job.locator("td.status")).to_have_text("READY", timeout=120_000)
    failed_job = page.locator("#jobs-table tbody tr", has_text="scan.md")
    expect(failed_job.locator("td.status")).to_have_text("FAILED")
    expect(failed_job).to_contain_text("UNSUPPORTED_FORMAT")
    expect(page.locator("#docs-table tbody")).to_contain_text("出張旅費規程.md", timeout=30_000)

    question = page.get_by_label("Question (日本語・中文・English)")
    question.fill("東京23区に出張する一般社員の宿泊費の上限はいくらですか？")
    question.press("Enter")
    cite = page.locator("#answer-text button.cite").first
    expect(cite).to_be_visible(timeout=60_000)
    expect(page.locator("#answer-text")).to_contain_text("12,000円")
    expect(page.locator("#answer-text")).to_have_attribute("lang", "ja")
    expect(page.locator("#citations li").first).to_contain_text("出張旅費規程.md")

    page.get_by_text("Trace: hits, scores and timings").click()
    expect(page.locator("#trace-body table.trace-hits tbody tr").first).to_contain_text("出張旅費規程.md")
    expect(page.locator("#trace-body .timings")).to_contain_text("total")

    cite.focus()
    page.keyboard.press("Enter")  # citations are buttons: keyboard users open them too
    cited = page.locator("#context .chunk.cited")
    expect(cited).to_be_visible()
    expect(page.locator("#context-h")).to_be_focused()
    expect(cited.locator(".where")).to_contain_text("宿泊費")
    expect(cited.locator("table.md-table tr.cited mark", has_text="12,000円")).to_have_count(1)  # the cited row of the table
    expect(cited).to_be_in_viewport()


def test_every_control_has_a_label(live: Live, page) -> None:
    page.goto(live.url + "/")
    unlabelled = page.evaluate(
        """() => [...document.querySelectorAll("input, select, textarea")]
            .filter((el) => el.labels.length === 0 && !el.getAttribute("aria-label")).map((el) => el.id)"""
    )
    assert unlabelled == []
    landmarks = page.evaluate("() => ['header', 'main', 'h1'].map((s) => document.querySelectorAll(s).length)")
    assert landmarks == [1, 1, 1]
    assert json.loads(page.evaluate("() => JSON.stringify(document.documentElement.lang)")) == "en"
