"""One rendering of citations: the engine's streamed text, `render_answer` (ACL redaction) and the source lists agree."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from bunko import Bunko
from bunko.config import Config
from bunko.generate.citation_marks import numbered_citations, render_answer, source_lines, sources_block
from bunko.generate.citations import SUPPORTED, CheckedSentence
from bunko.generate.sentence_pipeline import SentencePipeline
from bunko.schema import AnswerSentence, Chunk, Citation, Hit

SENTENCES = {
    "en": ["Hotels in Tokyo are capped at 12,000 yen.", "Managers may claim 15,000 yen.", "Region: London / Cap: 25,000 yen",
           "Receipts are required."],
    "ja": ["東京23区の宿泊費の上限は12,000円です。", "管理職は15,000円です。", "地域: ロンドン / 上限額: 25,000円", "領収書が必要です。"],
    "zh": ["婚假为十天。", "产假为九十八天。", "类别: 丧假 / 天数: 3", "需提交证明。"],
}
CITED = [[1], [2], [1], [3, 2]]
"""Source ids per sentence: chunk 1 cited again keeps [1]; the last sentence cites two chunks."""

EXPECTED = {
    "en": "Hotels in Tokyo are capped at 12,000 yen. [1] Managers may claim 15,000 yen. [2]\n"
          "Region: London / Cap: 25,000 yen [1]\nReceipts are required. [3][2]",
    "ja": "東京23区の宿泊費の上限は12,000円です。[1]管理職は15,000円です。[2]\n地域: ロンドン / 上限額: 25,000円[1]\n領収書が必要です。[3][2]",
    "zh": "婚假为十天。[1]产假为九十八天。[2]\n类别: 丧假 / 天数: 3[1]\n需提交证明。[3][2]",
}


def _hits() -> list[Hit]:
    return [Hit(Chunk(f"doc{i}.md#{i}", f"d{i}", f"doc{i}.md", 0, f"text {i}", f"text {i}", section_path=[f"S{i}"]), 1.0) for i in (1, 2, 3)]


def _engine_text(language: str) -> tuple[str, list[AnswerSentence]]:
    """The answer text as the engine's sentence pipeline streams it."""
    config = Config().answer
    checker: Any = SimpleNamespace()  # checked sentences are fed as checked: the checker is never asked
    pipeline = SentencePipeline(checker, _hits(), language, config.policy, config.max_sentences)
    checked = [CheckedSentence(text, ids, verdict=SUPPORTED) for text, ids in zip(SENTENCES[language], CITED, strict=True)]
    streamed = "".join(pipeline.feed_checked(checked, stream=True))
    assert streamed == pipeline.text
    return pipeline.text, pipeline.kept


@pytest.mark.parametrize("language", ["en", "ja", "zh"])
def test_render_answer_is_the_engine_text(language: str) -> None:
    text, sentences = _engine_text(language)
    assert text == EXPECTED[language]
    assert render_answer(sentences, language) == text


@pytest.mark.parametrize("language", ["en", "ja", "zh"])
def test_only_rows_and_items_break_the_paragraph(language: str) -> None:
    """Prose then a row: the prose keeps flowing, the row takes its own line (render_answer used to break every line)."""
    first, second, row, _ = SENTENCES[language]
    cite = [Citation("doc1.md#1", "doc1.md", None, [], [], "q")]
    sentences = [AnswerSentence(first, cite), AnswerSentence(second, cite), AnswerSentence(row, cite)]
    glue = " " if language == "en" else ""
    marks = " [1]" if language == "en" else "[1]"
    assert render_answer(sentences, language) == f"{first}{marks}{glue}{second}{marks}\n{row}{marks}"


def test_sources_are_numbered_in_order_of_first_citation() -> None:
    _, sentences = _engine_text("ja")
    assert [(n, c.chunk_id) for n, c in numbered_citations(sentences)] == [(1, "doc1.md#1"), (2, "doc2.md#2"), (3, "doc3.md#3")]
    assert source_lines(sentences)[0] == "[1] doc1.md > S1"
    assert sources_block(sentences, "ja").startswith("出典:\n[1] ")
    assert sources_block(sentences, "zh").startswith("来源:\n")
    assert sources_block(sentences, "en").startswith("Sources:\n")
    assert sources_block([], "en") == ""


@pytest.mark.parametrize("question", [
    "東京23区に出張する一般社員の宿泊費の上限はいくらですか？", "婚假有几天？", "How many API requests per minute are allowed per key?",
])
def test_a_real_answer_renders_the_same_through_render_answer(samples_kb_path: Path, embedder: Any, question: str) -> None:
    with Bunko(samples_kb_path, embedder=embedder, create=False) as kb:
        answer = kb.ask(question)
    assert not answer.abstained and not answer.notices
    assert answer.text == render_answer(answer.sentences, answer.language)
    numbers = [n for n, _ in numbered_citations(answer.sentences)]
    assert all(f"[{n}]" in answer.text for n in numbers)


@pytest.mark.parametrize("lang", ["en", "ja", "zh"])
def test_a_cited_page_with_copies_in_other_folders_lists_them(lang: str) -> None:
    citation = Citation("ja/guide.html#1", f"{lang}/guide.html", None, ["Start"], [], "q",
                        also_at=[path for path in ("en/guide.html", "ja/guide.html", "zh/guide.html") if not path.startswith(lang)])
    lines = source_lines([AnswerSentence("text", [citation])])
    assert lines[0].startswith(f"[1] {lang}/guide.html > Start (also at ")
    assert all(path in lines[0] for path in citation.also_at)
