"""What a question is made of, by rule, in ja/zh/en: its parts, and whether it asks something of the documents at all.

One rule per fact, shared: the graph route searches each part of a two-part question
(`retrieve/graph.py`), the answerer's decomposition answers from each part's evidence
(`generate/analysis.py`).
"""

from __future__ import annotations

import ast
import operator
import re
from typing import Literal

from bunko.text.entities import entity_keys
from bunko.text.lazy_regex import lazy_compile, lazy_union
from bunko.text.lexicon import en, ja, zh
from bunko.text.scripts import CJK_CHAR

_QUOTED = lazy_compile(r"\"([^\"]+)\"|「([^」]+)」|“([^”]+)”|『([^』]+)』")


def quoted_phrases(question: str) -> list[str]:
    """The phrases a question quotes ("Manager DN", 「管理者 DN」, “管理者 DN”): a label, message or title the asker saw,
    which the answer's passage writes as it is. Routes the question to exact search (`retrieve/router.py`) and
    favours the sentences that hold it (`rerank/evidence.py`)."""
    return [next(part for part in m.groups() if part is not None).strip() for m in _QUOTED.finditer(question)]


_STANDALONE_NUMBER = lazy_compile(r"(?<![A-Za-z0-9_.\-/:=])\d+(?:\.\d+)?(?![A-Za-z0-9_]|\.\d)")
"""A number written on its own ("level 3", "ポート 993", "级别3"), not a part of a name or option (``-n3``, ``ext4``,
``1.2.3``): CJK letters may touch it, since ja/zh write numbers against words without a space."""


def lookup_values(question: str) -> list[str]:
    """The values a question names that a table can be keyed by: its quoted phrases and its numbers standing alone.
    "kernel error level 3 — what is it called?" and "what does “m” mean in gpg's trust codes?" look a row up by a
    cell; the row with a cell equal to the value is the one asked about (`rerank/evidence.py`)."""
    return list(dict.fromkeys([*quoted_phrases(question), *_STANDALONE_NUMBER.findall(question)]))


_SENTENCE_END = lazy_compile(r"(?<=[.?!])\s+|(?<=[。？！])")


def asked_sentence(question: str) -> str | None:
    """What the question asks, when it sets a scene first ("公司内网上网必须经过 Squid 代理。…系统级的环境变量最好写在哪个
    文件里？"): its sentences ending in a question mark (else its last sentence). None when nothing but asking is said:
    one sentence, or questions only ("Btrfs 怎样开启 zstd 透明压缩？挂载选项该怎么写？")."""
    sentences = [s.strip() for s in _SENTENCE_END.split(question) if s and s.strip()]
    asking = [s for s in sentences if s.endswith(("?", "？"))] or sentences[-1:]
    return " ".join(asking) if len(asking) < len(sentences) else None


_SENTENCE_MARK = lazy_compile(r"[?？]|[.。!！]\s*$")
_LATIN_WORD = lazy_compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
TOPIC_MAX_WORDS = 10
TOPIC_MAX_CJK = 24


_ASKS = lazy_union((en.ASKING, ja.ASKING, zh.ASKING), re.IGNORECASE)
"""What makes a query a question or a request, even without its question mark: an interrogative or a request word
("how", 何, 什么, 几点, 请问), a Japanese ending that asks or wants (〜たい, 〜ですか), a Chinese pronoun or question
particle (我想了解…, …吗); not the same characters inside a word of a topic (申请流程, 几乎, パスワードなどの設定)."""


def names_topic(query: str) -> bool:
    """Whether a query is a short phrase naming a topic ("Shutting down the system", 软件包状态, パッケージの状態)
    rather than a question, a request or a sentence: no question mark, no closing full stop, no interrogative
    or request (`_ASKS`), at most TOPIC_MAX_WORDS Latin words and TOPIC_MAX_CJK CJK characters."""
    if _SENTENCE_MARK.search(query) or _ASKS.search(query):
        return False
    if query.isascii():  # no CJK character to count or to take out
        return len(_LATIN_WORD.findall(query)) <= TOPIC_MAX_WORDS
    return len(_LATIN_WORD.findall(CJK_CHAR.sub(" ", query))) <= TOPIC_MAX_WORDS and len(CJK_CHAR.findall(query)) <= TOPIC_MAX_CJK


