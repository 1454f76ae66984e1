"""Which language a question is in, so abstentions and messages answer in kind."""

from __future__ import annotations

import re

from bunko.text.languages import query_language

_KANA = re.compile(r"[\u3040-\u30ff]")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")

ABSTAIN_MESSAGES = {
    "ja": "資料内では確認できません。",
    "zh": "资料中未找到相关内容。",
    "en": "The documents do not contain this.",
}


def detect_language(text: str) -> str:
    """Kana means Japanese; Han without kana means Chinese; anything else English (retrieval's rule)."""
    return query_language(text)


_LATIN = re.compile(r"[A-Za-z]")
CJK_SHARE = 0.15
"""Share of CJK among letters above which a text is Japanese or Chinese prose (technical CJK text is full of Latin names)."""


def text_language(text: str) -> str:
    """The language of a passage by its letters: mostly Latin is English, else kana decides Japanese over Chinese.

    Unlike `detect_language` (for questions, where one kana is decisive), a passage of an
    English manual that quotes one Japanese word stays English.
    """
    cjk = len(_HAN.findall(text)) + len(_KANA.findall(text))
    latin = len(_LATIN.findall(text))
    if cjk == 0 or cjk < CJK_SHARE * (cjk + latin):
        return "en"
    return "ja" if _KANA.search(text) else "zh"


CROSS_LANGUAGE_NOTES = {
    "ja": "（この回答は{langs}の資料に基づいています。）",
    "zh": "（此回答依据{langs}资料。）",
    "en": "(This answer is based on {langs} documents.)",
}
LANGUAGE_NAMES = {
    "ja": {"ja": "日本語", "zh": "中国語", "en": "英語"},
    "zh": {"ja": "日语", "zh": "中文", "en": "英文"},
    "en": {"ja": "Japanese", "zh": "Chinese", "en": "English"},
}


def cross_language_note(language: str, sources: list[str]) -> str:
    """Says, in the question's language, that the evidence is in another language."""
    names = LANGUAGE_NAMES.get(language, LANGUAGE_NAMES["en"])
    joiner = "、" if language in ("ja", "zh") else " and "
    langs = joiner.join(names.get(s, s) for s in dict.fromkeys(sources))
    return CROSS_LANGUAGE_NOTES.get(language, CROSS_LANGUAGE_NOTES["en"]).format(langs=langs)


def abstain_message(language: str) -> str:
    return ABSTAIN_MESSAGES.get(language, ABSTAIN_MESSAGES["en"])
