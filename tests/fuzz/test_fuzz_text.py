"""Text-level fuzzing of what users write by hand: YAML front matter (through the Markdown parser), golden sets
(`evaluate/golden.py`) and search filters (`index/filters.py`, fed JSON values). Each ends in its result or its own
coded error (DocumentError, GoldenError, FilterError), never another exception; CI settings as in fuzzing.py."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from fuzzing import apply_ops, check_parse, fuzz_settings, ops_strategy, seeds
from hypothesis import given
from hypothesis import strategies as st

from bunko.errors import FilterError
from bunko.evaluate.golden import GoldenError, dump_lines, load_golden, parse_lines, template
from bunko.index.filters import BUILTIN_FIELDS, COMBINATORS, OPERATORS, compile_filter, filter_key, mask_for, validate_filter

# -- front matter --------------------------------------------------------------------------------

YAML_TOKENS = (
    "title", "tags", "date", "a", "b", ": ", ":", "- ", "? ", "&a ", "*a", "&b ", "*b", "<<: *a", "!!binary ", "!!set ", "!!omap ",
    "!!python/object/apply:os.system ", "!!str ", "!!int ", "!!float ", "!!timestamp ", "!custom ", "[", "]", "{", "}", ", ",
    "|", ">", "|-", "'", '"', "\\", "#", "%YAML 1.1\n", "%TAG ! tag:x:\n", "---\n", "...\n", "\n", "\n  ", "\n    ", "\t", "  ",
    "2024-04-01", "2024-13-45T25:61:61", "1e309", "-.inf", ".nan", "0x1F", "0o17", "~", "null", "yes", "no", "12:30:00",
    "出張旅費", "差旅费", "タイトル: 規程", "标题：规定", "\u3000", "\ufeff", "\x00", "\x85", "\u2028", "\r\n", "\r",
)
yaml_text = st.lists(st.one_of(st.sampled_from(YAML_TOKENS), st.text(max_size=6)), max_size=40).map("".join)


@fuzz_settings(300)
@given(yaml_text, st.sampled_from(("---\n", "---\r\n", "--- \n")), st.booleans())
def test_front_matter_of_any_text_parses_or_fails_with_a_code(front: str, fence: str, closed: bool) -> None:
    body = "\n# 出張旅費規程\n\n宿泊費の上限は一泊一万二千円。住宿费上限。The hotel limit.\n"
    text = fence + front + ("\n---\n" if closed else "\n") + body
    check_parse("front-matter", text.encode("utf-8", errors="surrogatepass"), "front.md")


@fuzz_settings(150)
@given(st.sampled_from(seeds("front-*.md")), ops_strategy)
def test_a_mutated_front_matter_parses_or_fails_with_a_code(seed: Path, ops: list[tuple[str, int, int, bytes]]) -> None:
    data = seed.read_bytes()
    end = data.index(b"\n---\n", 4) + 5  # mutate the front matter only, so every example reaches YAML
    check_parse("front-matter", apply_ops(data[:end], ops) + data[end:], "front.md")


# -- golden sets ---------------------------------------------------------------------------------

GOLDEN_KEYS = ("id", "question", "expected_answer", "relevant_sources", "relevant_chunk_ids", "relevant_pages", "tags", "lang",
               "type", "draft", "notes", "source", "page")
json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12), st.sampled_from(("", "ex-1", "出張経費は何日以内？", "婚假有几天？", "fact", "absent", "table", "ja", "zh")),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(GOLDEN_KEYS) | st.text(max_size=6), inner, max_size=5),
    max_leaves=16,
)
golden_objects = st.dictionaries(st.sampled_from(GOLDEN_KEYS), json_values, max_size=10)


def _golden(parse: Any) -> None:
    try:
        items = parse()
    except GoldenError as exc:
        assert str(exc)
    else:
        assert items and all(item.id for item in items)


@fuzz_settings(300)
@given(st.lists(st.one_of(golden_objects.map(lambda d: json.dumps(d, ensure_ascii=False, allow_nan=True)),
                          json_values.map(json.dumps), st.text(max_size=20)), max_size=6))
def test_golden_lines_of_any_json_load_or_fail_with_a_golden_error(lines: list[str]) -> None:
    _golden(lambda: parse_lines(lines, origin="fuzz.jsonl"))


@fuzz_settings(200)
@given(ops_strategy)
def test_a_mutated_golden_file_loads_or_fails_with_a_golden_error(ops: list[tuple[str, int, int, bytes]]) -> None:
    data = apply_ops(dump_lines(template()).replace('"draft": true', '"draft": false').encode("utf-8"), ops)
    with tempfile.TemporaryDirectory(prefix="bunko-fuzz-") as tmp:
        path = Path(tmp) / "golden.jsonl"
        path.write_bytes(data)
        _golden(lambda: load_golden(path))


# -- filters -------------------------------------------------------------------------------------

FILTER_KEYS = (*sorted(BUILTIN_FIELDS), *OPERATORS, *COMBINATORS, "$foo", "$regex", "", "x\x00", "\ud800", "tags.lang", "author")
FILTER_STRINGS = ("policies/*.md", "*", "**", "[", "[!a]", "\\", "NaN", "-inf", "1e309", "2024-04-01", "表", "x\x00", "\ud800", "A > B")
filter_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**1100), 2**1100), st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8), st.sampled_from(FILTER_STRINGS),
)
filter_values = st.recursive(
    filter_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(FILTER_KEYS) | st.text(max_size=4), inner, max_size=4),
    max_leaves=24,
)
filters = st.one_of(st.dictionaries(st.sampled_from(FILTER_KEYS), filter_values, max_size=4), filter_values)
RECORDS = [
    {"source": "policies/travel-ja.md", "section": ["出張", "宿泊"], "page": [3], "kind": ["paragraph"], "tags": ["hr"], "lang": "ja",
     "doc_id": "d1", "title": "出張旅費規程", "mime": "text/markdown", "ingested_at": "2024-04-01T09:00:00", "chunk_id": "c1"},
    {"source": "zh/leave.pdf", "section": [], "page": [], "kind": ["table"], "tags": [], "lang": "zh", "doc_id": "d2", "title": None,
     "mime": "application/pdf", "ingested_at": "2025-01-01", "chunk_id": "c2"},
    {"source": "notes.txt"},
]


def _nested(depth: int, leaf: Any) -> Any:
    for i in range(depth):
        leaf = {"$not": leaf} if i % 3 == 0 else {("$and", "$or")[i % 2]: [leaf]}
    return leaf


@fuzz_settings(500)
@given(st.one_of(filters, st.builds(_nested, st.integers(0, 80), filters)))
def test_a_filter_of_any_json_value_validates_and_runs_or_fails_with_a_filter_error(spec: Any) -> None:
    filter_key(spec)
    try:
        validate_filter(spec)
        validate_filter(spec, BUILTIN_FIELDS)
        predicate = compile_filter(spec)
        mask = mask_for(spec, RECORDS)
    except FilterError as exc:
        assert str(exc).startswith("where"), exc
        return
    assert (predicate is None) == (mask is None)
    if predicate is not None:
        assert [predicate(r) for r in RECORDS] == list(mask)
