"""Reading order and heading rules on synthetic boxes, where the expected order is unambiguous."""

from __future__ import annotations

import pytest

from bunko.parse.pdf_layout import (
    Block,
    Segment,
    heading_depth,
    heading_level,
    monospace_body,
    reading_order,
    segments_from_words,
    text_runs,
)


def seg(text: str, x0: float, top: float, x1: float, size: float = 10.0, bold: bool = False) -> Block:
    segment = Segment(text, (x0, top, x1, top + size), size, bold)
    return Block("text", segment.bbox, [segment])


def order(blocks: list[Block]) -> list[str]:
    return [b.segments[0].text for b in reading_order(blocks)]


def test_two_columns_with_aligned_blank_lines_are_still_read_column_by_column() -> None:
    """Both columns have a paragraph gap at the same height: a naive horizontal cut would interleave them."""
    blocks = [seg("title", 72, 60, 520, 20)]
    for i, top in enumerate((100, 114, 150, 164)):
        blocks.append(seg(f"L{i}", 72, top, 280))
        blocks.append(seg(f"R{i}", 310, top, 520))
    blocks.append(seg("footer note", 72, 200, 520))
    assert order(blocks) == ["title", "L0", "L1", "L2", "L3", "R0", "R1", "R2", "R3", "footer note"]


def test_three_columns_read_left_to_right() -> None:
    blocks = [seg(f"{c}{r}", x, 100 + 14 * r, x + 140) for r in range(3) for c, x in (("a", 50), ("b", 220), ("c", 390))]
    assert order(blocks) == ["a0", "a1", "a2", "b0", "b1", "b2", "c0", "c1", "c2"]


def test_single_column_keeps_top_to_bottom_order_even_with_short_lines() -> None:
    blocks = [seg("first line of text", 72, 100, 500), seg("short", 72, 114, 120), seg("next paragraph", 72, 140, 500)]
    assert order(blocks) == ["first line of text", "short", "next paragraph"]


def test_words_split_into_segments_at_a_gutter_but_not_at_word_spaces() -> None:
    words = [
        {"text": "Left", "x0": 72, "x1": 92, "top": 100, "bottom": 110, "size": 10, "fontname": "Helvetica"},
        {"text": "words", "x0": 95, "x1": 120, "top": 100, "bottom": 110, "size": 10, "fontname": "Helvetica"},
        {"text": "Right", "x0": 310, "x1": 335, "top": 101, "bottom": 111, "size": 10, "fontname": "Helvetica-Bold"},
    ]
    segments = segments_from_words(words)
    assert [(s.text, s.bold) for s in segments] == [("Left words", False), ("Right", True)]


@pytest.mark.parametrize(("text", "depth"), [
    ("1. Overview", 1), ("1.2 Scope", 2), ("2.3.1 Detail", 3), ("第1章 総則", 1), ("第2節 範囲", 2), ("第3条（目的）", 3),
    ("一、总则", 1), ("（二）范围", 2), ("Chapter 4 Results", 1), ("Article 7 Fees", 3), ("Overview", None), ("2024年度", None),
])
def test_numbering_gives_heading_depth(text: str, depth: int | None) -> None:
    assert heading_depth(text) == depth


def test_heading_level_combines_size_and_numbering() -> None:
    def level(text: str, size: float, bold: bool = False) -> int | None:
        return heading_level(Segment(text, (0, 0, 1, 1), size, bold), text, 10.0)

    assert level("Annual Report", 20) == 1
    assert level("1. Overview", 14) == 2
    assert level("1.1 Scope", 14) == 3
    assert level("Terms", 10, bold=True) == 4
    assert level("第5条（支給）", 10) == 6
    assert level("A normal sentence in body type.", 10) is None
    assert level("A bold sentence that ends like prose.", 10, bold=True) is None


def word(text: str, x0: float, top: float, font: str, size: float = 10.0) -> dict[str, object]:
    """A pdfplumber word; a monospace character is 0.6 em wide, a proportional one taken as 0.5 em (1 em for CJK)."""
    width = sum((0.6 if "Mono" in font else 1.0 if ord(c) > 0x2E80 else 0.5) * size for c in text)
    return {"text": text, "x0": x0, "x1": x0 + width, "top": top, "bottom": top + size, "size": size, "fontname": font}


