"""Text normalisation for fact matching, so "１２，０００円" in an answer matches "12,000円" in a golden set.

Steps, in order (each one exists because a correct answer was once scored wrong without it):

1. NFKC: full-width digits, letters and punctuation become their ASCII forms, half-width
   katakana becomes full-width (１２ → 12, ＡＰＩ → API, ｶﾀｶﾅ → カタカナ).
2. casefold (API → api).
3. thousands separators between digits are dropped (12,000 → 12000; 1,234,567 → 1234567).
4. punctuation (Unicode category P*) becomes a space — except "." and "," between digits,
   which are decimal marks (1.5 must not become 15), and "%" / "‰", which carry meaning (5% is
   not 5). Symbols (¥, $, +) are not punctuation and stay.
5. whitespace collapses; a space survives only between two ASCII letters/digits, so CJK text
   with or without spaces ("30 日" / "30日") compares equal while "a bc" ≠ "ab c".

Matching (:func:`contains`) then requires that an expected value starting or ending with an ASCII
letter/digit is not glued to another one in the answer: "30日" does not match "130日", "5" does
not match "15"; CJK characters need no boundary because CJK text has no spaces.
"""

from __future__ import annotations

import unicodedata

from bunko.text.lazy_regex import lazy_compile

_THOUSANDS = lazy_compile(r"(?<=\d),(?=\d{3}(?!\d))")
_SPACES = lazy_compile(r"\s+")
_KEPT = frozenset("%‰")


def _is_word(char: str) -> bool:
    return char.isascii() and char.isalnum()


def normalize(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).casefold()
    while True:  # 1,234,567: each pass removes the separators not followed by another group
        stripped = _THOUSANDS.sub("", text)
        if stripped == text:
            break
        text = stripped
    chars: list[str] = []
    for index, char in enumerate(text):
        if unicodedata.category(char).startswith("P") and char not in _KEPT:
            between_digits = 0 < index < len(text) - 1 and text[index - 1].isdigit() and text[index + 1].isdigit()
            chars.append(char if char in ".," and between_digits else " ")
        else:
            chars.append(char)
    collapsed = _SPACES.sub(" ", "".join(chars)).strip()
    out: list[str] = []
    for index, char in enumerate(collapsed):
        if char == " " and not (_is_word(collapsed[index - 1]) and _is_word(collapsed[index + 1])):
            continue
        out.append(char)
    return "".join(out)


def contains(haystack: str, needle: str) -> bool:
    """Whether normalised `needle` occurs in normalised `haystack` on word boundaries (for ASCII edges)."""
    text, target = normalize(haystack), normalize(needle)
    if not target:
        return False
    start = text.find(target)
    while start != -1:
        end = start + len(target)
        left_ok = not (_is_word(target[0]) and start > 0 and _is_word(text[start - 1]))
        right_ok = not (_is_word(target[-1]) and end < len(text) and _is_word(text[end]))
        if left_ok and right_ok:
            return True
        start = text.find(target, start + 1)
    return False
