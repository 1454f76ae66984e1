"""Rule-based query routing: which retrievers to trust, and how much, for this query.

Measured on the sample golden set (bench/sample_quality.py), dense retrieval
beats keyword retrieval on natural-language questions, and equal-weight RRF
falls below dense alone; but exact identifiers (E-1024, ERR_CONN_RESET, v2.3.1)
and quoted phrases are what keyword search finds and embeddings miss. So
natural questions lean on dense; identifier and quoted queries weigh keyword
search fully.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from bunko.config import RetrieveConfig
from bunko.retrieve.question import QuestionFacts
from bunko.text.analyzers import identifiers
from bunko.text.lazy_regex import lazy_compile, lazy_union
from bunko.text.lexicon import en, ja, zh
from bunko.text.table_questions import TableIntent

_RELATIONAL = lazy_union((en.RELATIONAL, ja.RELATIONAL, zh.RELATIONAL), re.IGNORECASE)
"""Words that point from one fact to another ("the tool *that* …", "*its* configuration", その, 该): a question
that needs two facts names the first and refers back to it for the second."""

_SECTION_NUMBER = lazy_compile(rf"{en.SECTION_NUMBER}|§\s*(\d+(?:[.．]\d+)*)|{zh.SECTION_NUMBER}", re.IGNORECASE)
_SECTION_TITLE = lazy_union((
    rf"[\"'“「『][^\"'”」』]{{1,80}}[\"'”」』]\s*[，,]?\s*[{ja.TITLE_PARTICLE}{zh.TITLE_PARTICLE}]?\s*"
    rf"(?:{en.SECTION_WORDS}|{ja.SECTION_WORDS}|{zh.SECTION_WORDS})",
    en.SECTION_TITLE_REFERENCES,
), re.IGNORECASE)
"""A section named by its quoted title (searched for, so the order of the section words is free)."""


_DIGIT = lazy_compile(r"\d")
_MANUAL_SECTION = lazy_compile(
    rf"(?:\bman\b(?:\s*(?:{en.MAN_PAGE}|{zh.MAN_PAGE}|{ja.MAN_PAGE}))?|\bmanual pages?)\s*(?:{en.POSSESSIVE}|{ja.POSSESSIVE}|{zh.POSSESSIVE})?\s*$",
    re.IGNORECASE,
)
"""What precedes a manual-page section ("man section 4", "man 手册页第 5 节"): a class of manual pages, not a part of
the documents."""


def section_numbers(question: str) -> set[str]:
    """The section numbers a question gives: "section 1.2", "chapter 3", "§4", 第 1.2 节, 第3章, "2.1 節". Every
    branch of the pattern holds a digit, so a question without one skips it (2 µs of routing it)."""
    if _DIGIT.search(question) is None:
        return set()
    return {
        next(g for g in m.groups() if g).replace("．", ".") for m in _SECTION_NUMBER.finditer(question)
        if not _MANUAL_SECTION.search(question, max(0, m.start() - 20), m.start())
    }


def names_section(question: str) -> bool:
    """Whether a question says where in a document its answer is: a section's number, or a title it calls a
    section or chapter ("the chapter 'Network setup'", 「sudo の設定」の節, “tmpfs”一节, "the section on backups")."""
    return bool(section_numbers(question)) or _SECTION_TITLE.search(question) is not None


@dataclass
class Route:
    name: str
    weights: dict[str, float] = field(default_factory=dict)
    reason: str = ""
    retriever: str | None = None
    """The search mode a rule chose for this query (a graph route for a multi-hop question, say); None keeps the
    collection's `[retrieve] mode`. A mode asked for by the caller wins over both."""
    names_topic: bool = False
    """The query is a short phrase naming a topic, so `weights` already rank documents by their own evidence
    (`document_rank_weights`), whichever retriever serves it."""


RouteRule = Callable[[QuestionFacts, RetrieveConfig], Route | None]
"""A rule looks at the question as read once (`QuestionFacts`: its text, tokens, quoted phrases, table intent) and
returns a Route, or None to pass."""


def weights(config: RetrieveConfig, keyword_weight: float) -> dict[str, float]:
    """Every evidence weight fusion reads, the keyword weight chosen by the route."""
    return {"dense": config.dense_weight, "keyword": keyword_weight, "document": config.document_weight,
            "document_similarity": config.document_similarity_weight, "language": config.language_weight,
            "translation": config.translation_weight}


def identifier_rule(question: QuestionFacts, config: RetrieveConfig) -> Route | None:
    codes = identifiers(list(question.tokens))
    if not codes:
        return None
    return Route("exact", weights(config, config.exact_keyword_weight),
                 f"identifiers {sorted(codes)} favour keyword search")


def quoted_rule(question: QuestionFacts, config: RetrieveConfig) -> Route | None:
    if not question.quoted:
        return None
    return Route("exact", weights(config, config.exact_keyword_weight),
                 "a quoted phrase favours keyword search")


def global_rule(question: QuestionFacts, config: RetrieveConfig) -> Route | None:
    found = question.about_collection
    if found is None or question.named_beyond_collection:
        return None
    return Route("global", weights(config, config.keyword_weight), f"{found!r} asks about the whole collection: its topics",
                 retriever="graph-global")


def relates_facts(question: str) -> bool:
    """Whether a question refers from one fact to another (the tool *that* …, *its* …, その, 该)."""
    return _RELATIONAL.search(question) is not None


