"""pdfminer's reads held within bounds: a CID font's width table within the codes a font has (a valid table as pdfminer
reads it, a range past 65,535 cut there, in milliseconds), and a chain of references within MAX_REFERENCE_CHAIN (a
self-reference had looped for ever)."""

from __future__ import annotations

import time

from pdfminer import pdffont
from pdfminer.pdftypes import PDFObjRef, resolve1

from bunko.parse.pdf import PdfParser  # noqa: F401  (importing the parser installs the bounded readers)
from bunko.parse.pdfminer_bounds import MAX_CID, bounded_widths, bounded_widths2


def test_a_valid_width_table_reads_as_before() -> None:
    table = [1, [250, 333, 408], 5, 7, 500, 10, [600], 1000, 1002, 1000.5]
    assert bounded_widths(table) == {1: 250, 2: 333, 3: 408, 5: 500, 6: 500, 7: 500, 10: 600, 1000: 1000.5, 1001: 1000.5,
                                     1002: 1000.5}
    vertical = [120, [-1000, 500, 880, -1000, 250, 880], 200, 201, -1000, 500, 880]
    assert bounded_widths2(vertical) == {120: (-1000, (500, 880)), 121: (-1000, (250, 880)), 200: (-1000, (500, 880)),
                                         201: (-1000, (500, 880))}


def test_a_range_past_the_last_code_is_cut_there_quickly() -> None:
    started = time.process_time()
    widths = bounded_widths([18, 4_000_000_000, 500, -5, 3, 250, 70_000, 70_001, 1, 2.5, 9, 1])
    assert time.process_time() - started < 1.0
    assert len(widths) == 4 + (MAX_CID + 1 - 18) and widths[MAX_CID] == 500 and widths[0] == 250 and 70_000 not in widths
    assert len(bounded_widths2([0, 10**12, -1000, 500, 880])) == MAX_CID + 1


def test_the_pdf_parser_reads_fonts_with_the_bounded_readers() -> None:
    assert pdffont.get_widths is bounded_widths and pdffont.get_widths2 is bounded_widths2


class _Objects:
    """A document's object table, as pdfminer's resolver reads it."""

    def __init__(self, objects: dict[int, object]) -> None:
        self.objects = objects

    def getobj(self, objid: int) -> object:
        return self.objects[objid]


def test_a_reference_to_itself_or_a_cycle_reads_as_missing_and_a_short_chain_as_its_object() -> None:
    doc = _Objects({})
    doc.objects = {1: PDFObjRef(doc, 1), 2: PDFObjRef(doc, 3), 3: PDFObjRef(doc, 2), 4: PDFObjRef(doc, 5), 5: {"Type": "Page"}}
    started = time.process_time()
    assert resolve1(PDFObjRef(doc, 1)) is None
    assert resolve1(PDFObjRef(doc, 2), default="missing") == "missing"
    assert resolve1(PDFObjRef(doc, 4)) == {"Type": "Page"}
    assert time.process_time() - started < 1.0
