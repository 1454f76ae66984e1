"""Documents in Japanese, Chinese and English for the chunking tests, and helpers to build them."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from itertools import pairwise

import numpy as np

from bunko.parse.base import ElementBuilder
from bunko.parse.markdown import MarkdownParser
from bunko.schema import Chunk, Element, ParsedDocument

JA_SENTENCES = [
    "出張の申請は出発の一週間前までに行います。",
    "宿泊費の上限は一泊一万二千円です。",
    "領収書は精算時に必ず提出してください。",
    "海外出張では別の規程が適用されます。",
]
ZH_SENTENCES = [
    "年假每年十五天。",
    "病假需要提供医生证明。",
    "婚假为三天，须在一年内休完。",
    "事假为无薪假期，按日扣除工资。",
]
EN_SENTENCES = [
    "Travel requests are filed one week before departure.",
    "Hotels are reimbursed up to 120 dollars per night.",
    "Receipts must be attached to every expense claim.",
    "International trips follow a separate policy.",
]
SENTENCES = {"ja": JA_SENTENCES, "zh": ZH_SENTENCES, "en": EN_SENTENCES}
TITLES = {"ja": ("出張規程", "申請", "宿泊"), "zh": ("休假制度", "年假", "病假"), "en": ("Travel policy", "Requests", "Hotels")}


def joined(lang: str, sentences: Sequence[str]) -> str:
    return ("" if lang in ("ja", "zh") else " ").join(sentences)


def markdown_doc(lang: str) -> str:
    """Title, two sections of prose, a table in the second one."""
    title, first, second = TITLES[lang]
    s = SENTENCES[lang]
    rows = "\n".join(f"| {lang}-row{i} | {i * 100} |" for i in range(6))
    return (
        f"# {title}\n\n## {first}\n\n{joined(lang, s[:2])}\n\n{joined(lang, s[2:])}\n\n"
        f"## {second}\n\n{joined(lang, s)}\n\n| key | value |\n|---|---|\n{rows}\n"
    )


def parse_markdown(text: str, source: str = "doc.md") -> ParsedDocument:
    doc = MarkdownParser().parse_text(text, source)
    doc.doc_id = "d-" + hashlib.sha1(source.encode()).hexdigest()[:8]
    return doc


def document(source: str, build: list[tuple[str, str, dict]], mime: str = "text/markdown") -> ParsedDocument:
    """A document from (kind, text, options) triples; options may hold level, page, meta, caption_of (index)."""
    builder = ElementBuilder(source)
    made: list[Element] = []
    for kind, text, options in build:
        options = dict(options)
        caption_of = options.pop("caption_of", None)
        if caption_of is not None:
            options["parent_id"] = made[caption_of].element_id
        if kind == "heading":
            made.append(builder.heading(options.pop("level", 1), text, **options))
        else:
            made.append(builder.add(kind, text, **options))
    return ParsedDocument("d-" + source, source, source, mime, "test", builder.elements)


def squash(text: str) -> str:
    return "".join(text.split())


def new_text(chunks: Sequence[Chunk]) -> str:
    """The chunks' text without the declared overlap (repeated text), whitespace removed."""
    return "".join(squash(c.text[c.meta.get("overlap", 0) :]) for c in chunks)


class HashEmbedder:
    """Deterministic bag-of-character-bigrams vectors: stands in for a model in property tests."""

    name = "hash-bigrams"
    dimension = 64

    def __init__(self, max_input_chars: int | None = None) -> None:
        if max_input_chars is not None:
            self.max_input_chars = max_input_chars

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for a, b in pairwise(text):
                out[row, hash_bucket(a + b, self.dimension)] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return out / norms

    def count_tokens(self, text: str) -> int:
        return len(text.split()) + sum(1 for ch in text if ord(ch) > 0x2E80)


def hash_bucket(text: str, buckets: int) -> int:
    return int(hashlib.md5(text.encode()).hexdigest()[:8], 16) % buckets
