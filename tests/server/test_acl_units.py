"""The access rules as functions: the filter a restricted key gets, and the output checks behind it."""

from __future__ import annotations

from bunko.index.filters import compile_filter
from bunko.schema import Answer, AnswerSentence, Citation
from bunko.server import acl
from bunko.server.auth import ANONYMOUS, Principal, parse_groups

HR = Principal("hr", "reader", ("hr",))
FIELDS = {"source", "groups", "doc_id", "title"}


def _visible(record: dict, principal: Principal, user_filter: dict | None = None) -> bool:
    spec = acl.combine(user_filter, acl.access_filter(principal, FIELDS))
    predicate = compile_filter(spec, FIELDS)
    return predicate is None or predicate(record)


def test_a_restricted_filter_cannot_be_widened_by_the_callers_own_filter() -> None:
    finance = {"source": "budget.md", "groups": ["finance"], "doc_id": "f"}
    unlabelled = {"source": "rules.md", "doc_id": "u"}
    shared = {"source": "party.md", "groups": ["hr", "finance"], "doc_id": "s"}
    for escape in ({"$or": [{"groups": "finance"}, {"source": {"$glob": "*"}}]}, {"$not": {"groups": "hr"}}, {"groups": {"$nin": ["hr"]}}):
        assert not _visible(finance, HR, escape)
        assert not _visible(unlabelled, HR, escape)
    assert _visible(shared, HR) and not _visible(finance, HR) and not _visible(unlabelled, HR)
    assert _visible(finance, ANONYMOUS) and _visible(unlabelled, Principal("everyone", "reader", None))


def test_no_groups_field_anywhere_means_a_restricted_key_sees_nothing() -> None:
    assert acl.access_filter(HR, {"source", "doc_id"}) == acl.MATCH_NOTHING
    assert not compile_filter(acl.MATCH_NOTHING, {"doc_id"})({"doc_id": "x"})


def test_can_see_matches_the_filter_for_scalars_lists_and_missing_groups() -> None:
    assert HR.can_see(["hr", "x"]) and HR.can_see("hr")
    assert not HR.can_see(None) and not HR.can_see([]) and not HR.can_see("finance")
    assert Principal("a", "admin", None).can_see(None)


def test_parse_groups() -> None:
    assert parse_groups(" hr, finance ,hr") == ("finance", "hr")
    assert parse_groups("*") is None and parse_groups(None) is None


def _citation(source: str) -> Citation:
    return Citation(chunk_id=f"{source}#0", source=source, page=None, section_path=[], element_ids=[], quote="q")


def test_redact_answer_drops_sentences_citing_invisible_documents() -> None:
    answer = Answer(
        question="q", text="A[1]B[2]", abstained=False, confidence=0.9, trace_id="t", language="ja",
        sentences=[AnswerSentence("A", [_citation("ok.md")]), AnswerSentence("B", [_citation("secret.md")])],
    )
    redacted = acl.redact_answer(answer, lambda source: source == "ok.md")
    assert [s.text for s in redacted.sentences] == ["A"] and "B" not in redacted.text
    nothing = acl.redact_answer(redacted, lambda source: False)
    assert nothing.abstained and nothing.text == "資料内では確認できません。"


def test_trace_sources_finds_documents_anywhere_but_in_the_filter() -> None:
    trace = {
        "filters": {"source": "asked-for.md"},
        "candidates": [{"chunk_id": "a.md#3", "source": "a.md"}],
        "rewrite": {"hits": [{"chunk_id": "deep/b.md#1"}]},
        "answer": {"sentences": [{"citations": [{"source": "c.md"}]}]},
    }
    assert acl.trace_sources(trace) == {"a.md", "deep/b.md", "c.md"}
