"""Markup that carries meaning: switch/case spans (LibreOffice's help), kept as text instead of dropped as hidden.

LibreOffice's help writes what differs per platform or per application as a switch of hidden cases, and its
JavaScript un-hides one::

    <span class="switchinline">
      <span hidden="true" class="MAC">Command</span><span hidden="true">Ctrl</span>
    </span>+F2

A parser that drops hidden elements reads "+F2". Here the switch becomes text before anything is dropped: the
default case (the one without a class: what Linux and Windows show, or what any application shows) stands in the
text, and the other cases are noted after the word they are part of, in words every language's reader knows —
``Ctrl+F2 (macOS: Command+F2)``, ``Ctrl+F2 (macOS: 命令+F2)`` in the Chinese help. A case naming an application
(``WRITER``, ``CALC``, …) is noted the same way (``document (Writer: text document; Calc: spreadsheet)``).

A switch of whole blocks (``<span class="switch">`` around paragraphs, one set per application) keeps every case's
paragraphs, each case's first one led by its label: "(Writer) On the Print Preview bar of a text document, click".

Only a span whose element children are all hidden spans is a switch: a page's own toggle widget is left alone.
"""

from __future__ import annotations

from bs4 import BeautifulSoup, NavigableString, Tag

from bunko.text.lazy_regex import lazy_compile

SWITCH_CLASSES = ("switchinline", "switch")
CASE_LABELS = {
    "MAC": "macOS", "WIN": "Windows", "UNIX": "Linux",
    "WRITER": "Writer", "CALC": "Calc", "IMPRESS": "Impress", "DRAW": "Draw", "MATH": "Math", "CHART": "Chart",
    "BASE": "Base", "BASIC": "Basic",
}
"""How a case's class is named in a note: product and system names, written alike in ja, zh and en."""
_BLOCK_TAGS = {"p", "div", "table", "ul", "ol", "dl", "pre", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "section"}
_SPACE = lazy_compile(r"\s")


class _Resolved(NavigableString):
    """Text a switch became: never read as part of the word of a switch next to it."""


def _cases(tag: Tag) -> list[Tag] | None:
    """The cases of a switch, or None when `tag` is not one."""
    if tag.name not in ("span", "div") or not any(c in SWITCH_CLASSES for c in tag.get_attribute_list("class")):
        return None
    children = [c for c in tag.contents if isinstance(c, Tag)]
    if not children or not all(c.name in ("span", "div") and c.has_attr("hidden") for c in children):
        return None
    if any(isinstance(c, NavigableString) and c.strip() for c in tag.contents):
        return None
    return children


def _label(case: Tag) -> str | None:
    """A case's label ("macOS", "Writer"), or None for the default case."""
    classes = [c for c in case.get_attribute_list("class") if c]
    if not classes:
        return None
    return CASE_LABELS.get(classes[0].upper(), classes[0])


def _flat(text: str) -> str:
    return " ".join(text.split())


def resolve_switches(soup: BeautifulSoup | Tag) -> int:
    """Rewrite every switch under `soup` as text (see the module); the number rewritten."""
    switches = [t for t in soup.find_all(["span", "div"]) if _cases(t) is not None]
    done = 0
    for switch in reversed(switches):  # innermost first: a case may hold a switch
        cases = _cases(switch)
        if cases is None or switch.parent is None:
            continue
        if any(c.find(list(_BLOCK_TAGS)) is not None for c in cases):
            _blocks(switch, cases)
        else:
            _inline(switch, cases)
        done += 1
    for made in soup.find_all(string=lambda s: isinstance(s, _Resolved)):
        made.replace_with(NavigableString(str(made)))  # bs4's get_text reads plain strings only
    return done


def _blocks(switch: Tag, cases: list[Tag]) -> None:
    """Every case's content in place, each non-default case's first paragraph led by "(label) "."""
    for case in cases:
        label = _label(case)
        if label is not None:
            first = case.find(["p", "h1", "h2", "h3", "h4", "h5", "h6", "li"]) or case
            first.insert(0, _Resolved(f"({label}) "))
        del case["hidden"]
        case.unwrap()
    switch.unwrap()


