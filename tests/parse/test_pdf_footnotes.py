"""PDF footnotes on generated chapters in en, ja and zh, set as Word, LaTeX and dblatex set them: the marks kept apart
from the words, the notes read at the end of their section, the rest of the text as it was."""

from __future__ import annotations

import re

import pytest
from pdfgen import NOTE_STYLES, NOTE_TEXTS, make_footnotes

from bunko.parse.base import ElementBuilder
from bunko.parse.cjk import join_words
from bunko.parse.pdf import PdfParser
from bunko.parse.pdf_footnotes import NOTE_METHOD, Footnote, FootnoteArea, find_footnotes, to_section_ends
from bunko.parse.pdf_layout import Segment, segments_from_words
from bunko.schema import ElementKind, ParsedDocument
from bunko.text.scripts import is_unspaced

LANGS = ("en", "ja", "zh")


@pytest.fixture(scope="module")
def footnote_pdfs(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], ParsedDocument]:
    folder = tmp_path_factory.mktemp("footnotes")
    docs = {}
    for lang in LANGS:
        for style in (*NOTE_STYLES, "unmarked"):
            path = make_footnotes(folder / f"notes-{lang}-{style}.pdf", lang, style)
            docs[lang, style] = PdfParser().parse(path, path.name, "application/pdf")
    return docs


def with_marks(text: str) -> str:
    """The paragraph as the reader should get it: "{1}" written "[1]", apart from a Latin word, against CJK."""
    return re.sub(r"\{(\d+)\}", lambda m: ("" if is_unspaced(text[m.start() - 1]) else " ") + f"[{m.group(1)}]", text)


@pytest.mark.parametrize("style", NOTE_STYLES)
@pytest.mark.parametrize("lang", LANGS)
def test_marks_are_apart_and_notes_end_their_section(footnote_pdfs: dict[tuple[str, str], ParsedDocument], lang: str, style: str) -> None:
    n = NOTE_TEXTS[lang]
    doc = footnote_pdfs[lang, style]
    els = doc.elements
    kinds = [(str(e.kind), e.page) for e in els]
    assert kinds == [("heading", 1), ("paragraph", 1), ("paragraph", 1), ("paragraph", 2), ("paragraph", 2),
                     ("footnote", 1), ("footnote", 1), ("heading", 2), ("paragraph", 2)]
    heading, marked, runover_1, runover_2, after, note_1, note_2, h2, closing = els
    assert marked.text == with_marks(n.marked)
    assert join_words([runover_1.text, runover_2.text]) == with_marks(n.runover), "the paragraph over the break reads on, nothing between"
    assert [heading.text, after.text, h2.text, closing.text] == [n.h1, n.after, n.h2, n.closing]
    assert [note_1.text, note_2.text] == [f"[1] {n.notes[0]}", f"[2] {n.notes[1]}"]
    assert not re.search(r"[^\W\d_][12](?!\])|^\d[^\W\d_]", "\n".join(e.text for e in els)), "no mark glued to a word"
    assert [note_1.parent_id, note_2.parent_id] == [marked.element_id, runover_1.element_id]
    assert note_1.section_path == note_2.section_path == marked.section_path == [n.h1]
    assert note_1.meta["label"] == "1" and note_1.meta["method"] == "pdf-footnote"
    assert doc.meta["footnotes"] == 2


@pytest.mark.parametrize("lang", LANGS)
def test_small_print_at_the_foot_without_rule_or_marks_stays_text(footnote_pdfs: dict[tuple[str, str], ParsedDocument], lang: str) -> None:
    """Nothing says the small lines are notes: no separator, no mark in the body. They are read as they stand."""
    n = NOTE_TEXTS[lang]
    doc = footnote_pdfs[lang, "unmarked"]
    assert not [e for e in doc.elements if e.kind == ElementKind.FOOTNOTE] and "footnotes" not in doc.meta
    texts = [e.text for e in doc.elements]
    assert texts[:3] == [n.h1, n.marked.replace("{1}", ""), texts[2]]
    assert join_words([f"1{n.notes[0]}", f"2{n.notes[1]}"]) in texts


def _words(line: list[tuple[str, float, float, float]], top: float = 100.0) -> list[dict[str, object]]:
    """Words of one line: (text, x0, size, rise); the baseline at `top` + 10, each word's box from its size."""
    words = []
    for text, x0, size, rise in line:
        bottom = top + 10 + 0.2 * size - rise
        words.append({"text": text, "x0": x0, "x1": x0 + 0.5 * size * len(text), "top": bottom - 1.2 * size, "bottom": bottom,
                      "size": size, "fontname": "Serif"})
    return words


