"""A chat model's answer as the user meets it (issue 46, item 6), against the fake OpenAI-compatible server.

Sentences the citation check does not support are marked under the standard policy and dropped under strict; a
sentence written twice is shown once; the answer's confidence is the grade's times the share of the model's
sentences the check supported, and an answer with none supported abstains.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeChatServer
from rich.console import Console

from bunko import Bunko, Config
from bunko.generate.citation_marks import unverified_mark
from bunko.generate.citations import SUPPORTED, UNCITED, UNSUPPORTED
from bunko.generate.sentence_pipeline import REPEATED, SentencePipeline, checked_confidence, sentence_key
from bunko.generate.trace_view import render_trace
from bunko.schema import Answer

_SOURCE = re.compile(r'<source id="(\d+)"(?: from="[^"]*")?>\n(.*?)\n</source>', re.DOTALL)

CASES = {
    # language: (question, what the cited source holds, a supported sentence, a sentence with no citation)
    "ja": ("東京23区への出張で、一般社員は1泊いくらまで泊まれますか？", "12,000円",
           "一般社員が東京23区に出張する場合、宿泊費の上限は1泊12,000円です。", "詳しくは上司に相談してください。"),
    "zh": ("员工结婚可以休几天婚假？", "婚假", "婚假为3天，须在领取结婚证后1年内一次性休完。", "如有疑问请联系人事部。"),
    "en": ("How many requests can one API key send each minute?", "600 requests per minute",
           "Each API key may make up to 600 requests per minute.", "Contact your manager for more details."),
}


@pytest.fixture
def server() -> Iterator[FakeChatServer]:
    with FakeChatServer() as fake:
        yield fake


def open_kb(
    path: Path, embedder: Any, server: FakeChatServer, policy: str = "standard", critique: bool = False, max_sentences: int = 2,
) -> Bunko:
    config = Config()
    config.answer.max_sentences = max_sentences
    config.answer.generator = "openai"
    config.answer.policy = policy  # type: ignore[assignment]
    config.answer.llm_grader = False
    config.agent.critique = critique
    config.llm.base_url = server.url
    config.llm.model = "fake-model"
    config.llm.retries = 0
    config.llm.timeout_s = 10
    return Bunko(path, config=config, embedder=embedder)


def cite(messages: list[dict[str, str]], needle: str) -> int:
    found = {int(m.group(1)): m.group(2) for m in _SOURCE.finditer(messages[-1]["content"])}
    return next(i for i, text in found.items() if needle in text)


def cited(sentence: str, language: str) -> str:
    """`sentence` with the mark citing source "{n}", as a model writes it in `language`."""
    return sentence + (" [{n}]" if language == "en" else "[{n}]")


def writes(*sentences: str, needle: str) -> Any:
    """A model that writes `sentences`, each one with "{n}" citing the source holding `needle`."""

    def reply(messages: list[dict[str, str]], body: dict[str, Any]) -> str:
        if "<source" not in messages[-1]["content"]:
            return "{}"
        n = cite(messages, needle)
        return " ".join(s.format(n=n) for s in sentences)

    return reply


def grade_of(answer: Answer) -> float:
    assert answer.trace is not None
    return answer.trace.evidence.grade.confidence


@pytest.mark.parametrize("language", ["ja", "zh", "en"])
def test_standard_marks_an_uncited_sentence_and_shows_a_repeat_once(
    samples_kb_path: Path, embedder: Any, server: FakeChatServer, language: str,
) -> None:
    question, needle, supported, uncited = CASES[language]
    server.reply = writes(cited(supported, language), uncited, cited(supported, language), needle=needle)
    with open_kb(samples_kb_path, embedder, server, max_sentences=3) as kb:
        answer = kb.ask(question)
        trace = kb.trace(answer.trace_id)
    assert not answer.abstained, trace["abstain_reason"]
    assert [s.verdict for s in answer.sentences] == [SUPPORTED, UNCITED]
    mark = unverified_mark(language)
    assert answer.text.count(supported) == 1, "the repeated sentence is shown once"
    assert uncited + (" " if language == "en" else "") + mark in answer.text, "the uncited sentence carries the mark"
    assert mark in answer.notices[-1] and answer.text.endswith(answer.notices[-1])
    assert [s["verdict"] for s in trace["sentences"]] == [SUPPORTED, UNCITED, REPEATED]
    assert trace["checked_confidence"] == {"grade": grade_of(answer), "supported": 1, "checked": 2, "confidence": answer.confidence}
    assert answer.confidence == round(grade_of(answer) / 2, 4), "half of what the model wrote was supported"
    console = Console(record=True, width=240)
    render_trace(console, trace)
    assert f"answer confidence {answer.confidence:.2f} = grade {grade_of(answer):.2f} × 1 of 2 sentences supported" in console.export_text()


@pytest.mark.parametrize("language", ["ja", "zh", "en"])
def test_strict_refuses_the_uncited_sentence_and_the_repeat(
    samples_kb_path: Path, embedder: Any, server: FakeChatServer, language: str,
) -> None:
    question, needle, supported, uncited = CASES[language]
    server.reply = writes(cited(supported, language), uncited, cited(supported, language), needle=needle)
    with open_kb(samples_kb_path, embedder, server, policy="strict") as kb:
        answer = kb.ask(question)
        trace = kb.trace(answer.trace_id)
    assert [s.text for s in answer.sentences] == [supported]
    assert unverified_mark(language) not in answer.text and uncited not in answer.text
    assert trace["removed"] == [uncited]
    assert answer.confidence == round(grade_of(answer) / 2, 4), "the dropped sentence still lowers the confidence"


@pytest.mark.parametrize("language", ["ja", "en"])
def test_an_answer_with_no_supported_sentence_abstains(
    samples_kb_path: Path, embedder: Any, server: FakeChatServer, language: str,
) -> None:
    question, needle, _, uncited = CASES[language]
    server.reply = writes(uncited, uncited, needle=needle)
    with open_kb(samples_kb_path, embedder, server) as kb:
        answer = kb.ask(question)
        trace = kb.trace(answer.trace_id)
    assert answer.abstained and answer.confidence == 0.0 and not answer.sentences
    assert trace["abstain_reason"] == "no_supported_sentence"
    assert unverified_mark(language) not in answer.text


def test_a_fully_supported_answer_keeps_the_grades_confidence(samples_kb_path: Path, embedder: Any, server: FakeChatServer) -> None:
    question, needle, supported, _ = CASES["zh"]
    server.reply = writes(cited(supported, "zh"), needle=needle)
    with open_kb(samples_kb_path, embedder, server) as kb:
        answer = kb.ask(question)
    assert not answer.abstained and answer.confidence == grade_of(answer)
    assert not answer.notices or unverified_mark("zh") not in answer.notices[-1]


def test_streaming_shows_the_marks_it_will_keep(samples_kb_path: Path, embedder: Any, server: FakeChatServer) -> None:
    question, needle, supported, uncited = CASES["en"]
    server.reply = writes(cited(supported, "en"), uncited, needle=needle)
    with open_kb(samples_kb_path, embedder, server) as kb:
        items = list(kb.ask_stream(question))
    answer = items[-1]
    assert isinstance(answer, Answer)
    assert "".join(i for i in items[:-1] if isinstance(i, str)) == answer.text
    assert f"{uncited} [unverified]" in answer.text


class _Checker:
    """Stands in for the citation checker: a sentence is supported when it cites source 1."""

    def check_sentences(self, pairs: list[tuple[str, list[int]]], hits: list[Any]) -> list[Any]:
        from bunko.generate.citations import CheckedSentence

        return [CheckedSentence(t, ids, [], 1.0, 0.0, True, SUPPORTED if 1 in ids else (UNSUPPORTED if ids else UNCITED))
                for t, ids in pairs]

    def attribute(self, sentence: str, hits: list[Any]) -> None:
        return None  # no source backs an uncited sentence here


def test_checked_confidence_counts_what_the_model_wrote_not_its_repeats_or_abstentions() -> None:
    from bunko.schema import Chunk, Hit

    hits = [Hit(Chunk("a#0", "a", "a", 0, "x", "x"), 1.0), Hit(Chunk("b#0", "b", "b", 0, "y", "y"), 1.0)]
    pipeline = SentencePipeline(_Checker(), hits, "en", "standard", max_sentences=4)  # type: ignore[arg-type]
    text = "It is one. [1]\n1. It is one.\nIt is two. [2] It is three. The documents do not contain this."
    list(pipeline.feed_text(iter([text]), stream=False))
    verdicts = [v["verdict"] for v in pipeline.verdicts]
    assert verdicts == [SUPPORTED, REPEATED, UNSUPPORTED, UNCITED, "abstention"]
    checked = checked_confidence(0.9, pipeline)
    assert (checked.supported, checked.checked, checked.confidence) == (1, 3, 0.3)
    assert checked_confidence(0.9, SentencePipeline(_Checker(), hits, "en", "standard", 2)).confidence == 0.0  # type: ignore[arg-type]


def test_a_sentence_is_the_same_whatever_its_list_marker_width_or_case() -> None:
    assert sentence_key("1. The limit is 600.") == sentence_key("2. the limit is 600")
    assert sentence_key("①上限は１２，０００円です。") == sentence_key("上限は12,000円です")
    assert sentence_key("- 婚假为3天。") == sentence_key("婚假为3天")
    assert sentence_key("3.5 GB is the limit.") != sentence_key("5 GB is the limit.")


def test_the_model_may_write_only_what_the_sentences_asked_for_need(samples_kb_path: Path, embedder: Any, server: FakeChatServer) -> None:
    question, needle, supported, _ = CASES["ja"]
    server.reply = writes(cited(supported, "ja"), needle=needle)
    with open_kb(samples_kb_path, embedder, server) as kb:
        kb.ask(question)
        kb.config.answer.max_sentences = 1
        kb.ask(question)
    asked = [r["body"]["max_tokens"] for r in server.requests if "<source" in r["body"]["messages"][-1]["content"]]
    assert asked == [2 * 96 + 32, 96 + 32], "[answer] max_sentences at 96 tokens each, within [llm] max_tokens (512)"


FURTHER = {
    # sentences a talkative model writes after the answer, each citing the same source
    "ja": ("なお、宿泊は会社指定のホテルが望ましいです。", "領収書は出張後に提出します。"),
    "zh": ("婚假期间工资照发。", "请提前一周提交申请。"),
    "en": ("Keys are issued by the platform team.", "Limits reset at the start of each minute."),
}


def streamed_answer(kb: Bunko, question: str) -> Answer:
    """The answer `ask_stream` ends with: an endpoint's model is streamed (and so can be stopped) when the caller
    streams; a local model always is (test_llamacpp_generator.py)."""
    return [item for item in kb.ask_stream(question) if isinstance(item, Answer)][-1]


@pytest.mark.parametrize("language", ["ja", "zh", "en"])
def test_the_model_is_stopped_once_the_answer_holds_the_sentences_it_asked_for(
    samples_kb_path: Path, embedder: Any, server: FakeChatServer, language: str,
) -> None:
    question, needle, supported, _ = CASES[language]
    further = [cited(s, language) for s in FURTHER[language]]
    server.reply = writes(cited(supported, language), *further, needle=needle)
    with open_kb(samples_kb_path, embedder, server, max_sentences=1) as kb:
        answer = streamed_answer(kb, question)
        trace = kb.trace(answer.trace_id)
    assert [s.text for s in answer.sentences] == [supported]
    assert trace["stopped"] == "enough_sentences"
    assert FURTHER[language][1] not in trace["raw_output"], "the model was not read to its end"
    assert [v["verdict"] for v in trace["sentences"]] == [SUPPORTED]


@pytest.mark.parametrize("language", ["ja", "zh", "en"])
def test_a_sentence_without_a_mark_is_cited_to_the_source_that_backs_it_and_no_other(
    samples_kb_path: Path, embedder: Any, server: FakeChatServer, language: str,
) -> None:
    question, needle, supported, uncited = CASES[language]
    server.reply = writes(supported, uncited, needle=needle)
    with open_kb(samples_kb_path, embedder, server, max_sentences=3) as kb:
        answer = kb.ask(question)
        trace = kb.trace(answer.trace_id)
    assert [s.verdict for s in answer.sentences] == [SUPPORTED, UNCITED]
    assert needle in answer.sentences[0].citations[0].quote, "cited to the passage that holds the fact"
    assert [v.get("attributed", False) for v in trace["sentences"]] == [True, False]
    assert unverified_mark(language) in answer.text, "the sentence no source backs keeps its mark"
    assert answer.confidence == round(grade_of(answer) / 2, 4)


@pytest.mark.parametrize("language", ["ja", "zh", "en"])
def test_a_model_that_repeats_a_sentence_is_stopped(
    samples_kb_path: Path, embedder: Any, server: FakeChatServer, language: str,
) -> None:
    question, needle, supported, _ = CASES[language]
    again = cited(supported, language)
    server.reply = writes(again, again, again, *(cited(s, language) for s in FURTHER[language]), needle=needle)
    with open_kb(samples_kb_path, embedder, server, max_sentences=3) as kb:
        answer = streamed_answer(kb, question)
        trace = kb.trace(answer.trace_id)
    assert [s.text for s in answer.sentences] == [supported]
    assert trace["stopped"] == "repeating"
    assert [v["verdict"] for v in trace["sentences"]] == [SUPPORTED, REPEATED, REPEATED]
    assert FURTHER[language][1] not in trace["raw_output"], "the model was not read to its end"


def test_a_streamed_answer_that_ends_unsupported_says_it_abstains_after_what_was_shown(
    samples_kb_path: Path, embedder: Any, server: FakeChatServer,
) -> None:
    question, needle, _, uncited = CASES["zh"]
    server.reply = writes(uncited, needle=needle)
    with open_kb(samples_kb_path, embedder, server) as kb:
        items = list(kb.ask_stream(question))
    answer = items[-1]
    assert isinstance(answer, Answer) and answer.abstained and answer.confidence == 0.0
    streamed = "".join(i for i in items[:-1] if isinstance(i, str))
    assert streamed.startswith(uncited + unverified_mark("zh")), "what was shown was shown marked"
    assert streamed.endswith("\n\n" + answer.text), "and the abstention follows it"


def test_the_critique_names_the_uncited_sentence_not_the_repeat(samples_kb_path: Path, embedder: Any, server: FakeChatServer) -> None:
    question, needle, supported, uncited = CASES["en"]
    server.reply = writes(cited(supported, "en"), cited(supported, "en"), uncited, needle=needle)
    with open_kb(samples_kb_path, embedder, server, critique=True) as kb:
        kb.ask(question)
    [critique] = [r["body"]["messages"][-1]["content"] for r in server.requests if r["body"]["messages"][-1]["role"] == "user"
                  and "citation check could not find" in r["body"]["messages"][-1]["content"]]
    assert f"- {uncited}" in critique and supported not in critique
