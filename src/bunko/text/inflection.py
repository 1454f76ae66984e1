"""English plural to singular, for entity keys: `packages` is `package`, and `alias`, `status`, `series` stay.

A suffix rule alone eats the s of singular words ("alias" → "alia", "lens" → "len", "news" → "new") and picks the
wrong ending of many plurals ("caches" → "cach", "sizes" → "siz", "cookies" → "cooky"). The rules here, in order:

1. the list `lexicon/en/singulars.txt` (a package file of the English lexicon, where word lists live): singular words ending in s, kept as they are, and irregular
   plurals with their singular (indices → index, analyses → analysis);
2. a word ending in -ss, -us, -is or -ous is singular (class, status, analysis, previous); -yses is -ysis;
3. a word ending in -es or -ies has several possible singulars (caches: cache or cach; sizes: size or siz; cookies:
   cookie or cooky; quizzes: quizze, quizz or quiz): the one most frequent as an English word wins (wordfreq's
   Zipf frequency, offline). When none is a word at all, the suffix rule of old decides;
4. any other word ending in s loses it (packages, users, configs: unknown technical words too).

No English lemmatizer or inflector (lemminflect, inflect, NLTK's WordNet) is a dependency of bunko; wordfreq is.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

from bunko.text.word_frequency import zipf_en

LIST_FILE = "singulars.txt"
MIN_LENGTH = 4
"""Shorter words are left alone: "gas", "bus", "yes", "its"."""
WORD_ZIPF = 1.0
"""A candidate singular rarer than this (once in 100 million words) is not taken for an English word."""
MIN_STEM = 3
"""A candidate shorter than this is not considered ("toes" is not "to", "uses" is not "us")."""


@cache
def _lists() -> tuple[frozenset[str], dict[str, str]]:
    """(singular words ending in s, irregular plural → singular), from the package's list file."""
    text = resources.files("bunko.text.lexicon.en").joinpath(LIST_FILE).read_text("utf-8")
    invariant: set[str] = set()
    irregular: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.split()
        if len(words) == 1:
            invariant.add(words[0])
        elif len(words) == 2:
            irregular[words[0]] = words[1]
        else:
            raise ValueError(f"{LIST_FILE}:{number}: expected a word, or a plural and its singular: {raw!r}")
    return frozenset(invariant), irregular


def _zipf(word: str) -> float:
    return zipf_en(word)


def _suffix_rule(word: str) -> str:
    """The rule before word frequencies: libraries → library, classes → class, boxes → box, packages → package."""
    if word.endswith("ies") and len(word) > MIN_LENGTH:
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes", "zes")):
        return word[:-2]
    return word[:-1]


def _candidates(word: str) -> list[str]:
    """The singulars a word ending in -es or -ies may have."""
    if word.endswith("ies"):
        found = [word[:-3] + "y", word[:-1]]
    else:
        found = [word[:-1], word[:-2]]
        if word.endswith("zzes"):
            found.append(word[:-3])
    return [c for c in found if len(c) >= MIN_STEM]


@cache
def singular(word: str) -> str:
    """The singular of a lower-case English word, or the word itself when it is not a plural (see the module)."""
    invariant, irregular = _lists()
    if word in irregular:
        return irregular[word]
    if len(word) < MIN_LENGTH or not word.isalpha() or not word.endswith("s") or word in invariant:
        return word
    if word.endswith(("ss", "us", "is", "ous")):
        return word
    if word.endswith("yses"):
        return word[:-2] + "is"
    if word.endswith("es"):
        scored = [(_zipf(c), c) for c in _candidates(word)]
        best = max(scored, default=(0.0, word))
        return best[1] if best[0] >= WORD_ZIPF else _suffix_rule(word)
    return word[:-1]


def acronym_plural(written: str) -> bool:
    """A plural written as an acronym and a small s: APIs, URLs, IDs, CPUs (their singular drops the s)."""
    return len(written) >= 3 and written.endswith("s") and written[:-1].isalpha() and written[:-1].isupper()


def acronym(written: str) -> bool:
    """A word written as an acronym or a brand whose final S is part of it: DNS, AWS, HTTPS, macOS, iOS — not a
    plural, however it reads lower-cased. An acronym's plural writes its s small (APIs, URLs)."""
    return written.endswith("S") and any(c.isupper() for c in written[:-1]) and (len(written) <= 5 or not written.isupper())
