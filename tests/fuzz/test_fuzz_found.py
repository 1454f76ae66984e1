"""Uncoded failures the fuzzer found, one reproducer each (tests/fuzz/found/), kept as regression tests now that they are
fixed; `FINDINGS` says where each escaped from before (bench/results/fuzz.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fuzzing import FOUND, check_parse

# input file under found/ (its note: the same name + .txt): the known bug it reproduces (its fuzzing.KNOWN key)
_DOCX = ("docx.py", "parse", "document = Document(str(path))")
_FOOTNOTES = ("docx.py", "_footnotes", "root = etree.fromstring(rel.target_part.blob)")
_PPTX = ("pptx.py", "parse", "presentation = Presentation(str(path))")
_XLSX = ("xlsx.py", "parse", "formulas = load_workbook(path, data_only=False)")
_TIFF = ("ocr.py", "parse", 'frames = getattr(image, "n_frames", 1)')
_PIXELS = ("ocr.py", "parse", "add_ocr_lines(builder, self.ocr.recognize(frame, scale=float(dpi) / 72.0), number, self.ocr)")
_RELS = ("docx.py", "_related", 'root = etree.fromstring(archive.read(posixpath.join(folder, "_rels", f"{name}.rels")), '
         "etree.XMLParser(resolve_entities=False))")
_SLIDES = ("pptx.py", "parse", "for number, slide in enumerate(presentation.slides, start=1):")
_SHAPES = ("pptx.py", "<lambda>", "return sorted(out, key=lambda s: ((s.top or 0) // 12700 // 6, s.left or 0))")
_ROWS = ("limits.py", "count_rows_and_cells", "while block := stream.read(_BLOCK):")
_EML = ("email.py", "_from_eml", "mail.html = html.get_content() if html is not None else None")
_OLE = ("registry.py", "_ole_mime", "entries = ole.listdir(streams=True, storages=True)")
_PDF = ("pdf.py", "parse", "with pdf:")
_WIDTHS = ("pdffont.py", "get_widths", "for i in range(char1, char2 + 1):")
_CYCLE = ("pdftypes.py", "resolve1", "while isinstance(x, PDFObjRef):")
_YAML = ("markdown.py", "_front_matter", 'data = yaml.SafeLoader("").construct_document(node)')
FINDINGS: dict[str, tuple[str, str, str]] = {
    "docx-rels-deflate-zlib-error.docx": _RELS,
    "pptx-slide-relationship-KeyError.pptx": _SLIDES,
    "pptx-shape-position-KeyError.pptx": _SHAPES,
    "xlsx-row-count-zlib-error.xlsx": _ROWS,
    "eml-unknown-charset-LookupError.eml": _EML,
    "msg-cyclic-directory-RecursionError.msg": _OLE,
    "msg-cyclic-directory-RecursionError-2.msg": _OLE,
    "pdf-close-IndexError.pdf": _PDF,
    "pdf-close-PdfminerException.pdf": _PDF,
    "pdf-close-TypeError.pdf": _PDF,
    "pdf-cid-width-range-Hang.pdf": _WIDTHS,
    "pdf-reference-cycle-Hang.pdf": _CYCLE,
    "front-matter-date-day-0-ValueError.md": _YAML,
    "front-matter-timestamp-IndexError.md": _YAML,
    "front-matter-timestamp-IndexError-2.md": _YAML,
    "front-matter-timestamp-AttributeError.md": _YAML,
    "docx-zip-seek-OSError.docx": _DOCX,
    "docx-empty-footnotes-XMLSyntaxError.docx": _FOOTNOTES,
    "pptx-zip-seek-OSError.pptx": _PPTX,
    "pptx-compression-NotImplementedError.pptx": _PPTX,
    "pptx-encrypted-flag-RuntimeError.pptx": _PPTX,
    "pptx-deflate-zlib-error.pptx": _PPTX,
    "xlsx-empty-member-XMLSyntaxError.xlsx": _XLSX,
    "xlsx-empty-member-ParseError.xlsx": _XLSX,
    "xlsx-unknown-attribute-TypeError.xlsx": _XLSX,
    "xlsx-deflate-zlib-error.xlsx": _XLSX,
    "image-tiff-no-dimensions-TypeError.tif": _TIFF,
    "image-truncated-OSError.png": _PIXELS,
    "image-broken-stream-OSError.gif": _PIXELS,
}


@pytest.mark.parametrize("name", sorted(FINDINGS))
def test_a_found_input_parses_or_fails_with_a_code(name: str) -> None:
    """Each reproducer the fuzzer found ends as a document or a coded failure: `parse_within` codes a library's own
    error as PARSE_FAILED, and the front matter turns PyYAML's constructor errors into a warning."""
    result = check_parse("found", (FOUND / name).read_bytes(), "input" + Path(name).suffix, known_ok=False)
    assert not isinstance(result, str)
