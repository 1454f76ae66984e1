"""`semantic`: split where the meaning changes, as LangChain's SemanticChunker does.

Every sentence is embedded once. At each gap between two sentences the text
before it is compared with the text after it — the mean of up to two sentence
vectors on each side, which steadies the signal of short sentences, where
LangChain compares overlapping windows and so tends to break one sentence
early. Where that cosine distance exceeds the document's
``semantic_percentile``-th percentile of such distances, a new chunk starts.
Sections still bound chunks (a heading is the author's own breakpoint), tables
and other atomic blocks are single units, and no chunk exceeds the budget.

It costs one embedding per sentence at ingest, which is why it is not the
default: see bench/results/chunking.md for what it buys.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from bunko.chunk.base import JOIN, make_chunk, sections
from bunko.chunk.blocks import Block, blocks_of, merged, split_block
from bunko.chunk.sizing import Sizer, sizer_for
from bunko.config import ChunkConfig
from bunko.embed.base import Embedder
from bunko.schema import Chunk, ParsedDocument
from bunko.text.scripts import starts_unspaced
from bunko.text.sentences import split_sentences

WINDOW = 2
"""Sentences on each side of a gap whose vectors are averaged (LangChain's buffer_size plays this part)."""


def _joiner(left: str, right: str) -> str:
    return "" if left[-1:] in "。！？" or starts_unspaced(right) else " "


def compose(units: Sequence[Block]) -> str:
    """Sentences of one element run on as in the source; different elements are separated by a blank line."""
    text = ""
    previous: Block | None = None
    for unit in units:
        if previous is None:
            text = unit.text
        elif unit.elements[0] is previous.elements[0] and not unit.atomic and not previous.atomic:
            text += _joiner(text, unit.text) + unit.text
        else:
            text += JOIN + unit.text
        previous = unit
    return text


def sentence_units(doc: ParsedDocument, sizer: Sizer) -> list[tuple[int, Block]]:
    """(section index, unit): sentences of text elements, atomic blocks whole (or their table parts)."""
    units: list[tuple[int, Block]] = []
    for index, section in enumerate(sections(doc.elements)):
        for block in blocks_of(section):
            if block.atomic:
                parts = split_block(block, sizer)
            else:
                sentences = [Block(s, block.elements) for s in split_sentences(block.text)]
                parts = [p for s in sentences for p in split_block(s, sizer)]
            units.extend((index, part) for part in parts)
    return units


def gap_distances(vectors: np.ndarray, sections: np.ndarray) -> np.ndarray:
    """Cosine distance, at each gap i (between unit i and i+1), between the text before and the text after it."""
    distances = np.zeros(max(len(vectors) - 1, 0), dtype=np.float32)
    for i in range(len(distances)):
        lo, hi = i, i + 1
        while lo > 0 and i - lo + 1 < WINDOW and sections[lo - 1] == sections[i]:
            lo -= 1
        while hi + 1 < len(vectors) and hi - i < WINDOW and sections[hi + 1] == sections[i + 1]:
            hi += 1
        before, after = vectors[lo : i + 1].sum(axis=0), vectors[i + 1 : hi + 1].sum(axis=0)
        norm = float(np.linalg.norm(before) * np.linalg.norm(after)) or 1.0
        distances[i] = 1.0 - float(before @ after) / norm
    return distances


def breakpoints(distances: np.ndarray, same_section: np.ndarray, percentile: float) -> np.ndarray:
    """Boolean per gap: does a new chunk start after unit i? Always at a section change."""
    inside = distances[same_section]
    threshold = float(np.percentile(inside, percentile)) if inside.size else 0.0
    return ~same_section | (distances > threshold)


class SemanticChunker:
    name = "semantic"

    def chunk(self, doc: ParsedDocument, config: ChunkConfig, embedder: Embedder | None = None) -> list[Chunk]:
        if embedder is None:
            raise ValueError("the semantic chunking strategy measures sentence distances with the embedder; pass one")
        sizer = sizer_for(config, embedder)
        indexed = sentence_units(doc, sizer)
        if not indexed:
            return []
        sections_of = np.array([s for s, _ in indexed])
        units = [u for _, u in indexed]
        vectors = np.asarray(embedder.embed([u.text for u in units]), dtype=np.float32)
        distances = gap_distances(vectors, sections_of)
        cuts = breakpoints(distances, sections_of[:-1] == sections_of[1:], config.semantic_percentile)

        groups: list[list[Block]] = [[units[0]]]
        group_section = [int(sections_of[0])]
        for i in range(1, len(units)):
            unit = units[i]
            if cuts[i - 1] or unit.overlap or not sizer.fits(compose([*groups[-1], unit])):
                groups.append([])
                group_section.append(int(sections_of[i]))
            groups[-1].append(unit)
        groups = self._absorb(groups, group_section, sizer, config.min_chars)

        chunks: list[Chunk] = []
        for group in groups:
            _, elements, meta, context = merged(group)
            chunks.append(make_chunk(doc, len(chunks), compose(group), elements, context=context, **meta))
        return chunks

    @staticmethod
    def _absorb(groups: list[list[Block]], section: list[int], sizer: Sizer, min_chars: int) -> list[list[Block]]:
        """A group shorter than ``min_chars`` joins the next one of its section (LangChain's min_chunk_size)."""
        if not min_chars:
            return groups
        out: list[list[Block]] = []
        for i, group in enumerate(groups):
            if out and len(compose(out[-1])) < min_chars and section[i] == section[i - 1]:
                candidate = [*out[-1], *group]
                if not group[0].overlap and sizer.fits(compose(candidate)):
                    out[-1] = candidate
                    continue
            out.append(group)
        return out
