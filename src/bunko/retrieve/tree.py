"""The tree route: hybrid's passages read against each document's section tree.

In a long manual the answer is "in section 4.2": a chunk alone carries little of that,
and ten neighbouring fragments of one section crowd the top k. This route scores every
section of the documents hybrid search reached by the evidence inside it (its chunks'
hybrid ranks) and by its own title, then descends each tree best-first (PageIndex's
navigation, without an LLM) to the deepest section that still holds most of its
parent's evidence. The chosen sections' chunks, and each one's opening chunk, are
fused by rank onto hybrid's list.

A question that names a section ("what does chapter 5 say about backups", 「sudo の
設定」の節, 第 1.2 节) is answered from inside it: the section whose title the
question holds, or whose number it gives, is found directly and its chunks come first.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

from bunko.config import RetrieveConfig
from bunko.index.tree import DocumentTree, SectionNode
from bunko.retrieve.base import Query, signal_lines
from bunko.retrieve.fusion import Fused, fuse_onto
from bunko.retrieve.hybrid import HybridRetriever
from bunko.retrieve.router import names_section, section_numbers
from bunko.retrieve.trees import DocumentTrees
from bunko.schema import Signals
from bunko.store.search_backend import SearchBackend
from bunko.text.languages import text_language

TREE = "tree"
NAMED = "tree_named"
"""The list of the section the question names, in a hit's signals."""
EVIDENCE_POOL = 30
"""Hybrid's best candidates whose documents' trees are read and whose ranks are the sections' evidence."""
CONCENTRATION = 0.5
"""The descent goes into a subsection while it holds at least this share of its parent's evidence."""
NAMED_SEARCH_DOCUMENTS = 300
"""Up to this many documents, a section the question names is looked for in every document's tree, not only in the
documents hybrid search reached."""
TITLE_COVERAGE = 0.6
"""A section is named when the question holds at least this share of its title's tokens (and a naming cue)."""


class TreeRetriever:
    name = TREE
    needs_vector = True

    def __init__(
        self, store: SearchBackend, config: RetrieveConfig, trees: DocumentTrees, hybrid: HybridRetriever | None = None,
    ) -> None:
        self.store = store
        self.config = config
        self.trees = trees
        self.hybrid = hybrid or HybridRetriever(store, config)

    def retrieve(self, query: Query, k: int) -> list[Fused]:
        hybrid = self.hybrid.retrieve(query, k)
        started = time.perf_counter()
        pool = [cid for cid, _, _ in hybrid[:EVIDENCE_POOL]]
        trees = self._trees(pool)
        if not trees:
            return hybrid
        evidence = {cid: 1.0 / (self.config.rrf_k + rank) for rank, cid in enumerate(pool, start=1)}
        named = self._named(query, trees, evidence)
        if named is None and names_section(query.text):
            named = self._named(query, self._collection_trees(trees), evidence)
        chosen = _descend(trees, evidence, self.config.tree_sections, _token_weights(query))
        lists: dict[str, list[tuple[str, float]]] = {}
        if named is not None:
            inside_named = _section_list([named], evidence)
            listed = {cid for cid, _ in inside_named}
            lists[NAMED] = inside_named + [(cid, score) for cid, score in _openings(named.children, k) if cid not in listed]
        lists[TREE] = _section_list(chosen, evidence)
        fused = fuse_onto(hybrid, lists, self.config.tree_weight, self.config.rrf_k)
        if named is not None:
            inside = set(named.all_chunk_ids())
            fused = [f for f in fused if f[0] in inside] + [f for f in fused if f[0] not in inside]
        query.timings["tree"] = time.perf_counter() - started
        return fused

    def explain(self, signals: Signals) -> list[str]:
        lines = signal_lines(signals)
        if signals.list_signal(NAMED) is not None:
            lines.append("tree: inside the section the question names")
        elif signals.list_signal(TREE) is not None:
            lines.append("tree: in a section the descent chose (most of its parent's evidence)")
        return lines

    def _collection_trees(self, reached: Mapping[str, DocumentTree]) -> dict[str, DocumentTree]:
        """Every document's tree, for a section the question names that no reached document holds ("what is chapter
        8 about?" shares no word with chapter 8's text); none past NAMED_SEARCH_DOCUMENTS documents, whose trees would
        cost more to build than the question is worth."""
        doc_ids = self.trees.doc_ids()
        if len(doc_ids) > NAMED_SEARCH_DOCUMENTS:
            return {}
        trees = {doc_id: reached.get(doc_id) or self.trees.tree(doc_id) for doc_id in doc_ids}
        return {doc_id: tree for doc_id, tree in trees.items() if tree is not None}

    def _trees(self, chunk_ids: Sequence[str]) -> dict[str, DocumentTree]:
        """The trees of the documents the candidates come from, by document id."""
        doc_ids = dict.fromkeys(c.doc_id for c in self.store.get_chunks(list(chunk_ids)))
        trees = {doc_id: self.trees.tree(doc_id) for doc_id in doc_ids}
        return {doc_id: tree for doc_id, tree in trees.items() if tree is not None}

    @staticmethod
    def _named(query: Query, trees: Mapping[str, DocumentTree], evidence: Mapping[str, float]) -> SectionNode | None:
        """The section the question names by number or by title, if it names one: the best-evidenced of those
        that match (the same title in a translation of the document is another candidate)."""
        found: list[tuple[float, SectionNode]] = []
        numbers = section_numbers(query.text)
        cue = names_section(query.text)
        question = set(query.tokens)
        for tree in trees.values():
            for node in tree.sections():
                if node.number and node.number in numbers:
                    found.append((2.0 + _asked_language(node, query.language) + _evidence(node, evidence), node))
                    continue
                title = set(node.title_tokens)
                if not cue or not title:
                    continue
                share = len(title & question) / len(title)
                if share >= TITLE_COVERAGE:
                    score = share + 0.1 * len(title & question) + _asked_language(node, query.language) + _evidence(node, evidence)
                    found.append((score, node))
        return max(found, key=lambda pair: pair[0])[1] if found else None


