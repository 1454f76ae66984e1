"""`Bunko.ingest(fields=...)`: caller fields become filterable document fields (the server's access groups)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from bunko import Bunko


def test_fields_are_stored_filterable_and_override_front_matter(tmp_path: Path, make_kb: Callable[..., Bunko]) -> None:
    kb = make_kb()
    doc = tmp_path / "pay.md"
    doc.write_text("---\ngroups: [public]\n---\n# 給与\n\n給与は毎月25日に支払います。\n", encoding="utf-8")
    report = kb.ingest([doc], fields={"groups": ["hr"]})
    assert report.ok and report.jobs[0].status == "READY"
    assert kb.documents()[0].meta["fields"]["groups"] == ["hr"]
    assert kb.search("給与の支払日", filters={"groups": {"$in": ["hr"]}})
    assert not kb.search("給与の支払日", filters={"groups": {"$in": ["public", "finance"]}})


def test_same_bytes_with_new_fields_are_reindexed_not_skipped(tmp_path: Path, make_kb: Callable[..., Bunko]) -> None:
    kb = make_kb()
    doc = tmp_path / "a.md"
    doc.write_text("# A\n\nThe budget review happens every March.\n", encoding="utf-8")
    assert kb.ingest([doc], fields={"groups": ["finance"]}).jobs[0].status == "READY"
    assert kb.ingest([doc], fields={"groups": ["finance"]}).jobs[0].status == "SKIPPED"
    assert kb.ingest([doc], fields={"groups": ["hr"]}).jobs[0].status == "READY"
    assert kb.documents()[0].meta["fields"]["groups"] == ["hr"]
    assert not kb.search("budget review", filters={"groups": {"$in": ["finance"]}})
