"""Auto-merging: when most of one section's chunks are hits, the section is returned once, whole.

Ten fragments of one section crowd the top k and each shows the reader a piece;
LlamaIndex's auto-merging retriever replaces them by their parent. Here the parent
is the section of the document's tree (index/tree.py): when at least `threshold` of
its chunks (and two or more) are among the hits, the first of them becomes the whole
section — its text, elements and pages, in document order — and the others leave
the list, so the k hits reach further. A section longer than MAX_CHARS is not
merged: the reader would get a chapter instead of an answer.
"""

from __future__ import annotations

from bunko.index.tree import SectionNode
from bunko.retrieve.trees import DocumentTrees
from bunko.schema import Chunk, Hit
from bunko.store.search_backend import SearchBackend

MAX_CHARS = 4000
JOIN = "\n\n"


def merge_sections(hits: list[Hit], trees: DocumentTrees, store: SearchBackend, threshold: float) -> list[Hit]:
    by_section: dict[tuple[str, ...], list[int]] = {}
    nodes: dict[tuple[str, ...], SectionNode] = {}
    for index, hit in enumerate(hits):
        tree = trees.tree(hit.chunk.doc_id)
        node = tree.node(hit.chunk.section_path) if tree is not None else None
        if node is None or len(node.chunk_ids) < 2:
            continue
        key = (hit.chunk.doc_id, *node.path)
        by_section.setdefault(key, []).append(index)
        nodes[key] = node
    merged: dict[int, Hit] = {}
    dropped: set[int] = set()
    for key, indexes in by_section.items():
        node = nodes[key]
        found = {cid for i in indexes for cid in _found_ids(hits[i])} & set(node.chunk_ids)
        if len(indexes) < 2 or len(found) < threshold * len(node.chunk_ids):
            continue
        whole = _section_chunk(node, hits[indexes[0]], store)
        if whole is None:
            continue
        merged[indexes[0]] = Hit(whole, hits[indexes[0]].score, hits[indexes[0]].distance, hits[indexes[0]].signals)
        dropped.update(indexes[1:])
    return [merged.get(i, hit) for i, hit in enumerate(hits) if i not in dropped]


def _found_ids(hit: Hit) -> list[str]:
    """The searchable chunks a hit stands for: itself, or the children that brought its parent."""
    return list(hit.chunk.meta.get("children_hit") or [hit.chunk.chunk_id])


def _section_chunk(node: SectionNode, first: Hit, store: SearchBackend) -> Chunk | None:
    """The section as one chunk: its passages (parents where chunking made them) joined in document order."""
    children = {c.chunk_id: c for c in store.get_chunks(node.chunk_ids)}
    ordered = [children[cid] for cid in node.chunk_ids if cid in children]
    parent_ids = list(dict.fromkeys(c.parent_id for c in ordered if c.parent_id))
    parents = {c.chunk_id: c for c in store.get_chunks(parent_ids)} if parent_ids else {}
    passages = list({(c.parent_id if c.parent_id in parents else c.chunk_id): parents.get(c.parent_id or "", c) for c in ordered}.values())
    text = JOIN.join(p.text for p in passages)
    if not passages or len(text) > MAX_CHARS:
        return None
    meta = {**first.chunk.meta, "merged_section": list(node.path), "merged_chunks": [p.chunk_id for p in passages]}
    return Chunk(
        passages[0].chunk_id, first.chunk.doc_id, first.chunk.source, passages[0].ordinal, text,
        JOIN.join(p.embed_text for p in passages), list(dict.fromkeys(e for p in passages for e in p.element_ids)),
        sorted({page for p in passages for page in p.pages}), list(node.path), list(dict.fromkeys(k for p in passages for k in p.kinds)),
        None, meta,
    )
