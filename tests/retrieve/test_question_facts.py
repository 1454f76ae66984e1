"""The question is read once (`retrieve/question.py`): what each stage asks of its words, in ja/zh/en."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

import bunko.retrieve.question as question_module
from bunko.retrieve.question import QuestionFacts, read_question
from bunko.text.analyzers import multilingual, query_text
from bunko.text.answer_types import AnswerType


def facts(text: str) -> QuestionFacts:
    return read_question(text, multilingual(query_text(text)))


@pytest.mark.parametrize(
    ("text", "language", "kind", "key_terms"),
    [
        ("Which file does the Kilnwatch daemon read its zone limits from?", "en", AnswerType.PATH, ["kilnwatch"]),
        ("Kilnwatch はゾーンの上限をどのファイルから読みますか？", "ja", AnswerType.PATH, ["kilnwatch"]),
        ("Kilnwatch 从哪个文件读取区域上限？", "zh", AnswerType.PATH, ["kilnwatch"]),
    ],
)
def test_a_question_is_read_into_its_language_kind_and_key_terms(text: str, language: str, kind: AnswerType, key_terms: list[str]) -> None:
    read = facts(text)
    assert (read.language, read.kind, list(read.key_terms)) == (language, kind, key_terms)
    assert read.tokens == tuple(multilingual(query_text(text))) and read.text == text


@pytest.mark.parametrize(
    ("text", "quoted", "looked_up"),
    [
        ('What does the "Night mode" switch do at level 3?', ("Night mode",), ("Night mode", "3")),
        ("「夜間モード」スイッチはレベル 3 で何をしますか？", ("夜間モード",), ("夜間モード", "3")),
        ("“夜间模式”开关在级别 3 时做什么？", ("夜间模式",), ("夜间模式", "3")),
    ],
)
def test_quoted_phrases_and_the_values_a_row_is_looked_up_by_are_read(text: str, quoted: tuple[str, ...], looked_up: tuple[str, ...]) -> None:
    read = facts(text)
    assert read.quoted == quoted and read.looked_up == looked_up


@pytest.mark.parametrize(
    ("text", "asking"),
    [
        ("Our kiln runs overnight. Where is the cooling schedule set?", "Where is the cooling schedule set?"),
        ("窯は夜通し動いています。冷却スケジュールはどこで設定しますか？", "冷却スケジュールはどこで設定しますか？"),
        ("窑炉整夜运行。冷却计划在哪里设置？", "冷却计划在哪里设置？"),
    ],
)
def test_the_asking_sentence_is_read_apart_from_the_scene_before_it(text: str, asking: str) -> None:
    assert facts(text).asking == asking
    assert facts(asking).asking is None


@pytest.mark.parametrize(
    ("text", "counted"),
    [
        ("How many kilns are listed in the maintenance table?", True),
        ("保守表に載っている窯はいくつありますか？", True),
        ("维护表中列出了多少台窑炉？", True),
        ("Who maintains the kilns?", False),
    ],
)
def test_a_count_over_table_rows_is_read_as_the_table_intent(text: str, counted: bool) -> None:
    read = facts(text)
    assert (read.table is not None and read.table.operation == "count") is counted


def test_a_question_in_two_languages_is_read_in_two_language_parts() -> None:
    read = facts("窯の冷却はいつ始まりますか？ When does the kiln start cooling?")
    assert read.language_parts == ("窯の冷却はいつ始まりますか？", "When does the kiln start cooling?")
    assert facts("When does the kiln start cooling?").language_parts == ("When does the kiln start cooling?",)


DOCUMENTS = {
    "kiln-en.md": "# Kiln cooling\n\nThe kilnctl tool reads its zone limits from /etc/kiln/zones.conf at start.\n",
    "kiln-ja.md": "# 窯の冷却\n\nkilnctl ツールは起動時に /etc/kiln/zones.conf からゾーンの上限を読み込みます。\n",
    "kiln-zh.md": "# 窑炉冷却\n\nkilnctl 工具在启动时从 /etc/kiln/zones.conf 读取区域上限。\n",
}


def test_one_ask_reads_each_text_once(make_kb, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The router, the reranker, the reader, the grade and the answer share one reading of the question."""
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in DOCUMENTS.items():
        (folder / name).write_text(text, encoding="utf-8")
    kb = make_kb()
    kb.ingest(folder)
    read: Counter[str] = Counter()
    original = question_module.read_question

    def counted(text: str, tokens: list[str]) -> QuestionFacts:
        read[text] += 1
        return original(text, tokens)

    monkeypatch.setattr(question_module, "read_question", counted)
    for question in (
        "Which file does kilnctl read its zone limits from?", "kilnctl はゾーンの上限をどのファイルから読みますか？",
        "kilnctl 从哪个文件读取区域上限？",
    ):
        answer = kb.ask(question)
        assert "/etc/kiln/zones.conf" in answer.text
        assert read[question] == 1, read
    assert max(read.values()) == 1
