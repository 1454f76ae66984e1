"""pdfminer's reads of a PDF held within bounds a valid file never reaches.

Two loops in pdfminer run as long as a hostile file asks (both found by the long fuzz run, `bench/fuzz_long.py`):

- **Width tables.** A CID font's ``/W`` (and ``/W2``, for vertical writing) gives widths for ranges, ``c1 c2 w``;
  pdfminer fills one dictionary entry per code in the range, and ``18 4000000000 500`` asks for billions: minutes of
  CPU and gigabytes inside one page. A CID is at most 65,535 (PDF 32000-1, 9.7.2 and Annex C), so a range is read up
  to that code and a range starting beyond it is skipped. A valid table reads exactly as pdfminer reads it.
- **Reference chains.** An indirect object that is a reference to itself (``5 0 obj 5 0 R endobj``), or a cycle of
  them, made `resolve1`'s ``while`` loop spin for ever; and pdfplumber's ``close()`` walks the pages again after any
  error, so even a time limit raised inside the loop led back into it. A reference is followed through at most
  `MAX_REFERENCE_CHAIN` references to references, and a longer chain reads as missing, as a dangling one does.

`install` puts the bounded readers in place of pdfminer's (`pdffont.get_widths`, `get_widths2`, which its CID font
reads by module name, and `PDFObjRef.resolve`); `parse/pdf.py` installs them when it is imported.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

MAX_CID = 65_535
"""The largest character code a CID font has."""
MAX_REFERENCE_CHAIN = 32
"""References to references followed before a chain reads as missing (a valid file has one or two at most)."""


def _codes(first: Any, last: Any) -> range:
    """The codes of a range ``first last``, within 0..MAX_CID; empty when either is not an integer."""
    if not isinstance(first, int) or not isinstance(last, int) or isinstance(first, bool) or isinstance(last, bool):
        return range(0)
    return range(max(first, 0), min(last, MAX_CID) + 1)


def bounded_widths(seq: Iterable[object]) -> dict[str | int, float]:
    """pdfminer's `get_widths` (horizontal writing), each range held to `MAX_CID`."""
    from pdfminer.pdftypes import resolve1

    widths: dict[str | int, float] = {}
    pending: list[Any] = []
    for value in seq:
        value = resolve1(value)
        if isinstance(value, list):
            if pending and isinstance(pending[-1], int) and 0 <= pending[-1] <= MAX_CID:
                for offset, width in enumerate(value[: MAX_CID + 1 - pending[-1]]):
                    widths[pending[-1] + offset] = width
            pending = []
        elif isinstance(value, (int, float)):
            pending.append(value)
            if len(pending) == 3:
                first, last, width = pending
                for code in _codes(first, last):
                    widths[code] = width
                pending = []
    return widths


def bounded_widths2(seq: Iterable[object]) -> dict[int, tuple[float, tuple[float, float]]]:
    """pdfminer's `get_widths2` (vertical writing: a width and a position vector per code), each range held to
    `MAX_CID`."""
    from pdfminer.pdftypes import resolve1

    widths: dict[int, tuple[float, tuple[float, float]]] = {}
    pending: list[Any] = []
    for value in seq:
        value = resolve1(value)
        if isinstance(value, list):
            if pending and isinstance(pending[-1], int) and 0 <= pending[-1] <= MAX_CID:
                triples = [value[i : i + 3] for i in range(0, len(value) - 2, 3)]
                for offset, (width, vx, vy) in enumerate(triples[: MAX_CID + 1 - pending[-1]]):
                    widths[pending[-1] + offset] = (width, (vx, vy))
            pending = []
        elif isinstance(value, (int, float)):
            pending.append(value)
            if len(pending) == 5:
                first, last, width, vx, vy = pending
                for code in _codes(first, last):
                    widths[code] = (width, (vx, vy))
                pending = []
    return widths


def install() -> None:
    """Read every CID font's width tables and every indirect reference with the bounded readers (once)."""
    from pdfminer import pdffont
    from pdfminer.pdftypes import PDFObjRef

    pdffont.get_widths = bounded_widths
    pdffont.get_widths2 = bounded_widths2
    if getattr(PDFObjRef.resolve, "bounded", False):
        return
    resolve_one = PDFObjRef.resolve

    def resolve(self: PDFObjRef, default: object = None) -> Any:
        """The object `self` names, followed through references to references up to `MAX_REFERENCE_CHAIN`."""
        target = resolve_one(self, default)
        for _ in range(MAX_REFERENCE_CHAIN):
            if not isinstance(target, PDFObjRef):
                return target
            target = resolve_one(target, default)
        return default if isinstance(target, PDFObjRef) else target

    resolve.bounded = True  # type: ignore[attr-defined]
    PDFObjRef.resolve = resolve  # type: ignore[method-assign]