def _inline(switch: Tag, cases: list[Tag]) -> None:
    """The default case in the text, the others noted after the word the switch is part of."""
    texts = {_label(case): _flat(case.get_text()) for case in cases}
    default = texts.pop(None, "")
    variants = {label: text for label, text in texts.items() if label is not None and text != default}
    head, before = _neighbours(switch, forward=False)
    tail, after = _neighbours(switch, forward=True)
    word = f"{head}{default}{tail}"
    note = "; ".join(f"{label}: {head}{text}{tail}" for label, text in variants.items())
    shown = f"{word} ({note})" if note and word else (f"({note})" if note else word)
    for node, rest in (*before, *after):
        if rest:
            node.replace_with(NavigableString(rest))
        else:
            node.extract()
    switch.replace_with(_Resolved(shown))


def _neighbours(switch: Tag, forward: bool) -> tuple[str, list[tuple[NavigableString | Tag, str]]]:
    """The part of the word next to a switch (after it when `forward`, else before it), and each neighbour it takes
    with what stays of it: a string's word part ("+F2"), an inline tag's whole text when it holds no space
    (``<span class="keycode">+N</span>``), up to a space, a block, or another switch's text."""
    pieces: list[str] = []
    taken: list[tuple[NavigableString | Tag, str]] = []
    node = switch.next_sibling if forward else switch.previous_sibling
    leads = forward and _leads(switch)
    while node is not None:
        if _plain(node):
            assert isinstance(node, NavigableString)
            text = str(node)
            piece = _word_start(node, leads) if forward else _word_end(node)
            if piece:
                pieces.append(piece)
                taken.append((node, text[len(piece):] if forward else text[: len(text) - len(piece)]))
            if piece != (text.rstrip() if forward else text):
                break
        elif isinstance(node, Tag) and _inline_tag(node):
            text = node.get_text()
            if not text or _SPACE.search(text):
                break
            pieces.append(text)
            taken.append((node, ""))
        else:
            break
        node = node.next_sibling if forward else node.previous_sibling
    return "".join(pieces if forward else reversed(pieces)), taken


def _leads(switch: Tag) -> bool:
    """Whether nothing but spaces comes before a switch in its element (a shortcut table's cell starts with it)."""
    return not any(str(n).strip() if isinstance(n, NavigableString) else n.get_text().strip() for n in switch.previous_siblings)


def _inline_tag(tag: Tag) -> bool:
    return tag.name not in _BLOCK_TAGS and tag.name not in ("br", "img") and _cases(tag) is None and tag.find(list(_BLOCK_TAGS)) is None


SHORT_REST = 24
"""A string this short after a switch that starts its element, and ending that element, is all of the key or menu
name the switch is part of: "Ctrl" + "+Alt+Up Arrow", "Ctrl" + " + F8 キー" in a shortcut table's cell (in "Press
Ctrl+S now" the word ends at the space)."""
_SENTENCE_END = lazy_compile(r"[.!?。！？]\s")


def _whole(node: NavigableString) -> bool:
    """Whether a neighbour string is the short rest of its element: nothing after it, no sentence."""
    text = str(node)
    return node.next_sibling is None and len(text.strip()) <= SHORT_REST and not _SENTENCE_END.search(text + " ")


def _plain(node: object) -> bool:
    return isinstance(node, NavigableString) and type(node).__name__ == "NavigableString"


def _word_end(node: NavigableString) -> str:
    """The end of the word a switch follows: the text after the last space of the string before it."""
    text = str(node)
    spaces = [m.end() for m in _SPACE.finditer(text)]
    return text[spaces[-1]:] if spaces else text


def _word_start(node: NavigableString, leads: bool) -> str:
    """The rest of the word a switch starts: the text before the first space of the string after it ("+F2"), or, when
    the switch `leads` its element, all of a short string that ends it ("+Alt+Up Arrow")."""
    text = str(node)
    if leads and _whole(node):
        return text.rstrip()
    match = _SPACE.search(text)
    word = text[: match.start()] if match else text
    return word.rstrip(".,;:!?)。、，；：！？）")
