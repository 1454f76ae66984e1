"""Over HTTP: the language of documents, chunks and hits (and the `lang` filter), retrying failed jobs, personal data
masked on every output under strict, and files judged by their content."""

from __future__ import annotations

from collections.abc import Callable

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
