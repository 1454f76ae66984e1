"""Filter fixtures shared by the validation tests (tests/store, tests/server): a small fixed set of ja/zh/en documents
with metadata, the table of malformed filters and the error path each must be reported at, and a reference
evaluator of the filter language written from its specification (`bunko/index/filters.py`), not from either store.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from bunko.schema import Chunk, Element, ElementKind, ParsedDocument, doc_id_for
from bunko.store.base import StoredChunk
from bunko.text.analyzers import multilingual
from bunko.text.languages import text_language

DIM = 16

DOCS: list[dict[str, Any]] = [
    {"source": "hr/leave-ja.md", "title": "休暇規程", "section": ["規程", "年次休暇"],
     "texts": ["年次休暇は入社半年後に十日付与される。", "休暇の申請は人事部へ提出する。"],
     "fields": {"groups": ["hr"], "dept": "人事部", "year": 2024, "score": 0.75, "date": "2024-04-01", "tags": ["leave", "policy"],
                "draft": False}},
    {"source": "hr/leave-zh.md", "title": "年假制度", "section": ["制度", "年假"],
     "texts": ["年假在入职六个月后发放十天。", "请假申请需提交给人事部。"],
     "fields": {"groups": ["hr"], "dept": "人事部", "year": 2023, "score": 2.5, "date": "2023-10-15", "tags": ["leave"]}},
    {"source": "hr/leave-en.md", "title": "Leave policy", "section": ["Policy", "Annual leave"],
     "texts": ["Annual leave of ten days is granted after six months.", "Submit leave requests to the HR office."],
     "fields": {"groups": ["hr", "finance"], "dept": "HR", "year": 2024, "date": "2024-01-31", "tags": ["leave", "policy"], "draft": True}},
    {"source": "finance/expenses-ja.md", "title": "経費精算", "section": ["規程", "出張"],
     "texts": ["出張の宿泊費は一泊一万円までとする。", "精算は出張から三十日以内に行う。"],
     "fields": {"groups": ["finance"], "dept": "経理部", "year": 2022, "score": 1, "date": "2022-12-01", "tags": ["expenses"]}},
    {"source": "finance/budget-zh.md", "title": "预算管理", "section": ["制度", "预算"],
     "texts": ["研发预算由财务部每季度审核一次。", "超出预算需要副总裁批准。"],
     "fields": {"groups": ["finance"], "dept": "财务部", "year": 2025, "score": 0, "date": "2025-02-28"}},
    {"source": "finance/budget-en.md", "title": "Travel budget", "section": ["Policy", "Budget"],
     "texts": ["The travel budget is reviewed each quarter by finance.", "Overspending needs approval from a vice president."],
     "fields": {"groups": ["finance"], "dept": "Finance", "year": 2021, "tags": []}},
    {"source": "it/vpn-en.md", "title": "VPN access", "section": ["Guide", "VPN"],
     "texts": ["Connect to the VPN before opening the internal wiki.", "VPN tokens expire after ninety days."],
     "fields": {"groups": ["it"], "dept": "IT", "year": 2024, "score": 3, "date": "2024-07-07", "tags": ["it", "security"], "draft": False}},
    {"source": "it/vpn-ja.md", "title": "VPN接続", "section": ["手順", "VPN"],
     "texts": ["社外からはVPNに接続してから社内ウィキを開く。", "VPNのトークンは九十日で失効する。"],
     "fields": {"groups": ["it"], "dept": "情報システム部", "year": 2020, "tags": ["it"]}},
    {"source": "public/notice-zh.md", "title": "年会通知", "section": ["通知"],
     "texts": ["公司年会将于十二月举行。", "所有员工均可参加年会。"],
     "fields": {"dept": "总务部", "year": 2024, "date": "2024-12-20", "tags": ["event"]}},
]
"""Nine documents (three per language), two chunks each (pages 1 and 2, the second a table in every other one); the
public notice has no `groups`, and `score`, `date`, `tags`, `draft` are each missing from some documents."""


def stored_documents(seed: int = 0) -> list[tuple[ParsedDocument, list[StoredChunk]]]:
    """`DOCS` as a store writes them, with random unit vectors."""
    rng = np.random.default_rng(seed)
    written = []
    for n, spec in enumerate(DOCS):
        source = spec["source"]
        elements = [Element(f"e{i}", ElementKind.TABLE if i == 1 and n % 2 else ElementKind.PARAGRAPH, text, page=i + 1, section_path=list(spec["section"]))
                    for i, text in enumerate(spec["texts"])]
        doc = ParsedDocument(doc_id_for(source), source, spec["title"], "text/markdown", "markdown", elements, {"fields": spec["fields"]})
        stored = []
        for i, text in enumerate(spec["texts"]):
            chunk = Chunk(f"{source}#{i}", doc.doc_id, source, i, text, text, [f"e{i}"], [i + 1], list(spec["section"]),
                          [elements[i].kind])
            vector = rng.standard_normal(DIM).astype(np.float32)
            stored.append(StoredChunk(chunk, vector / np.linalg.norm(vector), multilingual(text), f"h-{n}-{i}"))
        written.append((doc, stored))
    return written


def records(written: list[tuple[ParsedDocument, list[StoredChunk]]]) -> dict[str, dict[str, Any]]:
    """Each chunk's filter record, as the filter language defines it (ingested_at left out: no test filters on it)."""
    out = {}
    for doc, stored in written:
        for s in stored:
            c = s.chunk
            out[c.chunk_id] = {"title": doc.title, "mime": doc.mime, **doc.meta["fields"], "chunk_id": c.chunk_id, "doc_id": c.doc_id,
                               "source": c.source, "page": c.pages, "section": c.section_path, "kind": c.kinds, "lang": text_language(c.text)}
    return out