def line(parts: list[tuple[str, str]], top: float, x0: float = 72.0) -> list[dict[str, object]]:
    """Words set one after the other with a word space (0.3 em) between them."""
    words = []
    for text, font in parts:
        words.append(word(text, x0, top, font))
        x0 = float(words[-1]["x1"]) + 3.0  # type: ignore[arg-type]
    return words


def runs(words: list[dict[str, object]]) -> list[tuple[str, str]]:
    return [(str(r.kind), r.text) for r in text_runs(segments_from_words(words), 10.0)]


MONO, SERIF = "ABCDEF+LiberationMono", "ABCDEF+LiberationSerif"
PROSE_BEFORE_CODE = {
    "en": "Add the line below to the configuration:",
    "ja": "設定ファイルに次の行を加えます：",
    "zh": "在配置文件中加入下面几行：",
}


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_monospace_lines_are_one_code_block_with_their_indentation_and_aligned_columns(lang: str) -> None:
    """A configuration block keeps its lines and nesting; the wide gap that aligns a column inside code is spaces,
    not a column gutter that would cut the line in two."""
    prose = line([(w, SERIF) for w in PROSE_BEFORE_CODE[lang].split(" ")], 100)
    code = [
        *line([("server", MONO), ("{", MONO)], 116),
        word("listen", 84, 128, MONO), word("80;", 126, 128, MONO), word("#", 222, 128, MONO), word("port", 234, 128, MONO),
        word("}", 72, 140, MONO),
    ]
    (kind, text), (code_kind, code_text) = runs(prose + code)
    assert (kind, text) == ("paragraph", PROSE_BEFORE_CODE[lang])
    assert code_kind == "code"
    assert code_text == "```\nserver {\n  listen 80;             # port\n}\n```"


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_a_prose_line_naming_a_file_in_code_type_stays_prose(lang: str) -> None:
    before, after = {"en": ("Edit the file", "then restart."), "ja": ("次のファイル", "を編集します。"), "zh": ("编辑", "文件。")}[lang]
    words = [*line([*((w, SERIF) for w in before.split(" ")), ("/etc/hosts", MONO), *((w, SERIF) for w in after.split(" "))], 100)]
    assert [kind for kind, _ in runs(words)] == ["paragraph"]


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_a_blank_line_inside_code_keeps_one_block_and_the_paragraph_after_it_is_prose(lang: str) -> None:
    """LaTeX's verbatim keeps the blank lines of an ASN.1 module or a config file: one block, not five."""
    code = [*line([("BEGIN", MONO)], 100), *line([("Version", MONO), ("::=", MONO), ("INTEGER", MONO)], 126), *line([("END", MONO)], 152)]
    after = line([(w, SERIF) for w in PROSE_BEFORE_CODE[lang].split(" ")], 178)
    assert runs(code + after) == [("code", "```\nBEGIN\n\nVersion ::= INTEGER\n\nEND\n```"), ("paragraph", PROSE_BEFORE_CODE[lang])]


MONOSPACE_BODY = {
    "en": ["Network Working Group", "This memo describes the protocol.", "Status of This Memo"],
    "ja": ["ネットワーク作業部会", "この文書はプロトコルを説明する。", "この文書の位置づけ"],
    "zh": ["网络工作组", "本文档描述该协议。", "本文档的状态"],
}


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_a_page_set_wholly_in_monospace_is_prose_not_one_code_block(lang: str) -> None:
    """A text file or an RFC printed to PDF (Courier, Noto Sans Mono CJK): monospace is its body type."""
    font = "ABCDEF+NotoSansMonoCJKjp-Regular" if lang != "en" else "ABCDEF+Courier"
    words = [w for i, text in enumerate(MONOSPACE_BODY[lang]) for w in line([(part, font) for part in text.split(" ")], 100 + 30 * i)]
    got = text_runs(monospace_body(segments_from_words(words)), 10.0)
    assert [(str(r.kind), r.text) for r in got] == [("paragraph", text) for text in MONOSPACE_BODY[lang]]
