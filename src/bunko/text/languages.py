"""Which language a question, a passage or a chunk's tokens are in: Japanese, Chinese or English.

Every judgement of a text's language lives here, so retrieval, reranking, answers and
evaluation agree on it; the user-facing messages per language stay in `bunko.generate.language`.

A collection holding a manual and its translations returns the translation of the page
asked for next to it: the embedder puts translations close together. Preferring chunks
in the question's language (softly: an English answer to a Japanese question is still an
answer) keeps the translations below the pages in the question's language.

Judged from the analyzer's tokens rather than the text, so the local store can judge
every indexed chunk at load from its BM25 vocabulary, and every store judges the same way.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

import numpy as np
from scipy import sparse

from bunko.text.lazy_regex import lazy_compile
from bunko.text.scripts import HAN_CHAR, JA_ZH_CHAR, KANA_CHAR
from bunko.text.sentences import split_sentences

LANGUAGES = ("en", "ja", "zh")

CJK_SHARE = 0.5
"""Share of CJK tokens from which a chunk is Japanese or Chinese. A CJK bigram stands for about one character
and a Latin token for a word of five or six letters, so half the tokens is about 15 % of the letters: technical
CJK prose full of Latin names stays CJK, an English paragraph under a Japanese heading stays English."""
KANA_SHARE = 0.1
"""Share of kana among a chunk's CJK tokens from which it is Japanese: Japanese prose is half particles and
okurigana; a Chinese page quoting one Japanese name is not Japanese."""


DOCUMENT_CJK_SHARE = 0.1
"""Share of a document's chunks in Japanese or Chinese from which the document is Japanese or Chinese. English
inside a CJK document is common (commands, names, passages left untranslated: half the chunks of the Debian
Administrator's Handbook's ja and zh pages), CJK prose inside an English one rare."""


def token_classes(terms: Iterable[str]) -> np.ndarray:
    """0 for a Latin (or other) token, 1 for a Han-only token, 2 for a token holding kana."""
    return np.array([2 if KANA_CHAR.search(t) else 1 if HAN_CHAR.search(t) else 0 for t in terms], dtype=np.int8)


def row_languages(matrix: sparse.spmatrix, classes: np.ndarray) -> np.ndarray:
    """The language index (into LANGUAGES) of each row of a (rows × terms) matrix, from which terms it holds."""
    if matrix.shape[0] == 0:
        return np.zeros(0, dtype=np.int8)
    onehot = sparse.csr_matrix((np.ones(len(classes), dtype=np.float32), (np.arange(len(classes)), classes)), shape=(len(classes), 3))
    present = matrix.copy()
    present.data = np.ones_like(present.data)
    counts = np.asarray((present @ onehot).todense())
    return _languages(counts[:, 0], counts[:, 1], counts[:, 2])


def document_languages(row_language: np.ndarray, doc_of_row: np.ndarray, documents: int) -> np.ndarray:
    """The language index of each document from its rows' (`row_languages`): Japanese or Chinese (whichever has more
    rows) once DOCUMENT_CJK_SHARE of its rows are, English otherwise. A page of a translated manual is in the
    translation's language however much of it was left in English."""
    counts = np.zeros((documents, len(LANGUAGES)), dtype=np.int64)
    np.add.at(counts, (doc_of_row, row_language.astype(np.int64)), 1)
    cjk = counts[:, 1] + counts[:, 2]
    is_cjk = (cjk > 0) & (cjk >= DOCUMENT_CJK_SHARE * counts.sum(axis=1))
    return np.where(is_cjk, np.where(counts[:, 1] >= counts[:, 2], 1, 2), 0).astype(np.int8)


def tokens_language(tokens: Iterable[str]) -> str:
    """The language of one chunk from its tokens (each distinct token once), as `row_languages` judges rows."""
    classes = token_classes(set(tokens))
    counts = np.bincount(classes, minlength=3).astype(np.float64)
    return LANGUAGES[int(_languages(counts[[0]], counts[[1]], counts[[2]])[0])]


