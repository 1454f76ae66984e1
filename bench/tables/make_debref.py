"""The everyday-wording table set's documents: real tables cut from the Debian Reference (en, ja, zh-cn).

Source: the Debian Reference, version 2.100 as packaged by Debian (`debian-reference-en`, `-ja`, `-zh-cn`;
Osamu Aoki and translators; GPL-2+). Each output file is one chapter of one language reduced to the sections that
hold the chosen tables: the chapter title, each section's heading and first paragraph, and the table itself as
the book's own HTML (DocBook's `div.table` with its "Table 6.1. List of web browsers" title). Nothing is retyped:
the cells, numbers and headers are the book's, so the question set (bench/tables/everyday.jsonl) is asked of
tables a user really meets — several of one chapter share their columns (package, popcon, size, description), so
the heading, the caption and the cells are what tells them apart.

The outputs are committed in bench/tables/debref/ so that the benchmark needs no download; this script says how
they were made and remakes them:

    python bench/tables/make_debref.py [DEBIAN_REFERENCE_HTML_DIR]

(the directory holding chNN.LANG.html, as laid out by ../shared/evalsets/debian-reference-qa/prepare.sh).
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import lxml.html

HERE = Path(__file__).parent
OUT = HERE / "debref"
LANGUAGES = {"en": "en", "ja": "ja", "zh-cn": "zh"}
TABLES = {  # chapter → the table numbers kept
    "ch02": ["2.3"],
    "ch06": ["6.1", "6.2", "6.3", "6.7", "6.11", "6.12", "6.13"],
    "ch09": ["9.11"],
    "ch10": ["10.1", "10.11"],
}


def table_number(caption: str) -> str:
    """"Table 6.1. List of…", "表6.1 …", "表 6.1. …" → "6.1"."""
    for word in caption.replace("表", " ").split():
        digits = word.rstrip(".")
        if digits.replace(".", "").isdigit() and "." in digits:
            return digits
    return ""


def reduce_chapter(path: Path, keep: list[str]) -> str:
    """The chapter's title, and for each kept table its section's heading, first paragraph and the table."""
    root = lxml.html.parse(str(path)).getroot()
    title = " ".join(root.findtext(".//title").split())
    parts = [f"<h1>{title}</h1>"]
    for div in root.xpath('//div[@class="table"]'):
        caption = " ".join(div.xpath('./p[@class="title"]')[0].text_content().split())
        if table_number(caption) not in keep:
            continue
        section = div.xpath('ancestor::div[@class="section"][1]')
        if section:
            heading = " ".join(section[0].xpath('.//*[contains(@class,"title")]')[0].text_content().split())
            paragraph = section[0].xpath('.//p[not(@class)]')
            parts.append(f"<h2>{heading}</h2>")
            if paragraph:
                parts.append(lxml.html.tostring(copy.deepcopy(paragraph[0]), encoding="unicode"))
        parts.append(lxml.html.tostring(copy.deepcopy(div), encoding="unicode"))
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + title + "</title></head><body>\n"
            + "\n".join(parts) + "\n</body></html>\n")


def main(source: Path) -> None:
    OUT.mkdir(exist_ok=True)
    for chapter, keep in TABLES.items():
        for suffix, lang in LANGUAGES.items():
            text = reduce_chapter(source / f"{chapter}.{suffix}.html", keep)
            (OUT / f"debref-{chapter}.{lang}.html").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "/work/evaldata/debref-docs/html"))
