"""The language of every stored chunk and document, recorded when a document is written.

Both stores call `label_languages` in `replace_document`, so whatever writes a document
(ingest, `bunko reindex`, `bunko migrate`, the server's uploads) stores its languages, and
the `lang` filter field means the same in both. The judgement is `bunko.text.languages`'s
`text_language` over the chunk's own text (not its embedded text, whose heading path may be
in another language than the passage under it); a document is in the language most of its
searched text is in, with each language's share (a manual with an English appendix is
{"ja": 0.9, "en": 0.1}, and its chunks say which part is which).

Collections written before languages were recorded get them when first opened by a bunko
that records them (`LocalStore` schema 3, PostgreSQL migration 3), by `stored_languages`
over the rows the store reads back.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, MutableMapping, Sequence
from typing import Any

from bunko.schema import LANG_KEY, LANGUAGES_KEY, meta_searchable
from bunko.store.base import StoredChunk
from bunko.text.languages import LANGUAGES, text_language


def stored_languages(rows: Sequence[tuple[str, Mapping[str, Any], str]]) -> tuple[dict[str, str], dict[str, float]]:
    """({chunk id: language}, the document's shares, largest first) of one document's chunks given as (chunk id, meta, text)."""
    languages = {chunk_id: text_language(text) for chunk_id, _, text in rows}
    weights: dict[str, float] = {}
    searched = [row for row in rows if meta_searchable(row[1])] or list(rows)  # parents repeat their children's text
    for chunk_id, _, text in searched:
        weights[languages[chunk_id]] = weights.get(languages[chunk_id], 0.0) + max(len(text), 1)
    total = sum(weights.values())
    order = {lang: i for i, lang in enumerate(LANGUAGES)}
    ranked = sorted(weights.items(), key=lambda pair: (-pair[1], order.get(pair[0], len(order))))
    return languages, {lang: round(weight / total, 3) for lang, weight in ranked}


def set_document_languages(meta: MutableMapping[str, Any], shares: Mapping[str, float]) -> None:
    if shares:
        meta[LANG_KEY] = next(iter(shares))
        meta[LANGUAGES_KEY] = dict(shares)
    else:
        meta.pop(LANG_KEY, None)
        meta.pop(LANGUAGES_KEY, None)


def label_languages(doc_meta: MutableMapping[str, Any], chunks: Iterable[StoredChunk]) -> None:
    """Record each chunk's language in its meta and the document's in `doc_meta` (in place: the objects the
    caller holds describe what was stored)."""
    listed = list(chunks)
    languages, shares = stored_languages([(s.chunk.chunk_id, s.chunk.meta, s.chunk.text) for s in listed])
    for s in listed:
        s.chunk.meta[LANG_KEY] = languages[s.chunk.chunk_id]
    set_document_languages(doc_meta, shares)