def write_markdown(folder: Path) -> list[tuple[Path, dict[str, Any]]]:
    """`DOCS` as Markdown files under `folder`, each with the fields to ingest it with."""
    out = []
    for spec in DOCS:
        path = folder / spec["source"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# {spec['title']}\n\n" + "\n\n".join(spec["texts"]) + "\n", encoding="utf-8")
        out.append((path, spec["fields"]))
    return out


# -- the reference evaluator -----------------------------------------------------------------
def holds(where: Mapping[str, Any] | None, record: Mapping[str, Any]) -> bool:
    """Whether `record` passes `where`, read straight from the language's definition."""
    for key, value in (where or {}).items():
        if key == "$and":
            ok = all(holds(sub, record) for sub in value)
        elif key == "$or":
            ok = any(holds(sub, record) for sub in value)
        elif key == "$not":
            ok = not holds(value, record)
        else:
            ok = _field_holds(key, value, record)
        if not ok:
            return False
    return True


def _field_holds(field: str, condition: Any, record: Mapping[str, Any]) -> bool:
    raw = record.get(field)
    values = [] if raw is None else list(raw) if isinstance(raw, list) else [raw]
    if field == "section" and values:
        values.append(" > ".join(str(v) for v in values))
    ops = condition if isinstance(condition, Mapping) else {"$eq": condition}
    for op, x in ops.items():
        if op == "$eq":
            ok = any(v == x for v in values)
        elif op == "$ne":
            ok = all(v != x for v in values)
        elif op == "$in":
            ok = any(v == m for v in values for m in x)
        elif op == "$nin":
            ok = all(v != m for v in values for m in x)
        elif op == "$glob":
            ok = any(fnmatch.fnmatchcase(str(v), x) for v in values)
        else:
            ok = any(_ordered(v, op, x) for v in values)
        if not ok:
            return False
    return True


def _ordered(v: Any, op: str, x: Any) -> bool:
    """Numbers (booleans among them) against numbers, strings against strings by code point; anything else is false."""
    numbers = isinstance(v, int | float) and isinstance(x, int | float)
    if not (numbers or (isinstance(v, str) and isinstance(x, str))):
        return False
    return {"$gt": v > x, "$gte": v >= x, "$lt": v < x, "$lte": v <= x}[op]


# -- malformed filters ----------------------------------------------------------------------------
def _nested_not(levels: int) -> str:
    return '{"$not": ' * levels + '{"lang": "ja"}' + "}" * levels


CASES: list[tuple[str, str, str, str]] = [
    # (id, the filter as JSON text (NaN, Infinity and 1e309 as a client would send them), the path, part of the message)
    ("and-of-an-empty-list", '{"$and": [[]]}', "where.$and[0]", "expected a filter object, got an empty list"),
    ("ne-of-an-object", '{"source": {"$ne": {"x": 1}}}', "where.source.$ne", "expected a string, number, boolean or null, got an object"),
    ("glob-of-a-number", '{"title": {"$glob": 5}}', "where.title.$glob", "expected a glob pattern (a string), got a number"),
    ("gt-of-a-list", '{"page": {"$gt": [1]}}', "where.page.$gt", "expected a number or a string, got a list"),
    ("lt-of-the-string-NaN", '{"year": {"$lt": "NaN"}}', "where.year.$lt", 'got the string "NaN", which spells a non-finite number'),
    ("gte-of-the-string-minus-inf", '{"year": {"$gte": "-inf"}}', "where.year.$gte", "spells a non-finite number"),
    ("gte-of-1e309", '{"year": {"$gte": 1e309}}', "where.year.$gte", "got Infinity; numbers in a filter must be finite"),
    ("bare-NaN", '{"page": NaN}', "where.page", "got NaN"),
    ("eq-of-Infinity", '{"year": {"$eq": Infinity}}', "where.year.$eq", "got Infinity"),
    ("lte-of-minus-Infinity", '{"page": {"$lte": -Infinity}}', "where.page.$lte", "got -Infinity"),
    ("ne-of-minus-1e309", '{"year": {"$ne": -1e309}}', "where.year.$ne", "got -Infinity"),
    ("in-with-NaN", '{"year": {"$in": [2024, NaN]}}', "where.year.$in[1]", "got NaN"),
    ("nin-with-1e309", '{"year": {"$nin": [1e309]}}', "where.year.$nin[0]", "got Infinity"),
    ("eq-of-an-integer-past-a-double", '{"year": 1' + "0" * 400 + '}', "where.year", "got an integer of 401 digits, too large for a finite number"),
    ("gt-of-an-integer-past-a-double", '{"year": {"$gt": -1' + "0" * 309 + '}}', "where.year.$gt", "too large for a finite number"),
    ("eq-of-a-string-with-NUL", '{"dept": "a\\u0000b"}', "where.dept", "a string holding the NUL character"),
    ("glob-with-NUL", '{"source": {"$glob": "hr/\\u0000*"}}', "where.source.$glob", "the NUL character"),
    ("in-with-a-lone-surrogate", '{"title": {"$in": ["ok", "\\ud800"]}}', "where.title.$in[1]", "a lone surrogate"),
    ("a-field-name-with-NUL", '{"$or": [{"lang": "ja"}, {"ye\\u0000ar": 1}]}', "where.$or[1]", "a key holding the NUL character"),
    ("in-of-a-list-member", '{"source": {"$in": [[1]]}}', "where.source.$in[0]", "expected a string, number, boolean or null, got a list"),
    ("nin-of-an-object-member", '{"tags": {"$nin": ["hr", {"a": 1}]}}', "where.tags.$nin[1]", "got an object"),
    ("in-of-a-string", '{"tags": {"$in": "hr"}}', "where.tags.$in", "expected a list of strings, numbers, booleans or nulls, got a string"),
    ("nin-of-an-object", '{"tags": {"$nin": {"hr": 1}}}', "where.tags.$nin", "got an object"),
    ("in-of-null", '{"tags": {"$in": null}}', "where.tags.$in", "got null"),
    ("bare-list", '{"tags": ["hr"]}', "where.tags", 'got a list; for any of several values use {"$in": [...]}'),
    ("bare-object-operand", '{"tags": {"$eq": ["hr"]}}', "where.tags.$eq", "got a list"),
    ("gt-of-true", '{"page": {"$gt": true}}', "where.page.$gt", "expected a number or a string, got a boolean (true)"),
    ("lt-of-null", '{"page": {"$lt": null}}', "where.page.$lt", "expected a number or a string, got null"),
    ("lte-of-an-object", '{"year": {"$lte": {"$gt": 1}}}', "where.year.$lte", "got an object"),
    ("glob-of-null", '{"source": {"$glob": null}}', "where.source.$glob", "got null"),
    ("glob-of-a-list", '{"source": {"$glob": ["hr/*"]}}', "where.source.$glob", "got a list"),
    ("empty-and", '{"$and": []}', "where.$and", "an empty list; $and needs one filter object or more"),
    ("empty-or", '{"$or": []}', "where.$or", "an empty list; $or needs one filter object or more"),
    ("or-of-an-object", '{"$or": {"lang": "ja"}}', "where.$or", "expected a non-empty list of filter objects, got an object"),
    ("and-of-a-string", '{"$and": "lang"}', "where.$and", "got a string"),
    ("an-empty-object-in-or", '{"$or": [{"lang": "ja"}, {}]}', "where.$or[1]", "an empty filter object, which would match everything"),
    ("not-of-an-empty-object", '{"$not": {}}', "where.$not", "an empty filter object"),
    ("not-of-a-list", '{"$not": [{"lang": "ja"}]}', "where.$not", "expected a filter object, got a list"),
    ("a-string-in-and", '{"$and": [{"lang": "ja"}, "year"]}', "where.$and[1]", "expected a filter object, got a string"),
    ("empty-condition", '{"page": {}}', "where.page", "an empty condition"),
    ("unknown-operator", '{"source": {"$like": "hr%"}}', "where.source.$like", "unknown filter operator '$like'; use one of $eq $ne $in"),
    ("exists-is-not-an-operator", '{"year": {"$exists": true}}', "where.year.$exists", "unknown filter operator '$exists'"),
    ("an-operator-without-the-dollar", '{"page": {"gt": 1}}', "where.page.gt", "unknown filter operator 'gt'"),
    ("a-valid-then-an-unknown-operator", '{"page": {"$gte": 1, "$regex": "1"}}', "where.page.$regex", "unknown filter operator"),
    ("an-operator-without-a-field", '{"$eq": "hr"}', "where.$eq", "unknown filter combinator '$eq'; use $and, $or or $not"),
    ("unknown-combinator", '{"$xor": [{"lang": "ja"}]}', "where.$xor", "unknown filter combinator '$xor'"),
    ("deep-path", '{"$and": [{"lang": "ja"}, {"$or": [{"page": 1}, {"$not": {"year": {"$in": [2024, [2025]]}}}]}]}',
     "where.$and[1].$or[1].$not.year.$in[1]", "got a list"),
    ("nested-too-deep", _nested_not(33), "where" + ".$not" * 33, "filters nest more than 32 deep"),
    ("not-an-object", '["lang", "ja"]', "where", "expected a filter object, got a list"),
    ("a-string", '"lang"', "where", "expected a filter object, got a string"),
    ("unknown-field", '{"colour": "red"}', "where.colour", "unknown filter field 'colour'; known fields:"),
    ("unknown-field-with-a-dot", '{"$or": [{"lang": "ja"}, {"a.b": 1}]}', 'where.$or[1]["a.b"]', "unknown filter field 'a.b'"),
]
"""Every field named is one `DOCS` carry (or a built-in), except in the cases about unknown fields."""

VALID_EDGES: list[str] = [
    _nested_not(32),  # as deep as allowed
    '{"doc_id": {"$in": []}}',  # an empty $in matches nothing: the server's MATCH_NOTHING
    '{"tags": {"$nin": []}}',
    '{"year": {"$gt": 1e308}}',
    '{"year": {"$lt": 1' + "0" * 300 + '}}',  # an integer literal a double can hold
    '{"year": {"$gte": -1e-320}}',  # a subnormal is finite
    '{"year": {"$in": [2024, "2024", null, true, 2.5]}}',
    '{"date": {"$gte": "2024-01-01", "$lt": "2025-01-01"}}',
    '{"dept": {"$lt": "NaNa"}}',  # a string that only starts like NaN
    '{"page": {"$glob": "[12]"}}',
    '{"$and": [{"$or": [{"lang": "zh"}, {"lang": "en"}]}, {"$not": {"tags": "leave"}}]}',
    "{}",
    "null",
]


def parsed(text: str) -> Any:
    """JSON as Python's json (and so the HTTP API and the CLI) reads it: NaN, Infinity, and 1e309 as Infinity."""
    return json.loads(text)
