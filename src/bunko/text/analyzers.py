"""Text → keyword tokens, the same for documents and queries.

Whitespace tokenizers find nothing in Japanese or Chinese, which have no spaces.
The multilingual analyzer turns every run of CJK characters into overlapping
character bigrams (the approach of Lucene's CJKAnalyzer), lower-cases Latin
words, and keeps identifiers such as ``E-1024``, ``ERR_CONN_RESET`` or
``v2.3.1`` whole *and* as parts, so both exact codes and their pieces match.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from bunko.text.lazy_regex import lazy_compile
from bunko.text.lexicon import en, ja, zh
from bunko.text.scripts import CJK

_WORD_CHAR = rf"[^\W_{CJK}]"
_TOKEN = lazy_compile(rf"(?P<cjk>[{CJK}]+)|(?P<word>{_WORD_CHAR}+(?:[-_./:,]{_WORD_CHAR}+)*)", re.UNICODE)
_SPLIT_CODE = lazy_compile(r"[-_./:,]")

Analyzer = Callable[[str], list[str]]



QUESTION_FORMS = ja.QUESTION_FORMS + zh.QUESTION_FORMS
"""The Japanese and Chinese counterpart of the question words in en.STOPWORDS.

CJK text has no spaces to drop a stop word at, so a question's phrasing turns into
bigrams (について → につ, いて) that carry idf, match nothing the answer says and dilute
the question's coverage: on the Debian Reference questions, dropping them from the query
lifted keyword nDCG@10 from 0.955 to 0.981 (ja) and 0.986 to 0.990 (zh)
(bench/bench_fusion.py). Applied to queries only, so indexes stay as they are."""

_QUESTION_FORM = lazy_compile("|".join(re.escape(form) for form in sorted(QUESTION_FORMS, key=len, reverse=True)))


def query_text(question: str) -> str:
    """The question without its Japanese/Chinese question phrasing; unchanged if nothing else would remain."""
    stripped = _QUESTION_FORM.sub(" ", normalize(question))
    return stripped if stripped.strip(" ？?。！!、,") else question


def normalize(text: str) -> str:
    """NFKC folds full-width letters and digits (ＡＢＣ１２３ → ABC123) and lower-cases."""
    return unicodedata.normalize("NFKC", text).lower()


def cjk_bigrams(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def multilingual(text: str) -> list[str]:
    tokens: list[str] = []
    for match in _TOKEN.finditer(normalize(text)):
        if match.group("cjk"):
            tokens.extend(cjk_bigrams(match.group("cjk")))
            continue
        word = match.group("word")
        if word in en.STOPWORDS:
            continue
        tokens.append(word)
        if _SPLIT_CODE.search(word):
            tokens.extend(part for part in _SPLIT_CODE.split(word) if len(part) > 1 or part.isdigit())
    return tokens


_IDENTIFIER = lazy_compile(r"^(?=.*\d)(?=.*[a-z])[a-z0-9]+(?:[-_./:][a-z0-9]+)*$|^[a-z0-9]+(?:_[a-z0-9]+)+$")


_DIGIT_OR_UNDERSCORE = lazy_compile(r"[\d_]")
"""Every identifier holds a digit or an underscore (`_IDENTIFIER`'s two branches): tokens with neither are none."""


def identifiers(tokens: list[str]) -> set[str]:
    """Tokens that name one thing exactly — error codes, IDs, versions: E-1024, err_conn_reset, v2.3."""
    if _DIGIT_OR_UNDERSCORE.search(" ".join(tokens)) is None:  # one search instead of one match per token
        return set()
    return {t for t in tokens if _IDENTIFIER.match(t)}


def get_analyzer(name: str) -> Analyzer:
    """"multilingual" (default, no dependencies) or a morphological one: sudachi, janome, jieba, sudachi+jieba, janome+jieba."""
    if name == "multilingual":
        return multilingual
    from bunko.text.morphology import MORPHOLOGICAL

    try:
        return MORPHOLOGICAL[name]()
    except KeyError:
        available = ["multilingual", *sorted(MORPHOLOGICAL)]
        raise ValueError(f"unknown analyzer {name!r}; available: {', '.join(available)}") from None
