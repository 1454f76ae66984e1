"""`structure`: headings bound chunks; tables, code and figures stay whole with their captions;
a table too large for one chunk is split by rows with its header in every part."""

from __future__ import annotations

import pytest
from chunkdocs import SENTENCES, TITLES, document, joined, markdown_doc, parse_markdown

from bunko.chunk.structure import StructureChunker
from bunko.config import ChunkConfig
from bunko.parse.tables import table_markdown, table_meta

HEADERS = {"ja": ["地域", "上限", "備考"], "zh": ["地区", "上限", "说明"], "en": ["Region", "Limit", "Note"]}
CAPTIONS = {"ja": "表1 地域別の宿泊費上限", "zh": "表1 各地区住宿费上限", "en": "Table 1: hotel limits by region"}


def _big_table(lang: str, rows: int = 40) -> tuple[list[str], list[list[str]]]:
    return HEADERS[lang], [[f"{lang}-region{i}", f"{(i + 1) * 1000:,}", f"note {i}"] for i in range(rows)]


@pytest.mark.parametrize("lang", ["ja", "zh", "en"])
def test_a_large_table_is_split_by_rows_with_its_header_repeated(lang: str) -> None:
    header, rows = _big_table(lang)
    text = table_markdown(header, rows)
    doc = document(f"{lang}.md", [
        ("heading", TITLES[lang][0], {}),
        ("caption", CAPTIONS[lang], {}),
        ("table", text, {"meta": table_meta(header, rows)}),
        ("paragraph", SENTENCES[lang][0], {}),
    ])
    chunks = StructureChunker().chunk(doc, ChunkConfig(max_chars=300))
    parts = [c for c in chunks if "table_part" in c.meta]
    assert len(parts) >= 4
    header_lines = "\n".join(text.split("\n")[:2])
    assert parts[0].text.startswith(CAPTIONS[lang] + "\n\n" + header_lines + "\n")
    for i, part in enumerate(parts):
        assert part.meta["table_part"] == i and part.meta["table_parts"] == len(parts)
        assert header_lines in part.text
        assert len(part.text) <= 300
        assert CAPTIONS[lang] in part.embed_text  # the caption says what the rows are, in every part
        assert doc.elements[2].element_id in part.element_ids
        if i:
            assert part.text.startswith(header_lines + "\n")
            assert part.meta["overlap"] == len(header_lines) + 1
    row_lines = text.split("\n")[2:]
    seen = [line for part in parts for line in part.text.split("\n") if line in row_lines]
    assert seen == row_lines  # every row once, in order
    assert chunks[-1].text.endswith(SENTENCES[lang][0])


def test_table_parts_come_from_the_cells_when_the_parser_kept_them() -> None:
    header, rows = _big_table("en", 30)
    plain = "\n".join("  ".join(r) for r in [header, *rows])  # a parser's plain-text rendering
    doc = document("t.md", [("table", plain, {"meta": table_meta(header, rows)})])
    parts = StructureChunker().chunk(doc, ChunkConfig(max_chars=200))
    assert len(parts) > 1
    assert all(p.text.startswith("| Region | Limit | Note |\n|---|---|---|\n") for p in parts)


def test_table_parts_come_from_the_markdown_lines_without_cells() -> None:
    header, rows = _big_table("zh", 30)
    doc = document("t.md", [("table", table_markdown(header, rows), {})])
    parts = StructureChunker().chunk(doc, ChunkConfig(max_chars=200))
    assert len(parts) > 1
    assert all(p.text.startswith("| 地区 | 上限 | 说明 |\n|---|---|---|\n") for p in parts)


@pytest.mark.parametrize("lang", ["ja", "zh", "en"])
def test_a_caption_stays_with_its_figure_and_its_table(lang: str) -> None:
    filler = joined(lang, SENTENCES[lang] * 3)
    doc = document(f"{lang}.md", [
        ("paragraph", filler, {}),
        ("figure", "flow diagram", {}),
        ("caption", "図1 " + SENTENCES[lang][1], {"caption_of": 1}),
        ("paragraph", filler, {}),
        ("caption", CAPTIONS[lang], {}),  # before its table, as PDFs put table captions
        ("table", table_markdown(["a", "b"], [["1", "2"]]), {}),
    ])
    doc.elements[4].parent_id = doc.elements[5].element_id
    chunks = StructureChunker().chunk(doc, ChunkConfig(max_chars=len(filler) + 10))
    by_element = {e: c.chunk_id for c in chunks for e in c.element_ids}
    ids = [e.element_id for e in doc.elements]
    assert by_element[ids[1]] == by_element[ids[2]]
    assert by_element[ids[4]] == by_element[ids[5]]
    assert by_element[ids[0]] != by_element[ids[1]]


def test_code_is_never_cut_and_is_flagged_when_too_large() -> None:
    code = "```python\n" + "\n".join(f"x{i} = {i}" for i in range(60)) + "\n```"
    doc = document("c.md", [("paragraph", "Setup:", {}), ("code", code, {}), ("paragraph", "Done.", {})])
    chunks = StructureChunker().chunk(doc, ChunkConfig(max_chars=100))
    (holding,) = [c for c in chunks if "x0 = 0" in c.text]
    assert holding.text == code and holding.meta["oversized"] is True


@pytest.mark.parametrize("lang", ["ja", "zh", "en"])
def test_chunks_never_cross_a_heading(lang: str) -> None:
    doc = parse_markdown(markdown_doc(lang), f"{lang}.md")
    chunks = StructureChunker().chunk(doc, ChunkConfig(max_chars=5000))
    title, first, second = TITLES[lang]
    assert [c.section_path for c in chunks] == [[title, first], [title, second]]
    assert chunks[0].text == joined(lang, SENTENCES[lang][:2]) + "\n\n" + joined(lang, SENTENCES[lang][2:])
    assert chunks[1].embed_text.startswith(f"{title} > {second}\n")


@pytest.mark.parametrize("lang", ["ja", "zh", "en"])
def test_long_paragraphs_split_at_sentence_ends(lang: str) -> None:
    s = SENTENCES[lang]
    doc = document(f"{lang}.md", [("paragraph", joined(lang, s), {})])
    budget = max(len(s[0]) + len(s[1]), len(s[2]) + len(s[3])) + 1
    chunks = StructureChunker().chunk(doc, ChunkConfig(max_chars=budget))
    assert [c.text for c in chunks] == [joined(lang, s[:2]), joined(lang, s[2:])]
    assert all(c.meta["split_element"] for c in chunks)


def test_min_chars_lets_a_tiny_section_join_the_next() -> None:
    doc = parse_markdown("# A\n\nShort.\n\n# B\n\n" + " ".join(SENTENCES["en"]), "m.md")
    plain = StructureChunker().chunk(doc, ChunkConfig(max_chars=800))
    merged = StructureChunker().chunk(doc, ChunkConfig(max_chars=800, min_chars=20))
    assert len(plain) == 2 and len(merged) == 1
    assert merged[0].text.startswith("Short.\n\n")
