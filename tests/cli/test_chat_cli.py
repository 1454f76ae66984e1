"""`bunko chat`: a conversation in the terminal, each follow-up read with the turns before it, in ja/zh/en."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bunko import Bunko
from bunko.cli import app
from bunko.embed.use_m3 import UseM3Embedder


@pytest.fixture(scope="module")
def collection(tmp_path_factory: pytest.TempPathFactory, embedder: UseM3Embedder, samples_dir: Path) -> Path:
    path = tmp_path_factory.mktemp("chat") / ".bunko"
    with Bunko(path, embedder=embedder) as kb:
        assert kb.ingest([samples_dir]).ok
    return path


@pytest.fixture
def runner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("BUNKO_COLLECTION", raising=False)
    return CliRunner(env={"COLUMNS": "240"})  # a source line under a long temp path must not wrap into a "> " line


@pytest.mark.parametrize(("turns", "facts", "searched_as"), [
    (["東京23区に出張する一般社員の宿泊費の上限はいくらですか？", "管理職の場合は？"], ["12,000円", "15,000円"], "宿泊費"),
    (["婚假有几天？", "那产假呢？"], ["3天", "158天"], "产假有几天？"),
    (["What is the gift value limit in the London office?", "And for meals?"], ["GBP 40", "GBP 75"], "London office"),
])
def test_a_follow_up_is_answered_from_the_conversation(
    runner: CliRunner, collection: Path, turns: list[str], facts: list[str], searched_as: str,
) -> None:
    result = runner.invoke(app, ["chat", "--collection", str(collection)], input="\n".join(turns) + "\n\n")
    assert result.exit_code == 0, result.output
    first, second = re.split(r"(?m)^> ", result.stdout)[1:3]
    assert facts[0] in first and "[1]" in first
    assert facts[1] in second and "searched as:" in second and searched_as in second


def test_end_of_input_ends_the_conversation(runner: CliRunner, collection: Path) -> None:
    result = runner.invoke(app, ["chat", "--collection", str(collection)], input="婚假有几天？\n")
    assert result.exit_code == 0 and "3天" in result.stdout and "searched as" not in result.stdout


def test_ctrl_c_ends_the_conversation_and_keeps_what_was_said(
    runner: CliRunner, collection: Path, embedder: UseM3Embedder, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two turns, then Ctrl-C at the prompt: a clean exit, both answers printed, and what the collection keeps of the
    conversation (each turn's trace: the question, the answer, and for the follow-up the turns it was read with)
    intact and in order."""
    turns = iter(["婚假有几天？", "那产假呢？"])

    def typed(prompt: str = "") -> str:
        question = next(turns, None)
        if question is None:
            raise KeyboardInterrupt
        return question

    with Bunko(collection, embedder=embedder) as kb:
        before = {trace_id for trace_id, *_ in kb.store.export_traces()}
    monkeypatch.setattr("bunko.cli.chat.console.input", typed)
    result = runner.invoke(app, ["chat", "--collection", str(collection)])
    assert result.exit_code == 0, result.output
    assert 0 <= result.stdout.find("3天") < result.stdout.find("158天"), result.stdout  # both answers, in order

    with Bunko(collection, embedder=embedder) as kb:
        kept = [(question, trace) for trace_id, _, question, trace in kb.store.export_traces() if trace_id not in before]
    assert [question for question, _ in kept] == ["婚假有几天？", "那产假呢？"]
    (_, asked), (_, follow_up) = kept
    assert "3天" in asked["answer"]["text"] and "158天" in follow_up["answer"]["text"]
    assert follow_up["condensed"]["history_turns"] == 2 and follow_up["condensed"]["previous"] == "婚假有几天？"
    assert "产假" in follow_up["condensed"]["standalone"] and follow_up["condensed"]["standalone"] != "那产假呢？"


def test_chat_needs_a_collection(runner: CliRunner, tmp_path: Path) -> None:
    result = runner.invoke(app, ["chat", "--collection", str(tmp_path / "nothing")], input="婚假有几天？\n")
    assert result.exit_code == 2 and "no bunko collection" in result.output


@pytest.mark.parametrize(("turns", "fact"), [
    (["婚假有几天？", "你上一个回答是什么？"], "3天"),
    (["東京23区に出張する一般社員の宿泊費の上限はいくらですか？", "先ほどの回答をもう一度見せてください"], "12,000円"),
    (["What is the gift value limit in the London office?", "What was your previous answer?"], "GBP 40"),
])
def test_asking_for_the_previous_answer_quotes_it_with_its_sources(
    runner: CliRunner, collection: Path, turns: list[str], fact: str,
) -> None:
    result = runner.invoke(app, ["chat", "--collection", str(collection)], input="\n".join(turns) + "\n\n")
    assert result.exit_code == 0, result.output
    first, second = re.split(r"(?m)^> ", result.stdout)[1:3]
    source = re.search(r"\[1\] (\S+\.md)", first)
    assert source and fact in second and "[1]" in second and source.group(1) in second, second
    assert "searched as" not in second
