"""Which language a question is in, so abstentions and messages answer in kind."""

from __future__ import annotations

import re

_KANA = re.compile(r"[\u3040-\u30ff]")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")

ABSTAIN_MESSAGES = {
    "ja": "資料内では確認できません。",
    "zh": "资料中未找到相关内容。",
    "en": "The documents do not contain this.",
}


def detect_language(text: str) -> str:
    """Kana means Japanese; Han without kana means Chinese; anything else English."""
    if _KANA.search(text):
        return "ja"
    if _HAN.search(text):
        return "zh"
    return "en"


def abstain_message(language: str) -> str:
    return ABSTAIN_MESSAGES.get(language, ABSTAIN_MESSAGES["en"])
