"""A document's section tree, built from what its chunks already carry: section path, pages and order.

Parsing records each element's headings (`section_path`: a PDF's outline, Markdown
and DOCX headings, slide titles, sheet names), and chunking keeps them on every
chunk, so the tree needs no store of its own: it is rebuilt from the stored chunks
and is never out of step with them after a re-ingest, a delete or a crash.

Each node has its title, its path, its page range, the chunks directly under it and
an extractive summary: its most central sentences (those whose words are most like
the words of the whole section), in the section's own language.
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from bunko.schema import Chunk
from bunko.text.lazy_regex import lazy_compile
from bunko.text.sentences import split_sentences

SUMMARY_SENTENCES = 2
SUMMARY_CHARS = 240
_NUMBER = lazy_compile(r"^\s*(\d+(?:[.．]\d+)*)[.．]?(?=\s|[^\d.．]|$)")


@dataclass
class SectionNode:
    title: str
    path: list[str]
    """Titles from the document's top level down to this node; empty for the document root."""
    chunk_ids: list[str] = field(default_factory=list)
    """The searchable chunks directly in this section, in document order (its subsections' are theirs)."""
    children: list[SectionNode] = field(default_factory=list)
    pages: list[int] = field(default_factory=list)
    """First and last page of the section and its subsections, when the format has pages."""
    summary: str = ""
    number: str | None = None
    """The section's number ("1.2"), printed in its title or, for an unnumbered chapter, implied by its
    subsections' ("1.1", "1.2" → "1")."""
    title_tokens: frozenset[str] = frozenset()
    """The keyword tokens of the title without its number: what a question naming the section shares with it."""

    def walk(self) -> Iterator[SectionNode]:
        yield self
        for child in self.children:
            yield from child.walk()

    def all_chunk_ids(self) -> list[str]:
        """The chunks of this section and its subsections, in document order."""
        return [cid for node in self.walk() for cid in node.chunk_ids]

    def to_dict(self) -> dict[str, Any]:
        return {
            "title": self.title, "path": self.path, "number": self.number, "pages": self.pages, "summary": self.summary,
            "chunks": len(self.chunk_ids), "children": [c.to_dict() for c in self.children],
        }


@dataclass
class DocumentTree:
    doc_id: str
    source: str
    title: str
    root: SectionNode
    _by_path: dict[tuple[str, ...], SectionNode] = field(default_factory=dict, init=False, repr=False)
    _of_chunk: dict[str, SectionNode] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        for node in self.root.walk():
            self._by_path[tuple(node.path)] = node
            for cid in node.chunk_ids:
                self._of_chunk[cid] = node

    def node(self, path: Sequence[str]) -> SectionNode | None:
        return self._by_path.get(tuple(path))

    def section_of(self, chunk_id: str) -> SectionNode | None:
        """The deepest section holding a chunk."""
        return self._of_chunk.get(chunk_id)

    def sections(self) -> Iterator[SectionNode]:
        """Every section below the root."""
        return (n for n in self.root.walk() if n is not self.root)

    def to_dict(self) -> dict[str, Any]:
        return {"doc_id": self.doc_id, "source": self.source, "title": self.title, **self.root.to_dict()}


Tokenizer = Callable[[str], list[str]]


def build_tree(doc_id: str, source: str, title: str, chunks: Sequence[Chunk], tokens: Tokenizer) -> DocumentTree:
    """The section tree of one document's chunks (any order; parents, which are context only, are left out).

    `tokens` is the collection's analyzer: summaries weigh sentences by the words the
    keyword index would see.
    """
    tokens = functools.lru_cache(maxsize=None)(tokens)
    root = SectionNode(title, [])
    by_path: dict[tuple[str, ...], SectionNode] = {(): root}
    texts: dict[str, str] = {}
    for chunk in sorted((c for c in chunks if c.searchable), key=lambda c: c.ordinal):
        node = _node_for(by_path, chunk.section_path, tokens)
        node.chunk_ids.append(chunk.chunk_id)
        node.pages = _span(node.pages, chunk.pages)
        texts[chunk.chunk_id] = chunk.text
    _finish(root, texts, tokens, _idf(root, texts, tokens))
    return DocumentTree(doc_id, source, title, root)


