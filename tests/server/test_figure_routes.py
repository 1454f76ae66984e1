"""GET documents/{doc_id}/figures/{figure_id} and documents/{doc_id}/pages/{n}.png: content types, 404s, groups,
the answer policy; and citations and hits that name their figures."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from PIL import Image
from server_harness import Get, served_with_group_keys

from bunko import Bunko
from bunko.embed.use_m3 import UseM3Embedder
from bunko.schema import doc_id_for
from bunko.server.app import create_app
from bunko.server.collection import ServedCollection
from figuredocs import figure_docx, figure_pdf, figure_pptx

PDF, HR_PDF, DOCX, PPTX = "docs/report-ja.pdf", "docs/hr-zh.pdf", "docs/report-en.docx", "docs/deck-zh.pptx"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, embedder: UseM3Embedder) -> Iterator[tuple[ServedCollection, dict[str, str]]]:
    root = tmp_path_factory.mktemp("figweb")
    docs = root / "docs"
    docs.mkdir()
    kb = Bunko(root / "kb", embedder=embedder)
    made = [figure_pdf(docs / "report-ja.pdf", "ja"), figure_docx(docs / "report-en.docx", "en"), figure_pptx(docs / "deck-zh.pptx", "zh")]
    assert kb.ingest(made).ok
    assert kb.ingest([figure_pdf(docs / "hr-zh.pdf", "zh")], fields={"groups": ["hr"]}).ok
    with served_with_group_keys(kb) as served_keys:
        yield served_keys


def figure_path(source: str, figure_id: str = "fig1") -> str:
    return f"/documents/{doc_id_for(source)}/figures/{figure_id}"


def page_path(source: str, page: int) -> str:
    return f"/documents/{doc_id_for(source)}/pages/{page}.png"


def chunk_with_figure(served: tuple[ServedCollection, dict[str, str]], source: str) -> str:
    return next(c.chunk_id for c in served[0].kb.chunks(source) if c.meta.get("figures") == ["fig1"])


@pytest.mark.parametrize("source", [PDF, DOCX, PPTX])
def test_a_figure_thumbnail_is_a_png(get: Get, source: str) -> None:
    response = get("reader", figure_path(source))
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "image/png"
    image = Image.open(io.BytesIO(response.content))
    assert image.format == "PNG" and max(image.size) <= 320


def test_unknown_figures_and_documents_are_404(get: Get) -> None:
    assert get("reader", figure_path(PDF, "fig2")).json()["error"]["code"] == "FIGURE_NOT_FOUND"
    assert get("reader", figure_path(PDF, "..%2Fbunko.toml")).status_code == 404
    assert get("reader", "/documents/0123456789abcdef/figures/fig1").json()["error"]["code"] == "DOCUMENT_NOT_FOUND"
    assert get("reader", "/documents/0123456789abcdef/pages/1.png").status_code == 404


def test_a_key_outside_the_group_gets_the_404_of_a_missing_document(get: Get, served: tuple[ServedCollection, dict[str, str]]) -> None:
    chunk = chunk_with_figure(served, HR_PDF)
    for path in (figure_path(HR_PDF), page_path(HR_PDF, 1)):
        assert get("finance", path).json()["error"]["code"] == "DOCUMENT_NOT_FOUND"
        assert get("hr", path).status_code == 200
    assert get("finance", page_path(HR_PDF, 1), highlight=chunk).status_code == 404
    assert get(None, figure_path(PDF)).status_code == 401


def test_page_image_highlights_a_chunk_of_that_document_only(get: Get, served: tuple[ServedCollection, dict[str, str]]) -> None:
    chunk = chunk_with_figure(served, PDF)
    plain = get("reader", page_path(PDF, 1))
    marked = get("reader", page_path(PDF, 1), highlight=chunk)
    assert marked.status_code == 200 and marked.headers["content-type"] == "image/png"
    assert Image.open(io.BytesIO(marked.content)).size == Image.open(io.BytesIO(plain.content)).size
    assert marked.content != plain.content
    other = chunk_with_figure(served, HR_PDF)  # a chunk of another document is not this page's to highlight
    assert get("reader", page_path(PDF, 1), highlight=other).json()["error"]["code"] == "CHUNK_NOT_FOUND"
    assert get("reader", page_path(PDF, 7)).json()["error"]["code"] == "PAGE_NOT_FOUND"
    assert get("reader", page_path(PDF, 0)).status_code == 404
    response = get("reader", page_path(DOCX, 1))
    assert response.status_code == 415 and "PDF documents only" in response.json()["error"]["message"]


def test_hits_and_citations_name_their_figures(app_client: TestClient, served: tuple[ServedCollection, dict[str, str]]) -> None:
    headers = {"Authorization": f"Bearer {served[1]['reader']}"}
    hits = app_client.post("/api/collections/kb/search", json={"query": "地域別の四半期売上", "k": 1}, headers=headers).json()["hits"]
    assert hits[0]["source"] == PDF and hits[0]["figures"] == ["fig1"]
    answer = app_client.post("/api/collections/kb/ask", json={"question": "地域別の四半期売上の図はどれですか"}, headers=headers).json()
    cited = [c for c in answer["citations"] if c["figures"]]
    assert cited and cited[0]["figures"] == ["fig1"] and cited[0]["doc_id"] == doc_id_for(cited[0]["source"])


def test_a_masking_policy_refuses_pictures(served: tuple[ServedCollection, dict[str, str]]) -> None:
    kb = served[0].kb
    before = kb.config.answer.policy
    kb.config.answer.policy = "strict"
    try:
        client = TestClient(create_app([served[0]], start_workers=False), base_url="http://localhost")
        headers = {"Authorization": f"Bearer {served[1]['reader']}"}
        for path in (figure_path(PDF), page_path(PDF, 1)):
            response = client.get("/api/collections/kb" + path, headers=headers)
            assert response.status_code == 403 and response.json()["error"]["code"] == "POLICY_FORBIDS_IMAGES"
    finally:
        kb.config.answer.policy = before
