"""Bad filters through HTTP: always 400 BAD_FILTER (never a 500 and a dropped connection), naming only the fields
of documents the caller may see."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from server_harness import Live, running

from bunko import Bunko
from bunko.embed.use_m3 import UseM3Embedder
from bunko.server.collection import ServedCollection

UNHASHABLE: list[dict[str, Any]] = [
    {"source": {"$in": [[1]]}},
    {"source": {"$nin": [[1]]}},
    {"source": {"$in": [{"a": 1}]}},
    {"$or": [{"title": {"$nin": [{"$gt": 1}]}}, {"page": 1}]},
    {"groups": {"$in": [["hr"]]}},
]


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory, embedder: UseM3Embedder) -> Iterator[Live]:
    """hr's document carries an `office` field, finance's a `salary_band`: the hr key must never learn the latter exists."""
    root = tmp_path_factory.mktemp("filters")
    (root / "hr.md").write_text("# 勤務\n\n東京オフィスの始業は9時である。Tokyo office opens at nine.\n", encoding="utf-8")
    (root / "pay.md").write_text("# 給与\n\n役員の給与等級は E9 である。Executive band is E9.\n", encoding="utf-8")
    kb = Bunko(root / "kb", embedder=embedder)
    assert kb.ingest([root / "hr.md"], fields={"groups": ["hr"], "office": "tokyo"}).ok
    assert kb.ingest([root / "pay.md"], fields={"groups": ["finance"], "salary_band": "E9"}).ok
    served = ServedCollection("kb", kb)
    keys = {"admin": served.keys.create("admin", "admin"), "hr": served.keys.create("hr", "reader", ("hr",))}
    with running([served]) as server:
        server.keys = keys
        yield server


def _stream_error(text: str) -> str | None:
    for frame in text.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in frame.splitlines())
        if lines.get("event") == "error":
            return str(json.loads(lines["data"])["code"])
    return None


@pytest.mark.parametrize("who", ["admin", "hr"])
@pytest.mark.parametrize("filters", UNHASHABLE)
def test_unhashable_members_are_a_400_on_every_endpoint(live: Live, who: str, filters: dict[str, Any]) -> None:
    with live.client(who) as client:
        for path, body in (
            ("/search", {"query": "office", "filters": filters}),
            ("/ask", {"question": "When does the office open?", "filters": filters}),
            ("/ask", {"question": "When does the office open?", "filters": filters, "stream": True}),
        ):
            response = client.post(live.api("kb", path), json=body)
            assert response.status_code == 400, (path, body, response.text)
            assert response.json()["error"]["code"] == "BAD_FILTER"
        chat = client.post("/v1/chat/completions", json={"model": "kb", "messages": [{"role": "user", "content": "office?"}], "filters": filters})
        assert chat.status_code == 400 and chat.json()["error"]["code"] == "BAD_FILTER", chat.text
        # the connection and the server are fine afterwards
        assert client.post(live.api("kb", "/search"), json={"query": "office"}).status_code == 200


def test_bad_filter_errors_name_only_fields_the_caller_may_see(live: Live) -> None:
    with live.client("hr") as hr, live.client("admin") as admin:
        for filters in ({"colour": "red"}, {"salary_band": "E9"}, {"$or": [{"office": "tokyo"}, {"colour": 1}]}):
            refused = hr.post(live.api("kb", "/search"), json={"query": "band", "filters": filters})
            assert refused.status_code == 400 and refused.json()["error"]["code"] == "BAD_FILTER"
            known = refused.json()["error"]["message"].split("known fields:", 1)[1]
            assert "office" in known and "groups" in known and "salary_band" not in known, known
            streamed = hr.post(live.api("kb", "/ask"), json={"question": "band?", "filters": filters, "stream": True})
            assert streamed.status_code == 400 and "salary_band" not in streamed.json()["error"]["message"].split("known fields:", 1)[1]
        # a field of an invisible document is as unknown as one that does not exist: nothing tells them apart
        assert hr.post(live.api("kb", "/search"), json={"query": "E9", "filters": {"salary_band": "E9"}}).status_code == 400
        own = hr.post(live.api("kb", "/search"), json={"query": "office", "filters": {"office": "tokyo"}})
        assert own.status_code == 200 and [h["source"] for h in own.json()["hits"]] == ["hr.md"]
        listed = admin.post(live.api("kb", "/search"), json={"query": "x", "filters": {"colour": "red"}}).json()["error"]["message"]
        assert "salary_band" in listed and "office" in listed


def test_the_retry_after_a_vanished_field_names_no_field(tmp_path: Path, embedder: UseM3Embedder) -> None:
    """A restricted search whose validated filter fails in the store (a field's last document deleted meanwhile)
    returns nothing, instead of the store's error listing every field."""
    (tmp_path / "a.md").write_text("# A\n\nAlpha text about the office.\n", encoding="utf-8")
    kb = Bunko(tmp_path / "kb", embedder=embedder)
    assert kb.ingest([tmp_path / "a.md"], fields={"groups": ["hr"], "secret_field": 1}).ok
    served = ServedCollection("kb", kb)
    hr = served.keys.verify(served.keys.create("hr", "reader", ("hr",)))
    assert hr is not None
    calls: list[Any] = []

    def search(where: Any) -> Any:
        calls.append(where)
        if len(calls) == 1:
            from bunko.errors import FilterError

            raise FilterError("unknown filter field 'groups'; known fields: secret_field, other_secret")
        return "nothing"

    assert served._retrying(hr, {"title": "A"}, search) == "nothing"
    assert calls[1] == {"doc_id": {"$in": []}}
    kb.close()
