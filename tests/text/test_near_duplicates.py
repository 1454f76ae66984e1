"""Copies of one page told from different pages (`text/near_duplicates.py`), and a folder's language
(`text/languages.folder_language`), on LibreOffice Writer help pages in en, ja and zh."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bunko.parse.html import HtmlParser
from bunko.text.languages import folder_language
from bunko.text.near_duplicates import NEAR_DUPLICATE, SAME_PASSAGE, Fingerprint, fingerprint, passage_similarity, similarity

PAGES = Path(__file__).resolve().parents[1] / "store" / "copies_pages"


def page_text(name: str, html: str | None = None) -> str:
    parser = HtmlParser()
    doc = parser.parse_text(html, name) if html is not None else parser.parse(PAGES / name, name, "text/html")
    return "\n".join(e.text for e in doc.elements if e.text.strip())


def with_title(name: str, title_from: str) -> str:
    """The page's HTML with its <title> and <h1> in another language's wording (a copy whose title was translated)."""
    html = (PAGES / name).read_text(encoding="utf-8")
    title = re.search(r"<title>(.*?)</title>", (PAGES / title_from).read_text(encoding="utf-8")).group(1)
    html = re.sub(r"<title>.*?</title>", f"<title>{title}</title>", html)
    return re.sub(r"(<h1[^>]*>\s*(?:<a [^>]*></a>)?).*?(</h1>)", lambda m: m.group(1) + title + m.group(2), html, count=1, flags=re.S)


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_a_copy_is_one_page_and_another_page_or_a_translation_is_not(lang: str) -> None:
    page = page_text(f"table_delete-{lang}.html")
    assert similarity(fingerprint(page), fingerprint(page)) == 1.0
    assert similarity(fingerprint(page), fingerprint("  " + page.upper().replace("\n", "\n\n"))) == 1.0  # case, spacing
    shortened = "\n".join(page.splitlines()[:-1])  # its last link left out
    assert similarity(fingerprint(page), fingerprint(shortened)) >= NEAR_DUPLICATE
    assert similarity(fingerprint(page), fingerprint(page_text(f"table_select-{lang}.html"))) < 0.5
    translations = [page_text(f"table_delete-{other}.html") for other in ("en", "ja", "zh") if other != lang]
    assert all(similarity(fingerprint(page), fingerprint(t)) < NEAR_DUPLICATE for t in translations)


@pytest.mark.parametrize("title_from", ["ja", "zh"])
def test_an_english_page_whose_title_was_translated_is_still_the_page(title_from: str) -> None:
    page = page_text("table_delete-en.html")
    retitled = page_text("x.html", with_title("table_delete-en.html", f"table_delete-{title_from}.html"))
    assert retitled != page and similarity(fingerprint(page), fingerprint(retitled)) >= NEAR_DUPLICATE


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_same_passage_is_a_sentence_changed_not_another_passage(lang: str) -> None:
    sentences = [line for line in page_text(f"table_select-{lang}.html").splitlines() if len(line) > 12]
    passage = "\n".join(sentences[1:4])
    changed = "\n".join([*sentences[1:3], sentences[3][: len(sentences[3]) // 2]])
    assert passage_similarity(passage, passage) == 1.0
    assert passage_similarity(passage, changed) >= SAME_PASSAGE
    assert passage_similarity(passage, "\n".join(sentences[4:7])) < SAME_PASSAGE


def test_a_fingerprint_survives_its_meta_and_a_foreign_value_is_none() -> None:
    mark = fingerprint(page_text("field_convert-en.html"))
    assert Fingerprint.from_meta(mark.to_meta()) == mark
    assert len(mark.bands()) == 32
    for foreign in (None, "abc", {"text": "x"}, {"text": "x", "minhash": "zz"}, {"text": "x", "minhash": "00ff"}):
        assert Fingerprint.from_meta(foreign) is None


@pytest.mark.parametrize(("source", "lang"), [
    ("help/ja/swriter/guide/field_convert.html", "ja"), ("help/zh_CN/text/a.html", "zh"), ("manual/ja-JP/a.md", "ja"),
    ("docs/zh-Hans/b/c.md", "zh"), ("en-US/a.html", "en"), ("EN/a.html", "en"), ("ja/zh/a.html", "zh"),
    ("help/a.html", None), ("en.html", None), ("english/a.html", None), ("japan/a.html", None), ("zhx/a.html", None),
])
def test_a_folder_names_its_language_by_the_nearest_language_tag(source: str, lang: str | None) -> None:
    assert folder_language(source) == lang
