"""Copy groups: documents holding the same page (identical or near-identical text), and which one is the original.

Each document that copies another records the original's doc id in its meta (`DUPLICATE_OF_KEY`, set at
ingest by `ingest/copies.py`); the original records nothing. A group is an original and the documents
pointing at it, never a chain. Every document keeps its own rows, path and folder language, so nothing is lost
and search can show any copy (`retrieve/copies.py`).

Both stores keep the groups whole when a member changes, inside the transaction that changes it, so whatever
deletes or rewrites a document (`bunko rm`, prune, watch, sync, a re-ingest, a server upload) leaves no
member pointing at a document that is gone or no longer the same page: `regroup` says what the members of a
deleted or rewritten original point at next. The rule for which copy is the original is `original_of`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from typing import Any

from bunko.schema import DUPLICATE_OF_KEY, FINGERPRINT_KEY, FOLDER_LANG_KEY, LANG_KEY
from bunko.text.near_duplicates import NEAR_DUPLICATE, Fingerprint, similarity


@dataclass(frozen=True)
class CopyRecord:
    """What grouping needs of a stored document: its name, age, languages, fingerprint and the original it copies."""

    doc_id: str
    source: str
    ingested_at: float
    lang: str | None
    folder_lang: str | None
    fingerprint: Fingerprint | None
    duplicate_of: str | None

    @classmethod
    def from_meta(cls, doc_id: str, source: str, ingested_at: float, meta: Mapping[str, Any]) -> CopyRecord:
        lang, folder = meta.get(LANG_KEY), meta.get(FOLDER_LANG_KEY)
        of = meta.get(DUPLICATE_OF_KEY)
        return cls(
            doc_id, source, float(ingested_at), None if lang is None else str(lang), None if folder is None else str(folder),
            Fingerprint.from_meta(meta.get(FINGERPRINT_KEY)), None if of is None else str(of),
        )

    @property
    def at_home(self) -> bool:
        """Its folder names its text's language (an English page in en/), or names none: it was put there on purpose."""
        return self.folder_lang is None or self.folder_lang == self.lang

    def same_page(self, other: CopyRecord) -> bool:
        return self.fingerprint is not None and other.fingerprint is not None and (
            similarity(self.fingerprint, other.fingerprint) >= NEAR_DUPLICATE
        )

    @staticmethod
    def original_of(records: Iterable[CopyRecord]) -> CopyRecord:
        """Which copy of a page is the original: one whose folder's language is its text's (the English page in en/,
        not its untranslated copy in ja/), then the first ingested, then the first by name."""
        return min(records, key=lambda r: (not r.at_home, r.ingested_at, r.source))


original_of = CopyRecord.original_of
"""The rule on the record, so whatever reads copy records (search folding them, ingest linking them) applies one rule."""


def regroup(changed: CopyRecord | None, members: Sequence[CopyRecord]) -> dict[str, str | None]:
    """What each member of a group points at once its original is rewritten (`changed`, its new record) or deleted
    (None): a member still holding the same page as the rewritten original stays with it (with the original it
    copies in turn, when the rewrite made it a copy); the others form a group of their own, whose original is
    `original_of` them and which keeps each member holding the same page as that one. {doc id: its original,
    or None for an original}, for every member."""
    links: dict[str, str | None] = {}
    rest: list[CopyRecord] = []
    target = None if changed is None else changed.duplicate_of or changed.doc_id
    for member in members:
        if changed is not None and member.same_page(changed):
            links[member.doc_id] = target if target != member.doc_id else None
        else:
            rest.append(member)
    if rest:
        head = original_of(rest)
        for member in rest:
            links[member.doc_id] = head.doc_id if member is not head and member.same_page(head) else None
    return links


def set_duplicate_of(meta: MutableMapping[str, Any], original: str | None) -> None:
    if original is None:
        meta.pop(DUPLICATE_OF_KEY, None)
    else:
        meta[DUPLICATE_OF_KEY] = original
