"""What keeps tables from answering prose questions on real manuals: a table fits only a question whose named things
it holds. Found on the Debian Reference set, where tables sharing one word with a question answered 10 of 120 (the
lookup gate beside it, the row among the top hits, is measured there: run.sh all html)."""

from __future__ import annotations

import pytest

from bunko.index.table_data import TableColumn
from bunko.index.table_db import StoredTable
from bunko.retrieve.table_plan import TablePlanner
from bunko.retrieve.table_terms import holds_all, named_things
from bunko.text.analyzers import get_analyzer

ANALYZER = get_analyzer("multilingual")


@pytest.mark.parametrize(("question", "named"), [
    ("How many boats does Falmouth register for the k2 class?", ["falmouth", "k2"]),
    ("How is the mean tidal range (MTR) derived from the LAT?", ["lat", "mtr"]),
    ("tidewatch が /var/lib/tidewatch に保存する記録は最大どれくらい？", ["var/lib/tidewatch"]),
    ("gaugeproto 默认用的是哪个端口？", []),
    ("What is the total rainfall of the stations in 東北?", []),
    ("北陸シートのQ2受注額の合計は？", ["q2"]),
])
def test_named_things_are_identifiers_and_capitalised_names(question: str, named: list[str]) -> None:
    assert sorted(named_things(question, ANALYZER(question))) == sorted(named)


def _table(title: str, values: list[str]) -> StoredTable:
    return StoredTable("0" * 16, "d", "docs/a.md", title, None, [title], [TableColumn("package"), TableColumn("size", "number")],
                       len(values), {0: values})


def test_a_table_must_hold_every_named_thing() -> None:
    packages = _table("Packages by area", ["tide-tables", "gauge-tools"])
    assert holds_all(packages, [])
    assert holds_all(packages, ["tide-tables", "package"])
    assert not holds_all(packages, ["k2"])
    assert not holds_all(packages, ["tide-tables", "mtr"])


@pytest.mark.parametrize(("question", "values", "named"), [
    ("What is the ferry fare to Bergen?", ["Bergen", "Oslo", "Stavanger"], ["Bergen"]),
    ("宮崎の降水量は？", ["宮崎県", "高知県", "静岡県"], ["宮崎県"]),
    ("云南的茶叶产量是多少？", ["云南省", "福建省"], ["云南省"]),
])
def test_a_tables_cells_are_normalised_once_and_name_the_same_rows(question: str, values: list[str], named: list[str]) -> None:
    planner = TablePlanner(ANALYZER)
    table = _table("Limits", values)
    first = planner.named_values(table, question.lower())
    assert [v for _, v, _ in first] == named
    terms = planner.cell_terms(table)
    assert planner.named_values(table, question.lower()) == first
    assert planner.cell_terms(table) is terms  # the same catalog table: not normalised again
    changed = _table("Limits", [*values, "Tromsø"])  # the catalog after a change holds new table objects
    assert planner.cell_terms(changed) is not terms and len(planner.cell_terms(changed)) == len(values) + 1


def test_cell_terms_are_held_only_for_the_tables_of_live_catalogs() -> None:
    """Each write gives the collection a new catalog of new table objects; a server that took 1,000 uploads and deletes
    must not hold the cell terms of 1,000 old catalogs (it held up to 20,000 tables' before: the soak's memory growth)."""
    planner = TablePlanner(ANALYZER)
    tables_per_catalog = 3
    for generation in range(50):
        catalog = [_table(f"Limits {i}", [f"port {generation}-{i}-{n}" for n in range(20)]) for i in range(tables_per_catalog)]
        for table in catalog:
            planner.cell_terms(table)
        assert planner.cached_tables <= tables_per_catalog
    kept = catalog
    assert [planner.cell_terms(t) for t in kept] == [planner.cell_terms(t) for t in kept]  # still cached while held
    del catalog, kept, table
    assert planner.cached_tables == 0
