"""A document as one string with a map back to its elements, for the text-level splitters.

`fixed` and `recursive` cut the whole text without looking at its structure
(that is what they are for: baselines and plain text). The offset map lets
them still say which elements, pages and section every chunk came from.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass, field

from bunko.chunk.base import JOIN
from bunko.schema import Element


@dataclass
class Flat:
    text: str
    starts: list[int] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)
    elements: list[Element] = field(default_factory=list)

    def elements_in(self, start: int, end: int) -> list[Element]:
        """Elements whose text overlaps [start, end), in document order."""
        first = bisect.bisect_right(self.ends, start)
        out = []
        for i in range(first, len(self.elements)):
            if self.starts[i] >= end:
                break
            out.append(self.elements[i])
        return out


def flatten(elements: Sequence[Element]) -> Flat:
    """Element texts (headings included: a plain splitter sees them as lines) joined by blank lines."""
    flat = Flat("")
    parts: list[str] = []
    position = 0
    for element in elements:
        text = element.text.strip()
        if not text:
            continue
        if parts:
            parts.append(JOIN)
            position += len(JOIN)
        flat.starts.append(position)
        parts.append(text)
        position += len(text)
        flat.ends.append(position)
        flat.elements.append(element)
    flat.text = "".join(parts)
    return flat


def strip_span(text: str, start: int, end: int) -> tuple[int, int]:
    """[start, end) without leading and trailing whitespace (empty when all whitespace)."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end
