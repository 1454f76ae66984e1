"""What bunko says to the user in each language: abstentions and cross-language notes.

Which language a text is in is judged in `bunko.text.languages`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from bunko.schema import AnswerSentence
from bunko.text.languages import text_language
from bunko.text.lazy_regex import lazy_compile
from bunko.text.lexicon import en, ja, zh
from bunko.text.scripts import JA_ZH_CHAR, KANA_CHAR

ABSTAIN_MESSAGES = {
    "ja": "資料内では確認できません。",
    "zh": "资料中未找到相关内容。",
    "en": "The documents do not contain this.",
}

_ABSTAIN_CORE = [m.rstrip("。.！!？? ") for m in ABSTAIN_MESSAGES.values()] + [
    *en.ABSTENTION_PHRASES, *ja.ABSTENTION_PHRASES, *zh.ABSTENTION_PHRASES,
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


UNVERIFIED_NOTICES = {
    "ja": "※［未確認］の付いた文は、引用した資料で裏付けられていないか、出典がありません。利用する前に資料で確認してください。",
    "zh": "※标有［未核实］的句子未得到所引资料的支持，或没有注明出处。使用前请对照资料核实。",
    "en": "Sentences marked [unverified] are not supported by the sources they cite, or cite none: check them in the "
          "documents before relying on them.",
}


def unverified_notice(language: str) -> str:
    """Said under an answer that shows a sentence the citation check did not support (the standard policy)."""
    return UNVERIFIED_NOTICES.get(language, UNVERIFIED_NOTICES["en"])


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


NO_CONVERSATION = {
    "ja": "これまでの会話はありません。資料について質問してください。",
    "zh": "目前还没有之前的对话。请就资料提问。",
    "en": "There is no earlier conversation yet. Ask a question about your documents.",
}
RECALLED = {
    "asked": {"ja": "直前のご質問は「{text}」でした。", "zh": "您上一个问题是：“{text}”。", "en": "Your previous question was: “{text}”"},
    "first": {"ja": "最初のご質問は「{text}」でした。", "zh": "您的第一个问题是：“{text}”。", "en": "Your first question was: “{text}”"},
    "all": {"ja": "これまでのご質問:", "zh": "您之前的问题：", "en": "Your questions so far:"},
    "answered": {"ja": "直前の回答は次のとおりです。", "zh": "上一个回答如下：", "en": "My previous answer was:"},
    "no_answer": {"ja": "まだ回答していません。", "zh": "还没有回答过。", "en": "I have not answered anything yet."},
    "summary": {"ja": "これまでの会話:", "zh": "到目前为止的对话：", "en": "The conversation so far:"},
    "question": {"ja": "質問", "zh": "问", "en": "Q"},
    "answer": {"ja": "回答", "zh": "答", "en": "A"},
    "note": {"ja": "（会話の記録からの引用です。資料からの回答ではありません）", "zh": "（引自对话记录，并非来自资料）",
             "en": "(Quoted from this conversation, not from the documents.)"},
}


def recalled(key: str, language: str, text: str = "") -> str:
    """A phrase of the reply to a question about the conversation (`generate/recall.py`), in the question's language."""
    phrases = RECALLED[key]
    return phrases.get(language, phrases["en"]).format(text=text)


def no_conversation(language: str) -> str:
    return NO_CONVERSATION.get(language, NO_CONVERSATION["en"])
