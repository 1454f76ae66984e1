"""Adversarial access tests: a reader tries every endpoint to reach a document outside their groups.

The finance document's secrets (PELICAN-4410, 8億円, 800 million) and the
samples (which carry no groups, so only unrestricted keys see them) must never
reach an hr key: not in hits, answers, citations, streams, chat completions,
document lists, chunks or traces, whatever filter the reader sends.
"""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest
from server_harness import BUDGET_FINANCE, Live, upload, wait_jobs

SECRETS = ("PELICAN-4410", "8億円", "800 million")
ESCAPES: list[dict[str, Any]] = [
    {"$or": [{"groups": {"$in": ["finance"]}}, {"source": {"$glob": "*"}}]},
    {"$not": {"groups": "hr"}},
    {"groups": {"$nin": ["hr"]}},
    {"groups": {"$in": ["finance", "hr"]}},
    {"source": {"$glob": "*budget*"}},
    {"$or": [{"$not": {"groups": {"$in": ["hr"]}}}, {"title": {"$ne": ""}}]},
]


def _leaks(payload: Any) -> list[str]:
    """Secrets of other groups in a response, ignoring the echo of the caller's own query."""
    if isinstance(payload, dict):
        payload = {k: v for k, v in payload.items() if k not in ("query", "question", "query_tokens")}
    text = json.dumps(payload, ensure_ascii=False)
    found = [s for s in SECRETS if s in text]
    if "budget-fin.md" in text:
        found.append("budget-fin.md")
    if "samples/docs" in text or "travel-expense" in text:
        found.append("an ungrouped sample")
    return found


def _budget_doc_id(live: Live) -> str:
    with live.client("admin") as admin:
        docs = admin.get(live.api("corp", "/documents")).json()["documents"]
    return next(d["doc_id"] for d in docs if d["source"].endswith("budget-fin.md"))


def test_the_owner_group_does_find_the_secret(acl_live: Live) -> None:
    """The control: without it, the leak tests below could pass on a search that finds nothing for anyone."""
    with acl_live.client("fin_reader") as fin:
        hits = fin.post(acl_live.api("corp", "/search"), json={"query": "PELICAN-4410"}).json()["hits"]
        assert hits and hits[0]["source"].endswith("budget-fin.md")
        answer = fin.post(acl_live.api("corp", "/ask"), json={"question": "What is the R&D budget for next year?"}).json()
        assert "800 million" in answer["text"] and answer["citations"][0]["source"].endswith("budget-fin.md")


@pytest.mark.parametrize("filters", [None, *ESCAPES])
def test_search_never_returns_a_forbidden_chunk(acl_live: Live, filters: dict[str, Any] | None) -> None:
    with acl_live.client("hr_reader") as hr:
        for query in ("PELICAN-4410", "研究開発予算", "R&D budget next year", "出張の宿泊費"):
            response = hr.post(acl_live.api("corp", "/search"), json={"query": query, "k": 20, "filters": filters, "explain": True})
            assert response.status_code == 200, response.text
            assert not _leaks(response.json()), (query, filters)
            assert all(h["source"].endswith(("salary-hr.md", "party-shared.md")) for h in response.json()["hits"])


@pytest.mark.parametrize("filters", [None, *ESCAPES[:3]])
def test_ask_and_its_stream_never_use_a_forbidden_chunk(acl_live: Live, filters: dict[str, Any] | None) -> None:
    with acl_live.client("hr_reader") as hr:
        for question in ("What is the R&D budget for next year?", "来期の研究開発予算はいくらですか？"):
            answer = hr.post(acl_live.api("corp", "/ask"), json={"question": question, "filters": filters})
            assert answer.status_code == 200 and not _leaks(answer.json()), answer.text
            stream = hr.post(acl_live.api("corp", "/ask"), json={"question": question, "filters": filters, "stream": True})
            assert stream.status_code == 200 and "event: done" in stream.text
            assert not _leaks(stream.text)


def test_chat_completions_never_use_a_forbidden_chunk(acl_live: Live) -> None:
    client = openai.OpenAI(base_url=acl_live.url + "/v1", api_key=acl_live.keys["hr_reader"], max_retries=0)
    question = "What is the R&D budget for next year? Budget code PELICAN-4410"
    completion = client.chat.completions.create(model="corp", messages=[{"role": "user", "content": question}])
    assert not _leaks(completion.model_dump())
    pieces = list(client.chat.completions.create(model="corp", messages=[{"role": "user", "content": question}], stream=True))
    assert not _leaks([p.model_dump() for p in pieces])
    leaky = client.chat.completions.create(
        model="corp", messages=[{"role": "user", "content": question}], extra_body={"filters": ESCAPES[0]},
    )
    assert not _leaks(leaky.model_dump())


