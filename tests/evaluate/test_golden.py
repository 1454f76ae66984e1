"""Golden sets load, validate with line numbers, and round-trip."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bunko.evaluate.golden import GoldenError, PageRef, dump_lines, load_golden, parse_lines, template

SAMPLES_GOLDEN = Path(__file__).resolve().parents[2] / "src" / "bunko" / "samples" / "golden.jsonl"


def test_the_samples_golden_set_is_valid_and_covers_languages_and_kinds() -> None:
    items = load_golden(SAMPLES_GOLDEN)
    assert len(items) >= 40
    assert {item.lang for item in items} == {"ja", "zh", "en"}
    assert {"fact", "table", "absent"} <= {item.type for item in items}
    absent = [item for item in items if item.absent]
    assert absent and all(not item.expected_answers and not item.has_relevance for item in absent)


def test_every_field_form_is_read() -> None:
    line = {
        "id": 7, "question": " How long? ", "expected_answer": ["3 days", "three days"],
        "relevant_sources": ["a.md"], "relevant_chunk_ids": ["docs/a.md#2"],
        "relevant_pages": [4, {"source": "b.pdf", "page": 9}], "tags": {"type": "table", "cross_lingual": True},
        "draft": True, "notes": "checked",
    }
    (item,) = parse_lines([json.dumps(line)])
    assert item.id == "7" and item.question == "How long?"
    assert item.expected_answers == ("3 days", "three days")
    assert item.relevant_pages == (PageRef(4), PageRef(9, "b.pdf"))
    assert item.lang == "en"  # detected when the tag is missing
    assert item.type == "table" and item.tags == {"cross_lingual": True} and item.draft
    assert parse_lines(dump_lines([item]).splitlines())[0] == item


def test_errors_name_every_bad_line_at_once() -> None:
    lines = [
        '{"id": "ok", "question": "Q?", "expected_answer": "A"}',
        "",
        "{not json",
        '{"id": "a", "question": ""}',
        '{"id": "b", "question": "Q?", "relevant_source": ["x.md"], "expected_answer": "A"}',
        '{"id": "c", "question": "Q?", "expected_answer": "A", "tags": {"type": "opinion"}}',
        '{"id": "d", "question": "Q?", "expected_answer": "A", "tags": {"type": "absent"}}',
        '{"id": "e", "question": "Q?"}',
        '{"id": "ok", "question": "Q2?", "expected_answer": "B"}',
        '{"id": "f", "question": "Q?", "relevant_pages": ["p3"], "expected_answer": "A"}',
    ]
    with pytest.raises(GoldenError) as caught:
        parse_lines(lines, origin="g.jsonl")
    message = str(caught.value)
    assert "g.jsonl:3: not valid JSON" in message
    assert "g.jsonl:4: question is missing or empty" in message
    assert "g.jsonl:5: unknown key 'relevant_source'" in message
    assert "g.jsonl:6: tags.type 'opinion' is not one of fact, table, multi-hop, absent" in message
    assert "g.jsonl:7: an 'absent' question must have expected_answer \"\" or null" in message
    assert "g.jsonl:8: nothing to measure" in message
    assert "g.jsonl:9: id 'ok' is already used on line 1" in message
    assert 'g.jsonl:10: relevant_pages entry "p3"' in message
    assert "g.jsonl:1:" not in message


def test_missing_and_empty_files_are_clear(tmp_path: Path) -> None:
    with pytest.raises(GoldenError, match="bunko eval init"):
        load_golden(tmp_path / "nope.jsonl")
    (tmp_path / "empty.jsonl").write_text("\n\n", encoding="utf-8")
    with pytest.raises(GoldenError, match="no questions"):
        load_golden(tmp_path / "empty.jsonl")


def test_the_template_is_valid_and_all_drafts(tmp_path: Path) -> None:
    path = tmp_path / "golden.jsonl"
    path.write_text(dump_lines(template()), encoding="utf-8")
    items = load_golden(path)
    assert {item.type for item in items} == {"fact", "table", "absent"}
    assert any(item.relevant_pages for item in items)
    assert all(item.draft for item in items)
