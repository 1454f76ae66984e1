"""The Unicode ranges of the scripts bunko reads, each written once, and the few judgements made from them.

Nine modules used to write their own ranges, and they had drifted: one counted the
compatibility ideographs as Han and another did not, one glued Hangul words together
where another kept them apart. Every fragment here is a regex character-class body
(``f"[{KANA}]"``), so modules compose the class they need from the same parts.

Hangul, decided once: it belongs with the CJK scripts wherever text is cut into
tokens or counted (`CJK`: analyzer bigrams, token estimates), because a Hangul
syllable, like a Han character, is one unit of a word, and Lucene's CJKAnalyzer
bigrams it for the same reason. It does not belong with the scripts written
without spaces (`UNSPACED`: joining PDF/OCR words, HTML source line breaks):
Korean, unlike Japanese and Chinese, puts a space between words, so gluing its
words together would merge them. It never decides a language: bunko answers in
Japanese, Chinese or English, and Hangul is none of them (`JA_ZH`).
"""

from __future__ import annotations

from bunko.text.lazy_regex import lazy_compile

HIRAGANA = r"\u3040-\u309f"
"""Japanese particles and endings: a token holding one is grammar more often than content."""
KATAKANA = r"\u30a0-\u30ff"
KANA = HIRAGANA + KATAKANA
"""Only Japanese writes kana: one kana tells Japanese from Chinese."""

HAN_UNIFIED = r"\u3400-\u4dbf\u4e00-\u9fff"
"""CJK Unified Ideographs and Extension A: the Han characters of everyday Japanese and Chinese."""
HAN_COMPATIBILITY = r"\uf900-\ufaff"
HAN_SUPPLEMENTARY = r"\U00020000-\U0002f7ff"
"""Extensions B and later (plane 2): rare characters, names and historical forms."""
HAN_COMPATIBILITY_SUPPLEMENT = r"\U0002f800-\U0002fa1f"
HAN = HAN_UNIFIED + HAN_COMPATIBILITY + HAN_SUPPLEMENTARY + HAN_COMPATIBILITY_SUPPLEMENT

HANGUL = r"\uac00-\ud7af"
"""Hangul syllables (see the module docstring for where Korean counts as CJK and where it does not)."""

CJK_PUNCTUATION = r"\u3000-\u303f"
"""The ideographic space, 、。「」『』【】 and their kin."""
FULL_WIDTH = r"\uff00-\uffef"
"""Full-width Latin letters, digits and punctuation (ＡＢＣ１２３，：？) and half-width katakana."""
CJK_RADICALS = r"\u2e80-\u2fdf"
"""Radicals and Kangxi radicals: PDF fonts emit ⽇ where the text means 日."""
LATIN_LIGATURES = r"\ufb00-\ufb4f"
"""Alphabetic presentation forms: ﬁ, ﬂ and their kin, again what PDF fonts emit."""

JA_ZH = KANA + HAN
"""The letters that make a text Japanese or Chinese."""
CJK = KANA + HAN + HANGUL
"""Scripts whose every character is a unit of a word: cut into character bigrams, counted one token a character."""
UNSPACED = CJK_PUNCTUATION + KANA + HAN + FULL_WIDTH
"""Scripts written without spaces between words: no space is put (or kept) between two of their characters."""

KANA_CHAR = lazy_compile(f"[{KANA}]")
HAN_CHAR = lazy_compile(f"[{HAN}]")
JA_ZH_CHAR = lazy_compile(f"[{JA_ZH}]")
CJK_CHAR = lazy_compile(f"[{CJK}]")
UNSPACED_CHAR = lazy_compile(f"[{UNSPACED}]")


def is_unspaced(char: str) -> bool:
    """Whether `char` is written without spaces around it (Japanese, Chinese, their punctuation and full-width forms)."""
    return bool(char) and UNSPACED_CHAR.match(char) is not None


def starts_unspaced(text: str) -> bool:
    return is_unspaced(text[:1])


def has_ja_zh(text: str) -> bool:
    """Whether any Japanese or Chinese letter (kana or Han) is in `text`."""
    return JA_ZH_CHAR.search(text) is not None


def count_cjk(text: str) -> int:
    return len(CJK_CHAR.findall(text))