def _languages(latin: np.ndarray, han: np.ndarray, kana: np.ndarray) -> np.ndarray:
    cjk = han + kana
    is_cjk = (cjk > 0) & (cjk >= CJK_SHARE * (cjk + latin))
    japanese = kana >= KANA_SHARE * np.maximum(cjk, 1)
    return np.where(is_cjk, np.where(japanese, 1, 2), 0).astype(np.int8)


def query_language(question: str) -> str:
    """A question's language: one kana makes it Japanese; Han without kana is Chinese unless it writes a kanji form
    (`japanese_kanji`); anything else English."""
    if KANA_CHAR.search(question):
        return "ja"
    if HAN_CHAR.search(question):
        return "ja" if any(japanese_kanji(c) for c in HAN_CHAR.findall(question)) else "zh"
    return "en"


@functools.lru_cache(maxsize=8192)
def japanese_kanji(character: str) -> bool:
    """Whether a Han character is outside simplified Chinese's character set (GB 2312) and inside Japanese's (JIS X
    0208): 設, 駐, 職, 給 — where Chinese writes 设, 驻, 职, 给. A question in kanji alone ("sudo 設定", 駐車場料金) is
    Japanese; it was taken for Chinese and answered with a note in Chinese. Traditional Chinese, whose forms are mostly
    these too, reads as Japanese: bunko's Chinese is the simplified one. Kept per character (up to 8,192, more than
    either character set's Han): the two encodings tried for each Han character were a sixth of routing a Chinese
    question."""
    return not _encodes(character, "gb2312") and _encodes(character, "shift_jis")


def _encodes(character: str, codec: str) -> bool:
    try:
        character.encode(codec)
    except UnicodeEncodeError:
        return False
    return True


_LATIN = lazy_compile(r"[A-Za-z]")
TEXT_CJK_SHARE = 0.15
"""Share of kana and Han among a passage's letters from which it is Japanese or Chinese prose (technical CJK text
is full of Latin names)."""


def text_language(text: str) -> str:
    """The language of a passage by its letters: mostly Latin is English, else kana decides Japanese over Chinese.

    Unlike `query_language` (for questions, where one kana is decisive), a passage of an
    English manual that quotes one Japanese word stays English.
    """
    cjk = len(JA_ZH_CHAR.findall(text))
    latin = len(_LATIN.findall(text))
    if cjk == 0 or cjk < TEXT_CJK_SHARE * (cjk + latin):
        return "en"
    return "ja" if KANA_CHAR.search(text) else "zh"


def language_parts(question: str) -> list[str]:
    """A question that asks in more than one language, cut into one part per language ("閲覧室は何時に開きますか？
    When does the reading room open?": the Japanese sentence, then the English one); a single-language question is
    one part. Sentences are read in order and a run of sentences in one language is one part, so a Japanese question
    naming an English tool stays whole (a Latin word inside a CJK sentence is not a sentence of its own)."""
    parts: list[tuple[str, str]] = []
    for sentence in split_sentences(question):
        language = query_language(sentence)
        if parts and parts[-1][0] == language:
            parts[-1] = (language, parts[-1][1] + " " + sentence)
        else:
            parts.append((language, sentence))
    return [text for _, text in parts] if len(parts) > 1 else [question]


_LANGUAGE_FOLDER = lazy_compile(r"(en|ja|zh)(?:[-_][a-z0-9]{2,8})*", re.IGNORECASE)


def folder_language(source: str) -> str | None:
    """The language a document's folder names: the folder nearest the file whose name is a language tag of
    bunko's languages ("ja", "zh", "zh_CN", "zh-Hans", "ja-JP", "en_US"; case aside), else None.

    A translated manual keeps each language's pages in a folder named for it, so a page left untranslated
    is an English text in a ja/ or zh/ folder: the folder, not the text, says which readers it serves.
    Only folders count (a file named "en.html" is not a folder's language)."""
    folders = source.replace("\\", "/").split("/")[:-1]
    for name in reversed(folders):
        match = _LANGUAGE_FOLDER.fullmatch(name)
        if match:
            return match.group(1).lower()
    return None