def _node_for(by_path: dict[tuple[str, ...], SectionNode], path: Sequence[str], tokens: Tokenizer) -> SectionNode:
    key = tuple(path)
    if key in by_path:
        return by_path[key]
    parent = _node_for(by_path, key[:-1], tokens)
    number = _own_number(key[-1])
    bare = key[-1][len(number):] if number and key[-1].startswith(number) else key[-1]
    node = SectionNode(key[-1], list(key), number=number, title_tokens=frozenset(tokens(bare)))
    parent.children.append(node)
    by_path[key] = node
    return node


def _own_number(title: str) -> str | None:
    match = _NUMBER.match(title)
    return match.group(1).replace("．", ".") if match else None


def _span(pages: list[int], more: Sequence[int]) -> list[int]:
    every = [*pages, *more]
    return [min(every), max(every)] if every else []


def _idf(root: SectionNode, texts: dict[str, str], tokens: Tokenizer) -> dict[str, float]:
    """Rarity of a word across the document's chunks: a section's summary should say what sets it apart."""
    df: Counter[str] = Counter()
    for text in texts.values():
        df.update(set(tokens(text)))
    n = max(len(texts), 1)
    return {term: math.log(1 + n / count) for term, count in df.items()}


def _finish(node: SectionNode, texts: dict[str, str], tokens: Tokenizer, idf: dict[str, float]) -> Counter[str]:
    """Bottom up: pages and numbers from the children, then the summary; returns the section's word counts."""
    own = [s for cid in node.chunk_ids for s in split_sentences(texts[cid]) if len(s.strip()) >= 8]
    counts: Counter[str] = Counter()
    for sentence in own:
        counts.update(tokens(sentence))
    candidates = list(own)
    for child in node.children:
        counts.update(_finish(child, texts, tokens, idf))
        node.pages = _span(node.pages, child.pages)
        if child.summary:
            candidates.append(child.summary)
    if node.number is None:
        node.number = _implied_number(node)
    node.summary = _central(candidates, counts, tokens, idf)
    return counts


def _implied_number(node: SectionNode) -> str | None:
    """"1" for a chapter whose subsections are numbered 1.1, 1.2…: documents often print the chapter's number
    apart from its title ("Chapter 1" above "GNU/Linux tutorials")."""
    prefixes = {c.number.rsplit(".", 1)[0] for c in node.children if c.number and "." in c.number}
    return prefixes.pop() if len(prefixes) == 1 else None


def _central(sentences: list[str], counts: Counter[str], tokens: Tokenizer, idf: dict[str, float]) -> str:
    """The sentences closest (tf-idf cosine) to the whole section, in their own order, within SUMMARY_CHARS."""
    if not sentences:
        return ""
    centre = {t: c * idf.get(t, 0.0) for t, c in counts.items()}
    norm = math.sqrt(sum(v * v for v in centre.values())) or 1.0

    def closeness(sentence: str) -> float:
        own = Counter(tokens(sentence))
        weights = {t: c * idf.get(t, 0.0) for t, c in own.items()}
        length = math.sqrt(sum(v * v for v in weights.values())) or 1.0
        return sum(w * centre.get(t, 0.0) for t, w in weights.items()) / (length * norm)

    ranked = sorted(range(len(sentences)), key=lambda i: -closeness(sentences[i]))[:SUMMARY_SENTENCES]
    chosen = [" ".join(sentences[i].split()) for i in sorted(ranked)]
    summary = " ".join(chosen)
    return summary if len(summary) <= SUMMARY_CHARS else summary[: SUMMARY_CHARS - 1].rstrip() + "…"
