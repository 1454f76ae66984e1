"""What bunko says to the user in each language: abstentions and cross-language notes.

Which language a text is in is judged in `bunko.text.languages`."""

from __future__ import annotations

ABSTAIN_MESSAGES = {
    "ja": "資料内では確認できません。",
    "zh": "资料中未找到相关内容。",
    "en": "The documents do not contain this.",
}

_ABSTAIN_CORE = [m.rstrip("。.！!？? ") for m in ABSTAIN_MESSAGES.values()] + [
    "documents do not contain", "sources do not contain", "資料内では確認できません", "资料中未找到",
]


def is_abstention(sentence: str) -> bool:
    """A "the documents do not say" sentence, in any of the three languages: a model's, or one written in a document.

    A document sentence that reads as an abstention is never quoted: an answer made of it would
    say "not found" while the answer is marked as not abstaining.
    """
    lowered = sentence.lower()
    return any(core.lower() in lowered for core in _ABSTAIN_CORE)


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


_GREETING_REPLIES = {
    "ja": "こんにちは。資料について質問してください。出典を付けてお答えします。",
    "zh": "您好。请就资料提问，我会附上出处作答。",
    "en": "Hello. Ask a question about your documents and I will answer it with citations.",
}
_CALCULATED = {"ja": "{value}（計算した結果です。資料からの回答ではありません）", "zh": "{value}（计算结果，并非来自资料）",
               "en": "{value} (calculated; not from the documents)."}


def direct_reply(language: str, kind: str, value: float | None = None) -> str:
    """The reply to a question that needs no documents (`generate/analysis.py`), saying that it is not from them."""
    if kind == "arithmetic" and value is not None:
        shown = f"{value:,.10g}" if abs(value) < 1e15 else f"{value:g}"
        return _CALCULATED.get(language, _CALCULATED["en"]).format(value=shown)
    return _GREETING_REPLIES.get(language, _GREETING_REPLIES["en"])
