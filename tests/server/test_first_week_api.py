"""Over HTTP: the language of documents, chunks and hits (and the `lang` filter), retrying failed jobs, personal data
masked on every output under strict, and files judged by their content."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from server_harness import running, upload, wait_jobs

from bunko.server.collection import ServedCollection

PAGES = {
    "leave-ja.md": "# 休暇\n\n## 年次有給休暇\n\n年次有給休暇は入社六か月後に十日付与されます。申請は三日前までに行ってください。\n",
    "leave-zh.md": "# 休假\n\n## 年假\n\n员工入职满一年后享有五天年假，请提前三天申请。\n",
    "leave-en.md": "# Leave\n\n## Annual leave\n\nEmployees receive twenty days of annual leave; apply three days ahead.\n",
}
CONTACTS = {
    "contact-ja.md": "# 問い合わせ\n\n経費の質問は経理部 keiri@aozora.example（電話03-1234-5678）へ連絡してください。\n",
    "contact-zh.md": "# 联系方式\n\n报销问题请联系财务部 caiwu@aozora.example，电话 010-12345678。\n",
    "contact-en.md": "# Contact\n\nSend expense questions to the finance team at finance@aozora.example or call +1 (555) 123-4567.\n",
}
PERSONAL = ("keiri@", "caiwu@", "finance@aozora", "03-1234-5678", "010-12345678", "555) 123-4567")


def test_languages_are_shown_and_filter_search(served_factory: Callable[..., ServedCollection]) -> None:
    with running([served_factory("kb")]) as live, live.client() as client:
        response = upload(client, "kb", PAGES)
        assert all(j["status"] == "READY" for j in wait_jobs(client, "kb", [j["job_id"] for j in response.json()["jobs"]]))
        documents = {Path(d["source"]).name: d for d in client.get(live.api("kb", "/documents")).json()["documents"]}
        assert {name: (d["lang"], d["languages"]) for name, d in documents.items()} == {
            name: (name[6:8], {name[6:8]: 1.0}) for name in PAGES
        }
        shown = client.get(live.api("kb", f"/documents/{documents['leave-zh.md']['doc_id']}")).json()
        assert shown["lang"] == "zh" and {c["lang"] for c in shown["chunks"]} == {"zh"}
        for lang in ("ja", "zh", "en"):
            found = client.post(live.api("kb", "/search"), json={"query": "年假 休暇 annual leave", "filters": {"lang": lang}}).json()
            assert found["hits"] and {h["lang"] for h in found["hits"]} == {lang}
            assert found["hits"][0]["source"].endswith(f"leave-{lang}.md")
        either = client.post(live.api("kb", "/search"), json={"query": "annual leave", "filters": {"lang": {"$in": ["ja", "zh"]}}}).json()
        assert {h["lang"] for h in either["hits"]} <= {"ja", "zh"}


def test_failed_jobs_are_retried_over_http(served_factory: Callable[..., ServedCollection], tmp_path: Path) -> None:
    served = served_factory("kb")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "notes-ja.md").write_text("   \n", encoding="utf-8")
    (docs / "notes-zh.md").write_text("   \n", encoding="utf-8")
    first = served.kb.ingest(docs)
    failed = {Path(j.source).name: j.job_id for j in first.failed}
    assert set(failed) == {"notes-ja.md", "notes-zh.md"}
    editor = served.keys.create("editor", "editor", ("hr",))
    admin = served.keys.create("admin", "admin")
    with running([served]) as live:
        live.keys = {"editor": editor, "admin": admin}
        with live.client("editor") as client:
            blank = upload(client, "kb", {"blank.md": "  \n\n"})
            [job] = wait_jobs(client, "kb", [j["job_id"] for j in blank.json()["jobs"]])
            assert (job["status"], job["error_code"]) == ("FAILED", "EMPTY")
            assert client.post(live.api("kb", "/jobs/retry"), json={"job_ids": [failed["notes-ja.md"]]}).status_code == 404  # not theirs
            own = client.post(live.api("kb", "/jobs/retry"), json={"job_ids": [job["job_id"]]})
            assert own.status_code == 200, own.text
            [again] = own.json()["jobs"]  # a failed upload's file is not kept: it fails again, saying so
            assert (again["status"], again["error_code"], again["fields"]) == ("FAILED", "NOT_FOUND", {"groups": ["hr"]})
            assert client.get(live.api("kb", f"/jobs/{job['job_id']}")).json()["engine_job_id"] == again["job_id"]
            assert client.post(live.api("kb", "/jobs/retry"), json={}).status_code == 400

        (docs / "notes-ja.md").write_text("# メモ\n\n会議室の予約は前日までに行ってください。\n", encoding="utf-8")
        (docs / "notes-zh.md").write_text("# 备忘\n\n会议室需要提前一天预订。\n", encoding="utf-8")
        with live.client("admin") as client:
            by_id = client.post(live.api("kb", "/jobs/retry"), json={"job_ids": [failed["notes-ja.md"]]}).json()
            assert [(Path(j["source"]).name, j["status"]) for j in by_id["jobs"]] == [("notes-ja.md", "READY")]
            every = client.post(live.api("kb", "/jobs/retry"), json={"failed": True}).json()
            assert sorted((Path(j["source"]).name, j["status"]) for j in every["jobs"]) == [
                ("blank.md", "FAILED"), ("notes-zh.md", "READY"),
            ]
            hits = client.post(live.api("kb", "/search"), json={"query": "会议室预订", "k": 1}).json()["hits"]
            assert hits[0]["source"].endswith("notes-zh.md")
            refused = client.post(live.api("kb", "/jobs/retry"), json={"job_ids": ["no-such-job"]})
            assert refused.status_code == 400 and "no job no-such-job" in refused.json()["error"]["message"]


def test_strict_masks_personal_data_on_every_http_output(served_factory: Callable[..., ServedCollection]) -> None:
    served = served_factory("kb")
    served.kb.config.answer.policy = "strict"
    with running([served]) as live, live.client() as client:
        response = upload(client, "kb", CONTACTS)
        assert all(j["status"] == "READY" for j in wait_jobs(client, "kb", [j["job_id"] for j in response.json()["jobs"]]))
        outputs: list[str] = []
        for question in ("経理部の連絡先", "财务部的邮箱和电话", "finance team contact"):
            found = client.post(live.api("kb", "/search"), json={"query": question, "k": 3, "explain": True}).json()
            assert found["hits"]
            outputs.append(json.dumps(found, ensure_ascii=False))
            answer = client.post(live.api("kb", "/ask"), json={"question": question}).json()
            outputs.append(json.dumps(answer, ensure_ascii=False))
            outputs.append(json.dumps(client.get(live.api("kb", f"/traces/{answer['trace_id']}")).json(), ensure_ascii=False))
            chat = client.post("/v1/chat/completions", json={"model": "kb", "messages": [{"role": "user", "content": question}]}).json()
            outputs.append(json.dumps(chat, ensure_ascii=False))
        for doc in client.get(live.api("kb", "/documents")).json()["documents"]:
            outputs.append(json.dumps(client.get(live.api("kb", f"/documents/{doc['doc_id']}"), params={"elements": True}).json(),
                                      ensure_ascii=False))
            tree = client.get(live.api("kb", f"/documents/{doc['doc_id']}/tree")).json()
            assert tree["summary"] or tree["children"]
            outputs.append(json.dumps(tree, ensure_ascii=False))
        shown = "\n".join(outputs)
        assert not [p for p in PERSONAL if p in shown]
        assert "［メールアドレス］" in shown and "［邮箱］" in shown and "[email]" in shown


def test_a_text_file_of_no_known_extension_is_accepted_and_an_unreadable_one_named(served_factory: Callable[..., ServedCollection]) -> None:
    with running([served_factory("kb")]) as live, live.client() as client:
        accepted = upload(client, "kb", {"changelog.Debian": "bunko (0.2.0) unstable\n\n  * 拡張子のないテキストも内容で読む。\n",
                                         "README": "# 説明\n\nこれは説明書です。\n"})
        assert accepted.status_code == 202
        jobs = wait_jobs(client, "kb", [j["job_id"] for j in accepted.json()["jobs"]])
        assert {(j["filename"], j["status"]) for j in jobs} == {("changelog.Debian", "READY"), ("README", "READY")}
        refused = upload(client, "kb", {"old.doc": b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(600)})
        assert refused.status_code == 415
        message = refused.json()["error"]["message"]
        assert "Word 97-2003" in message and ".docx" in message and ".csv" not in message
