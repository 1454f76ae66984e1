"""The table route: an aggregate question's passages are the chunks of the table it is computed from.

The router sends a question that asks for a count, a sum, a ranking or a filter over rows here
(`router.table_rule`). A ranking question whose table has no column to rank by ("the oldest browser", no dates)
puts that table in front all the same: it is what the question is about, and the answer declines to rank its rows
(`generate/steps/table.declined_ranking`). The answer itself is computed by the answerer (`generate/table_answer.py`); as a search
mode this route returns hybrid's list with the chunks of the table the question maps onto in front, so that
`bunko search --mode table` shows the evidence the computation reads, and an answer that falls back to the
passages (no table fits) starts from hybrid's own ranking, unchanged.
"""

from __future__ import annotations

import time

from bunko.config import RetrieveConfig
from bunko.index.table_db import TableQueryError
from bunko.retrieve.base import Query, signal_lines
from bunko.retrieve.fusion import Fused
from bunko.retrieve.hybrid import HybridRetriever
from bunko.retrieve.table_plan import TablePlanner
from bunko.retrieve.tables import CollectionTables
from bunko.schema import Signals
from bunko.store.search_backend import SearchBackend
from bunko.text.analyzers import get_analyzer

TABLE = "table"


class TableRetriever:
    name = TABLE
    needs_vector = True

    def __init__(
        self, store: SearchBackend, config: RetrieveConfig, tables: CollectionTables, hybrid: HybridRetriever | None = None,
    ) -> None:
        self.store = store
        self.config = config
        self.tables = tables
        self.hybrid = hybrid or HybridRetriever(store, config)
        self.planner = TablePlanner(get_analyzer(config.analyzer))

    def retrieve(self, query: Query, k: int) -> list[Fused]:
        hybrid = self.hybrid.retrieve(query, k)
        started = time.perf_counter()
        intent = query.facts.table
        plan, unranked = self.planner.choose(query.text, intent, self.tables.catalog(query.where)) if intent is not None else (None, None)
        plan = plan or unranked  # a ranking of a table that cannot rank its rows: its rows are still what is asked about
        if plan is None:
            query.timings[TABLE] = time.perf_counter() - started
            return hybrid
        try:
            rows = self.tables.db.select(f"SELECT DISTINCT _chunk FROM {plan.table.sql_name} ORDER BY _row")
        except TableQueryError:
            rows = []
        chunk_ids = [cid for (cid,) in rows if cid]
        front: list[Fused] = []
        for rank, chunk_id in enumerate(chunk_ids, start=1):
            signals = next((s for cid, _, s in hybrid if cid == chunk_id), Signals())
            signals.found_in(TABLE, float(rank), plan.score)
            front.append((chunk_id, 1.0 + 1.0 / rank, signals))
        chosen = set(chunk_ids)
        query.timings[TABLE] = time.perf_counter() - started
        return front + [f for f in hybrid if f[0] not in chosen]

    def explain(self, signals: Signals) -> list[str]:
        lines = signal_lines(signals)
        if signals.list_signal(TABLE) is not None:
            lines.append("table: a chunk of the table the question's aggregate is computed from")
        return lines
