"""`qa_pairs`: one question with its answer per chunk."""

from __future__ import annotations

import pytest
from chunkdocs import document, parse_markdown

from bunko.chunk.qa_pairs import QaPairsChunker, is_question
from bunko.config import ChunkConfig
from bunko.schema import Element

FAQ = {
    "en": (
        "# Product FAQ\n\nThis page answers common questions.\n\n"
        "Q: Can I get a refund?\n\nA: Yes, within 30 days of purchase.\n\nRefunds go to the original card.\n\n"
        "Q: How do I reset my password?\n\nA: Use the link on the sign-in page.\n"
    ),
    "ja": (
        "# よくある質問\n\nこのページはよくある質問に答えます。\n\n"
        "## 問：返金できますか？\n\n購入から三十日以内なら返金できます。\n\n返金は元のカードに行われます。\n\n"
        "## 問：パスワードを再設定するには？\n\nサインイン画面のリンクを使ってください。\n"
    ),
    "zh": (
        "# 常见问题\n\n本页回答常见问题。\n\n"
        "### 问：可以退款吗？\n\n答：购买后三十天内可以退款。\n\n退款将退回原支付卡。\n\n"
        "### 问：如何重置密码？\n\n答：请使用登录页面上的链接。\n"
    ),
}
QUESTIONS = {
    "en": ["Q: Can I get a refund?", "Q: How do I reset my password?"],
    "ja": ["問：返金できますか？", "問：パスワードを再設定するには？"],
    "zh": ["问：可以退款吗？", "问：如何重置密码？"],
}
INTROS = {"en": "This page answers common questions.", "ja": "このページはよくある質問に答えます。", "zh": "本页回答常见问题。"}


@pytest.mark.parametrize("lang", ["ja", "zh", "en"])
def test_each_question_is_one_chunk_with_its_whole_answer(lang: str) -> None:
    doc = parse_markdown(FAQ[lang], f"faq-{lang}.md")
    chunks = QaPairsChunker().chunk(doc, ChunkConfig())
    assert [c.text.split("\n\n")[0] for c in chunks] == [INTROS[lang], *QUESTIONS[lang]]
    first, second = chunks[1], chunks[2]
    assert first.meta["qa"] is True and "qa" not in chunks[0].meta
    assert len(first.text.split("\n\n")) == 3  # question, answer, and the paragraph that continues it
    assert QUESTIONS[lang][1] not in first.text
    assert second.text.count("\n\n") == 1
    assert first.embed_text.count(QUESTIONS[lang][0]) == 1


def test_a_long_answer_is_split_and_every_part_repeats_the_question() -> None:
    answer = " ".join(f"Step {i}: open the settings page and confirm item {i}." for i in range(12))
    doc = parse_markdown(f"Q: How do I configure sync?\n\n{answer}\n", "faq.md")
    chunks = QaPairsChunker().chunk(doc, ChunkConfig(max_chars=200))
    assert len(chunks) >= 3
    question = "Q: How do I configure sync?"
    for i, chunk in enumerate(chunks):
        assert chunk.text.startswith(question + "\n\n")
        assert len(chunk.text) <= 200
        assert chunk.meta["qa_part"] == i and chunk.meta["qa_parts"] == len(chunks)
        assert chunk.meta.get("overlap", 0) == (len(question) + 2 if i else 0)
    assert " ".join(c.text[len(question) + 2 :] for c in chunks) == answer


@pytest.mark.parametrize(
    ("kind", "text", "expected"),
    [
        ("paragraph", "Q: Can I pay by invoice?", True),
        ("paragraph", "Q1. What is the SLA", True),
        ("paragraph", "問：請求書払いはできますか", True),
        ("paragraph", "问：可以开发票吗", True),
        ("paragraph", "质问：为什么收费", True),
        ("paragraph", "「Q」支払い方法は", True),
        ("heading", "How do I reset my password?", True),
        ("heading", "パスワードを忘れた場合は？", True),
        ("paragraph", "Why does this matter?", True),
        ("paragraph", "問題があれば連絡してください。", False),
        ("paragraph", "问题描述见下文。", False),
        ("heading", "Overview", False),
        ("paragraph", "We often ask: does it scale? The answer is yes, up to ten nodes, as measured.", False),
        ("list", "- Q: item?", False),
    ],
)
def test_questions_are_recognised_in_three_languages(kind: str, text: str, expected: bool) -> None:
    assert is_question(Element("e", kind, text)) is expected


def test_a_question_without_an_answer_is_still_a_chunk() -> None:
    doc = document("f.md", [("paragraph", "Q: Is there a trial?", {}), ("heading", "Contact", {}), ("paragraph", "Mail us.", {})])
    assert [c.text for c in QaPairsChunker().chunk(doc, ChunkConfig())] == ["Q: Is there a trial?", "Mail us."]
