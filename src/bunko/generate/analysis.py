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
from typing import Any, Literal

from bunko.generate.kind_classifier import KindClassifier, KindPrediction
from bunko.generate.llm_kind import LLMKind, llm_kind
from bunko.llm.base import ChatModel
from bunko.retrieve.router import relates_facts
from bunko.text.analyzers import Analyzer, query_text
from bunko.text.lazy_regex import lazy_compile
from bunko.text.lexicon import en, ja, zh
from bunko.text.questions import ConversationRequest, about_conversation, arithmetic, is_greeting, question_parts

QuestionKind = Literal[
    "greeting", "arithmetic", "conversation", "comparison", "multi_part", "multi_hop", "aggregation", "single", "out_of_scope",
]
MIN_PART_TOKENS = 3
"""A part shorter than this (in analyzer tokens) is a fragment, not a question of its own."""

_COMPARISON = lazy_compile(f"{en.COMPARISON}|{ja.COMPARISON}|{zh.COMPARISON}", re.IGNORECASE)
_AGGREGATION = lazy_compile(f"{en.AGGREGATION}|{ja.AGGREGATION}|{zh.AGGREGATION}", re.IGNORECASE)


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
    rule_kind: str | None = None
    """With the classifier: the kind the rules gave, and what the classifier said (kind, probability, all)."""
    classifier: dict[str, Any] | None = None
    decided_by: str | None = None
    """``rules (certain)``, ``rules``, ``classifier`` or ``llm``; None with neither the classifier nor a model."""
    llm: dict[str, Any] | None = None
    """With `[agent] llm_analysis`: the kind the model named (None when it named none), its reply, its error."""

    @property
    def retrieves(self) -> bool:
        """Out-of-scope questions are searched too: the classifier calls 5 of the samples' 63 and 10 of the Debian
        set's 120 real questions out of scope (bench/results/question-kinds.md); each would lose its answer."""
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


def rule_flags(question: str, analyzer: Analyzer) -> list[str]:
    """What each rule says about `question`: the classifier's features beside its words (`generate/kind_classifier.py`)."""
    flags = []
    if _COMPARISON.search(question):
        flags.append("comparison")
    if relates_facts(question):
        flags.append("relates_facts")
    if _AGGREGATION.search(question):
        flags.append("aggregation")
    if len([p for p in question_parts(question) if len(analyzer(query_text(p))) >= MIN_PART_TOKENS]) >= 2:
        flags.append("parts")
    if is_greeting(question):
        flags.append("greeting")
    if arithmetic(question) is not None:
        flags.append("arithmetic")
    if about_conversation(question) is not None:
        flags.append("conversation")
    return flags


def by_rules(question: str, analyzer: Analyzer) -> Analysis:
    """The kind the keyword rules give a question that is not one of the certain kinds."""
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


CLASSIFIER_KINDS: dict[str, QuestionKind] = {
    "single_hop": "single", "multi_hop": "multi_hop", "comparison": "comparison", "aggregation": "aggregation",
    "out_of_scope": "out_of_scope",
}
"""The classifier's kinds as analysis kinds (its single_hop is the rules' single)."""
RULE_CLASSES = {"single": "single_hop", "multi_part": "multi_hop", "multi_hop": "multi_hop", "comparison": "comparison",
                "aggregation": "aggregation", "greeting": "out_of_scope", "arithmetic": "out_of_scope", "conversation": "out_of_scope"}
"""The rules' kinds in the classifier's classes, to score the rules against the same labels (bench/fit_question_kinds.py)."""


def analyze(
    question: str, analyzer: Analyzer, asked: str | None = None, classifier: KindClassifier | None = None,
    model: ChatModel | None = None,
) -> Analysis:
    """`question` is what will be searched (a follow-up made standalone); `asked`, the user's words when they differ.

    Rules first where they are certain (greeting, arithmetic, conversation); for the rest, the classifier's kind when
    its probability reaches the model's threshold, else the keyword rules' kind. The parts of a several-part question
    are kept whoever decides the kind: decomposition searches them either way."""
    sure = certain(asked or question)
    if sure is None and model is not None:
        named = llm_kind(model, question)
        if named.kind is not None:
            return by_model(question, analyzer, named, classifier)
        undecided = analyze(question, analyzer, asked, classifier)
        undecided.llm = {"kind": None, "raw": named.raw, "error": named.error}
        return undecided
    if sure is not None or classifier is None:
        analysis = sure or by_rules(question, analyzer)
        if classifier is not None:
            _record(analysis, classifier.predict(question, rule_flags(question, analyzer)), "rules (certain)")
        return analysis
    ruled = by_rules(question, analyzer)
    predicted = classifier.predict(question, rule_flags(question, analyzer))
    if predicted.probability < classifier.threshold or CLASSIFIER_KINDS[predicted.kind] == ruled.kind:
        return _record(ruled, predicted, "rules")
    if ruled.kind == "multi_part" and predicted.kind in ("single_hop", "multi_hop"):
        return _record(ruled, predicted, "rules")  # the classifier has no several-parts kind; the rules saw the parts
    kind = CLASSIFIER_KINDS[predicted.kind]
    reason = f"the classifier: {predicted.kind} (p={predicted.probability:.2f}; the rules said {ruled.kind})"
    analysis = Analysis(kind, reason, ruled.parts)
    return _record(analysis, predicted, "classifier", ruled.kind)


def by_model(question: str, analyzer: Analyzer, named: LLMKind, classifier: KindClassifier | None) -> Analysis:
    """The model's kind, with the parts the rules found (the model names a kind, not the parts to search)."""
    assert named.kind is not None
    ruled = by_rules(question, analyzer)
    if ruled.kind == "multi_part" and named.kind in ("single_hop", "multi_hop"):
        analysis = ruled
    else:
        analysis = Analysis(CLASSIFIER_KINDS[named.kind], f"the model: {named.kind} (the rules said {ruled.kind})", ruled.parts)
    if classifier is not None:
        _record(analysis, classifier.predict(question, rule_flags(question, analyzer)), "llm", ruled.kind)
    analysis.rule_kind, analysis.decided_by = ruled.kind, "llm"
    analysis.llm = {"kind": named.kind, "raw": named.raw, "error": None}
    return analysis


def _record(analysis: Analysis, predicted: KindPrediction, decided_by: str, rule_kind: str | None = None) -> Analysis:
    analysis.rule_kind = rule_kind or analysis.kind
    analysis.classifier = {"kind": predicted.kind, "probability": predicted.probability, "probabilities": predicted.probabilities}
    analysis.decided_by = decided_by
    return analysis