def relational_rule(question: QuestionFacts, config: RetrieveConfig) -> Route | None:
    """A question that relates two facts goes to the graph route, keeping the keyword weight an identifier or a
    quoted phrase would give it (the graph route starts from hybrid's passages)."""
    found = _RELATIONAL.search(question.text)
    if found is None:
        return None
    exact = bool(identifiers(list(question.tokens))) or bool(question.quoted)
    keyword = config.exact_keyword_weight if exact else config.keyword_weight
    return Route("relational", weights(config, keyword), f"{found.group()!r} relates two facts: the graph route", retriever="graph")


def section_rule(question: QuestionFacts, config: RetrieveConfig) -> Route | None:
    """A question that names a section of a document goes to the tree route, which reads the document's
    section tree (with the keyword weight an identifier or a quoted title would give it)."""
    if not names_section(question.text):
        return None
    exact = bool(identifiers(list(question.tokens))) or bool(question.quoted)
    keyword = config.exact_keyword_weight if exact else config.keyword_weight
    return Route("section", weights(config, keyword), "the question names a section: the tree route", retriever="tree")


def table_rule(question: QuestionFacts, config: RetrieveConfig) -> Route | None:
    """A question that asks for a count, a sum, an average, a ranking or the rows over a threshold goes to the
    table route, whose answer is computed from the table it maps onto (`generate/table_answer.py`)."""
    intent = question.table
    if intent is None or intent.by_time:
        return None
    return _table_route(intent, config)


def time_ranking_rule(question: QuestionFacts, config: RetrieveConfig) -> Route | None:
    """A question ranking rows by time ("the newest …", 最古, 最早) goes to the table route too, but after the rules
    for relations, identifiers and quotes: "newest" and 最新 are common words in questions about something else
    ("try the latest X server: which package provides it?"), where a ranking of table rows is the lesser reading."""
    intent = question.table
    if intent is None or not intent.by_time:
        return None
    return _table_route(intent, config)


def _table_route(intent: TableIntent, config: RetrieveConfig) -> Route:
    cue = f"{intent.cue!r} asks" if intent.cue else "conditions on values ask"
    return Route("table", weights(config, config.keyword_weight), f"{cue} for a {intent.operation} over table rows: the table route",
                 retriever="table")


def topic_rule(question: QuestionFacts, config: RetrieveConfig) -> Route | None:
    """A short phrase naming a topic looks for the document or section about it, so the document's evidence weighs as
    when documents are ranked (`document_rank_*`): a title-like query holds two to five words, and every chunk
    holding them all saturates its coverage, which put the page with one paragraph dense in those words above the
    page about them. Page corpora (heading queries, chunk hits): +0.013 to +0.042 nDCG@10
    (bench/results/pages.md, pages-python.md); questions and sentences keep the semantic route."""
    if not question.tokens or not question.names_topic:
        return None
    return Route("topic", document_rank_weights(weights(config, config.keyword_weight), config),
                 "a short phrase naming a topic: the document's evidence weighs as when documents are ranked", names_topic=True)


TOPIC_ROUTES = frozenset({"exact", "table", "relational", "global"})
"""Routes that keep their own retriever and keyword weight for a topic phrase but rank documents as the topic route
does (`as_topic`); a section named ("in section 2.1.4") wants that section, and a question the semantic route."""


def as_topic(chosen: Route, question: QuestionFacts, config: RetrieveConfig) -> Route:
    """A short phrase naming a topic that another rule claims still looks for the document about it: an identifier in
    "计算并校验 SHA224 信息摘要" (the exact route), a relation word in "ユーザが所属するグループを表示する" (the graph
    route), a table cue. The route keeps its retriever and keyword weight; its weights rank documents as the topic
    route's do. Such phrases are 4–6 % of the page corpora's queries; every query: manual pages +0.004 / +0.008 /
    +0.002 nDCG@10 (en / ja / zh), python +0.003, handbook and reference −0.001 to +0.002
    (bench/results/pages-topic-routes.md)."""
    if chosen.names_topic or chosen.name not in TOPIC_ROUTES or not question.tokens or not question.names_topic:
        return chosen
    return replace(chosen, weights=document_rank_weights(chosen.weights, config), names_topic=True,
                   reason=f"{chosen.reason}; a short phrase naming a topic: the document's evidence weighs as when documents are ranked")


def document_rank_weights(route_weights: dict[str, float], config: RetrieveConfig) -> dict[str, float]:
    """A route's weights made to rank documents by their own evidence: their BM25 over the whole text, their dense
    similarity, how close their opening is and how much of the query it holds, and only a share of the chunks' keyword
    weight (retrieve/hybrid.document_ranked says why)."""
    return {**route_weights, "keyword": route_weights.get("keyword", 0.0) * config.document_rank_keyword_share,
            "document": config.document_rank_weight, "document_similarity": config.document_rank_similarity_weight,
            "document_opening": config.document_rank_opening_weight,
            "document_opening_keyword": config.document_rank_opening_keyword_weight,
            "document_sentence": config.document_rank_sentence_share}


DEFAULT_RULES: tuple[RouteRule, ...] = (
    section_rule, global_rule, table_rule, relational_rule, identifier_rule, quoted_rule, time_ranking_rule, topic_rule,
)


def route(question: QuestionFacts, config: RetrieveConfig, rules: Sequence[RouteRule] = DEFAULT_RULES) -> Route:
    """The first rule that claims the query decides; otherwise a natural-language question. With the topic rule among
    `rules`, a topic phrase an earlier rule claims ranks documents as a topic all the same (`as_topic`); a clause cut
    from a question is searched without the topic rule, and so without that."""
    for rule in rules:
        chosen = rule(question, config)
        if chosen is not None:
            return as_topic(chosen, question, config) if topic_rule in rules else chosen
    return Route("semantic", weights(config, config.keyword_weight), "natural-language question")
