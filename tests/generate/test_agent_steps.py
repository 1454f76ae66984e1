"""The answerer's steps around retrieval ([agent]): analysis, retrieve-or-not, decomposition, the second search
(pseudo-relevance feedback, HyDE) and the LLM critique, each switchable and each in the trace, in ja/zh/en."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeChatServer

from bunko import Bunko
from bunko.config import Config
from bunko.generate.analysis import analyze
from bunko.generate.expansion import feedback_terms
from bunko.schema import Chunk, Hit, Signals
from bunko.text.analyzers import get_analyzer
from bunko.text.questions import arithmetic, is_greeting, question_parts

ANALYZER = get_analyzer("multilingual")


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Hello!", "greeting"), ("ありがとうございます。", "greeting"), ("谢谢！", "greeting"),
        ("What is 12 * 7?", "arithmetic"), ("3+4は？", "arithmetic"), ("15 × 3 等于多少", "arithmetic"),
        ("What is the difference between annual leave and sick leave?", "comparison"),
        ("年次有給休暇と病気休暇の違いは何ですか？", "comparison"), ("年假和病假有什么区别？", "comparison"),
        ("How long are security audit logs kept and how long are CCTV recordings kept?", "multi_part"),
        ("セキュリティ監査ログの保存期間、および監視カメラ映像の保存期間は？", "multi_part"),
        ("How many ferry routes have a fare above 3,000 yen?", "aggregation"),
        ("Which file configures the tool that the backup chapter recommends?", "multi_hop"),
        ("婚假有几天？", "single"), ("東京の宿泊費の上限はいくらですか？", "single"), ("What is the base URL of the API?", "single"),
    ],
)
def test_questions_are_classified_by_rule(question: str, kind: str) -> None:
    assert analyze(question, ANALYZER).kind == kind


def test_only_greetings_and_arithmetic_skip_retrieval() -> None:
    assert not analyze("こんにちは", ANALYZER).retrieves and not analyze("2+2?", ANALYZER).retrieves
    assert analyze("What is E-1024?", ANALYZER).retrieves and analyze("Debian 12 のリリース日は？", ANALYZER).retrieves
    assert arithmetic("What is 2023-01-02?") is None and arithmetic("(2+3)×4") == 20.0 and not is_greeting("hello world program")


def test_a_two_part_question_splits_into_searchable_parts() -> None:
    assert question_parts("年假有几天以及病假有几天？") == ["年假有几天", "病假有几天？"]
    analysis = analyze("How long are security audit logs kept and how long are CCTV recordings kept?", ANALYZER)
    assert analysis.parts == ["How long are security audit logs kept", "how long are CCTV recordings kept?"]


def _hit(text: str, rank: int) -> Hit:
    return Hit(Chunk(f"c#{rank}", "d", "d.md", rank, text, text), 1.0 / (rank + 1), None, Signals())


@pytest.mark.parametrize(
    ("question", "passages", "expected"),
    [
        ("How do I stop the machine?", ["Use shutdown to halt the system. shutdown -h now halts it at once."], "shutdown"),
        ("マシンを止めるには？", ["シャットダウンには shutdown を使う。shutdown -h now で直ちに停止する。"], "shutdown"),
        ("怎样关机？", ["使用 shutdown 命令关闭系统。shutdown -h now 立即关机。"], "shutdown"),
    ],
)
def test_feedback_terms_come_from_the_best_passages_and_are_new_to_the_question(question: str, passages: list[str], expected: str) -> None:
    tokens = ANALYZER(question)
    terms = feedback_terms(tokens, [_hit(p, i) for i, p in enumerate(passages)], ANALYZER, lambda ts: dict.fromkeys(ts, 1.0), 5)
    assert expected in terms and not set(terms) & set(tokens)


@pytest.fixture
def kb(samples_kb_path: Path, embedder: Any) -> Bunko:
    return Bunko(samples_kb_path, config=Config(), embedder=embedder)


@pytest.mark.parametrize(("question", "expected"), [("Hello!", "Hello"), ("こんにちは", "こんにちは"), ("12*7は？", "84"), ("3+4等于多少", "7")])
def test_greetings_and_sums_are_answered_without_documents_and_say_so(kb: Bunko, question: str, expected: str) -> None:
    answer = kb.ask(question)
    assert expected in answer.text and not answer.sentences and not answer.abstained
    assert answer.trace is not None and [s.name for s in answer.trace.steps] == ["analysis", "direct_answer"]
    assert answer.trace.evidence.hits == [] and kb.trace(answer.trace_id)["steps"][1]["name"] == "direct_answer"
    kb.config.agent.retrieve_or_not = False
    assert kb.ask(question).trace.evidence.route["mode"] != "none"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("question", "facts"),
    [
        ("What is the retention period for security audit logs and how long are CCTV recordings kept?", ["13 months", "30 days"]),
        pytest.param("婚假有几天以及产假有几天？", ["3天", "158天"], marks=pytest.mark.xfail(strict=True, reason=(
            "the merged evidence is read against the whole question: the learned reader rates the 产假 and 陪产假 rows "
            "(sharing 产假) over the 婚假 row, and two units are quoted; quoting each part's best unit made spurious "
            "decompositions of real questions worse (bench/results/reader.notes.md)"))),
    ],
)
def test_decomposition_answers_each_part_from_its_own_evidence(kb: Bunko, question: str, facts: list[str]) -> None:
    kb.config.agent.decompose = True
    answer = kb.ask(question)
    steps = {s.name: s for s in answer.trace.steps}  # type: ignore[union-attr]
    assert "decompose" in steps and len(steps["decompose"].output.to_dict()["parts"]) == 2
    assert all(fact in answer.text for fact in facts), answer.text


def test_the_second_search_is_traced_and_kept_only_when_the_grade_is_sufficient(kb: Bunko) -> None:
    kb.config.agent.rewrite = "prf"
    answer = kb.ask("What does the travel policy say about hovercraft fuel surcharges?")
    rewrite = [s for s in answer.trace.steps if s.name == "rewrite"]  # type: ignore[union-attr]
    assert rewrite and rewrite[0].output.to_dict()["terms"] and rewrite[0].output.to_dict()["query"].startswith("What does the travel policy")
    assert rewrite[0].output.to_dict()["kept"] is (answer.trace.rewrite is not None)  # type: ignore[union-attr]


def _llm_kb(samples_kb_path: Path, embedder: Any, server: FakeChatServer) -> Bunko:
    config = Config()
    config.answer.generator = "openai"
    config.answer.llm_grader = False
    config.llm.base_url, config.llm.model, config.llm.retries = server.url, "fake-model", 0
    return Bunko(samples_kb_path, config=config, embedder=embedder)


def test_hyde_searches_with_the_passage_the_model_writes(samples_kb_path: Path, embedder: Any) -> None:
    with FakeChatServer() as server:
        server.reply = lambda messages, body: (
            "Security audit logs are kept for 13 months." if "only to search" in messages[0]["content"] else "13 months [1]"
        )
        kb = _llm_kb(samples_kb_path, embedder, server)
        kb.config.agent.rewrite = "hyde"
        answer = kb.ask("How long do we hang on to the records of who logged in where?")
    rewrite = [s for s in answer.trace.steps if s.name == "rewrite"]  # type: ignore[union-attr]
    assert rewrite and rewrite[0].output.to_dict()["passage"] == "Security audit logs are kept for 13 months."
    assert any("only to search" in r["body"]["messages"][0]["content"] for r in server.requests)


def test_critique_names_rejected_sentences_and_keeps_the_better_answer(samples_kb_path: Path, embedder: Any) -> None:
    with FakeChatServer() as server:
        def reply(messages: list[dict[str, str]], body: dict[str, Any]) -> str:
            if "could not find these sentences" in messages[-1]["content"]:
                return "Security audit logs are kept for 13 months [1]."
            return "Security audit logs are kept for 13 months [1]. They are also printed and stored in a vault on Mars [1]."

        server.reply = reply
        kb = _llm_kb(samples_kb_path, embedder, server)
        answer = kb.ask("What is the retention period for security audit logs?")
        critique = [s for s in answer.trace.steps if s.name == "critique"]  # type: ignore[union-attr]
        assert critique and any("Mars" in r for r in critique[0].output.to_dict()["rejected"]) and critique[0].output.to_dict()["kept"]
        assert "Mars" not in answer.text and "13 months" in answer.text
        assert "could not find these sentences" in server.requests[-1]["body"]["messages"][-1]["content"]
        kb.config.agent.critique = False
        assert not [s for s in kb.ask("What is the retention period for security audit logs?").trace.steps if s.name == "critique"]  # type: ignore[union-attr]
