"""Joining words the way each script expects: spaces between Latin words, none between CJK characters.

PDF text layers and OCR both hand back words; gluing them with " " puts spaces
inside Japanese and Chinese sentences (which breaks phrase search), gluing them
with "" runs English words together. The choice depends on the characters at
the seam.
"""

from __future__ import annotations

import unicodedata


def is_cjk(char: str) -> bool:
    """Han, kana, Hangul and full-width punctuation: scripts written without spaces."""
    if not char:
        return False
    code = ord(char)
    return (
        0x3000 <= code <= 0x30FF  # CJK punctuation, hiragana, katakana
        or 0x3400 <= code <= 0x4DBF
        or 0x4E00 <= code <= 0x9FFF
        or 0xF900 <= code <= 0xFAFF
        or 0xFF00 <= code <= 0xFFEF  # full-width forms
        or 0xAC00 <= code <= 0xD7AF
        or 0x20000 <= code <= 0x2FA1F
    )


def join_words(words: list[str]) -> str:
    """Concatenate words, with a space only where a Latin word meets another Latin word."""
    out = ""
    for word in words:
        if not word:
            continue
        if out and not (is_cjk(out[-1]) or is_cjk(word[0])):
            out += " "
        out += word
    return out


def _foldable(char: str) -> bool:
    code = ord(char)
    return 0x2E80 <= code <= 0x2FDF or 0xF900 <= code <= 0xFAFF or 0xFB00 <= code <= 0xFB4F or 0x2F800 <= code <= 0x2FA1F


def normalize(text: str) -> str:
    """Fold what PDF fonts emit for look-alikes: radicals (⽇ → 日), compatibility ideographs, ligatures (ﬁ → fi).

    Full NFKC would also turn the full-width punctuation of Chinese and Japanese
    text (，：) into ASCII, changing the document; only these ranges are folded.
    """
    if not any(_foldable(c) for c in text):
        return text
    return "".join(unicodedata.normalize("NFKC", c) if _foldable(c) else c for c in text)
