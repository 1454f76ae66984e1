"""What keeps tables from answering prose questions on real manuals: a table fits only a question whose named things
it holds. Found on the Debian Reference set, where tables sharing one word with a question answered 10 of 120 (the
lookup gate beside it, the row among the top hits, is measured there: run.sh all html)."""

from __future__ import annotations

import pytest

from bunko.index.table_data import TableColumn
from bunko.index.table_db import StoredTable
from bunko.retrieve.table_plan import holds_all, named_things
from bunko.text.analyzers import get_analyzer

ANALYZER = get_analyzer("multilingual")


@pytest.mark.parametrize(("question", "named"), [
    ("How many packages does Debian provide for the arm64 architecture?", ["arm64", "debian"]),
    ("How is the maximum segment size (MSS) derived from the MTU?", ["mss", "mtu"]),
    ("journald が /var/log/journal に保存するログは最大どれくらい？", ["var/log/journal"]),
    ("ldaps 默认用的是哪个端口？", []),
    ("What is the total population of the prefectures in 関東?", []),
    ("関西シートのQ3売上の合計は？", ["q3"]),
])
def test_named_things_are_identifiers_and_capitalised_names(question: str, named: list[str]) -> None:
    assert sorted(named_things(question, ANALYZER(question))) == sorted(named)


def _table(title: str, values: list[str]) -> StoredTable:
    return StoredTable("0" * 16, "d", "docs/a.md", title, None, [title], [TableColumn("package"), TableColumn("size", "number")],
                       len(values), {0: values})


def test_a_table_must_hold_every_named_thing() -> None:
    packages = _table("Packages by area", ["poppler-utils", "ibus-mozc"])
    assert holds_all(packages, [])
    assert holds_all(packages, ["poppler-utils", "package"])
    assert not holds_all(packages, ["arm64"])
    assert not holds_all(packages, ["poppler-utils", "mss"])
