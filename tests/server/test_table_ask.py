"""POST /ask over a spreadsheet: a computed answer's citations carry the cells (column, row, sheet, text) it used."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from openpyxl import Workbook
from server_harness import served_with_group_keys

from bunko import Bunko
from bunko.embed.use_m3 import UseM3Embedder
from bunko.server.collection import ServedCollection

ROWS = [("Kansai", 1200, 980), ("Kanto", 2400, 2650), ("Kyushu", 640, 700)]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, embedder: UseM3Embedder) -> Iterator[tuple[ServedCollection, dict[str, str]]]:
    root = tmp_path_factory.mktemp("tableweb")
    docs = root / "docs"
    docs.mkdir()
    book = Workbook()
    sheet = book.active
    sheet.title = "Sales"
    sheet.append(["Region", "Q3 sales", "Q4 sales"])
    for row in ROWS:
        sheet.append(list(row))
    book.save(docs / "sales.xlsx")
    kb = Bunko(root / "kb", embedder=embedder)
    assert kb.ingest(docs).ok
    with served_with_group_keys(kb) as served_keys:
        yield served_keys


def test_ask_returns_the_cells_an_aggregate_added(app_client: TestClient, served: tuple[ServedCollection, dict[str, str]]) -> None:
    response = app_client.post("/api/collections/kb/ask", json={"question": "What is the total Q3 sales?"},
                               headers={"Authorization": f"Bearer {served[1]['reader']}"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert not body["abstained"] and "4,240" in body["text"] and "Sum of Q3 sales" in body["text"]
    [citation] = body["citations"]
    added = [c for c in citation["cells"] if c["column"] == "Q3 sales"]
    assert sorted((c["row"], c["text"], c["sheet"]) for c in added) == [(2, "1200", "Sales"), (3, "2400", "Sales"), (4, "640", "Sales")]
    assert set(citation["cells"][0]) == {"column", "row", "text", "page", "sheet"}
    trace = app_client.get(f"/api/collections/kb/traces/{body['trace_id']}", headers={"Authorization": f"Bearer {served[1]['reader']}"})
    assert trace.status_code == 200
    [step] = [s for s in trace.json()["steps"] if s["name"] == "table"]
    assert step["output"]["sql"].startswith("SELECT SUM(") and step["output"]["value"] == 4240


def test_a_lookup_over_http_cites_the_cell_it_read(app_client: TestClient, served: tuple[ServedCollection, dict[str, str]]) -> None:
    response = app_client.post("/api/collections/kb/ask", json={"question": "What is the Q4 sales of Kanto?"},
                               headers={"Authorization": f"Bearer {served[1]['reader']}"})
    body = response.json()
    assert "2650" in body["text"]
    assert any(c["text"] == "2650" and c["column"] == "Q4 sales" for c in body["citations"][0]["cells"])
