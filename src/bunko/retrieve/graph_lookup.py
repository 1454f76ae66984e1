"""Looking an entity up in the entity graph: a name to its key, its passages with each mention in context, its neighbours.

What `bunko graph` prints and the server's ``GET graph/…`` returns, said once. A name is
looked up as an identifier first (``/etc/fstab``, ``apt-get`` keep their punctuation) and
then as a phrase (``Packages`` finds ``package``, ``サーバー`` finds ``サーバ``); the first
key with passages wins. An unknown name gets the close keys (difflib) as suggestions.

A `GraphLookup` may be limited to the passages a caller may see (`visible`): then every
count, neighbour, top entity and suggestion is computed over those passages only, so a
restricted caller learns nothing of documents outside their groups. Hubs and entities of
one passage (which link nothing in the walk) are left out of neighbours and top entities,
as `EntityGraph` leaves them out.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from bunko.index.graph import EntityGraph
from bunko.schema import Chunk
from bunko.store.search_backend import SearchBackend
from bunko.text.entities import Mention, entity_key

SNIPPET_CHARS = 60
"""Characters of context either side of a mention."""


@dataclass(frozen=True)
class Snippet:
    """A mention in context, on one line: the text before it, its own surface, and the text after it."""

    before: str
    mention: str
    after: str

    def __str__(self) -> str:
        return self.before + self.mention + self.after


@dataclass(frozen=True)
class EntityPassage:
    chunk: Chunk
    mention: Mention | None
    """The entity's first mention in the chunk (None if its spans were lost: then the snippet is the chunk's start)."""
    snippet: Snippet


@dataclass(frozen=True)
class EntityInfo:
    key: str
    passage_ids: list[str]
    """Every passage mentioning the entity (that the caller may see), in graph order."""
    hub: bool
    neighbours: list[tuple[str, int]]
    passages: list[EntityPassage]
    """The first `limit` passages, with their mention in context."""


def resolve_candidates(name: str) -> list[str]:
    """The keys a typed name may stand for, in the order tried: identifier form, then phrase form."""
    return list(dict.fromkeys((entity_key(name, identifier=True), entity_key(name))))


def mention_of(key: str, mentions: Sequence[Mention]) -> Mention | None:
    return next((m for m in mentions if m.key == key), None)


def snippet(text: str, mention: Mention | None, chars: int = SNIPPET_CHARS) -> Snippet:
    """The text before, of and after the mention (about `chars` either side), whitespace folded to one line."""

    def flat(part: str) -> str:
        return " ".join(part.split())

    if mention is None:
        return Snippet("", "", flat(text[: 2 * chars]) + ("…" if len(text) > 2 * chars else ""))
    start, end = max(0, mention.start - chars), min(len(text), mention.end + chars)
    before = ("…" if start > 0 else "") + flat(text[start : mention.start]).lstrip()
    after = flat(text[mention.end : end]).rstrip() + ("…" if end < len(text) else "")
    if text[start : mention.start][-1:].isspace():
        before += " "
    if text[mention.end : end][:1].isspace():
        after = " " + after
    return Snippet(before, flat(text[mention.start : mention.end]), after)


class GraphLookup:
    """The entity graph as one caller sees it: all of it, or only the passages in `visible`."""

    def __init__(self, graph: EntityGraph, visible: set[str] | None = None) -> None:
        self.graph = graph
        self.visible = visible
        self._frequency: Counter[str] | None = None

    @property
    def restricted(self) -> bool:
        return self.visible is not None

    def _visible_frequency(self) -> Counter[str]:
        if self._frequency is None:
            counts: Counter[str] = Counter()
            for chunk_id in self.visible or ():
                counts.update(self.graph.entities_of(chunk_id))
            self._frequency = counts
        return self._frequency

    @property
    def passage_count(self) -> int:
        return self.graph.passage_count if self.visible is None else len(self.visible & set(self.graph.matrices.row_of))

    def passage_frequency(self, key: str) -> int:
        return self.graph.passage_frequency(key) if self.visible is None else self._visible_frequency()[key]

    def entities(self) -> list[tuple[str, int]]:
        """Every key with passages left, with its passage count, in id order (a removed document's keys stay, empty)."""
        if self.visible is None:
            counts = ((key, self.graph.passage_frequency(key)) for key in self.graph.keys)
            return [(key, count) for key, count in counts if count > 0]
        frequency = self._visible_frequency()
        return [(key, frequency[key]) for key in self.graph.keys if frequency[key] > 0]

    def hubs(self, entities: list[tuple[str, int]]) -> list[str]:
        """Entities in too many passages to link anything specific (is_hub is also true of single-passage entities)."""
        return [key for key, count in entities if self.is_hub(key, count)]

    def top_entities(self, limit: int) -> list[tuple[str, int]]:
        if self.visible is None:
            return self.graph.top_entities(limit)
        frequency = self._visible_frequency()
        ranked = sorted((key for key in frequency if not self.graph.is_hub(key)),
                        key=lambda key: (-frequency[key], self.graph.vocabulary[key]))
        return [(key, frequency[key]) for key in ranked[:limit]]

    def resolve(self, name: str) -> str | None:
        """The key `name` stands for, if it has passages (the identifier form first, then the phrase form)."""
        return next((key for key in resolve_candidates(name) if self.passage_frequency(key) > 0), None)

    def suggestions(self, name: str, limit: int = 5) -> list[str]:
        """Keys close to what was typed, for an unknown name."""
        keys = [key for key, _ in self.entities()]
        found: dict[str, None] = {}
        for form in resolve_candidates(name):
            found.update(dict.fromkeys(difflib.get_close_matches(form, keys, n=limit, cutoff=0.6)))
        return list(found)[:limit]

    def passages_of(self, key: str) -> list[str]:
        passages = self.graph.passages_of(key)
        return passages if self.visible is None else [p for p in passages if p in self.visible]

    def neighbours(self, key: str, limit: int) -> list[tuple[str, int]]:
        if self.visible is None:
            return self.graph.neighbours(key, limit)
        shared: Counter[str] = Counter()
        for chunk_id in self.passages_of(key):
            shared.update(other for other in self.graph.entities_of(chunk_id) if other != key and not self.graph.is_hub(other))
        ranked = sorted(shared, key=lambda other: (-shared[other], self.graph.vocabulary[other]))
        return [(other, shared[other]) for other in ranked[:limit]]

    def is_hub(self, key: str, passages: int) -> bool:
        """A hub as this caller counts it: in more than one passage and too many to link anything specific."""
        return passages > 1 and self.graph.is_hub(key)

    def entity(self, store: SearchBackend, key: str, limit: int) -> EntityInfo:
        """`key`'s passages (the first `limit` with their mention in context) and its `limit` closest neighbours."""
        passage_ids = self.passages_of(key)
        shown = passage_ids[:limit]
        chunks = {chunk.chunk_id: chunk for chunk in store.get_chunks(shown)}
        mentions = store.mentions(shown)
        passages = []
        for chunk_id in shown:
            chunk = chunks.get(chunk_id)
            if chunk is not None:
                mention = mention_of(key, mentions.get(chunk_id, []))
                passages.append(EntityPassage(chunk, mention, snippet(chunk.text, mention)))
        return EntityInfo(key, passage_ids, self.is_hub(key, len(passage_ids)), self.neighbours(key, limit), passages)
