"""The HTTP API against a real server: upload and jobs, documents, search, ask (JSON and SSE), traces, errors, metrics."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_harness import Live, running, sse_events, upload, wait_jobs

from bunko.retrieve.explain import thresholds
from bunko.server.collection import ServedCollection

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
TRAVEL = (Path(__file__).resolve().parents[2] / "src" / "bunko" / "samples" / "docs" / "travel-expense-policy-ja.md").read_text("utf-8")


@pytest.fixture
def live(served_factory: Callable[..., ServedCollection]) -> Iterator[Live]:
    """One open collection (no keys: anonymous admin on loopback), 1 MB upload limit, 2 MB request limit."""
    with running([served_factory("kb", max_upload_mb=1)], max_request_mb=2) as server:
        yield server


def _ingest(client: httpx.Client, files: dict[str, bytes | str], groups: str | None = None) -> list[dict[str, Any]]:
    response = upload(client, "kb", files, groups)
    assert response.status_code == 202, response.text
    return wait_jobs(client, "kb", [j["job_id"] for j in response.json()["jobs"]])


def test_upload_ingests_in_the_background_and_documents_show_chunks(live: Live) -> None:
    with live.client() as client:
        response = upload(client, "kb", {"出張旅費規程.md": TRAVEL})
        assert response.status_code == 202
        job = response.json()["jobs"][0]
        assert job["status"] == "PENDING" and job["filename"] == "出張旅費規程.md" and job["job_id"]
        done = wait_jobs(client, "kb", [job["job_id"]])[0]
        assert done["status"] == "READY" and done["doc_id"] and done["timings"]["total"] > 0
        assert (live.collections["kb"].kb.path / "uploads" / "出張旅費規程.md").read_text("utf-8") == TRAVEL

        docs = client.get(live.api("kb", "/documents")).json()["documents"]
        assert [d["source"] for d in docs] == ["kb/uploads/出張旅費規程.md"]
        shown = client.get(live.api("kb", f"/documents/{docs[0]['doc_id']}"), params={"elements": True}).json()
        assert shown["chunks"] and any("12,000円" in c["text"] for c in shown["chunks"])
        assert shown["elements"] and shown["chunks"][0]["section_path"][0] == "出張・経費規程"

        again = _ingest(client, {"出張旅費規程.md": TRAVEL})
        assert again[0]["status"] == "SKIPPED"

        removed = client.delete(live.api("kb", f"/documents/{docs[0]['doc_id']}")).json()
        assert removed["removed"] is True
        assert not (live.collections["kb"].kb.path / "uploads" / "出張旅費規程.md").exists()
        assert client.get(live.api("kb", "/documents")).json()["documents"] == []
        assert client.get(live.api("kb", f"/documents/{docs[0]['doc_id']}")).status_code == 404


def test_failed_ingest_jobs_carry_a_code_and_a_reason(live: Live) -> None:
    with live.client() as client:
        jobs = _ingest(client, {"image.md": PNG, "ok.md": "# OK\n\nFine text.\n"})
        by_name = {j["filename"]: j for j in jobs}
        assert by_name["image.md"]["status"] == "FAILED" and by_name["image.md"]["error_code"] == "UNSUPPORTED_FORMAT"
        assert "binary" in by_name["image.md"]["error_detail"]
        assert by_name["ok.md"]["status"] == "READY"
        assert not (live.collections["kb"].kb.path / "uploads" / "image.md").exists()
        listed = client.get(live.api("kb", "/jobs"), params={"engine": True}).json()
        assert {j["status"] for j in listed["jobs"]} == {"FAILED", "READY"}
        assert any(j["error_code"] == "UNSUPPORTED_FORMAT" for j in listed["engine_jobs"])


def test_upload_names_are_sanitised_and_checked(live: Live) -> None:
    uploads = live.collections["kb"].kb.path / "uploads"
    with live.client() as client:
        jobs = _ingest(client, {"../../escape.md": "# Escape\n\nNo way out.\n", ".hidden.md": "# Hidden\n\nDot.\n", "C:\\tmp\\win.md": "# Win\n\nPath.\n"})
        assert sorted(j["filename"] for j in jobs) == ["escape.md", "hidden.md", "win.md"]
        assert all(j["status"] == "READY" for j in jobs)
        assert sorted(p.name for p in uploads.iterdir() if p.is_file()) == ["escape.md", "hidden.md", "win.md"]
        assert not (live.collections["kb"].kb.path.parent / "escape.md").exists()

        unsupported = upload(client, "kb", {"tool.exe": b"MZ..."})
        assert unsupported.status_code == 415 and unsupported.json()["error"]["code"] == "UNSUPPORTED_FORMAT"
        too_big = upload(client, "kb", {"big.txt": "x" * (1024 * 1024 + 10)})
        assert too_big.status_code == 413 and too_big.json()["error"]["code"] == "TOO_LARGE"
        empty = upload(client, "kb", {"empty.md": b""})
        assert empty.status_code == 400 and empty.json()["error"]["code"] == "EMPTY"
        nameless = upload(client, "kb", {"..": "# x\n\ny\n"})
        assert nameless.status_code == 400 and nameless.json()["error"]["code"] == "BAD_FILENAME"
        huge = client.post(live.api("kb", "/documents"), files=[("files", ("a.md", b"x" * (3 * 1024 * 1024)))])
        assert huge.status_code == 413 and "limit" in huge.json()["error"]["message"]

        mixed = upload(client, "kb", {"fine.md": "# Fine\n\nText.\n", "bad.exe": b"MZ"})
        assert mixed.status_code == 202
        assert [j["filename"] for j in mixed.json()["jobs"]] == ["fine.md"]
        assert mixed.json()["rejected"][0]["error_code"] == "UNSUPPORTED_FORMAT"
        wait_jobs(client, "kb", [j["job_id"] for j in mixed.json()["jobs"]])
    assert not list((uploads / ".incoming").iterdir())


def test_search_filters_explain_and_clear_errors(live: Live) -> None:
    with live.client() as client:
        _ingest(client, {"travel.md": TRAVEL, "note.md": "# Note\n\nThe cafeteria opens at 8am.\n"}, groups="staff")
        found = client.post(live.api("kb", "/search"), json={"query": "宿泊費の上限", "k": 3, "explain": True}).json()
        assert found["hits"][0]["source"].endswith("travel.md")
        assert {"dense", "fusion"} <= set(found["hits"][0]["signals"]) and "embed_query" in found["timings"]
        filtered = client.post(live.api("kb", "/search"), json={"query": "宿泊費の上限", "filters": {"source": {"$glob": "*note.md"}}}).json()
        assert {h["source"] for h in filtered["hits"]} <= {"kb/uploads/note.md"}
        by_group = client.post(live.api("kb", "/search"), json={"query": "cafeteria", "filters": {"groups": "staff"}}).json()
        assert by_group["hits"]
        assert "signals" not in client.post(live.api("kb", "/search"), json={"query": "cafeteria"}).json()["hits"][0]

        bad_filter = client.post(live.api("kb", "/search"), json={"query": "x", "filters": {"colour": "red"}})
        assert bad_filter.status_code == 400 and bad_filter.json()["error"]["code"] == "BAD_FILTER"
        assert "colour" in bad_filter.json()["error"]["message"]
        bad_mode = client.post(live.api("kb", "/search"), json={"query": "x", "mode": "magic"})
        assert bad_mode.status_code == 422 and bad_mode.json()["error"]["details"][0]["field"] == "mode"
        missing = client.post(live.api("kb", "/search"), json={"k": 3})
        assert missing.status_code == 422 and missing.json()["error"]["message"].startswith("query:")
        not_json = client.post(live.api("kb", "/search"), content=b"{oops", headers={"content-type": "application/json"})
        assert not_json.status_code == 422 and not_json.json()["error"]["code"] == "VALIDATION_ERROR"
        unknown = client.post("/api/collections/nope/search", json={"query": "x"})
        assert unknown.status_code == 404 and "kb" in unknown.json()["error"]["message"]
        grouped = client.post(live.api("kb", "/search"), json={"query": "宿泊費の上限 cafeteria", "k": 10, "group_by": "document"}).json()
        assert len({h["source"] for h in grouped["hits"]}) == len(grouped["hits"]) == 2
        preferred = client.post(live.api("kb", "/search"), json={"query": "cafeteria", "language": "en"})
        assert preferred.status_code == 200 and preferred.json()["hits"][0]["source"].endswith("note.md")
        bad_language = client.post(live.api("kb", "/search"), json={"query": "x", "language": "fr"})
        assert bad_language.status_code == 422 and bad_language.json()["error"]["details"][0]["field"] == "language"


def test_search_explanation_is_the_cli_explanation(live: Live) -> None:
    query, filters = "宿泊費の上限", {"source": {"$glob": "*travel.md"}}
    with live.client() as client:
        _ingest(client, {"travel.md": TRAVEL, "note.md": "# Note\n\nThe cafeteria opens at 8am.\n"})
        found = client.post(live.api("kb", "/search"), json={"query": query, "k": 3, "filters": filters, "explain": True}).json()
        plain = client.post(live.api("kb", "/search"), json={"query": query, "k": 3}).json()
    kb = live.collections["kb"].kb
    limits = thresholds(kb.config.retrieve)
    result = kb.search_detailed(query, k=3, filters=filters)
    expected = [kb.explain(hit, result.mode, filtered=True) for hit in result.hits]
    assert [h["explanation"] for h in found["hits"]] == expected
    assert found["thresholds"] == limits
    assert any(line.startswith("dense: ") for line in expected[0]) and "matches the filter" in expected[0][-1]
    assert all("explanation" not in h for h in plain["hits"])


def test_ask_json_and_server_sent_events_agree(live: Live) -> None:
    question = "東京23区に出張する一般社員の宿泊費の上限はいくらですか？"
    with live.client() as client:
        _ingest(client, {"travel.md": TRAVEL})
        answer = client.post(live.api("kb", "/ask"), json={"question": question}).json()
        assert not answer["abstained"] and "12,000円" in answer["text"] and answer["language"] == "ja"
        first = answer["citations"][0]
        assert first["number"] == 1 and first["source"].endswith("travel.md") and first["doc_id"] and first["quote"]
        assert "[1]" in answer["text"] and answer["sentences"][0]["citations"]

        stream = client.post(live.api("kb", "/ask"), json={"question": question, "stream": True})
        assert stream.headers["content-type"].startswith("text/event-stream")
        events = sse_events(stream.text)
        assert events[0] == ("start", {"question": question})
        assert events[-1][0] == "done" and [e for e, _ in events[1:-1]] == ["delta"] * (len(events) - 2)
        done = events[-1][1]
        assert "".join(d["text"] for e, d in events if e == "delta") == done["text"]
        assert done["text"] == answer["text"] and done["citations"][0]["chunk_id"] == first["chunk_id"]

        trace = client.get(live.api("kb", f"/traces/{done['trace_id']}")).json()
        assert trace["question"] == question and trace["hits"] and "total" in trace["timings"]
        assert client.get(live.api("kb", "/traces/0000")).status_code == 404

        bad = client.post(live.api("kb", "/ask"), json={"question": question, "stream": True, "filters": {"nope": 1}})
        assert bad.status_code == 400 and bad.json()["error"]["code"] == "BAD_FILTER"
        abstain = client.post(live.api("kb", "/ask"), json={"question": "火星基地の酸素供給量は？"}).json()
        assert abstain["abstained"] and abstain["citations"] == []


def test_ask_takes_a_forced_mode_and_refuses_an_unknown_one(live: Live) -> None:
    question = "東京23区に出張する一般社員の宿泊費の上限はいくらですか？"
    with live.client() as client:
        _ingest(client, {"travel.md": TRAVEL})
        answer = client.post(live.api("kb", "/ask"), json={"question": question, "mode": "graph"}).json()
        assert "12,000円" in answer["text"]
        trace = client.get(live.api("kb", f"/traces/{answer['trace_id']}")).json()
        assert trace["route"]["mode"] == "graph"
        bad = client.post(live.api("kb", "/ask"), json={"question": question, "mode": "magic"})
        assert bad.status_code == 422


def test_health_openapi_and_metrics(live: Live) -> None:
    with live.client() as client:
        _ingest(client, {"travel.md": TRAVEL})
        client.post(live.api("kb", "/search"), json={"query": "宿泊費"})
        client.post(live.api("kb", "/ask"), json={"question": "宿泊費の上限は？"})
        assert client.get("/health").json()["status"] == "ok"
        schema = client.get("/openapi.json").json()
        for path in ("/api/collections/{name}/documents", "/api/collections/{name}/ask", "/v1/chat/completions", "/metrics"):
            assert path in schema["paths"]
        metrics = client.get("/metrics")
        assert metrics.headers["content-type"].startswith("text/plain")
        text = metrics.text
        assert 'bunko_http_requests_total{method="POST",route="/api/collections/{name}/search",status="200"} 1' in text
        assert 'bunko_stage_duration_seconds_count{collection="kb",operation="search",stage="embed_query"} 1' in text
        assert 'bunko_stage_duration_seconds_count{collection="kb",operation="ask",stage="total"} 1' in text
        assert 'bunko_documents{collection="kb"} 1' in text
        assert 'bunko_ingest_jobs_total{collection="kb",status="READY",error_code=""} 1' in text
        chunks = live.collections["kb"].kb.store.chunk_count()
        assert f'bunko_chunks{{collection="kb"}} {chunks}' in text
        page = client.get("/")
        assert page.status_code == 200 and '<script src="/static/app.js"' in page.text
        assert "default-src 'self'" in page.headers["content-security-policy"]
        assert client.get("/static/app.js").status_code == 200


def test_admin_manages_keys_over_the_api(live: Live) -> None:
    with live.client() as anonymous:
        created = anonymous.post(live.api("kb", "/keys"), json={"name": "ops", "role": "admin"})
        assert created.status_code == 201 and created.json()["key"].startswith("bk_")
        key = created.json()["key"]
        assert anonymous.get(live.api("kb", "/documents")).status_code == 401  # a collection with keys is closed
    with live.client(key) as admin:
        reader = admin.post(live.api("kb", "/keys"), json={"name": "r", "role": "reader", "groups": ["hr"]}).json()
        assert reader["groups"] == ["hr"]
        assert admin.post(live.api("kb", "/keys"), json={"name": "r", "role": "reader"}).status_code == 400
        assert admin.post(live.api("kb", "/keys"), json={"name": "x", "role": "god"}).status_code == 422
        assert admin.delete(live.api("kb", "/keys/r")).json()["revoked"] is True
    with live.client(reader["key"]) as revoked:
        assert revoked.get(live.api("kb", "/documents")).status_code == 401
