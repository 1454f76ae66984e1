"""Looking at a document's sections: `tree SOURCE` prints its section tree as the tree route and auto-merging see it.

The tree is derived from the stored chunks (`bunko.index.tree`): each section's
number, title, page range, chunks and an extractive summary in its own language.
"""

from __future__ import annotations

import difflib
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Group

from bunko.cli.shared import CollectionOption, JsonOption, console, fail, open_kb, print_json, run

if TYPE_CHECKING:
    from rich.text import Text
    from rich.tree import Tree

    from bunko.index.tree import DocumentTree, SectionNode

CLOSE_SOURCES = 5


def close_sources(given: str, sources: list[str], n: int = CLOSE_SOURCES) -> list[str]:
    """Stored sources a mistyped source may have meant: the same file name in another folder, then look-alikes."""
    name = PurePosixPath(given.replace("\\", "/")).name
    by_name: dict[str, list[str]] = {}
    for source in sources:
        by_name.setdefault(PurePosixPath(source).name, []).append(source)
    close = list(by_name.get(name, []))
    close += difflib.get_close_matches(given, sources, n=n, cutoff=0.7)
    for similar in difflib.get_close_matches(name, list(by_name), n=n, cutoff=0.7):
        close += by_name[similar]
    return list(dict.fromkeys(close))[:n]


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _pages(pages: list[int]) -> str | None:
    if not pages:
        return None
    first, last = pages[0], pages[-1]
    return f"p. {first}" if first == last else f"pp. {first}–{last}"


def _heading(node: SectionNode) -> Text:
    """"1.2 Title" (the number only when the title does not already start with it) and, dimmed, its pages and chunks."""
    from rich.text import Text

    label = Text()
    if node.number and not node.title.lstrip().startswith(node.number):
        label.append(node.number + " ", style="bold")
    label.append(node.title, style="bold" if len(node.path) == 1 else "")
    size = [p for p in (_pages(node.pages), _count(len(node.all_chunk_ids()), "chunk")) if p]
    label.append("  (" + ", ".join(size) + ")", style="dim")
    return label


def _label(heading: Text, summary: str, summaries: bool) -> Group | Text:
    from rich.text import Text

    if summaries and summary:
        return Group(heading, Text(summary, style="dim"))
    return heading


def _add(branch: Tree, node: SectionNode, depth: int | None, summaries: bool) -> None:
    from rich.text import Text

    for child in node.children:
        sub = branch.add(_label(_heading(child), child.summary, summaries))
        if depth is not None and len(child.path) >= depth:
            hidden = sum(1 for _ in child.walk()) - 1
            if hidden:
                sub.add(Text(f"… {_count(hidden, 'more subsection')} (--depth)", style="dim"))
        else:
            _add(sub, child, depth, summaries)


def render(tree: DocumentTree, depth: int | None = None, summaries: bool = True) -> Tree:
    """The section tree as a rich Tree: the document, then each section indented under its parent."""
    from rich.text import Text
    from rich.tree import Tree

    root = tree.root
    title = Text(tree.title or tree.source, style="bold")
    sections = sum(1 for _ in tree.sections())
    title.append(f"  {tree.source} · {_count(sections, 'section')} · ", style="dim")
    size = [p for p in (_pages(root.pages), _count(len(root.all_chunk_ids()), "chunk")) if p]
    title.append(", ".join(size), style="dim")
    out = Tree(_label(title, root.summary, summaries))
    if not root.children:
        out.add(Text("no sections: the document has no headings its chunks could be grouped by", style="dim"))
    _add(out, root, depth, summaries)
    return out


def _trimmed(section: dict[str, Any], depth: int | None, level: int = 0) -> dict[str, Any]:
    if depth is None:
        return section
    children = [] if level >= depth else [_trimmed(c, depth, level + 1) for c in section["children"]]
    return {**section, "children": children}


def tree(
    source: Annotated[str, typer.Argument(help="A stored source (see `bunko docs`) or the path given to `bunko ingest`.")],
    depth: Annotated[int | None, typer.Option("--depth", "-d", min=1, help="Only sections this deep (1: the top level).")] = None,
    summaries: Annotated[bool, typer.Option("--summaries/--no-summaries", help="Print each section's summary below it.")] = True,
    collection: CollectionOption = None,
    as_json: JsonOption = False,
) -> None:
    """A document's sections: numbers, titles, pages, chunks (with their subsections') and summaries.

    --json prints the tree as stored (`chunks`: a section's own chunks, not its subsections'); --depth trims it too.
    """
    from bunko.generate.guardrails import guard_tree

    kb = open_kb(collection)
    try:
        sources = run(kb.trees.sources)
        name = source if source in sources else kb.resolve_source(source)
        found = run(lambda: kb.trees.tree_of_source(name))
        policy = kb.config.answer.policy  # strict and regulated mask personal data in summaries, as in hits and answers
    finally:
        kb.close()
    if found is None:
        if not sources:
            raise fail("the collection has no documents yet: run `bunko ingest` first", 1)
        close = list(dict.fromkeys([*close_sources(name, sources), *close_sources(source, sources)]))[:CLOSE_SOURCES]
        hint = f"; close: {', '.join(close)}" if close else ""
        raise fail(f"no document {source!r} in the collection{hint} (see `bunko docs`)", 1)
    found = guard_tree(found, policy)
    if as_json:
        print_json(_trimmed(found.to_dict(), depth))
        return
    console.print(render(found, depth, summaries))
