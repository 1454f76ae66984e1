"""The question's key terms: the named things (tools, packages, settings, identifiers) a passage must mention.

Retrieval, the evidence reranker and the grade all ask the same thing of a question: which of its
words name something that cannot be paraphrased, and which of those are rare in the collection
(a missing rare key term is the clearest sign the documents do not hold the answer).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence

from bunko.index.bm25_formula import share_idf
from bunko.text.analyzers import identifiers
from bunko.text.lazy_regex import lazy_compile
from bunko.text.lexicon import en, ja, zh
from bunko.text.scripts import has_ja_zh
from bunko.text.word_frequency import zipf_en

_LATIN_WORD = lazy_compile(r"[A-Za-z][A-Za-z0-9]*(?:[-_.+:/][A-Za-z0-9]+)*")
_DOTTED_NAME = lazy_compile(r"[a-z][a-z0-9-]*(?:[._][a-z0-9]{2,})+")
"""A lower-case name with a dot or underscore inside: a file (``journald.conf``), a setting (``vm.swappiness``,
``sshd_config``) — named things however they are written."""
_EXAMPLE = lazy_compile(
    f"{en.EXAMPLE}|{ja.EXAMPLE}|{zh.EXAMPLE}|{ja.EXAMPLE_LIKE}|{zh.EXAMPLE_LIKE}",
    re.IGNORECASE,
)
"""An example the question gives ("e.g. Portuguese first, then Spanish", 例えば日本語, 比如中文, Mozc のような,
像 /tmp 这样, "dch などのツール", "dch 等工具" — a Latin name spaced from など / 等 as ja and zh write it): its names
illustrate what is asked and need not appear in the passage that answers it."""
_PLACEHOLDER = lazy_compile(r"[._:-](?:x+|\*)(?=$|[._:-])", re.IGNORECASE)
"""A part written as a wildcard after the first ("192.168.x.x", "2.6.x", "10.0.*"): the term is a pattern standing for
many names, and a passage writes one of them (192.168.0.0/16, 168.192.in-addr.arpa), never the pattern."""


def outside_examples(question: str) -> str:
    """The question with its examples blanked out (same length, so positions keep their meaning)."""
    return _EXAMPLE.sub(lambda m: " " * len(m.group(0)), question)


def _is_extension(text: str, start: int) -> bool:
    """Whether the word at `start` is written as a file extension (" .docx", "(.deb"): a dot before it and no word
    before the dot, so ``journald.conf``'s "conf" is not one."""
    return start > 0 and text[start - 1] == "." and (start == 1 or not text[start - 2].isalnum())


def key_terms(question: str, tokens: Sequence[str], examples: bool = True) -> list[str]:
    """The question's named things, as analyzer tokens: what a passage must mention to be about it.

    Identifiers (``fcitx5``, ``apt-cacher-ng``, ``E-1024``) always; in a Japanese or
    Chinese question every Latin word (there it names a tool, a package, a setting);
    in an English question the words written with a capital inside the sentence
    (``Wayland``, ``PolicyKit``), dotted names (``journald.conf``) and file extensions (``.docx``) —
    a common word can be paraphrased, a name cannot.
    With `examples` False, names inside an example the question gives (`outside_examples`) are left out.
    """
    present = set(tokens)
    asked = question if examples else outside_examples(question)
    illustrations = set(_LATIN_WORD.findall(question.casefold())) - set(_LATIN_WORD.findall(asked.casefold())) if not examples else set()
    found: list[str] = [t for t in identifiers(list(tokens)) if t not in illustrations and not _PLACEHOLDER.search(t)]
    cjk_question = has_ja_zh(question)
    for match in _LATIN_WORD.finditer(asked):
        at_start = not asked[: match.start()].strip() or asked[: match.start()].rstrip()[-1:] in ".?!"
        in_path = match.start() > 0 and asked[match.start() - 1] in "/~."
        for word in [match.group(0)] if in_path else named_parts(match.group(0)):
            named = (
                cjk_question or (not at_start and any(c.isupper() for c in word)) or (word.isupper() and len(word) > 1)
                or bool(_DOTTED_NAME.fullmatch(word)) or _is_extension(asked, match.start())
            )
            candidate = word.lower()
            if named and candidate in present and candidate not in en.STOPWORDS and len(candidate) > 1:
                found.append(candidate)
    return list(dict.fromkeys(found))


def named_parts(word: str) -> list[str]:
    """The names a written word stands for: each side of one slash between two plain words ("Solaris/SunOS" names
    Solaris or SunOS, and a passage writes "Solaris, SunOS"; a path such as etc/ssh/sshd_config stays whole), and in
    a hyphenated word of names and common lower-case words only the names ("LDAP-based", "Debian-specific": the
    passage says LDAP). A hyphenated name stays whole ("HP-UX", "x86-64", "apt-cacher-ng"): its parts alone name
    something else."""
    alternatives = word.split("/")
    if len(alternatives) != 2 or re.search(r"[._:+]", word):
        alternatives = [word]
    parts = []
    for alternative in alternatives:
        pieces = alternative.split("-")
        names = [piece for piece in pieces if any(c.isupper() for c in piece)]
        common = [piece for piece in pieces if piece.isalpha() and piece.islower()]
        mixed = len(pieces) > 1 and names and len(names) + len(common) == len(pieces) and common
        parts.extend(names if mixed else [alternative])
    return [part for part in parts if part]


