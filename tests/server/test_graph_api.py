"""GET graph/stats and graph/entity over a small ja/zh/en collection: lookups in each language, 404 with close keys, keys and groups."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from server_harness import Get, served_with_group_keys

from bunko import Bunko
from bunko.embed.use_m3 import UseM3Embedder
from bunko.server.collection import ServedCollection

DOCS = {
    "server-ja.md": (
        "# サーバー運用\n\n## 起動\n\nサーバーを起動する前に /etc/fstab を確認してください。バックアップ手順は毎週実行します。\n\n"
        "## 停止\n\nサーバーを停止するときはバックアップ手順を先に終えてください。ログは /var/log/syslog に残ります。\n"
    ),
    "packages-en.md": (
        "# Package management\n\n## Installing\n\nInstall packages with apt-get. Each package lists its dependencies in the "
        "control file. Mount points are listed in /etc/fstab.\n\n## Removing\n\nRemove a package with apt-get remove. "
        "The package manager keeps the control file of removed packages until a purge.\n"
    ),
}
HR_DOC = (  # only keys of the hr group (and unrestricted keys) may see it
    "leave-zh.md",
    "# 休假制度\n\n## 年假\n\n员工每年享有年假十天。年假申请需提前提交给人事部门。\n\n"
    "## 婚假\n\n员工结婚可享受婚假三天。婚假申请同样提交给人事部门。\n",
)
API = "/api/collections/kb"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, embedder: UseM3Embedder) -> Iterator[tuple[ServedCollection, dict[str, str]]]:
    root = tmp_path_factory.mktemp("graphweb")
    docs = root / "docs"
    docs.mkdir()
    for name, text in [*DOCS.items(), HR_DOC]:
        (docs / name).write_text(text, encoding="utf-8")
    kb = Bunko(root / "kb", embedder=embedder)
    assert kb.ingest([docs / name for name in DOCS]).ok
    assert kb.ingest([docs / HR_DOC[0]], fields={"groups": ["hr"]}).ok
    with served_with_group_keys(kb) as served_keys:
        yield served_keys


def test_stats_count_passages_entities_and_list_top_entities_of_each_language(get: Get, served: tuple[ServedCollection, dict[str, str]]) -> None:
    response = get("reader", "/graph/stats", limit=50)
    assert response.status_code == 200, response.text
    stats = response.json()
    graph = served[0].kb.store.search().entity_graph()
    assert stats["passages"] == graph.passage_count == 6
    assert stats["entities"] == sum(1 for key in graph.keys if graph.passage_frequency(key) > 0)
    top = {entry["key"]: entry["passages"] for entry in stats["top_entities"]}
    assert top["サーバ"] == 2 and top["人事部门"] == 2 and top["package"] == 2 and top["/etc/fstab"] == 2
    assert len(get("reader", "/graph/stats", limit=2).json()["top_entities"]) == 2


def test_entity_lookup_in_japanese_chinese_and_english(get: Get) -> None:
    ja = get("reader", "/graph/entity", name="サーバー").json()  # the long vowel mark folds: サーバー is サーバ
    assert ja["key"] == "サーバ" and ja["query"] == "サーバー" and ja["passages"] == 2 and not ja["hub"]
    assert [m["section_path"] for m in ja["mentions"]] == [["サーバー運用", "起動"], ["サーバー運用", "停止"]]
    assert all(m["source"] == "docs/server-ja.md" and m["mention"] == "サーバー" for m in ja["mentions"])
    assert ja["mentions"][0]["snippet_after"].startswith("を起動する前に")
    assert "バックアップ手順" in {n["key"] for n in ja["neighbours"]}

    zh = get("reader", "/graph/entity", name="人事部门").json()
    assert zh["key"] == "人事部门" and zh["passages"] == 2 and {m["source"] for m in zh["mentions"]} == {"docs/leave-zh.md"}
    assert "员工" in {n["key"] for n in zh["neighbours"]}

    path = get("reader", "/graph/entity", name="/etc/fstab").json()
    assert path["key"] == "/etc/fstab"
    assert {m["source"] for m in path["mentions"]} == {"docs/server-ja.md", "docs/packages-en.md"}
    en = next(m for m in path["mentions"] if m["source"] == "docs/packages-en.md")
    assert en["mention"] == "/etc/fstab" and en["snippet_before"].endswith("Mount points are listed in ")

    package = get("reader", "/graph/entity", name="Packages", limit=1).json()
    assert package["key"] == "package" and package["passages"] == 2 and len(package["mentions"]) == 1
    assert len(package["neighbours"]) <= 1


def test_mention_spans_point_into_the_chunk_the_document_endpoint_returns(get: Get) -> None:
    for mention in get("reader", "/graph/entity", name="/etc/fstab").json()["mentions"]:
        document = get("reader", f"/documents/{mention['doc_id']}").json()
        chunk = next(c for c in document["chunks"] if c["chunk_id"] == mention["chunk_id"])
        assert chunk["text"][mention["start"] : mention["end"]] == mention["mention"] == "/etc/fstab"


def test_unknown_entity_is_404_with_close_keys(get: Get) -> None:
    response = get("reader", "/graph/entity", name="pakage")
    assert response.status_code == 404
    error = response.json()["error"]
    assert error["code"] == "ENTITY_NOT_FOUND" and "pakage" in error["message"]
    assert "package" in error["suggestions"]
    nothing = get("reader", "/graph/entity", name="kubernetes").json()["error"]
    assert nothing["code"] == "ENTITY_NOT_FOUND" and nothing["suggestions"] == []
    assert get("reader", "/graph/entity").status_code == 422  # name is required
    assert get("reader", "/graph/entity", name="package", limit=0).status_code == 422


def test_graph_routes_need_a_key_like_the_other_reads(get: Get, app_client: TestClient) -> None:
    for path, params in (("/graph/stats", {}), ("/graph/entity", {"name": "package"})):
        response = get(None, path, **params)
        assert response.status_code == 401 and response.json()["error"]["code"] == "UNAUTHORIZED"
        assert app_client.get(API + path, params=params, headers={"Authorization": "Bearer bk_wrong"}).status_code == 401
    assert app_client.get("/api/collections/nope/graph/stats").json()["error"]["code"] == "COLLECTION_NOT_FOUND"


def test_a_restricted_key_sees_the_graph_of_its_groups_only(get: Get) -> None:
    stats = get("hr", "/graph/stats", limit=50).json()
    assert stats["passages"] == 2  # the two sections of the hr document
    top = {entry["key"] for entry in stats["top_entities"]}
    assert "人事部门" in top and not top & {"サーバ", "package", "/etc/fstab"}

    assert get("hr", "/graph/entity", name="人事部门").json()["passages"] == 2
    hidden = get("hr", "/graph/entity", name="/etc/fstab")
    assert hidden.status_code == 404 and hidden.json()["error"]["suggestions"] == []
    close = get("hr", "/graph/entity", name="pakage").json()["error"]
    assert "package" not in close["suggestions"] and "package" not in close["message"]

    outsider = get("finance", "/graph/stats").json()
    assert outsider == {"passages": 0, "entities": 0, "top_entities": []}
    assert get("finance", "/graph/entity", name="人事部门").status_code == 404
