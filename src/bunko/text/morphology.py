"""Morphological analyzers for Japanese (SudachiPy, Janome) and Chinese (jieba), behind extras.

Character bigrams find every Japanese and Chinese match but also false ones
(「京都」 inside 「東京都」); a dictionary segmenter gives words instead. The
language of each input decides the segmenter: text with kana is Japanese,
other Han text is Chinese; Latin words, codes and numbers go through the same
rules as the multilingual analyzer, so only the CJK side changes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import cache

from bunko.errors import ConfigError
from bunko.text.analyzers import Analyzer, cjk_bigrams, multilingual, normalize
from bunko.text.lazy_regex import lazy_compile
from bunko.text.scripts import JA_ZH, KANA_CHAR

_JA_ZH_RUN = lazy_compile(f"[{JA_ZH}]+")
_PUNCT_ONLY = lazy_compile(r"^[\W_]+$")

Segmenter = Callable[[str], list[str]]


def _missing(package: str, extra: str) -> ConfigError:
    return ConfigError(f"[retrieve] analyzer: this analyzer needs {package}: pip install 'bunko[{extra}]'")


@cache
def sudachi() -> Segmenter:
    try:
        from sudachipy import dictionary, tokenizer
    except ImportError:
        raise _missing("sudachipy and sudachidict-core", "ja") from None
    shared = dictionary.Dictionary(dict="core")
    mode = tokenizer.Tokenizer.SplitMode.A
    per_thread = threading.local()  # a SudachiPy tokenizer cannot be used by two threads at once; the dictionary can

    def normalized(text: str) -> list[str]:
        segmenter = getattr(per_thread, "segmenter", None)
        if segmenter is None:
            segmenter = per_thread.segmenter = shared.tokenizer()
        return [m.normalized_form() for m in segmenter.tokenize(text, mode)]

    return normalized


@cache
def janome() -> Segmenter:
    try:
        from janome.tokenizer import Tokenizer
    except ImportError:
        raise _missing("janome", "ja-janome") from None
    segmenter = Tokenizer()

    def base_forms(text: str) -> list[str]:
        # tokenize() is typed Token | str because wakati mode yields bare strings;
        # this tokenizer is not in wakati mode, but a string is its own surface.
        return [t if isinstance(t, str) else t.base_form if t.base_form != "*" else t.surface for t in segmenter.tokenize(text)]

    return base_forms


@cache
def jieba_search() -> Segmenter:
    try:
        import jieba
    except ImportError:
        raise _missing("jieba", "zh") from None
    jieba.setLogLevel(60)
    return lambda text: list(jieba.cut_for_search(text))


def morphological(japanese: Callable[[], Segmenter] | None, chinese: Callable[[], Segmenter] | None) -> Analyzer:
    def analyze(text: str) -> list[str]:
        text = normalize(text)
        segmenter_factory = japanese if KANA_CHAR.search(text) else chinese
        tokens = multilingual(_JA_ZH_RUN.sub(" ", text))
        for run in _JA_ZH_RUN.findall(text):
            words = segmenter_factory()(run) if segmenter_factory else cjk_bigrams(run)
            tokens.extend(w for w in (word.strip() for word in words) if w and not _PUNCT_ONLY.match(w))
        return tokens

    return analyze


MORPHOLOGICAL: dict[str, Callable[[], Analyzer]] = {
    "sudachi": lambda: morphological(sudachi, None),
    "janome": lambda: morphological(janome, None),
    "jieba": lambda: morphological(None, jieba_search),
    "sudachi+jieba": lambda: morphological(sudachi, jieba_search),
    "janome+jieba": lambda: morphological(janome, jieba_search),
}
