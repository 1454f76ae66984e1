"""What bunko says to the user in each language: abstentions, notices, direct replies and cross-language notes, in
the words of the answer's language (`bunko.text.lexicon.speaking`; the words live there).

Which language a text is in is judged in `bunko.text.languages`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from bunko.schema import AnswerSentence
from bunko.text.languages import text_language
from bunko.text.lazy_regex import lazy_compile
from bunko.text.lexicon import LANGUAGES, en, for_language, ja, speaking, zh
from bunko.text.scripts import JA_ZH_CHAR, KANA_CHAR

_ABSTAIN_CORE = [for_language(language).ABSTAIN_MESSAGE.rstrip("。.！!？? ") for language in LANGUAGES] + [
    *en.ABSTENTION_PHRASES, *ja.ABSTENTION_PHRASES, *zh.ABSTENTION_PHRASES,
]


def is_abstention(sentence: str) -> bool:
    """A "the documents do not say" sentence, in any of the three languages: a model's, or one written in a document.

    A document sentence that reads as an abstention is never quoted: an answer made of it would
    say "not found" while the answer is marked as not abstaining.
    """
    lowered = sentence.lower()
    return any(core.lower() in lowered for core in _ABSTAIN_CORE)


def cross_language_note(language: str, sources: list[str]) -> str:
    """Says, in the question's language, that the evidence is in another language."""
    says = speaking(language)
    names = says.LANGUAGE_NAMES
    langs = says.NAME_JOINER.join(names.get(s, s) for s in dict.fromkeys(sources))
    return says.CROSS_LANGUAGE_NOTE.format(langs=langs)


_WORD = lazy_compile(r"[(\"'“‘]*[A-Za-z]+(?:['’-][A-Za-z]+)*[.,;:!?)\"'”’]*")
PROSE_WORDS = 3
"""Words (space-separated, of letters only) from which a quote without CJK reads as English: fewer is a key
combination ("Ctrl+Shift+5"), a path, a code, a command's name or a number, which every language's page writes
alike."""


def quote_language(quote: str) -> str | None:
    """The language of one quoted unit, or None when it is written alike in every language (no CJK letter and fewer
    than PROSE_WORDS words: "Ctrl+Shift+5", "/etc/network/interfaces", "E-1024", "10,614,000")."""
    if not JA_ZH_CHAR.search(quote) and sum(1 for word in quote.split() if _WORD.fullmatch(word)) < PROSE_WORDS:
        return None
    return text_language(quote)


def cited_languages(sentences: Iterable[AnswerSentence], chunk_texts: Mapping[str, str] | None = None) -> list[str]:
    """The languages of the units an answer quotes, in order of first citation, each judged from its citation's own
    quote, not from the whole cited chunk: a Japanese sentence quoted from a chunk that is mostly an English command
    listing is Japanese material. A quote written alike in every language (`quote_language`) takes its chunk's
    language when `chunk_texts` (chunk id → text) holds the chunk, else it counts for none. A quote in Han characters
    alone (a row of names and amounts: 東京23区、一般社員：12,000円) reads as Chinese by its letters, but is Japanese
    in a Japanese passage."""
    languages: list[str] = []
    for sentence in sentences:
        for citation in sentence.citations:
            language = quote_language(citation.quote)
            chunk = chunk_texts.get(citation.chunk_id) if chunk_texts else None
            if chunk is not None and language is None:
                language = text_language(chunk)
            elif chunk is not None and language == "zh" and not KANA_CHAR.search(citation.quote) and text_language(chunk) == "ja":
                language = "ja"  # Han alone, which Japanese writes too, in a Japanese passage
            if language is not None and language not in languages:
                languages.append(language)
    return languages


def unverified_notice(language: str) -> str:
    """Said under an answer that shows a sentence the citation check did not support (the standard policy)."""
    return speaking(language).UNVERIFIED_NOTICE


def abstain_message(language: str) -> str:
    return speaking(language).ABSTAIN_MESSAGE


def direct_reply(language: str, kind: str, value: float | None = None) -> str:
    """The reply to a question that needs no documents (`generate/analysis.py`), saying that it is not from them."""
    if kind == "arithmetic" and value is not None:
        shown = f"{value:,.10g}" if abs(value) < 1e15 else f"{value:g}"
        return speaking(language).CALCULATED_REPLY.format(value=shown)
    return speaking(language).GREETING_REPLY


def recalled(key: str, language: str, text: str = "") -> str:
    """A phrase of the reply to a question about the conversation (`generate/recall.py`), in the question's language."""
    return speaking(language).RECALLED[key].format(text=text)


def no_conversation(language: str) -> str:
    return speaking(language).NO_CONVERSATION
