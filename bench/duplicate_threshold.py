"""How near two copies of one page are, against how near two different pages are (`text/near_duplicates.py`).

Reads a translated manual's folders (LibreOffice help pages as HTML: en/, ja/, zh/ with the same relative
paths), parses each page with bunko's HTML parser and reports, as estimated shingle Jaccard:
- distinct pages of one language: each page's nearest other page (the risk of calling two pages one);
- a page against its real translation (what must stay apart);
- a page against itself with its title and then k of its paragraphs changed (what must be one).

    PYTHONPATH=src python bench/duplicate_threshold.py /work/evaldata/writer/docs
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from bunko.parse.html import HtmlParser
from bunko.text.near_duplicates import NEAR_DUPLICATE, fingerprint, similarity


def page_texts(folder: Path) -> dict[str, list[str]]:
    parser = HtmlParser()
    pages = {}
    for path in sorted(folder.rglob("*.html")):
        doc = parser.parse(path, str(path.relative_to(folder)), "text/html")
        pages[str(path.relative_to(folder))] = [e.text for e in doc.elements if e.text.strip()]
    return pages


def quantiles(values: list[float]) -> str:
    array = np.array(values)
    return " ".join(f"p{q}={np.percentile(array, q):.3f}" for q in (50, 90, 99, 100)) + f" (n={len(values)})"


def main(root: Path) -> None:
    languages = {lang: page_texts(root / lang) for lang in ("en", "ja", "zh") if (root / lang).is_dir()}
    for lang, pages in languages.items():
        prints = [fingerprint("\n".join(texts)) for texts in pages.values()]
        nearest = [max(similarity(a, b) for j, b in enumerate(prints) if j != i) for i, a in enumerate(prints)]
        above = sum(value >= NEAR_DUPLICATE for value in nearest)
        print(f"{lang}: nearest other page {quantiles(nearest)}; at or above {NEAR_DUPLICATE}: {above}")
    english = languages["en"]
    for lang in ("ja", "zh"):
        pairs = [similarity(fingerprint("\n".join(english[p])), fingerprint("\n".join(texts)))
                 for p, texts in languages.get(lang, {}).items() if p in english]
        copies = sum(value >= NEAR_DUPLICATE for value in pairs)
        print(f"en vs its {lang} translation: {quantiles(pairs)}; at or above {NEAR_DUPLICATE} (left untranslated): {copies}")
    translated = languages.get("ja", {})
    for changed in (1, 2, 3, 5):
        values = []
        for page, texts in english.items():
            if page not in translated or len(texts) < 10:
                continue
            other = translated[page]
            copy = [other[i] if i < changed and i < len(other) else text for i, text in enumerate(texts)]  # title + k-1 paragraphs
            values.append(similarity(fingerprint("\n".join(texts)), fingerprint("\n".join(copy))))
        print(f"en page with its first {changed} element(s) in Japanese (pages of 10+ elements): {quantiles(values)}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
