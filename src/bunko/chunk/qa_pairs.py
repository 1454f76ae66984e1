"""`qa_pairs`: in an FAQ, one question with its answer per chunk.

An FAQ's unit of meaning is the pair: a chunk holding the end of one answer
and the start of the next question matches neither question well. A question
is a heading, or a paragraph, that starts with a question marker (Q: Q. Q1:
問： 问： 质问 「Q」 …) or ends with ? or ？. Everything up to the next question
or heading is its answer. An answer too long for one chunk is split, and every
part starts with the question again (declared as overlap), so each part still
says what it answers. Text outside any question is chunked as `structure` does.
"""

from __future__ import annotations

from bunko.chunk.base import JOIN
from bunko.chunk.blocks import Block, blocks_of, pack, split_blocks, to_chunks
from bunko.chunk.sizing import sizer_for
from bunko.config import ChunkConfig
from bunko.embed.base import Embedder
from bunko.schema import Chunk, Element, ElementKind, ParsedDocument
from bunko.text.lazy_regex import lazy_compile
from bunko.text.lexicon import ja, zh
from bunko.text.sentences import split_sentences

_QUESTION_LABELS = f"{ja.QUESTION_LABEL}{zh.QUESTION_LABEL}"
QUESTION_PREFIX = lazy_compile(
    r"^\s*(?:[QＱ]\s*\d*\s*[:：.．、)）]"  # Q: Q. Q1: Q1)
    rf"|[{_QUESTION_LABELS}]\s*\d*\s*[:：.．、)）]|[{_QUESTION_LABELS}]\s+"  # 問： 问1. 问 …  (not 問題, 问题)
    f"|{zh.QUESTION_WORD_LABEL}|{ja.QUESTION_WORD_LABEL}"
    rf"|[「【\[（(]\s*[QＱ{_QUESTION_LABELS}]\s*\d*\s*[」】\])）])"  # 「Q」 【Q】 [Q] （問）
)
QUESTION_END = lazy_compile(r"[?？][\s」』）)\"'”’*]*$")
MAX_QUESTION_CHARS = 200


def is_question(element: Element) -> bool:
    """A heading or a one-sentence paragraph that asks something."""
    if element.kind not in (ElementKind.HEADING, ElementKind.PARAGRAPH):
        return False
    text = element.text.strip()
    if not text:
        return False
    if QUESTION_PREFIX.match(text):
        return True
    if not QUESTION_END.search(text):
        return False
    if element.kind == ElementKind.HEADING:
        return True
    return len(text) <= MAX_QUESTION_CHARS and "\n" not in text and len(split_sentences(text)) == 1


def qa_runs(elements: list[Element]) -> list[tuple[Element | None, list[Element]]]:
    """(question or None, the elements that follow it up to the next question or heading)."""
    runs: list[tuple[Element | None, list[Element]]] = []
    question: Element | None = None
    body: list[Element] = []
    for element in elements:
        asks = is_question(element)
        if asks or element.kind == ElementKind.HEADING:
            if question is not None or body:
                runs.append((question, body))
            question, body = (element if asks else None), []
        else:
            body.append(element)
    if question is not None or body:
        runs.append((question, body))
    return runs


class QaPairsChunker:
    name = "qa_pairs"

    def chunk(self, doc: ParsedDocument, config: ChunkConfig, embedder: Embedder | None = None) -> list[Chunk]:
        sizer = sizer_for(config, embedder)
        chunks: list[Chunk] = []
        for question, body in qa_runs(doc.elements):
            if question is None:
                groups = pack(split_blocks(blocks_of(body), sizer), sizer)
                chunks.extend(to_chunks(doc, groups, len(chunks)))
                continue
            asked = question.text.strip()
            room = sizer.with_chars(max(sizer.max_chars - len(asked) - len(JOIN), 20))
            parts = pack(split_blocks(blocks_of(body), room), room) or [[]]
            for i, part in enumerate(parts):
                # every part starts with the question; after the first it repeats it, and that is declared
                repeated = len(asked) + len(JOIN) + part[0].overlap if i and part else 0
                head = Block(asked, [question])
                extra = {"qa": True, "qa_part": i if len(parts) > 1 else None, "qa_parts": len(parts) if len(parts) > 1 else None}
                (made,) = to_chunks(doc, [[head, *part]], len(chunks), **extra)
                if not sizer.fits(made.text):  # a question longer than the budget, or an atomic answer
                    made.meta["oversized"] = True
                if repeated:
                    made.meta["overlap"] = repeated
                else:
                    made.meta.pop("overlap", None)
                chunks.append(made)
        return chunks
