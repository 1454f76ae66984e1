"""Joining words the way each script expects: spaces between Latin words, none between CJK characters.

PDF text layers and OCR both hand back words; gluing them with " " puts spaces
inside Japanese and Chinese sentences (which breaks phrase search), gluing them
with "" runs English words together. The choice depends on the characters at
the seam.
"""

from __future__ import annotations

import unicodedata

from bunko.text.lazy_regex import lazy_compile
from bunko.text.scripts import CJK_RADICALS, HAN_COMPATIBILITY, HAN_COMPATIBILITY_SUPPLEMENT, LATIN_LIGATURES, is_unspaced

_FOLDABLE = lazy_compile(f"[{CJK_RADICALS}{HAN_COMPATIBILITY}{LATIN_LIGATURES}{HAN_COMPATIBILITY_SUPPLEMENT}]")


def join_words(words: list[str]) -> str:
    """Concatenate words, with a space except where either side is written without spaces (Japanese, Chinese)."""
    out = ""
    for word in words:
        if not word:
            continue
        if out and not (is_unspaced(out[-1]) or is_unspaced(word[0])):
            out += " "
        out += word
    return out


def normalize(text: str) -> str:
    """Fold what PDF fonts emit for look-alikes: radicals (⽇ → 日), compatibility ideographs, ligatures (ﬁ → fi).

    Full NFKC would also turn the full-width punctuation of Chinese and Japanese
    text (，：) into ASCII, changing the document; only these ranges are folded.
    """
    if not _FOLDABLE.search(text):
        return text
    return _FOLDABLE.sub(lambda m: unicodedata.normalize("NFKC", m.group(0)), text)
