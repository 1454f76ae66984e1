"""The documents both store contracts write (tests/store/test_storage_contract.py, test_search_contract.py) and the
references their results are checked against, computed here from the written data."""

from __future__ import annotations

from typing import Any

import numpy as np

from bunko.index.filters import BUILTIN_FIELDS, compile_filter
from bunko.schema import Chunk, Element, ParsedDocument, doc_id_for
from bunko.store.base import Store, StoredChunk
from bunko.text.analyzers import multilingual
from bunko.text.languages import text_language

DIM = 16
TEXTS = [
    "東京23区に出張する一般社員の宿泊費の上限は一泊一万二千円です。",
    "婚假为三天，产假按照国家规定执行。",
    "Each API key may send 60 requests per minute; error E-1024 means the limit was hit.",
    "経費精算は出張から三十日以内に申請してください。",
    "客户支持的响应时间为四小时，紧急问题为一小时。",
    "Passwords must be rotated every 90 days and never shared.",
    "宿泊費の上限を超える場合は事前承認が必要です。",
    "The rate limit resets at the start of each minute.",
]



def unit(rng: np.random.Generator) -> np.ndarray:
    v = rng.standard_normal(DIM).astype(np.float32)
    return v / np.linalg.norm(v)


def make_doc(n: int, rng: np.random.Generator, chunks: int = 4, version: str = "v1") -> tuple[ParsedDocument, list[StoredChunk]]:
    source = f"docs/{'hr' if n % 2 else 'it'}/doc-{n}.md"
    fields: dict[str, Any] = {"tags": ["hr", "policy"] if n % 2 else ["it"], "priority": n % 3, "draft": n % 4 == 0}
    if n % 5 == 0:
        fields["owner"] = "総務部"
    elements = [Element(f"e{i}", "table" if i == 2 else "paragraph", TEXTS[(n + i) % len(TEXTS)], page=i + 1,
                        section_path=["規程", f"第{i}章"], meta={"i": i}) for i in range(chunks)]
    doc = ParsedDocument(doc_id_for(source), source, f"Doc {n}", "text/markdown", "markdown", elements, {"fields": fields})
    stored = []
    for i in range(chunks):
        text = f"{TEXTS[(n + i) % len(TEXTS)]} ({version} {n}.{i})"
        chunk = Chunk(f"{source}#{i}", doc.doc_id, source, i, text, f"規程 > 第{i}章\n{text}", [f"e{i}"], [i + 1],
                      ["規程", f"第{i}章"], [elements[i].kind], None, {"n": n})
        stored.append(StoredChunk(chunk, unit(rng), multilingual(chunk.embed_text), f"{version}-{n}-{i}"))
    return doc, stored


def fill(store: Store, docs: int = 6, seed: int = 0) -> list[tuple[ParsedDocument, list[StoredChunk]]]:
    rng = np.random.default_rng(seed)
    written = [make_doc(n, rng) for n in range(docs)]
    for doc, stored in written:
        store.replace_document(doc, f"hash-{doc.source}", stored)
    return written


def records(written: list[tuple[ParsedDocument, list[StoredChunk]]]) -> dict[str, dict[str, Any]]:
    """The filter record of each chunk, as the filter language defines it."""
    out = {}
    for doc, stored in written:
        for s in stored:
            c = s.chunk
            out[c.chunk_id] = {"title": doc.title, "mime": doc.mime, **doc.meta["fields"], "chunk_id": c.chunk_id,
                               "doc_id": c.doc_id, "source": c.source, "page": c.pages, "section": c.section_path, "kind": c.kinds,
                               "lang": text_language(c.text)}
    return out


def expected_dense(written, query: np.ndarray, k: int, where: dict | None) -> list[str]:
    recs = records(written)
    known = set(BUILTIN_FIELDS) | {key for r in recs.values() for key in r}
    predicate = compile_filter(where, known) or (lambda r: True)
    scored = [(float(s.vector @ query), s.chunk.chunk_id) for _, stored in written for s in stored if predicate(recs[s.chunk.chunk_id])]
    return [cid for _, cid in sorted(scored, key=lambda x: -x[0])[:k]]


FILTERS: list[dict[str, Any]] = [
    {"tags": "hr"},
    {"tags": {"$in": ["it", "finance"]}},
    {"tags": {"$nin": ["hr"]}},
    {"source": {"$glob": "docs/hr/*"}},
    {"source": {"$glob": "docs/*/doc-[0-2].md"}},
    {"source": {"$glob": "docs/*/doc-[!0-2].md"}},
    {"page": {"$gte": 2, "$lte": 3}},
    {"page": {"$gt": 3}},
    {"section": "第1章"},
    {"section": {"$glob": "規程 > 第[12]章"}},
    {"kind": "table"},
    {"kind": {"$ne": "table"}},
    {"priority": {"$gte": 1}},
    {"priority": 0},
    {"priority": 1.0},
    {"draft": True},
    {"draft": {"$eq": 1}},
    {"owner": "総務部"},
    {"owner": {"$ne": "総務部"}},
    {"title": {"$glob": "Doc ?"}},
    {"title": {"$lt": "Doc 3"}},
    {"doc_id": {"$in": []}},
    {"$or": [{"kind": "table"}, {"tags": "it"}]},
    {"$and": [{"tags": "hr"}, {"$not": {"page": 1}}]},
    {"$not": {"$or": [{"priority": 2}, {"source": {"$glob": "*doc-1.md"}}]}},
    {"page": {"$glob": "[34]"}},
    {"draft": {"$glob": "True"}},
    {"lang": "zh"},
    {"lang": {"$in": ["ja", "en"]}},
    {"$and": [{"lang": {"$ne": "ja"}}, {"tags": "hr"}]},
]


class ExplodingVector:
    """A vector whose conversion fails, as a full disk or a dropped connection would mid-write."""

    def __array__(self, *args: Any, **kwargs: Any) -> np.ndarray:
        raise RuntimeError("write failed")
