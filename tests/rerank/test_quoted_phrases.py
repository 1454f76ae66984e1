"""A phrase the question quotes is a label the asker saw: the unit that writes it is where the answer stands."""

from __future__ import annotations

import pytest

from bunko.rerank.evidence import best_unit
from bunko.text.questions import quoted_phrases

CASES = [
    ("When migrate_all_online.sh asks for the \"Manager DN\", what do I answer?",
     "migrate_all_online.sh asks a few questions about the LDAP database to migrate the data to.",
     "Question: Manager DN / Answer: cn=admin,dc=falcot,dc=com", "LDAP migration"),
    ("migrate_all_online.sh で「管理者の識別名」を聞かれたら何と答えますか？",
     "migrate_all_online.sh から LDAP データベースに移行するデータの種類に関する数個の質問を尋ねられます。",
     "質問: 管理者の識別名 / 回答: cn=admin,dc=falcot,dc=com", "LDAP への移行"),
    ("用 migrate_all_online.sh 迁移时，脚本问到“管理者 DN”应该填什么？",
     "migrate_all_online.sh 询问一些关于数据迁移到 LDAP 数据库的问题。",
     "问题: 管理者 DN / 回答: cn=admin,dc=falcot,dc=com", "迁移到 LDAP"),
]


@pytest.mark.parametrize(("question", "restating", "row", "section"), CASES)
def test_the_unit_writing_the_quoted_label_is_quoted_over_one_restating_the_question(
    units_of, question: str, restating: str, row: str, section: str
) -> None:
    assert quoted_phrases(question)
    scored = units_of(question, section, f"{restating}\n\n{row}")
    assert {s.unit.text for s in scored} == {restating, row}
    assert best_unit(scored, question).unit.text == row


def test_quoted_phrases_are_read_in_every_quoting_style() -> None:
    assert quoted_phrases('the "Manager DN" question') == ["Manager DN"]
    assert quoted_phrases("「sudo の設定」の節と『概要』") == ["sudo の設定", "概要"]
    assert quoted_phrases("脚本问到“管理者 DN”时") == ["管理者 DN"]
    assert quoted_phrases("no quotes at all") == []
