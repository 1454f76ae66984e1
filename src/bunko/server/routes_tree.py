"""A document's section tree, as `bunko tree` prints it: numbers, titles, page ranges, chunk counts and summaries.

The tree is read through the same visibility check as the document itself: a key
that may not see a document gets the 404 of a document that does not exist.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends

from bunko.generate.guardrails import guard_tree
from bunko.index.tree import SectionNode
from bunko.server.deps import ApiError, Caller, caller
from bunko.server.models import DocumentTreeModel, SectionModel
from bunko.text.languages import text_language

router = APIRouter(prefix="/api/collections/{name}/documents", tags=["documents"])
Reader = Annotated[Caller, Depends(caller("reader"))]


def _fields(node: SectionNode) -> dict[str, object]:
    return {
        "title": node.title, "path": node.path, "number": node.number, "pages": node.pages, "chunks": len(node.chunk_ids),
        "summary": node.summary, "language": text_language(node.summary or node.title),
        "children": [_section(child) for child in node.children],
    }


def _section(node: SectionNode) -> SectionModel:
    return SectionModel.model_validate(_fields(node))


@router.get("/{doc_id}/tree", summary="A document's section tree: numbers, titles, pages, chunk counts and summaries; 404 if unknown or hidden")
def document_tree(c: Reader, doc_id: str) -> DocumentTreeModel:
    tree = c.served.tree(c.who, doc_id)
    if tree is None:
        raise ApiError(404, "DOCUMENT_NOT_FOUND", f"no document {doc_id}")
    tree = guard_tree(tree, c.served.kb.config.answer.policy)  # summaries are the document's sentences: the policy's mask
    return DocumentTreeModel.model_validate({"doc_id": tree.doc_id, "source": tree.source, **_fields(tree.root)})
