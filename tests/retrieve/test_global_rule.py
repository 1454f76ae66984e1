"""The global route takes questions about the collection as a whole, in ja/zh/en; a question that uses one of its
words about something it names ("an overview of the annual leave days", ひとまとめ) is searched for what it names."""

from __future__ import annotations

import pytest

from bunko.config import RetrieveConfig
from bunko.retrieve.question import read_question
from bunko.retrieve.router import route


@pytest.mark.parametrize("question", [
    "What are the main topics of these documents?", "Give me an overview of this collection.",
    "これらの資料の主なテーマは何ですか？", "文書全体の概要を教えてください。",
    "这些文档的主要内容是什么？", "请概括这些资料。",
])
def test_a_question_about_the_whole_collection_takes_the_global_route(question: str) -> None:
    facts = read_question(question, [])
    assert facts.about_collection and not facts.named_beyond_collection
    assert route(facts, RetrieveConfig()).name == "global"


@pytest.mark.parametrize("question", [
    "What are the key points about annual leave for new employees?", "Give me an overview of the backup schedule.",
    "新入社員の年次有給休暇の日数の概要は？", "選んだ図形をひとまとめのグループにするショートカットは？",
    "年休假天数的主要内容是什么？", "请概括远程办公的申请流程。",
])
def test_a_question_naming_what_it_asks_about_is_not_routed_as_global(question: str) -> None:
    facts = read_question(question, [])
    assert facts.named_beyond_collection
    assert route(facts, RetrieveConfig()).name != "global"
