"""A document's figures and page images: the thumbnail a citation shows inline, and a PDF page with the cited
regions highlighted.

Both are read through the document's own visibility check, as its chunks and tree are: a key that may not see a
document gets the 404 of a document that does not exist, and a chunk to highlight must be that document's. Pictures
cannot be masked, so under an answer policy that masks personal data (strict, regulated) they are refused.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query
from fastapi.responses import FileResponse, Response

from bunko.errors import DocumentError
from bunko.generate.guardrails import masks_personal_data
from bunko.schema import DocumentInfo, ErrorCode
from bunko.server.deps import ApiError, Caller, caller

router = APIRouter(prefix="/api/collections/{name}/documents", tags=["documents"])
Reader = Annotated[Caller, Depends(caller("reader"))]
_PRIVATE = {"Cache-Control": "private, max-age=300"}


def _visible(c: Caller, doc_id: str) -> DocumentInfo:
    doc = c.served.document(c.who, doc_id)
    if doc is None:
        raise ApiError(404, "DOCUMENT_NOT_FOUND", f"no document {doc_id}")
    policy = c.served.kb.config.answer.policy
    if masks_personal_data(policy):
        raise ApiError(403, "POLICY_FORBIDS_IMAGES", f"the answer policy {policy!r} masks personal data, which a picture cannot be masked of")
    return doc


@router.get("/{doc_id}/figures/{figure_id}", summary="A figure's thumbnail (PNG); 404 if the document or figure is unknown or hidden")
def figure(c: Reader, doc_id: str, figure_id: str) -> FileResponse:
    doc = _visible(c, doc_id)
    path = c.served.kb.pages.figure_file(doc.doc_id, figure_id)
    if path is None:
        raise ApiError(404, "FIGURE_NOT_FOUND", f"no figure {figure_id} in {doc.source}")
    return FileResponse(path, media_type="image/png", headers=_PRIVATE)


@router.get("/{doc_id}/pages/{page}.png", summary="A PDF page as PNG, the regions of chunk `highlight` drawn on it")
def page_image(
    c: Reader, doc_id: str, page: int,
    highlight: Annotated[str | None, Query(description="A chunk id of this document (a citation's chunk_id).")] = None,
) -> Response:
    doc = _visible(c, doc_id)
    if page < 1:
        raise ApiError(404, "PAGE_NOT_FOUND", f"no page {page} in {doc.source}")
    if highlight is not None and not any(ch.source == doc.source for ch in c.served.kb.store.get_chunks([highlight])):
        raise ApiError(404, "CHUNK_NOT_FOUND", f"no chunk {highlight} in {doc.source}")
    try:
        png, _, _ = c.served.kb.pages.page_image(doc.source, page, highlight)
    except DocumentError as exc:
        if exc.code == ErrorCode.UNSUPPORTED_FORMAT:
            raise ApiError(415, exc.code.value, exc.detail) from None
        if exc.code == ErrorCode.NOT_FOUND:
            raise ApiError(404, "PAGE_NOT_FOUND", exc.detail) from None
        raise ApiError(422, exc.code.value, exc.detail) from None
    return Response(png, media_type="image/png", headers=_PRIVATE)
