"""`ingest.max_elements` and `ingest.max_chars` stop a parser while it builds, at the element that passes them, with the
code and wording the check after the parser uses; a Word body is counted as it is streamed, before python-docx builds
its tree. What a run of the parser costs is counted (calls), never timed: the seconds are bench/bench_docx_limits.py's.
"""

from __future__ import annotations

import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from docx import Document
from pdfgen import make_long

import bunko.parse.docx as docx_module
from bunko.errors import DocumentError
from bunko.parse.base import ElementBuilder
from bunko.parse.limits import ParseLimits, parse_within
from bunko.parse.registry import default_registry
from bunko.schema import ErrorCode

LANGS = ("ja", "zh", "en")
SENTENCE = {
    "ja": "第{n}回の会議室予約は総務部が受け付けます。",
    "zh": "第{n}次会议室预订由行政部受理。",
    "en": "Meeting room booking number {n} is handled by the front office.",
}
W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
HANG_GUARD_S = 60.0
"""Only against a hang: each of these parses takes well under a second (10x that on a loaded machine)."""


def word_body(path: Path, paragraphs: list[str]) -> Path:
    """A Word package whose document.xml is written directly: `paragraphs` are `w:p` elements (their XML)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", (
            '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
            '<Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" '
            'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>'))
        archive.writestr("_rels/.rels", (
            '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" '
            'Target="word/document.xml"/></Relationships>'))
        with archive.open("word/document.xml", "w") as member:
            member.write(f'<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="{W}"><w:body>'.encode())
            for start in range(0, len(paragraphs), 1000):
                member.write("".join(paragraphs[start:start + 1000]).encode())
            member.write(b"</w:body></w:document>")
    return path


def paragraph(text: str, num_id: int | None = None) -> str:
    numbering = f'<w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="{num_id}"/></w:numPr></w:pPr>' if num_id else ""
    return f"<w:p>{numbering}<w:r><w:t>{text}</w:t></w:r></w:p>"


def sentences(lang: str, count: int) -> list[str]:
    return [SENTENCE[lang].format(n=n) for n in range(1, count + 1)]


def passing(lengths: list[int], limit: int) -> int:
    """How many of these elements a parser adds before their characters pass `limit` (the one that passes it included)."""
    total = 0
    for count, length in enumerate(lengths, start=1):
        total += length
        if total > limit:
            return count
    raise AssertionError(f"{sum(lengths)} characters do not pass {limit}")


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How often the Word parser read a paragraph's text, built a python-docx Document, and any parser added an element."""
    seen = {"paragraph_text": 0, "Document": 0, "add": 0}

    def counting(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            seen[name] += 1
            return function(*args, **kwargs)
        return wrapper

    monkeypatch.setattr(docx_module, "paragraph_text", counting("paragraph_text", docx_module.paragraph_text))
    monkeypatch.setattr(docx_module, "Document", counting("Document", docx_module.Document))
    monkeypatch.setattr(ElementBuilder, "add", counting("add", ElementBuilder.add))
    return seen


def _refused(path: Path, source: str, **limits: Any) -> DocumentError:
    started = time.monotonic()
    with pytest.raises(DocumentError) as error:
        parse_within(default_registry(), path, source, ParseLimits(**limits))
    assert time.monotonic() - started < HANG_GUARD_S
    return error.value


@pytest.mark.parametrize("lang", LANGS)
def test_a_word_body_past_max_elements_fails_while_streamed_before_python_docx_builds_it(
    tmp_path: Path, calls: dict[str, int], lang: str,
) -> None:
    """20,000 paragraphs (a 1.3 MB body; the real one of the issue is 250 MB) against a limit of 500: the body is read
    up to the 501st paragraph and no further, and python-docx never builds the tree."""
    path = word_body(tmp_path / "bomb.docx", [paragraph(s) for s in sentences(lang, 20_000)])
    error = _refused(path, f"bomb-{lang}.docx", max_elements=500)
    assert error.code == ErrorCode.TOO_COMPLEX
    assert error.detail == f"bomb-{lang}.docx: elements: more than 500 (limit: ingest.max_elements = 500)"
    assert calls["paragraph_text"] == 501
    assert calls["Document"] == 0


@pytest.mark.parametrize("lang", LANGS)
def test_a_word_body_past_max_chars_fails_while_streamed(tmp_path: Path, calls: dict[str, int], lang: str) -> None:
    texts = sentences(lang, 20_000)
    path = word_body(tmp_path / "long.docx", [paragraph(s) for s in texts])
    error = _refused(path, f"long-{lang}.docx", max_chars=5_000)
    assert error.code == ErrorCode.TOO_LARGE
    assert error.detail == f"long-{lang}.docx: characters of text: more than 5,000 (limit: ingest.max_chars = 5,000)"
    assert calls["paragraph_text"] == passing([len(t) for t in texts], 5_000)  # the last paragraph read passes it
    assert calls["Document"] == 0


@pytest.mark.parametrize("lang", LANGS)
def test_list_items_that_make_one_element_are_not_counted_as_many(tmp_path: Path, calls: dict[str, int], lang: str) -> None:
    """300 bullets under a heading are two elements: the streamed count must not refuse what the parser makes of them."""
    document = Document()
    document.add_heading(SENTENCE[lang].format(n=0), level=1)
    for text in sentences(lang, 300):
        document.add_paragraph(text, style="List Bullet")
    path = tmp_path / "list.docx"
    document.save(str(path))
    doc = parse_within(default_registry(), path, "list.docx", ParseLimits(max_elements=50))
    assert [e.kind for e in doc.elements] == ["heading", "list"]
    assert doc.elements[1].text.count("\n") == 299
    assert calls["Document"] == 1


@pytest.mark.parametrize("lang", LANGS)
def test_what_the_streamed_count_leaves_to_the_parser_stops_at_the_element_that_passes(
    tmp_path: Path, calls: dict[str, int], lang: str,
) -> None:
    """List items of two numberings in turn may join the item before them as far as the streamed count knows (it counts
    one); python-docx makes an element of each, and the parser stops at the 51st, not after the 300th."""
    path = word_body(tmp_path / "lists.docx", [paragraph(s, num_id=1 + n % 2) for n, s in enumerate(sentences(lang, 300))])
    error = _refused(path, f"lists-{lang}.docx", max_elements=50)
    assert error.code == ErrorCode.TOO_COMPLEX
    assert error.detail == f"lists-{lang}.docx: elements: more than 50 (limit: ingest.max_elements = 50)"
    assert calls["Document"] == 1 and calls["add"] == 51


# -- the other parsers: each stops at the element that passes ----------------------------------------------------


def _markdown(path: Path, texts: list[str]) -> None:
    path.write_text("\n\n".join(texts) + "\n", encoding="utf-8")


def _html(path: Path, texts: list[str]) -> None:
    path.write_text("<html><body><main>" + "".join(f"<p>{t}</p>" for t in texts) + "</main></body></html>", encoding="utf-8")


def _csv(path: Path, texts: list[str]) -> None:
    path.write_text("id,note\n" + "".join(f"{n},{t}\n" for n, t in enumerate(texts)), encoding="utf-8")


def _xlsx(path: Path, texts: list[str]) -> None:
    import xlsxwriter

    workbook = xlsxwriter.Workbook(str(path))
    sheet = workbook.add_worksheet("notes")
    for n, text in enumerate(texts):
        sheet.write(n * 2, 0, text)  # a row apart: each cell is a paragraph of its own
    workbook.close()


def _pptx(path: Path, texts: list[str]) -> None:
    from pptx import Presentation

    deck = Presentation()
    for text in texts[::2]:
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = text
        slide.placeholders[1].text_frame.text = text
    deck.save(str(path))


FORMATS: dict[str, Callable[..., None]] = {
    "md": _markdown, "txt": _markdown, "html": _html, "csv": _csv, "xlsx": _xlsx, "pptx": _pptx,
}


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("ext", [*FORMATS, "pdf"])
def test_every_parser_stops_at_the_element_that_passes_max_elements(
    tmp_path: Path, calls: dict[str, int], ext: str, lang: str,
) -> None:
    path = tmp_path / f"many.{ext}"
    texts = sentences(lang, 120)
    if ext == "pdf":
        make_long(path, 40, lang)  # a heading and paragraphs on each page
    else:
        FORMATS[ext](path, texts)
    error = _refused(path, f"many-{lang}.{ext}", max_elements=40)
    assert error.code == ErrorCode.TOO_COMPLEX  # the PDF's too: the document's limit, not one page's problem
    assert error.detail == f"many-{lang}.{ext}: elements: more than 40 (limit: ingest.max_elements = 40)"
    assert calls["add"] == 41


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("ext", ["md", "txt", "html", "csv"])
def test_every_parser_stops_at_the_element_that_passes_max_chars(tmp_path: Path, calls: dict[str, int], ext: str, lang: str) -> None:
    path = tmp_path / f"long.{ext}"
    FORMATS[ext](path, sentences(lang, 400))
    whole = parse_within(default_registry(), path, "long", ParseLimits())
    calls["add"] = 0
    error = _refused(path, f"long-{lang}.{ext}", max_chars=2_000)
    assert error.code == ErrorCode.TOO_LARGE
    assert error.detail == f"long-{lang}.{ext}: characters of text: more than 2,000 (limit: ingest.max_chars = 2,000)"
    assert calls["add"] == passing([len(e.text) for e in whole.elements], 2_000) < len(whole.elements) / 2
