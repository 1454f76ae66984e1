"""GET documents/{doc_id}/tree over ja, zh and en manuals and a paged PDF: the tree, its JSON shape, 404s, keys and groups."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from server_harness import Get, served_with_group_keys

from bunko import Bunko
from bunko.embed.use_m3 import UseM3Embedder
from bunko.schema import doc_id_for
from bunko.server.collection import ServedCollection
from treedocs import LANGUAGE, LEAF_SUMMARIES, OUTLINE, PDF_NAME, PDF_SECTION_PAGES, PDF_TITLE, write_docs

HR_DOC = "guide-zh.md"  # only keys of the hr group (and unrestricted keys) may see it
SECTION_KEYS = {"title", "path", "number", "pages", "chunks", "summary", "language", "children"}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, embedder: UseM3Embedder) -> Iterator[tuple[ServedCollection, dict[str, str]]]:
    root = tmp_path_factory.mktemp("treeweb")
    docs = write_docs(root / "docs")
    kb = Bunko(root / "kb", embedder=embedder)
    assert kb.ingest([p for p in sorted(docs.iterdir()) if p.name != HR_DOC]).ok
    assert kb.ingest([docs / HR_DOC], fields={"groups": ["hr"]}).ok
    with served_with_group_keys(kb) as served_keys:
        yield served_keys


def _tree_path(name: str) -> str:
    return f"/documents/{doc_id_for('docs/' + name)}/tree"


def _outline(section: dict) -> list:
    return [(c["number"], c["title"], _outline(c)) for c in section["children"]]


def _walk(section: dict):
    for child in section["children"]:
        yield child
        yield from _walk(child)


def _without_language(section: dict) -> dict:
    return {k: [_without_language(c) for c in v] if k == "children" else v for k, v in section.items() if k != "language"}


@pytest.mark.parametrize("name", list(OUTLINE))
def test_the_tree_of_a_manual_in_each_language(get: Get, served: tuple[ServedCollection, dict[str, str]], name: str) -> None:
    response = get("reader", _tree_path(name))
    assert response.status_code == 200, response.text
    tree = response.json()
    assert set(tree) == SECTION_KEYS | {"doc_id", "source"}
    assert tree["source"] == f"docs/{name}" and tree["doc_id"] == doc_id_for(f"docs/{name}")
    assert tree["title"] == OUTLINE[name][0][1] and tree["path"] == [] and tree["number"] is None and tree["chunks"] == 0
    assert _outline(tree) == OUTLINE[name]
    sections = list(_walk(tree))
    assert len(sections) == 7
    for section in sections:
        assert set(section) == SECTION_KEYS
        assert section["pages"] == [] and section["chunks"] == 1
        assert section["language"] == LANGUAGE[name] and section["summary"]
    assert tree["language"] == LANGUAGE[name]
    by_title = {s["title"]: s for s in sections}
    for title, summary in LEAF_SUMMARIES[name].items():
        assert by_title[title]["summary"] == summary
    assert by_title[OUTLINE[name][1][2][1][2][0][1]]["path"] == [OUTLINE[name][1][1], OUTLINE[name][1][2][1][1], OUTLINE[name][1][2][1][2][0][1]]

    # the same tree `bunko tree --json` prints, with each summary's language
    stored = served[0].kb.trees.tree(tree["doc_id"])
    assert stored is not None and _without_language(tree) == stored.to_dict()


def test_a_pdf_tree_has_page_ranges(get: Get) -> None:
    tree = get("reader", _tree_path(PDF_NAME)).json()
    assert tree["title"] == PDF_TITLE and tree["pages"] == [1, 4] and tree["language"] == "ja"
    assert [(c["number"], c["title"], c["pages"]) for c in tree["children"]] == [("1", "第1章 概要", [1, 2]), ("2", "第2章 バックアップ", [3, 4])]
    assert {s["title"]: s["pages"] for s in _walk(tree)} == PDF_SECTION_PAGES
    assert {s["title"]: s["summary"] for s in _walk(tree)}["1.2 用語"] == (
        "ノードとはネットワークに接続された一台の計算機を指します。 クラスタは複数のノードの集まりです。")


def test_the_route_is_in_the_openapi_schema(app_client: TestClient) -> None:
    schema = app_client.get("/openapi.json").json()
    operation = schema["paths"]["/api/collections/{name}/documents/{doc_id}/tree"]["get"]
    assert operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].endswith("/DocumentTreeModel")
    section = schema["components"]["schemas"]["SectionModel"]
    assert set(section["properties"]) == SECTION_KEYS
    assert section["properties"]["children"]["items"]["$ref"].endswith("/SectionModel")


def test_an_unknown_document_is_404(get: Get, app_client: TestClient) -> None:
    response = get("reader", "/documents/0123456789abcdef/tree")
    assert response.status_code == 404
    assert response.json()["error"] == {"code": "DOCUMENT_NOT_FOUND", "message": "no document 0123456789abcdef", "type": "not_found_error"}
    assert get(None, _tree_path("manual-ja.md")).status_code == 401
    assert app_client.get("/api/collections/nope" + _tree_path("manual-ja.md")).json()["error"]["code"] == "COLLECTION_NOT_FOUND"


def test_a_restricted_key_gets_the_trees_of_its_groups_only(get: Get) -> None:
    hr = get("hr", _tree_path(HR_DOC))
    assert hr.status_code == 200 and hr.json()["title"] == "第1章 总则"

    for who, name in (("hr", "manual-ja.md"), ("hr", PDF_NAME), ("finance", HR_DOC), ("finance", "handbook-en.md")):
        hidden = get(who, _tree_path(name))
        assert hidden.status_code == 404, (who, name)
        error = hidden.json()["error"]
        assert error["code"] == "DOCUMENT_NOT_FOUND" and error["message"] == f"no document {doc_id_for('docs/' + name)}"
        body = json.dumps(hidden.json(), ensure_ascii=False)  # neither the source, a title nor a summary
        assert name not in body and not any(title in body for _, title, _ in OUTLINE.get(name, [("", PDF_TITLE, [])]))
