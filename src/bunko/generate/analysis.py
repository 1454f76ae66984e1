"""What kind of question this is, by rule (no LLM): whether to retrieve at all, and whether to split it.

Self-RAG's retrieve-or-not decision and adaptive routing by complexity, reduced to
what rules decide reliably in ja/zh/en: greetings, bare arithmetic and questions about the
conversation itself ("what did I just ask?", これまでの会話を要約して: answered from the chat history,
`generate/recall.py`) need no documents; a question that asks about two things ("the CUPS port and the syslog
port", 甲と乙の違い) is searched part by part too; one that relates two facts
("the tool *that* …") is marked multi-hop (the router sends it to the graph route);
"how many / 合計 / 总共" questions are marked aggregation (counted from tables
once tables are data).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from bunko.retrieve.router import relates_facts
from bunko.text.analyzers import Analyzer, query_text
from bunko.text.questions import ConversationRequest, about_conversation, arithmetic, is_greeting, question_parts

QuestionKind = Literal["greeting", "arithmetic", "conversation", "comparison", "multi_part", "multi_hop", "aggregation", "single"]
MIN_PART_TOKENS = 3
"""A part shorter than this (in analyzer tokens) is a fragment, not a question of its own."""

_COMPARISON = re.compile(
    r"\b(?:compare|comparison|difference|differences|differ|versus|vs\.?)\b|\bwhich (?:is|one is) (?:better|faster|larger|smaller|newer|older)\b"
    r"|違い|比較|どちらが|どっちが|異なる|区别|比较|相比|哪个更|哪一个更|差异|不同之处",
    re.IGNORECASE,
)
_AGGREGATION = re.compile(
    r"\bhow many\b|\bin total\b|\btotal\b|\bsum of\b|\baverage\b|\bnumber of\b"
    r"|いくつ|何個|何件|何人|合計|平均|総数|多少个|几个|总共|合计|平均|总数",
    re.IGNORECASE,
)


@dataclass
class Analysis:
    kind: QuestionKind
    reason: str
    parts: list[str] = field(default_factory=list)
    """The separately searchable parts of a comparison or multi-part question."""
    value: float | None = None
    """The result of a bare arithmetic question."""
    request: ConversationRequest | None = None
    """What a question about the conversation wants: the earlier questions, the earlier answer, or a summary."""

    @property
    def retrieves(self) -> bool:
        return self.kind not in NO_RETRIEVAL


NO_RETRIEVAL = ("greeting", "arithmetic", "conversation")


def certain(question: str) -> Analysis | None:
    """The kinds rules decide for certain, from the user's own words (never a condensed form: "thanks!" or "what did I
    just ask?" after a conversation is not a follow-up to be completed with the previous question)."""
    if is_greeting(question):
        return Analysis("greeting", "a greeting or thanks: nothing to look up")
    value = arithmetic(question)
    if value is not None:
        return Analysis("arithmetic", "bare arithmetic: computed, not looked up", value=value)
    request = about_conversation(question)
    if request is not None:
        return Analysis("conversation", f"about the conversation itself ({request}): answered from the history", request=request)
    return None


def analyze(question: str, analyzer: Analyzer, asked: str | None = None) -> Analysis:
    """`question` is what will be searched (a follow-up made standalone); `asked`, the user's words when they differ."""
    sure = certain(asked or question)
    if sure is not None:
        return sure
    parts = [p for p in question_parts(question) if len(analyzer(query_text(p))) >= MIN_PART_TOKENS]
    parts = parts if len(parts) >= 2 else []
    if _COMPARISON.search(question):
        return Analysis("comparison", "compares things: each part is searched too", parts)
    if relates_facts(question):
        return Analysis("multi_hop", "refers from one fact to another: the graph route's question", parts)
    if _AGGREGATION.search(question):
        return Analysis("aggregation", "counts or totals", parts)
    if parts:
        return Analysis("multi_part", "asks about several things: each part is searched too", parts)
    return Analysis("single", "one thing asked")