def test_documents_chunks_and_deletes_of_other_groups_are_invisible(acl_live: Live) -> None:
    doc_id = _budget_doc_id(acl_live)
    with acl_live.client("hr_reader") as hr:
        listed = hr.get(acl_live.api("corp", "/documents")).json()["documents"]
        assert sorted(d["source"].rsplit("/", 1)[-1] for d in listed) == ["party-shared.md", "salary-hr.md"]
        shown = hr.get(acl_live.api("corp", f"/documents/{doc_id}"), params={"elements": True})
        assert shown.status_code == 404 and not _leaks(shown.json())
        tree = hr.get(acl_live.api("corp", f"/documents/{doc_id}/tree"))
        assert tree.status_code == 404 and tree.json()["error"]["code"] == "DOCUMENT_NOT_FOUND" and not _leaks(tree.json())
        status = hr.get(acl_live.api("corp")).json()
        assert status["documents"] == 2 and "chunks" not in status
    with acl_live.client("hr_editor") as editor:
        assert editor.delete(acl_live.api("corp", f"/documents/{doc_id}")).status_code == 404
    with acl_live.client("multi") as multi:
        assert multi.get(acl_live.api("corp", f"/documents/{doc_id}")).status_code == 200
        tree = multi.get(acl_live.api("corp", f"/documents/{doc_id}/tree")).json()
        assert [(s["title"], [c["title"] for c in s["children"]]) for s in tree["children"]] == [("予算計画", ["R&D budget"])]
    with acl_live.client("all_reader") as everyone:
        assert len(everyone.get(acl_live.api("corp", "/documents")).json()["documents"]) == 15


def test_traces_are_their_askers_only(acl_live: Live) -> None:
    with acl_live.client("fin_reader") as fin:
        trace_id = fin.post(acl_live.api("corp", "/ask"), json={"question": "What is the R&D budget for next year?"}).json()["trace_id"]
        own = fin.get(acl_live.api("corp", f"/traces/{trace_id}"))
        assert own.status_code == 200 and "budget-fin.md" in own.text and "800 million" in own.text
    for other in ("hr_reader", "multi", "all_reader"):
        with acl_live.client(other) as client:
            response = client.get(acl_live.api("corp", f"/traces/{trace_id}"))
            assert response.status_code == 404 and not _leaks(response.json()), other
    with acl_live.client("admin") as admin:
        assert admin.get(acl_live.api("corp", f"/traces/{trace_id}")).status_code == 200


def test_retrieval_itself_is_filtered_not_only_the_output(acl_live: Live) -> None:
    """A reader's own trace lists every candidate retrieval produced: none may come from another group."""
    with acl_live.client("hr_reader") as hr:
        for filters in (None, ESCAPES[0], ESCAPES[1]):
            asked = hr.post(acl_live.api("corp", "/ask"), json={"question": "What are the executive pay cap and the R&D budget (PELICAN-4410)?", "filters": filters}).json()
            trace = hr.get(acl_live.api("corp", f"/traces/{asked['trace_id']}"))
            assert trace.status_code == 200, "the trace names a document outside the reader's groups"
            payload = trace.json()
            assert not _leaks(payload["candidates"])
            assert payload["candidates"] or filters == ESCAPES[1]  # "not hr" AND "hr" leaves nothing, as it should
            assert {"groups": {"$in": ["hr"]}} in [payload["filters"], *payload["filters"].get("$and", [])]