def _asked_language(node: SectionNode, language: str | None) -> float:
    """0.5 for a section whose title is in the asker's language: a chapter number names the same chapter in every
    translation of a book, and the asker reads the one in their language (evidence decides between the others)."""
    return 0.5 if language and text_language(node.title) == language else 0.0


def _token_weights(query: Query) -> dict[str, float]:
    """The question's tokens by idf (hybrid has read it), so a title holding the rare word counts most."""
    weights = query.term_weights or {}
    return {t: weights.get(t, 1.0) for t in query.tokens}


def _title_share(node: SectionNode, question: Mapping[str, float]) -> float:
    total = sum(question.values())
    return sum(w for t, w in question.items() if t in node.title_tokens) / total if total > 0 else 0.0


def _evidence(node: SectionNode, evidence: Mapping[str, float]) -> float:
    return sum(evidence.get(cid, 0.0) for cid in node.all_chunk_ids())


def _descend(
    trees: Mapping[str, DocumentTree], evidence: dict[str, float], count: int, question: Mapping[str, float]
) -> list[SectionNode]:
    """Up to `count` sections: from the best top-level section, down while one subsection holds most of the
    evidence; the chosen section's evidence is then spent and the next descent starts again. A section is
    judged by its evidence, raised by the share of the question's weight its own title holds."""
    remaining = dict(evidence)
    chosen: list[SectionNode] = []
    roots = [tree.root for tree in trees.values()]
    for _ in range(count):
        scored = [(score, node) for root in roots for node in root.children if (score := _evidence(node, remaining)) > 0]
        if not scored:
            break
        score, node = max(scored, key=lambda pair: pair[0] * (1 + _title_share(pair[1], question)))
        while node.children:
            best_score, best = max(
                ((_evidence(c, remaining), c) for c in node.children), key=lambda pair: pair[0] * (1 + _title_share(pair[1], question))
            )
            if best_score < CONCENTRATION * score:
                break
            score, node = best_score, best
        chosen.append(node)
        for cid in node.all_chunk_ids():
            remaining.pop(cid, None)
    return chosen


def _openings(sections: Sequence[SectionNode], k: int) -> list[tuple[str, float]]:
    """The opening chunk of each of the first `k` sections: what a section is about, when nothing inside it matched
    the question's words."""
    return [(node.all_chunk_ids()[0], 0.0) for node in sections[:k] if node.all_chunk_ids()]


def _section_list(sections: Sequence[SectionNode], evidence: Mapping[str, float]) -> list[tuple[str, float]]:
    """Each section's chunks that hybrid found, best first, then its opening chunk: the section's own words."""
    out: dict[str, float] = {}
    for node in sections:
        members = node.all_chunk_ids()
        found = sorted((cid for cid in members if cid in evidence), key=lambda cid: -evidence[cid])
        for cid in found:
            out.setdefault(cid, evidence[cid])
        if members:
            out.setdefault(members[0], 0.0)
    return list(out.items())
