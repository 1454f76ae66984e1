"""CSV, TSV, JSON and JSON Lines: one record element per row or object, with its field names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bunko.errors import DocumentError
from bunko.parse.records import RecordsParser
from bunko.schema import ErrorCode

ROWS = {
    "en": [{"city": "Tokyo", "limit": "15000"}, {"city": "Osaka", "limit": "12000"}],
    "ja": [{"都市": "東京", "上限": "15000"}, {"都市": "大阪", "上限": "12000"}],
    "zh": [{"城市": "北京", "上限": "800"}, {"城市": "上海", "上限": "700"}],
}


def expect(rows: list[dict[str, str]]) -> list[str]:
    return ["\n".join(f"{k}: {v}" for k, v in row.items()) for row in rows]


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_csv_rows_become_records_with_field_names(tmp_path: Path, lang: str) -> None:
    rows = ROWS[lang]
    names = list(rows[0])
    path = tmp_path / f"{lang}.csv"
    path.write_text(",".join(names) + "\n" + "\n".join(",".join(r.values()) for r in rows) + "\n", encoding="utf-8")
    doc = RecordsParser().parse(path, path.name, "text/csv")
    assert [e.kind for e in doc.elements] == ["record", "record"]
    assert [e.text for e in doc.elements] == expect(rows)
    assert [e.meta["fields"] for e in doc.elements] == rows
    assert [e.meta["row"] for e in doc.elements] == [1, 2]
    assert doc.meta["field_names"] == names and doc.meta["records"] == 2


def test_shift_jis_csv_with_semicolons_and_quoted_field(tmp_path: Path) -> None:
    path = tmp_path / "sjis.csv"
    path.write_bytes('名前;メモ\n山田;"出張; 大阪"\n'.encode("shift_jis"))
    [record] = RecordsParser().parse(path, path.name, "text/csv").elements
    assert record.meta["fields"] == {"名前": "山田", "メモ": "出張; 大阪"}


def test_tsv(tmp_path: Path) -> None:
    path = tmp_path / "a.tsv"
    path.write_text("a\tb\n1\t2\n", encoding="utf-8")
    [record] = RecordsParser().parse(path, path.name, "text/tab-separated-values").elements
    assert record.meta["fields"] == {"a": "1", "b": "2"}


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_json_list_under_one_key_and_jsonl_lines(tmp_path: Path, lang: str) -> None:
    rows = ROWS[lang]
    path = tmp_path / f"{lang}.json"
    path.write_text(json.dumps({"version": 1, "items": rows}, ensure_ascii=False), encoding="utf-8")
    doc = RecordsParser().parse(path, path.name, "application/json")
    assert [e.text for e in doc.elements] == expect(rows)
    assert [e.meta["json_path"] for e in doc.elements] == ["items[0]", "items[1]"]
    lines = tmp_path / f"{lang}.jsonl"
    lines.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n\n", encoding="utf-8")
    doc = RecordsParser().parse(lines, lines.name, "application/x-ndjson")
    assert [(e.text, e.meta["line"]) for e in doc.elements] == list(zip(expect(rows), [1, 2], strict=True))
    assert all(e.meta["method"] == "jsonl" for e in doc.elements)


def test_nested_values_stay_json(tmp_path: Path) -> None:
    path = tmp_path / "n.json"
    path.write_text('[{"id": 1, "tags": ["a", "b"], "owner": {"name": "A"}}]', encoding="utf-8")
    [record] = RecordsParser().parse(path, path.name, "application/json").elements
    assert record.text == 'id: 1\ntags: ["a", "b"]\nowner: {"name": "A"}'


@pytest.mark.parametrize(("name", "mime", "content"), [
    ("bad.json", "application/json", '{"a": '),
    ("bad.jsonl", "application/x-ndjson", '{"a": 1}\nnot json\n'),
])
def test_invalid_json_fails_as_parse_failed_naming_the_place(tmp_path: Path, name: str, mime: str, content: str) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(DocumentError) as caught:
        RecordsParser().parse(path, name, mime)
    assert caught.value.code == ErrorCode.PARSE_FAILED and name in caught.value.detail


def test_csv_in_no_known_encoding_fails_as_encoding(tmp_path: Path) -> None:
    path = tmp_path / "garbled.csv"
    path.write_bytes(b"a,b\n\xff\xfe\x80\x81,\xc3\x28\x9d\x8f\n")
    with pytest.raises(DocumentError) as caught:
        RecordsParser().parse(path, path.name, "text/csv")
    assert caught.value.code == ErrorCode.ENCODING