UNLISTED_ZIPF = 1.0
"""An English word rarer than this on the Zipf scale (once in 100 million words; `wordfreq`) is unlisted: "autopkgtest",
"pybuild", "debhelper-compat" are names, while "tarball" (1.3) and "refurbish" (2.6) are words the documents may
paraphrase."""


def unlisted_words(question: str, tokens: Sequence[str]) -> list[str]:
    """The words of an English question, as analyzer tokens, that no English word list holds: names written in lower
    case ("How do I add autopkgtest tests…?"), which `key_terms` reads only when capitalised or dotted. A collection
    that never writes one does not answer the question. Not a key term otherwise: a lower-case name is no surer a
    subject than the question's other words. None for a Japanese or Chinese question, whose Latin words are key terms."""
    if has_ja_zh(question):
        return []
    present = set(tokens)
    words = dict.fromkeys(word.casefold() for word in _LATIN_WORD.findall(question) if "/" not in word)
    return [
        word for word in words
        if word in present and len(word) >= 4 and word not in en.STOPWORDS and not any(c.isdigit() for c in word)
        and zipf_en(word) < UNLISTED_ZIPF
    ]


RARE_TERM_SHARE = 0.1
"""A key term held by fewer than this share of the chunks names something specific ("fcitx5", "tmpfs");
a name on every page ("Debian" in the Debian manuals) does not say what a passage is about."""
RARE_IDF = share_idf(RARE_TERM_SHARE)
"""BM25 idf of a term in RARE_TERM_SHARE of the chunks (large collections), the same in every collection."""


def rare_key_terms(named: Sequence[str], weights: Mapping[str, float] | None) -> list[str]:
    """Of the key terms `named` outside the question's examples (`QuestionFacts.named_outside_examples`), those rare
    in the collection (all of them when no idf is known): a passage answering "…e.g. Portuguese first, then
    Spanish?" need not name Spanish. The examples still count for `key_terms`, so one the collection never names
    still refuses the question (``key_term_absent``)."""
    return [k for k in named if weights is None or weights.get(k, RARE_IDF) >= RARE_IDF]


INFLECTION = 2
"""Letters a name may gain or lose and still be the same name ("bashism" / "bashisms", "daemon" / "daemons")."""


def rarest_term(terms: Sequence[str], weights: Mapping[str, float] | None) -> str:
    """The most specific of the question's rare key terms: what the question is about when it also names the
    common things around it ("virtualbox" beside main/contrib/non-free, LVM beside ext4). The first one when no idf is known."""
    if not weights:
        return terms[0]
    return max(terms, key=lambda term: weights.get(term, 0.0))


_KATAKANA_WORD = lazy_compile(r"[ァ-ヺ][ァ-ヺー]{2,}")
"""A katakana word of three letters or more: in Japanese the names of things borrowed from other languages
(リファレンス, シングルユーザーモード), written as one word where a Chinese or English question would use a name."""


def katakana_subject(question: str, weights: Mapping[str, float] | None) -> str | None:
    """The rarest katakana word of a Japanese question when it is rare in the collection: the subject of a question
    that names no rare Latin key term ("Debian リファレンス第2版…" names only "Debian", on every page). A word is as rare as
    its rarest character bigram at least (the analyzer's tokens, whose idf `weights` holds), so a rare bigram makes a
    rare word. None without idf or without such a word, and so always None when the analyzer makes morphemes instead
    of bigrams (a dictionary segmenter): the bigrams then have no idf, and nothing is required rather than guessed."""
    if not weights:
        return None
    rarity = {
        word: max((weights.get(word[i : i + 2], 0.0) for i in range(len(word) - 1)), default=0.0)
        for word in _KATAKANA_WORD.findall(question)
    }
    if not rarity:
        return None
    word = max(rarity, key=lambda w: rarity[w])
    return word if rarity[word] >= RARE_IDF else None


HEAD_LETTERS = 4
"""Least length of the head word of a katakana compound (アドレス of メールアドレス)."""


def writes_word(text: str, word: str) -> bool:
    """Whether `text` writes the katakana `word`, with or without its final long-vowel mark (メモリー / メモリ), or the
    last word of a compound one: a Japanese compound is a kind of its head (メールアドレス is an アドレス), and a passage
    says "email アドレス" where the question says メールアドレス. A head is HEAD_LETTERS letters or more, starts with a
    full-size letter and leaves two letters or more before it (リファレンス has no head: "ァレンス" starts small)."""
    written = unicodedata.normalize("NFKC", text)
    stem = word.rstrip("ー")
    if stem in written:
        return True
    heads = (stem[start:] for start in range(2, len(stem) - HEAD_LETTERS + 1) if stem[start] not in ja.SMALL_KANA)
    return any(head in written for head in heads)


def names_term(tokens: set[str], term: str) -> bool:
    """Whether `tokens` hold `term`, or a Latin token that is `term` with a short inflection added or removed."""
    if term in tokens:
        return True
    if not term.isascii() or len(term) < 4:
        return False
    return any(
        abs(len(token) - len(term)) <= INFLECTION and (token.startswith(term) or term.startswith(token)) and len(token) >= 4
        for token in tokens
    )
