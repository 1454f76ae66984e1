"""Every malformed filter of `filterdocs.CASES`, sent as a client sends it (NaN, Infinity and 1e309 as JSON literals),
is a 400 BAD_FILTER whose message starts with the path of the bad part, on every endpoint that takes a filter and for
an unrestricted and a restricted key alike; a number the server can represent is echoed back as sent, not as null."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from bunko import Bunko
from bunko.server.app import create_app
from bunko.server.collection import ServedCollection
from filterdocs import CASES, VALID_EDGES, write_markdown
from hash_embedder import HashEmbedder


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, dict[str, str]]]:
    root = tmp_path_factory.mktemp("filter-http")
    kb = Bunko(root / "kb", embedder=HashEmbedder())
    for path, fields in write_markdown(root / "docs"):
        assert kb.ingest([path], fields=fields).ok
    served = ServedCollection("kb", kb)
    keys = {"admin": served.keys.create("admin", "admin"), "it": served.keys.create("it", "reader", ("it",))}
    yield TestClient(create_app([served], start_workers=False), base_url="http://localhost"), keys
    kb.close()


def post(client: TestClient, key: str, path: str, body: str) -> tuple[int, dict]:
    response = client.post(path, content=body.encode("utf-8"), headers={"Authorization": f"Bearer {key}", "content-type": "application/json"})
    return response.status_code, response.json()


def bodies(filter_text: str) -> list[tuple[str, str]]:
    """Each endpoint that takes a filter, with the filter spliced in as raw JSON text."""
    return [
        ("/api/collections/kb/search", f'{{"query": "VPN", "filters": {filter_text}}}'),
        ("/api/collections/kb/ask", f'{{"question": "VPNのトークンはいつ失効しますか？", "filters": {filter_text}}}'),
        ("/api/collections/kb/ask", f'{{"question": "VPN tokens?", "filters": {filter_text}, "stream": true}}'),
        ("/v1/chat/completions", f'{{"model": "kb", "messages": [{{"role": "user", "content": "VPN tokens?"}}], "filters": {filter_text}}}'),
    ]


OBJECT_CASES = [case for case in CASES if case[1].startswith("{")]
"""The HTTP body's `filters` must be an object (a list or a string there is the 422 of any mistyped body field)."""


@pytest.mark.parametrize("who", ["admin", "it"])
@pytest.mark.parametrize(("name", "text", "path", "fragment"), OBJECT_CASES, ids=[case[0] for case in OBJECT_CASES])
def test_a_malformed_filter_is_a_400_bad_filter_naming_its_path(client: tuple[TestClient, dict[str, str]], who: str, name: str, text: str,
                                                                path: str, fragment: str) -> None:
    http, keys = client
    for endpoint, body in bodies(text):
        status, payload = post(http, keys[who], endpoint, body)
        assert status == 400, (endpoint, body, payload)
        assert payload["error"]["code"] == "BAD_FILTER"
        message = payload["error"]["message"]
        assert message.startswith(f"{path}: ") and fragment in message, message


@pytest.mark.parametrize("text", [case[1] for case in CASES if not case[1].startswith("{")])
def test_a_filter_that_is_not_an_object_is_refused_as_a_bad_body(client: tuple[TestClient, dict[str, str]], text: str) -> None:
    http, keys = client
    status, payload = post(http, keys["admin"], "/api/collections/kb/search", f'{{"query": "VPN", "filters": {text}}}')
    assert status == 422 and "filters" in payload["error"]["message"], payload


@pytest.mark.parametrize("text", [t for t in VALID_EDGES if t.startswith("{")])
def test_valid_edge_filters_search_and_echo_as_sent(client: tuple[TestClient, dict[str, str]], text: str) -> None:
    http, keys = client
    for who in ("admin", "it"):
        status, payload = post(http, keys[who], "/api/collections/kb/search", f'{{"query": "VPN", "filters": {text}}}')
        assert status == 200, payload
        assert payload["filters"] == json.loads(text)  # 1e308 comes back as 1e308, not null
        if who == "it":
            assert all("it/" in hit["source"] for hit in payload["hits"]), payload["hits"]
