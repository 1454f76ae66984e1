"""`bunko demo` asks the questions in src/bunko/samples/demo-questions.txt: one in each language, each answered by the
bundled samples (a demo that abstains shows nothing)."""

from __future__ import annotations

from pathlib import Path

from bunko import Bunko
from bunko.cli.query import demo_questions
from bunko.text.languages import query_language


def test_the_demo_asks_one_question_in_each_language_and_the_samples_answer_each(samples_kb_path: Path, embedder) -> None:
    questions = demo_questions()
    assert sorted(query_language(q) for q in questions) == ["en", "ja", "zh"], questions
    with Bunko(samples_kb_path, embedder=embedder) as kb:
        for question in questions:
            answer = kb.ask(question)
            assert not answer.abstained and any(s.citations for s in answer.sentences), (question, answer.text)
