"""Switch/case markup kept as text (issue 50, item 1): LibreOffice's help writes keys and menus per platform in hidden
cases; the default case stands in the text and the others are noted ("Ctrl+A (macOS: Command+A)").

The pages are excerpts of the help Debian ships (tests/parse/libreoffice/README.md), in en, ja and zh.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bunko import Bunko
from bunko.parse.html import HtmlParser
from bunko.schema import ElementKind

PAGES = Path(__file__).with_name("libreoffice")
LANGS = ("en", "ja", "zh")


def _elements(name: str) -> list[tuple[ElementKind, str]]:
    path = PAGES / name
    return [(e.kind, e.text) for e in HtmlParser().parse(path, name, "text/html").elements]


def _rows(lang: str) -> dict[str, str]:
    """Effect → shortcut cell, from the Writer page's tables."""
    rows: dict[str, str] = {}
    for kind, text in _elements(f"writer-shortcuts-{lang}.html"):
        if kind == ElementKind.TABLE:
            for line in text.splitlines()[2:]:
                keys, effect = (cell.strip() for cell in line.strip("|").split("|"))
                rows[effect] = keys
    return rows


SUPERSCRIPT = {"en": "Superscript", "ja": "上付き文字", "zh": "上标"}
REDO = {"en": "Redo last action", "ja": "最後の操作のやり直し", "zh": "恢复最后一个操作"}


@pytest.mark.parametrize("lang", LANGS)
def test_a_shortcut_cell_holds_the_whole_combination_and_the_mac_one(lang: str) -> None:
    rows = _rows(lang)
    assert len(rows) == 12
    cell = rows[SUPERSCRIPT[lang]]
    assert cell.startswith("Ctrl+Shift+P")  # was "+Shift+P": the switch dropped as hidden
    mac = "命令" if lang == "zh" else "Command"  # the Chinese help translates the Mac key's name
    assert re.search(rf"\(macOS: {mac}\+Shift\+P\b", cell), cell
    assert all(not keys.startswith("+") and "Ctrl" in keys for keys in rows.values()), rows
    redo = rows[REDO[lang]].replace("(", "").replace(")", "").replace(" ", "")  # the ja help writes "(Ctrl) + (Y)"
    assert redo.startswith("Ctrl+Y") and "Shift+Z" in redo  # the Mac case is another combination, not another key name


def test_a_key_name_of_several_words_stays_whole() -> None:
    rows = _rows("en")
    cell = next(keys for keys in rows.values() if "Up Arrow" in keys)
    assert cell == "Ctrl+Alt+Up Arrow (macOS: Command+Option+Up Arrow)"
    ja = next(keys for keys in _rows("ja").values() if "上矢印キー" in keys)
    assert ja == "Ctrl+Alt + 上矢印キー (macOS: Command+Option + 上矢印キー)"


@pytest.mark.parametrize("lang", LANGS)
def test_keys_in_keycode_spans_a_menu_path_and_a_block_per_application(lang: str) -> None:
    texts = [text for _, text in _elements(f"shared-menus-{lang}.html")]
    assert "Key Ctrl+N (macOS: Command+N)" in texts
    assert "Key Shift+Ctrl+N (macOS: Shift+Command+N)" in texts
    menu = next(t for t in texts if "Certificate" in t)
    assert menu.startswith("Choose Tools - Options (macOS: LibreOffice - Preferences) - LibreOffice - Security")
    writer = next(t for t in texts if t.startswith("(Writer) "))  # a Writer-only paragraph, kept and labelled
    assert len(writer) > len("(Writer) ") + 5


def test_hidden_text_that_is_no_switch_stays_dropped() -> None:
    """A page's own hidden elements and toggle widgets are not LibreOffice switches: nothing of them is read."""
    html = """<html><body><main>
    <p>Visible <span hidden="true">secret one</span>text.</p>
    <span class="switch"><span hidden="true">secret two</span><span>on</span></span>
    <p>Press <span class="switchinline"><span hidden="true" class="MAC">Command</span><span hidden="true">Ctrl</span></span>+S to save.</p>
    </main></body></html>"""
    doc = HtmlParser().parse_text(html, "page.html")
    text = "\n".join(e.text for e in doc.elements)
    assert "secret" not in text and "Visible text." in text
    assert "Press Ctrl+S (macOS: Command+S) to save." in text


@pytest.mark.parametrize(("lang", "question"), [
    ("en", "Which shortcut key applies superscript in Writer?"),
    ("ja", "Writer で上付き文字にするショートカットキーは？"),
    ("zh", "Writer 中设置上标的快捷键是什么？"),
])
def test_a_shortcut_question_is_answered_with_the_full_combination(tmp_path_factory: pytest.TempPathFactory, embedder, lang: str, question: str) -> None:
    docs = tmp_path_factory.mktemp("help")
    for each in LANGS:
        (docs / each).mkdir()
        (docs / each / "01020000.html").write_bytes((PAGES / f"writer-shortcuts-{each}.html").read_bytes())
    with Bunko(docs / ".bunko", embedder=embedder) as kb:
        assert kb.ingest(docs).ok
        answer = kb.ask(question)
    assert "Ctrl+Shift+P" in answer.text, answer.text
    assert answer.sentences[0].citations[0].source == f"{lang}/01020000.html"


def test_a_switch_inside_a_sentence_ends_at_the_word_and_its_text_is_plain_text() -> None:
    """In a sentence the note follows the key combination, not the rest of the sentence; and what a switch became
    is text to everything that reads the page (the list-of-links check counts it, bs4's get_text included)."""
    from bs4 import BeautifulSoup

    from bunko.parse.html_switches import resolve_switches

    mac, default = '<span hidden="true" class="MAC">Command</span>', '<span hidden="true">Ctrl</span>'
    soup = BeautifulSoup(f'<ul><li>Press <span class="switchinline">{mac}{default}</span>+S now</li></ul>', "lxml")
    assert resolve_switches(soup) == 1
    assert soup.get_text() == "Press Ctrl+S (macOS: Command+S) now"
    cell = BeautifulSoup(f'<p><span class="switchinline">{mac}{default}</span>+Alt+Up Arrow</p>', "lxml")
    resolve_switches(cell)
    assert cell.get_text() == "Ctrl+Alt+Up Arrow (macOS: Command+Alt+Up Arrow)"
