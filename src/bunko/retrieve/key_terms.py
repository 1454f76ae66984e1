"""The question's key terms: the named things (tools, packages, settings, identifiers) a passage must mention.

Retrieval, the evidence reranker and the grade all ask the same thing of a question: which of its
words name something that cannot be paraphrased, and which of those are rare in the collection
(a missing rare key term is the clearest sign the documents do not hold the answer).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from bunko.index.bm25_formula import share_idf
from bunko.text.analyzers import ENGLISH_STOPWORDS, identifiers
from bunko.text.scripts import has_ja_zh

_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-_.+:/][A-Za-z0-9]+)*")


def key_terms(question: str, tokens: Sequence[str]) -> list[str]:
    """The question's named things, as analyzer tokens: what a passage must mention to be about it.

    Identifiers (``fcitx5``, ``apt-cacher-ng``, ``E-1024``) always; in a Japanese or
    Chinese question every Latin word (there it names a tool, a package, a setting);
    in an English question the words written with a capital inside the sentence
    (``Wayland``, ``PolicyKit``) — a common word can be paraphrased, a name cannot.
    """
    present = set(tokens)
    found: list[str] = list(identifiers(list(tokens)))
    cjk_question = has_ja_zh(question)
    for match in _LATIN_WORD.finditer(question):
        word = match.group(0)
        at_start = not question[: match.start()].strip() or question[: match.start()].rstrip()[-1:] in ".?!"
        named = cjk_question or (not at_start and any(c.isupper() for c in word)) or (word.isupper() and len(word) > 1)
        candidate = word.lower()
        if named and candidate in present and candidate not in ENGLISH_STOPWORDS and len(candidate) > 1:
            found.append(candidate)
    return list(dict.fromkeys(found))


RARE_TERM_SHARE = 0.1
"""A key term held by fewer than this share of the chunks names something specific ("fcitx5", "tmpfs");
a name on every page ("Debian" in the Debian manuals) does not say what a passage is about."""
RARE_IDF = share_idf(RARE_TERM_SHARE)
"""BM25 idf of a term in RARE_TERM_SHARE of the chunks (large collections), the same in every collection."""


def rare_key_terms(question: str, tokens: Sequence[str], weights: Mapping[str, float] | None) -> list[str]:
    """The key terms that are rare in the collection (all of them when no idf is known)."""
    return [k for k in key_terms(question, tokens) if weights is None or weights.get(k, RARE_IDF) >= RARE_IDF]
