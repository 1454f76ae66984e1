"""At ingest: is this document a copy of one already stored, and which of them is the original?

A translated manual's ja/ and zh/ folders hold its untranslated pages again, as the English text. Each document
is fingerprinted (`text/near_duplicates.py`: the hash of its normalised text, MinHash over its shingles) and
compared with the stored ones: the same normalised text first (anywhere), then LSH candidates in another language's
folder whose estimated similarity reaches `NEAR_DUPLICATE`; the nearest (the first ingested among equals) is its
match. The document is then a
copy of the match's original — unless it is at home where that original is not (an English page in en/,
ingested after its copy in ja/: `store.copies.original_of`), and then the group is linked to it instead.

What is recorded (document meta): the fingerprint, the folder's language (`text/languages.folder_language`) and,
for a copy, its original's doc id. The copy keeps all its own rows, so its path and folder survive; what search
shows of a group is `retrieve/copies.py`'s. The finder reads the stored records once per ingest run and keeps
them in step with its own writes; the stores keep a group whole on delete and rewrite (`store/copies.regroup`).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace

from bunko.schema import FINGERPRINT_KEY, FOLDER_LANG_KEY, LANG_KEY, ParsedDocument
from bunko.store.base import DocumentCopies
from bunko.store.copies import CopyRecord, original_of, set_duplicate_of
from bunko.text.languages import folder_language, text_language
from bunko.text.near_duplicates import NEAR_DUPLICATE, Fingerprint, fingerprint, similarity


def document_text(doc: ParsedDocument) -> str:
    """The text a document is compared by: its elements' text in order (what it says, not how it is marked up)."""
    return "\n".join(e.text for e in doc.elements if e.text.strip())


class CopyFinder:
    """The stored documents' fingerprints, indexed by text hash and LSH band, for one ingest run."""

    def __init__(self, store: DocumentCopies) -> None:
        self.store = store
        self._records: dict[str, CopyRecord] | None = None
        self._by_text: dict[str, set[str]] = defaultdict(set)
        self._by_band: dict[str, set[str]] = defaultdict(set)

    def _load(self) -> dict[str, CopyRecord]:
        if self._records is None:
            self._records = {}
            for record in self.store.copy_records():
                self._add(record)
        return self._records

    def _add(self, record: CopyRecord) -> None:
        assert self._records is not None
        self._drop(record.doc_id)
        self._records[record.doc_id] = record
        if record.fingerprint is not None:
            self._by_text[record.fingerprint.text_hash].add(record.doc_id)
            for band in record.fingerprint.bands():
                self._by_band[band].add(record.doc_id)

    def _drop(self, doc_id: str) -> None:
        assert self._records is not None
        old = self._records.pop(doc_id, None)
        if old is not None and old.fingerprint is not None:
            self._by_text[old.fingerprint.text_hash].discard(doc_id)
            for band in old.fingerprint.bands():
                self._by_band[band].discard(doc_id)

    def _match(self, doc_id: str, mark: Fingerprint, folder: str | None) -> CopyRecord | None:
        """The stored document nearest `mark` at or above NEAR_DUPLICATE (not `doc_id` itself), the oldest of equals.

        The same normalised text is a copy wherever it is. A near-identical text is a copy only in another language's
        folder (`folder`: this document's): a translated manual's untranslated page, its title perhaps translated.
        Two pages of one folder that differ by a few words — the Tokyo and the Osaka office's rules, one figure apart —
        are two documents, and hiding one would answer with the other's figure."""
        records = self._load()
        exact = self._by_text.get(mark.text_hash, set()) - {doc_id}
        candidates = exact or {
            other for band in mark.bands() for other in self._by_band.get(band, ())
            if folder is not None and records[other].folder_lang not in (None, folder)
        } - {doc_id}
        scored = []
        for other in candidates:
            stored = records[other].fingerprint
            if stored is not None and (value := similarity(mark, stored)) >= NEAR_DUPLICATE:
                scored.append((-value, records[other].ingested_at, records[other].source, other))
        return records[min(scored)[3]] if scored else None

    def link(self, doc: ParsedDocument, ingested_at: float) -> dict[str, str | None]:
        """Record `doc`'s fingerprint, folder language and original in its meta (before it is written); returns the
        links to write after it (`DocumentCopies.link_copies`) when it becomes its group's original, else none."""
        records = self._load()
        had_copies = any(r.duplicate_of == doc.doc_id for r in records.values())
        mark = fingerprint(document_text(doc))
        folder = folder_language(doc.source)
        doc.meta[FINGERPRINT_KEY] = mark.to_meta()
        if folder is None:
            doc.meta.pop(FOLDER_LANG_KEY, None)
        else:
            doc.meta[FOLDER_LANG_KEY] = folder
        lang = text_language(document_text(doc))
        this = CopyRecord(doc.doc_id, doc.source, ingested_at, lang, folder, mark, None)
        match = self._match(doc.doc_id, mark, folder)
        links: dict[str, str | None] = {}
        if match is None:
            set_duplicate_of(doc.meta, None)
        else:
            head = records.get(match.duplicate_of or match.doc_id, match)
            if head.doc_id == doc.doc_id:  # it matched a copy of itself: it stays that group's original
                set_duplicate_of(doc.meta, None)
            elif original_of([head, this]) is this:
                set_duplicate_of(doc.meta, None)
                group = [r for r in records.values() if r.doc_id == head.doc_id or r.duplicate_of == head.doc_id]
                links = {r.doc_id: doc.doc_id for r in group if r.doc_id != doc.doc_id}
            else:
                set_duplicate_of(doc.meta, head.doc_id)
                this = replace(this, duplicate_of=head.doc_id)
        self._add(replace(this, lang=doc.meta.get(LANG_KEY, lang)))
        for doc_id, original in links.items():
            self._add(replace(records[doc_id], duplicate_of=original))
        if had_copies:  # the store regroups its copies when it is written: read them again for the next document
            self.forget(doc.doc_id)
        return links

    def forget(self, doc_id: str) -> None:
        """A document this run deleted: no longer a match (the store regrouped its copies; they are read again)."""
        self._records = None
        self._by_text.clear()
        self._by_band.clear()