def test_a_trace_is_withdrawn_when_its_document_leaves_the_askers_groups(acl_live: Live) -> None:
    """Re-labelling a document takes it away from earlier traces too, not only from new searches."""
    with acl_live.client("multi") as multi:
        trace_id = multi.post(acl_live.api("corp", "/ask"), json={"question": "What is the R&D budget for next year?"}).json()["trace_id"]
        assert multi.get(acl_live.api("corp", f"/traces/{trace_id}")).status_code == 200
    with acl_live.client("admin") as admin:
        job = upload(admin, "corp", {"budget-fin.md": BUDGET_FINANCE}, groups="board").json()["jobs"][0]
        assert wait_jobs(admin, "corp", [job["job_id"]])[0]["status"] == "READY"
    try:
        with acl_live.client("multi") as multi:
            assert multi.get(acl_live.api("corp", f"/traces/{trace_id}")).status_code == 404
            hits = multi.post(acl_live.api("corp", "/search"), json={"query": "PELICAN-4410"}).json()["hits"]
            assert not _leaks(hits)
    finally:
        with acl_live.client("admin") as admin:
            job = upload(admin, "corp", {"budget-fin.md": BUDGET_FINANCE}, groups="finance").json()["jobs"][0]
            assert wait_jobs(admin, "corp", [job["job_id"]])[0]["status"] == "READY"


def test_editors_cannot_label_outside_or_overwrite_other_groups(acl_live: Live) -> None:
    with acl_live.client("hr_editor") as editor:
        outside = upload(editor, "corp", {"note.md": "# Note\n\nhello\n"}, groups="finance")
        assert outside.status_code == 403 and "finance" in outside.json()["error"]["message"]
        overwrite = upload(editor, "corp", {"budget-fin.md": "# 予算計画\n\n予算は0円です。\n"})
        assert overwrite.status_code == 403 and overwrite.json()["error"]["code"] == "FORBIDDEN"
        jobs = editor.get(acl_live.api("corp", "/jobs")).json()
        assert all(j["owner"] == "hr_editor" for j in jobs["jobs"])
        assert editor.get(acl_live.api("corp", "/jobs"), params={"engine": True}).status_code == 403
    with acl_live.client("fin_reader") as fin:
        assert "800 million" in fin.post(acl_live.api("corp", "/ask"), json={"question": "What is the R&D budget for next year?"}).json()["text"]


def test_roles_and_keys_are_enforced(acl_live: Live) -> None:
    with acl_live.client() as nobody:
        response = nobody.post(acl_live.api("corp", "/search"), json={"query": "x"})
        assert response.status_code == 401 and response.headers["www-authenticate"] == "Bearer"
        assert response.json()["error"]["code"] == "UNAUTHORIZED"
        assert nobody.get("/metrics").status_code == 401
    with acl_live.client("bk_not-a-real-key") as forged:
        assert forged.post(acl_live.api("corp", "/search"), json={"query": "x"}).status_code == 401
    with acl_live.client("hr_reader") as reader:
        assert upload(reader, "corp", {"x.md": "# x\n\ny\n"}).status_code == 403
        assert reader.get(acl_live.api("corp", "/jobs")).status_code == 403
        assert reader.get(acl_live.api("corp", "/keys")).status_code == 403
        assert reader.get("/metrics").status_code == 403
        assert reader.get(acl_live.api("other", "/documents")).status_code == 401  # a key belongs to one collection
        assert reader.get(acl_live.api("corp", "/me")).json() == {"name": "hr_reader", "role": "reader", "groups": ["hr"]}
    with acl_live.client("admin") as admin:
        listed = admin.get(acl_live.api("corp", "/keys")).json()["keys"]
        assert {k["name"] for k in listed} >= {"admin", "hr_reader"} and all("key" not in k for k in listed)
        assert admin.get("/metrics").status_code == 200


def test_models_list_only_the_collections_a_key_opens(acl_live: Live) -> None:
    reader = openai.OpenAI(base_url=acl_live.url + "/v1", api_key=acl_live.keys["hr_reader"], max_retries=0)
    assert [m.id for m in reader.models.list()] == ["corp"]
    other = openai.OpenAI(base_url=acl_live.url + "/v1", api_key=acl_live.keys["other_admin"], max_retries=0)
    assert [m.id for m in other.models.list()] == ["other"]
    with pytest.raises(openai.AuthenticationError):
        other.chat.completions.create(model="corp", messages=[{"role": "user", "content": "PELICAN-4410"}])
    with pytest.raises(openai.AuthenticationError):
        openai.OpenAI(base_url=acl_live.url + "/v1", api_key="bk_wrong", max_retries=0).models.list()


def test_keys_are_stored_hashed(acl_live: Live) -> None:
    stored = acl_live.collections["corp"].keys.path.read_bytes()
    assert all(key.encode() not in stored for key in acl_live.keys.values())
