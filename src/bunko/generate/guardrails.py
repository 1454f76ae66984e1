"""Answer policies (``[answer] policy``): standard, strict, regulated.

- standard: every sentence is shown with its verdict; one the citation check did not support (unsupported or
  uncited) is followed by the unverified mark and the answer by a notice (`generate/sentence_pipeline.py`).
- strict: only sentences that cite a source and are supported by it are
  shown, and personal data is masked: e-mail addresses, phone numbers
  (international, Japanese, Chinese, North American), card-like digit runs,
  12-digit My Number-like and 18-character Chinese ID numbers. Documents
  legitimately hold a contact list; repeating one to whoever asks is a leak,
  whether in an answer or a search hit, so the mask is the policy's and
  applies on every output path: answers and their quotes (labels in the
  answer's language), the text a trace keeps (prompt, model output, checked
  sentences), search hits (`Bunko.search`, `bunko search`, HTTP ``/search``),
  documents shown by the server and section trees (`bunko tree`, HTTP
  ``documents/{id}/tree``), with labels in the text's own language.
  Retrieval, grading and the citation check read the stored text unmasked.
- regulated: strict, plus the update date of each cited source, a notice that
  the answer is not professional advice, and ``needs_review`` when the
  confidence is low or a sentence had to be removed.

Masking works on digit boundaries, not word boundaries: in Japanese and
Chinese a number touches the characters around it ("電話03-1234-5678まで").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, date, datetime

from bunko.index.tree import DocumentTree, SectionNode
from bunko.schema import Chunk, Hit
from bunko.text.languages import text_language
from bunko.text.lazy_regex import lazy_compile
from bunko.text.lexicon import en, ja, speaking, zh

STANDARD, STRICT, REGULATED = "standard", "strict", "regulated"

_D = r"(?<![\d.])"
_E = r"(?![\d])"
PII_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("email", lazy_compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")),
    ("card", lazy_compile(_D + r"(?:\d{4}[ -]){3}\d{1,7}" + _E + "|" + _D + r"\d{13,16}" + _E)),
    ("id", lazy_compile(_D + r"\d{17}[\dXx]" + r"(?![\dA-Za-z])")),  # Chinese resident ID
    ("id", lazy_compile(_D + r"\d{4}[ -]\d{4}[ -]\d{4}" + _E + "|" + _D + r"\d{12}" + _E)),  # My Number
    ("phone", lazy_compile(r"\+\d{1,3}[ -]?(?:\(\d{1,4}\)[ -]?)?\d{1,4}(?:[ -]?\d{2,4}){1,4}" + _E)),
    ("phone", lazy_compile(_D + r"0\d{1,4}[-(（ ]\d{1,4}[-)） ]\d{3,4}" + _E)),  # 03-1234-5678, 090-1234-5678, 03(1234)5678
    ("phone", lazy_compile(_D + r"0\d{2,3}-\d{7,8}" + _E)),  # 010-12345678 (China landline)
    ("phone", lazy_compile(_D + r"1[3-9]\d[ -]?\d{4}[ -]?\d{4}" + _E)),  # Chinese mobile
    ("phone", lazy_compile(_D + r"0[5-9]0\d{8}" + _E)),  # Japanese mobile without hyphens
    ("phone", lazy_compile(r"\(\d{3}\)\s?\d{3}-\d{4}" + _E + "|" + _D + r"\d{3}-\d{3}-\d{4}" + _E)),  # North America
]

DATE_FIELDS = (*en.DATE_FIELD_NAMES, *ja.DATE_FIELD_NAMES, *zh.DATE_FIELD_NAMES)
"""Front-matter keys that state when a document was last changed, most specific first."""


def mask_pii(text: str, language: str = "en") -> tuple[str, Counter[str]]:
    """The text with personal data replaced by a label in the answer's language, and what was masked."""
    masks = speaking(language).MASKS
    found: Counter[str] = Counter()
    for kind, pattern in PII_PATTERNS:
        def replace(match: re.Match[str], kind: str = kind) -> str:
            found[kind] += 1
            return masks[kind]

        text = pattern.sub(replace, text)
    return text, found


def masks_personal_data(policy: str) -> bool:
    """Whether `policy` masks personal data on its outputs (strict and regulated do)."""
    return policy != STANDARD


def guard_text(text: str, policy: str, language: str) -> str:
    """`text` as `policy` lets it out: masked (labels in `language`) under strict and regulated, else as is."""
    return mask_pii(text, language)[0] if masks_personal_data(policy) else text


def guard_chunk(chunk: Chunk, policy: str, language: str | None = None) -> Chunk:
    """A chunk as `policy` lets it out: a masked copy under strict and regulated (labels in `language`, else the
    chunk's own language), so stored and cached chunks are never changed; the chunk itself otherwise."""
    if not masks_personal_data(policy):
        return chunk
    lang = language or chunk.lang or text_language(chunk.text)
    meta = dict(chunk.meta)
    if isinstance(meta.get("child_text"), str):  # a parent-expanded hit also carries the child that matched
        meta["child_text"] = guard_text(meta["child_text"], policy, lang)
    return replace(
        chunk, text=guard_text(chunk.text, policy, lang), embed_text=guard_text(chunk.embed_text, policy, lang),
        section_path=[guard_text(s, policy, lang) for s in chunk.section_path], meta=meta,
    )


def guard_hits(hits: Sequence[Hit], policy: str) -> list[Hit]:
    """Search hits as `policy` lets them out (each chunk through `guard_chunk`); scores and signals unchanged."""
    if not masks_personal_data(policy):
        return list(hits)
    return [replace(h, chunk=guard_chunk(h.chunk, policy)) for h in hits]


def guard_tree(tree: DocumentTree, policy: str) -> DocumentTree:
    """A document's section tree as `policy` lets it out: under strict and regulated a copy whose titles and summaries
    (sentences of the document) are masked, each in its own language; the tree itself otherwise (trees are cached)."""
    if not masks_personal_data(policy):
        return tree

    def guard(text: str, language: str) -> str:
        return guard_text(text, policy, language)

    def node(section: SectionNode) -> SectionNode:
        language = text_language(section.summary or section.title)
        return replace(
            section, title=guard(section.title, language), path=[guard(p, language) for p in section.path],
            summary=guard(section.summary, language), children=[node(child) for child in section.children],
        )

    return DocumentTree(tree.doc_id, tree.source, guard(tree.title, text_language(tree.title)), node(tree.root))


def _as_date(value: object) -> str | None:
    if isinstance(value, datetime):
        return value.date().isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, str) and value.strip():
        return value.strip()
    return None


def source_date(fields: dict[str, object] | None, ingested_at: float | None) -> str | None:
    """A front-matter date field if the document has one, else the day it was ingested (UTC)."""
    for key in DATE_FIELDS:
        value = _as_date((fields or {}).get(key))
        if value:
            return value
    if ingested_at:
        return datetime.fromtimestamp(ingested_at, UTC).date().isoformat()
    return None


def regulated_notices(language: str, dates: dict[str, str], needs_review: bool) -> list[str]:
    """Lines appended to a regulated answer: source dates, the not-advice notice, and a review request."""
    says = speaking(language)
    label = says.SOURCE_UPDATED
    lines = [f"{label}{says.COLON}" + ", ".join(f"{source} ({day})" for source, day in dates.items())] if dates else []
    lines.append(says.NOT_ADVICE)
    if needs_review:
        lines.append(says.NEEDS_REVIEW)
    return lines
