"""`bunko eval generate` drafts questions only from sentences that state something: no addresses, contact lines,
runs of names or rows of figures ("Box 94079, how many GB Amsterdam, Netherlands?")."""

from __future__ import annotations

import pytest

from bunko.evaluate.drafts import clear_statement, draft_questions
from bunko.schema import Chunk

FRAGMENTS = [
    ("en", "P.O. Box 94079, 1090 GB Amsterdam, Netherlands."),
    ("en", "Tel. 020 525 2525, Fax 020 525 2526."),
    ("en", "Debian Reference 2.1 Osamu Aoki 2013 2024 Edition 5"),
    ("ja", "〒100-0001 東京都千代田区千代田1丁目1番地"),
    ("ja", "電話 03-1234-5678（平日 9時〜17時）"),
    ("zh", "地址：北京市海淀区中关村大街27号，邮编100080。"),
    ("zh", "电话：010-6275 1234，传真：010-6275 5678"),
]
STATEMENTS = [
    ("en", "Support tickets are answered within 3 business days.", "3 business days"),
    ("en", "The server needs 16 GB of memory.", "16 GB"),
    ("ja", "年次有給休暇は20日付与されます。", "20日"),
    ("ja", "申請は3営業日前までに行う。", "3営業日"),
    ("zh", "正式员工的年假为每年15天。", "15天"),
    ("zh", "经部门批准后，远程办公每周最多3天。", "3天"),
]


@pytest.mark.parametrize(("lang", "sentence"), FRAGMENTS)
def test_addresses_contact_lines_and_figures_are_not_statements(lang: str, sentence: str) -> None:
    assert not clear_statement(sentence, lang)


@pytest.mark.parametrize(("lang", "sentence", "answer"), STATEMENTS)
def test_sentences_with_a_subject_and_a_verb_are(lang: str, sentence: str, answer: str) -> None:
    assert clear_statement(sentence, lang)


def _chunk(n: int, source: str, text: str) -> Chunk:
    return Chunk(f"c{n}", f"d{n}", source, 0, text, text)


def test_drafts_come_from_the_statements_and_never_from_the_fragments() -> None:
    chunks = []
    for n, lang in enumerate(("en", "ja", "zh")):
        fragments = " ".join(s for which, s in FRAGMENTS if which == lang)
        statements = " ".join(s for which, s, _ in STATEMENTS if which == lang)
        separator = "\n\n" if lang == "en" else "\n"
        chunks.append(_chunk(n, f"{lang}/contact.md", fragments.replace(". ", ".\n") + separator + statements.replace(". ", ".\n")))
    drafts = draft_questions(chunks, n=50)
    answers = {d.expected_answers[0] for d in drafts}
    assert answers == {answer for _, _, answer in STATEMENTS}
    for draft in drafts:
        assert not any(word in draft.question for word in ("Box", "GB Amsterdam", "〒", "丁目", "邮编", "电话", "Tel"))
    assert {d.lang for d in drafts} == {"en", "ja", "zh"}
    questions = {d.question for d in drafts}
    assert "正式员工的年假为每年多少天？" in questions and "The server needs how many GB of memory?" in questions
