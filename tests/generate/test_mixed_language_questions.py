"""A question that carries one request in two languages is answered from a collection written in either; a name
the collection never writes still refuses it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from bunko import Bunko

CAR_PARK = """# Car park

The staff car park closes at 22:00 every day. Visitors park on level 2 and pay 300 yen per hour.
Parking permits are renewed each April at the front desk.
"""


@pytest.fixture
def car_park_kb(tmp_path: Path, make_kb: Callable[..., Bunko]) -> Bunko:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "car-park.md").write_text(CAR_PARK, encoding="utf-8")
    kb = make_kb()
    kb.ingest([str(tmp_path / "docs")])
    return kb


@pytest.mark.parametrize(("question", "language"), [
    ("職員用駐車場は何時に閉まりますか？ When does the staff car park close?", "ja"),
    ("员工停车场几点关闭？When does the staff car park close?", "zh"),
    ("When does the staff car park close? 職員用駐車場の閉場時刻", "ja"),
])
def test_the_part_in_the_collections_language_answers(car_park_kb: Bunko, question: str, language: str) -> None:
    answer = car_park_kb.ask(question)
    assert not answer.abstained, (answer.text, answer.trace.abstain_reason if answer.trace else None)
    assert "22:00" in answer.text and answer.language == language
    assert answer.sentences[0].citations[0].source.endswith("car-park.md")


@pytest.mark.parametrize("question", [
    "How much does the Zorvex pass cost per hour? Zorvex パスの料金は1時間いくらですか？",
    "Zorvex 通行证多少钱？What does the Zorvex pass cost?",
    "How much does the Zorvex pass cost per hour?",
])
def test_a_name_the_collection_never_writes_still_refuses(car_park_kb: Bunko, question: str) -> None:
    answer = car_park_kb.ask(question)
    assert answer.abstained
    assert answer.trace is not None and answer.trace.abstain_reason == "key_term_absent"
    assert "zorvex" in answer.trace.grade.missing_key_terms
