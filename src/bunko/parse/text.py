"""Plain text: encoding detected (`parse/encoding.py`), paragraphs split on blank lines."""

from __future__ import annotations

import re
from pathlib import Path

from bunko.parse.base import ElementBuilder
from bunko.parse.encoding import decode, encoding_meta
from bunko.schema import ElementKind, ParsedDocument
from bunko.text.lazy_regex import lazy_compile

_BLOCK = lazy_compile(r"\S.*?(?=\n[ \t]*\n|\Z)", re.DOTALL)


class TextParser:
    name = "text"
    version = "1"
    mimes = ("text/plain",)

    def parse(self, path: Path, source: str, mime: str) -> ParsedDocument:
        decoded = decode(path.read_bytes(), source)
        text = decoded.text
        builder = ElementBuilder(source)
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        for match in _BLOCK.finditer(text):
            first = text.count("\n", 0, match.start()) + 1
            block = match.group().rstrip()
            builder.add(ElementKind.PARAGRAPH, block, meta={"lines": [first, first + block.count("\n")], "method": "text-blocks"})
        title = builder.elements[0].text.splitlines()[0][:120] if builder.elements else Path(source).stem
        return ParsedDocument(
            doc_id="", source=source, title=title, mime="text/plain", parser=f"{self.name}/{self.version}",
            elements=builder.elements, meta=encoding_meta(decoded),
        )