_PARTS = lazy_compile(rf"(?<=[.?!。？！])\s*|{en.PART_JOINERS}|、|{ja.PART_JOINERS}|{zh.PART_JOINERS}")
_GREETING = lazy_compile(rf"^\s*(?:{en.GREETING}|{ja.GREETING}|{zh.GREETING})\s*[!！.。?？~〜]*\s*$", re.IGNORECASE)
_ARITHMETIC = lazy_compile(
    rf"^\s*(?:{en.ARITHMETIC_LEAD}|{ja.ARITHMETIC_LEAD}|{zh.ARITHMETIC_LEAD})?\s*([\d\s.+\-*/×÷()（）]+?)\s*"
    rf"(?:=|＝|{ja.ARITHMETIC_TAIL}|{zh.ARITHMETIC_TAIL})?\s*[?？]?\s*$",
    re.IGNORECASE,
)
_CONVERSATION: list[tuple[str, re.Pattern[str]]] = [
    ("summary", lazy_compile(f"{en.RECALL_SUMMARY}|{ja.RECALL_SUMMARY}|{zh.RECALL_SUMMARY}", re.IGNORECASE)),
    ("answered", lazy_compile(f"{en.RECALL_ANSWERED}|{ja.RECALL_ANSWERED}|{zh.RECALL_ANSWERED}", re.IGNORECASE)),
    ("asked", lazy_compile(f"{en.RECALL_ASKED}|{ja.RECALL_ASKED}|{zh.RECALL_ASKED}", re.IGNORECASE)),
]
ConversationRequest = Literal["summary", "answered", "asked"]
_FIRST = lazy_compile(f"{en.RECALL_FIRST}|{ja.RECALL_FIRST}|{zh.RECALL_FIRST}", re.IGNORECASE)
_OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


def question_parts(question: str) -> list[str]:
    """The pieces of a question that asks about several things ("the CUPS port and the syslog port", 甲、乙, A和B)."""
    return [p.strip() for p in _PARTS.split(question) if p and p.strip()]


def is_greeting(question: str) -> bool:
    """Hello, thanks, bye: nothing to look up."""
    return bool(_GREETING.match(question))


def about_conversation(question: str) -> ConversationRequest | None:
    """What a question about the conversation itself wants: the earlier questions (``asked``: "what did I just ask?",
    さっき何を聞きましたか, 我刚才问了什么), the earlier answer (``answered``), or all of it (``summary``: "summarise our
    conversation", これまでの会話を要約して, 总结一下我们的对话); None for a question about the documents, those that
    mention conversations included ("how do I record a conversation", 会話ログの保存期間, 对话框怎么关闭)."""
    for request, pattern in _CONVERSATION:
        if pattern.search(question):
            return request  # type: ignore[return-value]
    return None


def asks_for_first(question: str) -> bool:
    """"my first question", 最初の質問, 第一个问题: the earliest turn rather than the latest."""
    return bool(_FIRST.search(question))


def arithmetic(question: str) -> float | None:
    """The value of a question that is only arithmetic ("what is 12 * 7?", "3+4は？", "15除以3" not included), else None."""
    match = _ARITHMETIC.match(question)
    if not match or not re.search(r"\d\s*[+\-*/×÷]\s*[\d(（]", match.group(1)):
        return None
    expression = match.group(1).replace("×", "*").replace("÷", "/").replace("（", "(").replace("）", ")")
    try:
        return _evaluate(ast.parse(expression.strip(), mode="eval").body)
    except (SyntaxError, ValueError, ZeroDivisionError, RecursionError):
        return None


def _evaluate(node: ast.AST) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return float(node.value)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        return float(_OPERATORS[type(node.op)](_evaluate(node.left), _evaluate(node.right)))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_evaluate(node.operand)
    raise ValueError("not arithmetic")


_OVERVIEW = lazy_compile(f"{en.OVERVIEW}|{ja.OVERVIEW}|{zh.OVERVIEW}", re.IGNORECASE)


def asks_for_overview(question: str) -> bool:
    """Whether the question asks what something is about as a whole ("what is chapter 8 about?", 第3章の概要,
    这一节讲了什么) rather than for a fact inside it."""
    return _OVERVIEW.search(question) is not None


_ABOUT_COLLECTION = lazy_union((en.GLOBAL, ja.GLOBAL, zh.GLOBAL), re.IGNORECASE)
"""Words that ask about the collection as a whole ("the main topics", 概要, 主要内容): no passage answers them alone.
全体 and 总体 only of the documents: "システム全体の設定ファイル" is the system-wide file, "まとめて" is "together"."""
COLLECTION_WORDS = en.COLLECTION_WORDS | ja.COLLECTION_WORDS | zh.COLLECTION_WORDS
"""Words that name the collection itself (documents, 資料, 文档): a global question may use them and still name nothing."""


def about_collection(text: str) -> str | None:
    """The words by which `text` asks about the whole collection ("key themes", 主要内容), or None."""
    found = _ABOUT_COLLECTION.search(text)
    return found.group() if found is not None else None


def named_beyond_collection(text: str) -> list[str]:
    """The entity keys `text` names once the words asking about the whole collection are taken out, less the words for
    the collection itself: none for "the main topics of these documents"; the leave for "an overview of the annual
    leave days", a question about what it names, searched for it."""
    return [key for key in entity_keys(_ABOUT_COLLECTION.sub(" ", text)) if key not in COLLECTION_WORDS]
