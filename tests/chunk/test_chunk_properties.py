"""Properties every strategy keeps, over random element sequences in three scripts.

- no text is lost or duplicated: the chunks' text, minus each chunk's declared
  overlap, is the document's text in order (whitespace aside);
- lineage is true: what a chunk says comes from the elements it names;
- the budget holds unless a chunk is flagged oversized;
- chunking the same input twice gives the same ids and texts.
"""

from __future__ import annotations

import pytest
from chunkdocs import EN_SENTENCES, JA_SENTENCES, ZH_SENTENCES, HashEmbedder, document, new_text, squash
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bunko.chunk.qa_pairs import is_question
from bunko.chunk.registry import CHUNKERS, get_chunker
from bunko.config import ChunkConfig
from bunko.parse.tables import table_markdown, table_meta
from bunko.schema import Chunk, Element, ParsedDocument

ALPHABET = list("出張費用の上限年假病证明问題abcXYZ019 。！？、，.!?,:-|\n")
WORDS = st.text(alphabet=st.sampled_from(ALPHABET), min_size=1, max_size=120)
SENTENCE = st.one_of(st.sampled_from(JA_SENTENCES + ZH_SENTENCES + EN_SENTENCES), WORDS)
PROSE = st.builds(lambda parts, glue: glue.join(parts), st.lists(SENTENCE, min_size=0, max_size=8), st.sampled_from(["", " ", "\n"]))
CELL = st.text(alphabet=st.sampled_from(list("表格cell数0123 |")), min_size=0, max_size=12)

HEADINGS_IN_TEXT = {"fixed", "recursive", "page"}
BUDGETED = {"fixed", "recursive", "heading", "structure", "semantic", "qa_pairs", "parent_child"}


@st.composite
def documents(draw: st.DrawFn) -> ParsedDocument:
    build: list[tuple[str, str, dict]] = []
    page = 1
    for _ in range(draw(st.integers(1, 12))):
        page += draw(st.integers(0, 1))
        kind = draw(st.sampled_from(["heading", "paragraph", "paragraph", "list", "table", "code", "figure", "captioned", "equation"]))
        if kind == "heading":
            build.append(("heading", draw(st.one_of(WORDS, st.sampled_from(["Q: Why?", "问：能退款吗？", "Overview"]))),
                          {"level": draw(st.integers(1, 3)), "page": page}))
        elif kind in ("table", "captioned"):
            width = draw(st.integers(1, 4))
            header = draw(st.lists(CELL, min_size=width, max_size=width))
            rows = draw(st.lists(st.lists(CELL, min_size=width, max_size=width), min_size=0, max_size=25))
            if kind == "captioned":
                build.append(("caption", "Table 1: " + draw(WORDS), {"page": page}))
            build.append(("table", table_markdown(header, rows), {"page": page, "meta": table_meta(header, rows)}))
        elif kind == "figure":
            build.append(("figure", draw(st.sampled_from(["", "diagram of the flow"])), {"page": page}))
            build.append(("caption", "Figure: " + draw(WORDS), {"page": page, "caption_of": len(build) - 1}))
        elif kind == "code":
            build.append(("code", "```\n" + draw(WORDS) + "\n```", {"page": page}))
        else:
            build.append((kind, draw(PROSE), {"page": page}))
    return document("random.md", build)


@st.composite
def configs(draw: st.DrawFn) -> ChunkConfig:
    max_chars = draw(st.integers(40, 400))
    return ChunkConfig(
        max_chars=max_chars, overlap_chars=draw(st.integers(0, max_chars // 3)),
        parent_max_chars=draw(st.integers(20, 900)),
        min_chars=draw(st.sampled_from([0, 0, 60])), semantic_percentile=draw(st.sampled_from([50.0, 95.0])),
    )


def expected_text(doc: ParsedDocument, strategy: str) -> str:
    def kept(element: Element) -> bool:
        if element.kind != "heading":
            return True
        return strategy in HEADINGS_IN_TEXT or (strategy == "qa_pairs" and is_question(element))

    return "".join(squash(e.text) for e in doc.elements if kept(e))


def budget(strategy: str, config: ChunkConfig) -> int | None:
    return config.max_chars if strategy in BUDGETED else None


def check(doc: ParsedDocument, config: ChunkConfig, strategy: str, chunks: list[Chunk]) -> None:
    searchable = [c for c in chunks if c.searchable]
    parents = [c for c in chunks if not c.searchable]
    expected = expected_text(doc, strategy)
    assert new_text(searchable) == expected
    if strategy == "parent_child":  # what readers get: parents, and chunks that are their own parent
        assert new_text([c for c in chunks if c.parent_id is None]) == expected
        ids = {p.chunk_id for p in parents}
        assert all(c.parent_id in ids for c in searchable if c.parent_id is not None)
        assert all(sum(c.parent_id == p.chunk_id for c in chunks) >= 2 for p in parents)
    assert [c.chunk_id for c in chunks] == [f"{doc.source}#{i}" for i in range(len(chunks))]
    order = {e.element_id: i for i, e in enumerate(doc.elements)}
    by_id = {e.element_id: e for e in doc.elements}
    limit = budget(strategy, config)
    for chunk in chunks:
        assert chunk.text.strip() == chunk.text and chunk.text
        assert set(chunk.element_ids) <= set(order)
        members = sorted(chunk.element_ids, key=order.__getitem__)
        source_text = "".join(squash(by_id[i].text) for i in members)
        assert squash(chunk.text[chunk.meta.get("overlap", 0) :]) in source_text
        if limit is not None and chunk.searchable:
            assert len(chunk.text) <= limit or chunk.meta.get("oversized"), (strategy, len(chunk.text), limit)


@pytest.mark.parametrize("strategy", sorted(CHUNKERS))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=documents(), config=configs())
def test_no_text_lost_or_duplicated_and_lineage_holds(strategy: str, doc: ParsedDocument, config: ChunkConfig) -> None:
    embedder = HashEmbedder()
    chunks = get_chunker(strategy).chunk(doc, config, embedder)
    check(doc, config, strategy, chunks)
    again = get_chunker(strategy).chunk(doc, config, embedder)
    assert [(c.chunk_id, c.text, c.element_ids) for c in again] == [(c.chunk_id, c.text, c.element_ids) for c in chunks]


@settings(max_examples=40, deadline=None)
@given(doc=documents())
def test_page_chunks_are_pages_unless_the_embedder_cannot_read_them(doc: ParsedDocument) -> None:
    chunks = get_chunker("page").chunk(doc, ChunkConfig(), HashEmbedder(max_input_chars=400))
    for chunk in chunks:
        assert len(chunk.pages) == 1
        assert len(chunk.text) <= 200 or chunk.meta.get("oversized")  # 400 minus room for the section path
    pages = [c.pages[0] for c in chunks]
    assert pages == sorted(pages)
    whole = [c for c in chunks if "page_split" not in c.meta]
    assert len({c.pages[0] for c in whole}) == len(whole)
