"""`Element.kind` is an `ElementKind`, however the element was made, and is written out as the same string as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bunko.parse.markdown import MarkdownParser
from bunko.schema import Element, ElementKind, to_dict
from bunko.store.local import LocalStore

DOC = """# 出張規程

宿泊費の上限は一泊一万二千円です。

## 差旅

| 城市 | 上限 |
| --- | --- |
| 上海 | 800元 |

## Travel

- Book through the portal.

```
apt install bunko
```
"""


def test_a_kind_given_as_a_stored_string_becomes_the_member() -> None:
    element = Element("e1", "table", "| a |")  # type: ignore[arg-type]
    assert element.kind is ElementKind.TABLE


def test_an_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="spreadsheet"):
        Element("e1", "spreadsheet", "x")  # type: ignore[arg-type]


def test_serialised_elements_keep_the_plain_string() -> None:
    element = Element("e1", ElementKind.HEADING, "出張規程", section_path=["出張規程"])
    assert json.loads(json.dumps(to_dict(element)))["kind"] == "heading"


def test_parsed_ja_zh_en_elements_carry_members_and_read_back_from_a_store_alike(tmp_path: Path) -> None:
    doc = MarkdownParser().parse_text(DOC, "policy.md")
    kinds = [e.kind for e in doc.elements]
    assert all(type(kind) is ElementKind for kind in kinds)
    assert {ElementKind.HEADING, ElementKind.PARAGRAPH, ElementKind.TABLE, ElementKind.LIST, ElementKind.CODE} <= set(kinds)
    store = LocalStore(tmp_path / "store")
    try:
        store.replace_document(doc, "hash", [])
        assert [e.kind for e in store.elements("policy.md")] == kinds
        assert all(type(e.kind) is ElementKind for e in store.elements("policy.md"))
    finally:
        store.close()