@pytest.mark.parametrize(("line", "marks", "expected"), [
    ([("reaches the archive", 72, 10, 0), ("3", 167, 6, 4), ("and", 172, 10, 0)], frozenset({"3"}), "reaches the archive [3] and"),
    ([("reaches the archive", 72, 10, 0), ("3", 167, 6, 4), ("and", 172, 10, 0)], frozenset(), "reaches the archive3 and"),
    ([("キューを通りアーカイブ", 72, 10, 0), ("3", 127, 6, 4), ("に届く。", 130, 10, 0)], frozenset({"3"}), "キューを通りアーカイブ[3]に届く。"),
    ([("再进入归档", 72, 10, 0), ("12", 97, 6, 4), ("，归档软件", 103, 10, 0)], frozenset({"12"}), "再进入归档[12]，归档软件"),
])
def test_a_raised_small_number_is_a_mark_written_apart_when_a_note_has_its_label(
    line: list[tuple[str, float, float, float]], marks: frozenset[str], expected: str,
) -> None:
    segments = segments_from_words(_words(line), marks)
    assert [s.text for s in segments] == [expected]
    assert segments[0].raised == (line[1][0],)


@pytest.mark.parametrize("text", ["dpkg -s", "キュー", "队列"])
def test_smaller_type_on_the_baseline_is_not_raised(text: str) -> None:
    """Inline code a point smaller than the prose, or a number in a smaller face, sits on the baseline: no mark."""
    segments = segments_from_words(_words([("see", 72, 10, 0), ("2", 92, 9, 0), (text, 100, 9, 0)]))
    assert segments[0].raised == ()


def _seg(text: str, top: float, size: float, lead: str = "", raised: tuple[str, ...] = ()) -> Segment:
    return Segment(text, (72.0, top, 500.0, top + size), size, False, lead=lead, raised=raised)


@pytest.mark.parametrize("lang", LANGS)
def test_a_rule_above_small_labelled_lines_makes_them_notes_and_a_running_foot_stays_out(lang: str) -> None:
    n = NOTE_TEXTS[lang]
    body = [_seg(n.after, 100, 10), _seg(n.closing, 113, 10)]
    foot = [_seg(f"1{n.notes[0]}", 700, 8), _seg(f"2{n.notes[1]}", 712, 8), _seg("12", 800, 8)]
    rule = [(72.0, 690.0, 216.0, 690.4)]
    area = find_footnotes(body + foot, rule, 10.0, 595.0, 760.0)
    assert area == FootnoteArea([Footnote("1", n.notes[0], foot[0].bbox, [foot[0]]), Footnote("2", n.notes[1], foot[1].bbox, [foot[1]])], [])
    assert find_footnotes(body + foot, [], 10.0, 595.0, 760.0) is None, "no rule and no raised mark: not notes"
    wide = [(72.0, 690.0, 523.0, 690.4)]
    assert find_footnotes(body + foot, wide, 10.0, 595.0, 760.0) is None, "a full-width rule is no separator"
    marked = [_seg(n.after, 100, 10, raised=("1",)), body[1]]
    assert find_footnotes(marked + foot, [], 10.0, 595.0, 760.0) is not None, "a raised 1 above makes the 1 below a note"
    continued = find_footnotes([*body, _seg(n.notes[1], 700, 8)], rule, 10.0, 595.0, 760.0, continues=True)
    assert continued is not None and [s.text for s in continued.continued] == [n.notes[1]] and not continued.notes


@pytest.mark.parametrize("lang", LANGS)
def test_small_code_above_the_rule_stays_body(lang: str) -> None:
    """dblatex sets code at 0.9 of the body size: a listing ending just above the separator is no note."""
    n = NOTE_TEXTS[lang]
    code = Segment("$ dpkg -S libfoo.so.6", (57.0, 660.0, 170.0, 669.0), 9.0, False, mono=True)
    foot = [_seg(f"1{n.notes[0]}", 700, 8), _seg(f"2{n.notes[1]}", 712, 8)]
    area = find_footnotes([_seg(n.after, 600, 10), code, *foot], [(72.0, 690.0, 216.0, 690.4)], 10.0, 595.0, 760.0)
    assert area is not None and [note.label for note in area.notes] == ["1", "2"] and code not in area.segments


@pytest.mark.parametrize("lang", LANGS)
def test_notes_move_before_the_first_heading_after_their_mark(lang: str) -> None:
    """A note whose mark is in section 1 ends section 1 though the page printed it among section 2's lines; a note
    without a found mark ends the section it was printed in."""
    n = NOTE_TEXTS[lang]
    builder = ElementBuilder("notes.pdf")
    builder.heading(1, n.h1, page=1)
    marked = builder.add(ElementKind.PARAGRAPH, with_marks(n.marked), page=1)
    builder.heading(1, n.h2, page=2)
    builder.add(ElementKind.PARAGRAPH, n.closing, page=2)
    builder.add(ElementKind.FOOTNOTE, f"[1] {n.notes[0]}", page=2, parent_id=marked.element_id, meta={"method": NOTE_METHOD})
    builder.add(ElementKind.FOOTNOTE, f"[2] {n.notes[1]}", page=2, meta={"method": NOTE_METHOD})
    builder.heading(1, "3.", page=3)
    placed = [e.text for e in to_section_ends(builder.elements)]
    assert placed == [n.h1, with_marks(n.marked), f"[1] {n.notes[0]}", n.h2, n.closing, f"[2] {n.notes[1]}", placed[-1]]
