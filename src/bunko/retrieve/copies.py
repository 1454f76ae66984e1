"""One hit per copy group: a page stored in several folders is shown once, with the other copies named.

Ingest records which documents copy one page (`ingest/copies.py`, `store/copies.py`); every copy stays indexed,
so a search finds the page whichever copy's words or folder it matches. The `Searcher` then folds the hits:
hits of one group that hold the same passage (`SAME_PASSAGE`) are one hit, and that hit is shown from — and
cited from — the copy a reader of the question's language is served by (`shown_copy`):

1. a copy in a folder named for the question's language (ja/, zh_CN/, en-US/: `text/languages.folder_language`);
2. else the group's original (the copy at home in its language's folder, else the first ingested).

The hit's passage is then the shown copy's passage holding the same text (the same normalised text, else the
one sharing most shingles, at least `SAME_PASSAGE`); a shown copy with no such passage (its text was rewritten
there) leaves the hit where it was found. `Hit.also_at` names the group's other documents.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from bunko.schema import Chunk, Hit
from bunko.store.copies import CopyRecord
from bunko.store.search_backend import SearchBackend
from bunko.text.near_duplicates import SAME_PASSAGE, passage_similarity


@dataclass(frozen=True)
class CopySnapshot:
    """The copy groups of one store generation: each grouped document's group key, each group's records, and the
    chunks of the copies shown so far (read on first use)."""

    search: SearchBackend
    generation: int
    group_of: dict[str, str]
    members: dict[str, list[CopyRecord]]
    shown_chunks: dict[str, list[Chunk]]

    def group(self, doc_id: str) -> list[CopyRecord] | None:
        """The copies of `doc_id`'s page (itself among them), or None when it has none."""
        key = self.group_of.get(doc_id)
        return None if key is None else self.members[key]

    def chunks(self, record: CopyRecord) -> list[Chunk]:
        if record.doc_id not in self.shown_chunks:
            self.shown_chunks[record.doc_id] = self.search.chunks(record.source)
        return self.shown_chunks[record.doc_id]

    def visible(self, group: Sequence[CopyRecord], where: Mapping[str, Any] | None) -> list[CopyRecord]:
        """The copies a search under the filter `where` may show or name: those with a chunk it lets through (a
        caller's access filter hides the others' passages and their names alike)."""
        if not where:
            return list(group)
        return [r for r in group if self.search.allowed_chunks([c.chunk_id for c in self.chunks(r)], where)]


class CopyGroups:
    """The collection's copy groups, read again when the store's generation changes; a search reads one snapshot,
    so threads sharing this never see a half-read one and the generation is asked once per search."""

    def __init__(self, search: SearchBackend) -> None:
        """`search`: the copy records, a copy's chunks, and which of them a filter lets through."""
        self.search = search
        self._snapshot = CopySnapshot(search, -1, {}, {}, {})

    def current(self) -> CopySnapshot:
        generation = self.search.generation()
        if generation == self._snapshot.generation:
            return self._snapshot
        members: dict[str, list[CopyRecord]] = {}
        for record in self.search.copy_records(grouped=True):
            members.setdefault(record.duplicate_of or record.doc_id, []).append(record)
        members = {key: group for key, group in members.items() if len(group) > 1}
        group_of = {record.doc_id: key for key, group in members.items() for record in group}
        self._snapshot = CopySnapshot(self.search, generation, group_of, members, {})
        return self._snapshot


def shown_copy(group: Sequence[CopyRecord], language: str | None) -> CopyRecord:
    """The copy shown and cited for a question in `language` (None: no preference): one in that language's
    folder (the one whose text is in it first, then the original, then the first ingested), else the original."""
    original = CopyRecord.original_of(group)
    if language is not None:
        local = [r for r in group if r.folder_lang == language]
        if local:
            return min(local, key=lambda r: (r.lang != language, r is not original, r.ingested_at, r.source))
    return original


def passage_in(chunks: Sequence[Chunk], found: Chunk) -> Chunk | None:
    """The chunk of another copy holding `found`'s passage: the same ordinal when its text is the same, else the
    chunk most like it (at least SAME_PASSAGE)."""
    same_place = next((c for c in chunks if c.ordinal == found.ordinal), None)
    if same_place is not None and passage_similarity(same_place.text, found.text) == 1.0:
        return same_place
    best, score = None, SAME_PASSAGE
    for chunk in chunks:
        if chunk.role == found.role and (value := passage_similarity(chunk.text, found.text)) >= score:
            best, score = chunk, value
    return best


def fold_copies(
    hits: Sequence[Hit], groups: CopySnapshot, language: str | None, whole_documents: bool = False,
    where: Mapping[str, Any] | None = None,
) -> list[Hit]:
    """Hits with each passage of a copy group once, shown from `shown_copy`'s document, the others in `also_at`;
    `whole_documents` (hits grouped by document): one hit per group. Under the search's filter `where` only the
    copies it lets through are shown or named, and a hit moves only to a passage it lets through."""
    folded: list[tuple[Hit, list[CopyRecord]]] = []
    out: list[Hit] = []
    for hit in hits:
        group = groups.group(hit.chunk.doc_id)
        if group is None:
            out.append(hit)
            continue
        ids = {r.doc_id for r in group}
        if any(
            kept.chunk.doc_id in ids and kept.chunk.doc_id != hit.chunk.doc_id
            and (whole_documents or passage_similarity(kept.chunk.text, hit.chunk.text) >= SAME_PASSAGE)
            for kept, _ in folded
        ):
            continue  # the same passage of another copy is already shown
        folded.append((hit, group))
        out.append(hit)
    shown: dict[int, Hit] = {}
    for hit, whole in folded:
        group = groups.visible(whole, where) or [r for r in whole if r.doc_id == hit.chunk.doc_id]
        target = shown_copy(group, language)
        chunk = hit.chunk
        if target.doc_id != chunk.doc_id:
            found = passage_in(groups.chunks(target), chunk)
            if found is not None and where and not groups.search.allowed_chunks([found.chunk_id], where):
                found = None
            if found is not None:
                grouped = {key: chunk.meta[key] for key in ("group_hits",) if key in chunk.meta}  # `group_hits`' record
                chunk = found.with_meta({**found.meta, **grouped}) if grouped else found
        shown_source = chunk.source
        also = sorted(r.source for r in group if r.source != shown_source)
        shown[id(hit)] = replace(hit, chunk=chunk, also_at=also)
    result: list[Hit] = []
    seen: set[str] = set()
    for hit in (shown.get(id(hit), hit) for hit in out):
        if hit.chunk.chunk_id not in seen:  # two passages found in other copies may be the shown copy's one passage
            seen.add(hit.chunk.chunk_id)
            result.append(hit)
    return result
