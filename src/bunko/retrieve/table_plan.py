"""An aggregate question mapped onto one table and computed there with read-only SQL, every cell it used kept.

The question's shape comes from `text/table_questions.py` (count, sum, top 3, > 20,000 yen…). Here its words are
matched against each table of the collection — column names (whole, by the collection's analyzer's tokens, or
through a small ja/zh/en dictionary of common header words: 人口 = population = 人口, 売上 = sales = 销售额), the
texts of its cells (a row the question names: "Kansai", 東京), its sheet and title — and the best table that has
what the operation needs (a numeric column to add, a column for each condition) is chosen. No table with those is
"no table fits": the caller answers from the passages instead, never from a guess.

The SQL is built from column indexes and bound parameters only, so nothing of the question is ever SQL text, and
runs through `TableDB.select` (read-only connection, authorizer, time limit).
"""

from __future__ import annotations

import re
import weakref
from dataclasses import replace

from bunko.index.table_data import TEXT, TableColumn
from bunko.index.table_db import StoredTable, TableDB, text_col, value_col
from bunko.retrieve.table_query import CellRef, Filter, ResultRow, TablePlan, TableResult
from bunko.retrieve.table_terms import (
    HIRAGANA_CHAR,
    clean_name,
    contains_term,
    counted_thing,
    heading_texts,
    holds_all,
    named_things,
    plural_stem,
    same_data,
    script_of,
    synonym_share,
)
from bunko.text.analyzers import Analyzer
from bunko.text.lexicon import en, ja, zh
from bunko.text.numbers import CURRENCY, DATE, NUMBER, PERCENT, Quantity, normalize
from bunko.text.scripts import JA_ZH_CHAR
from bunko.text.table_questions import (
    AVG,
    BOTTOM,
    COUNT,
    DIFFERENCE,
    GROWTH,
    LIST,
    MAX,
    MIN,
    SUM,
    TOP,
    TableIntent,
)

LOOKUP = "lookup"

MIN_NAME_SCORE = 0.5
VALUE_WEIGHT = 1.5
"""What a cell the question names ("西南", "Kansai") adds to its table's score: more than a column name, which
other tables may share (人口 is in both a prefecture and a province table; 西南 only in one)."""
LOOKUP_NAME_SCORE = 0.8
"""A lookup answers from a table only when the question names the column this clearly (whole, or a synonym)."""
FOLLOW_UP_NAME_SCORE = 0.5
"""A follow-up made standalone ("and for meals?") names its column with the words it shares with the earlier turn
("limit"), so a column the follow-up itself names needs only this much of the whole."""
"""A column is named by the question when at least this much of its name is in it."""
TIME_COLUMNS = tuple(normalize(w).lower() for w in (*en.TIME_COLUMNS, *ja.TIME_COLUMNS, *zh.TIME_COLUMNS))
ADMINISTRATIVE_SUFFIXES = ja.ADMINISTRATIVE_SUFFIXES + zh.ADMINISTRATIVE_SUFFIXES
"""Place names are asked without the suffix a table writes them with (大阪 for 大阪府, 广东 for 广东省)."""
MAX_LISTED = 20
"""Rows a list or count answer names (all of them are cited)."""
HEADING_WEIGHT = 1.5
"""What the table's own heading (its caption, else its section's title, or its sheet) adds to its score when the
question holds all of its words: as much as a named cell. Tables that share their columns (a manual's lists of
packages, one per section) are told apart by it."""
MARGIN_SURE = 1.0
"""A table chosen this far ahead of the best table holding other data (a column named outright where the other's is
named only in part, two thirds of its heading) is chosen surely; closer, the plan's certainty falls with the margin,
to half at a tie."""
MIN_CERTAINTY = 0.52
"""Below this the mapping is a guess (two tables that hold different data tied, or a column named only in part):
no computed answer. A tie scores half the column's own score (`_certainty`), so a tie never passes."""
UNUSED_TEXT_WEIGHT = 1.0
"""A text column the question names but the operation does not read ("tool" of "which archiving tool is smallest", in
a table of network tools whose "tool" column lists commands) is no evidence for the table: it counts nothing."""
SCRIPT_WEIGHT = 0.1
"""Between tables that hold the same data in two languages (a manual and its translation), the one written in the
question's script: a tie-break, never more."""
HEADING_NAMES_ROWS = 0.6
"""A question holding this share of a table's heading, its last word among them (`names_head`), names what its rows
are: it may count them all."""
HEADING_RUN = 3
"""A Japanese or Chinese heading's characters count as named when they are in a run shared with the question that
holds at least this many characters other than hiragana (ネットワーク): one shared pair (ージ), or a word and its
particle (関連の), is chance. Hiragana (particles, okurigana) count neither way."""



CellTerm = tuple[int, str, str, str]
"""A text cell as matched against questions: (column, cell text, its normalised lowercased term, the term without
an administrative suffix, or "" when it has none to drop)."""


class TablePlanner:
    def __init__(self, analyzer: Analyzer) -> None:
        self.analyzer = analyzer
        self._cell_terms: dict[int, tuple[weakref.ref[StoredTable], list[CellTerm]]] = {}
        """Each catalog table's cell terms, by the table object's id, for as long as that object lives. The catalog keeps
        its table objects until the collection changes, so normalising its thousands of cells happens once, not at every
        question; a write makes a new catalog, and the old tables' entries go with the old objects (a weak reference's
        callback), so a server taking uploads and deletes holds the terms of the current catalog only."""

    def cell_terms(self, table: StoredTable) -> list[CellTerm]:
        """The table's text cells normalised for matching, computed once per catalog table object."""
        key = id(table)
        cached = self._cell_terms.get(key)
        if cached is not None and cached[0]() is table:
            return cached[1]
        terms = []
        for column, values in table.values.items():
            for value in values:
                term = normalize(value).lower().strip()
                stem = term[:-1] if len(term) >= 3 and term[-1] in ADMINISTRATIVE_SUFFIXES else ""
                terms.append((column, value, term, stem))
        entries = self._cell_terms

        def forget(ref: weakref.ref[StoredTable]) -> None:
            # runs when the table object is freed, before its id can be reused; the entry is only dropped if still its own
            if (entry := entries.get(key)) is not None and entry[0] is ref:
                entries.pop(key, None)

        self._cell_terms[key] = (weakref.ref(table, forget), terms)
        return terms

    @property
    def cached_tables(self) -> int:
        """Tables whose cell terms are held (for tests and diagnostics)."""
        return len(self._cell_terms)

    # -- matching ------------------------------------------------------------
    def name_score(self, name: str, question: str, tokens: set[str]) -> tuple[float, int]:
        """How much of a column name the question holds (1 = all of it, directly), and where the question names it.

        A flattened name ("2024年 / Q3") counts its parts; a part is held directly, or word by word (ASCII) or
        piece by piece (CJK) through the header dictionary ("hotel limit" ↔ ホテル上限), or by its analyzer tokens."""
        parts = [clean_name(p) for p in normalize(name).lower().split(" / ")]
        parts = [p for p in parts if p]
        if not parts:
            return 0.0, -1
        positions = [contains_term(question, p) for p in parts]
        if all(p >= 0 for p in positions):
            return 1.0, min(positions)
        best, where = 0.0, -1
        for position in positions:
            if position >= 0:
                best, where = max(best, 1.0 / len(parts) + (0.3 if len(parts) > 1 else 0.0)), position
        for part in parts:
            share, at = synonym_share(part, question)
            if share > 0:
                score = 0.9 * share / len(parts) + (0.3 if len(parts) > 1 and best > 0 else 0.0)
                if score > best:
                    best, where = score, at
        name_tokens = set(self.analyzer(" ".join(parts)))
        if name_tokens:
            share = len(name_tokens & tokens) / len(name_tokens)
            if share * 0.9 > best:
                best, where = share * 0.9, max(where, 0)
        return best, where

    def column_score(self, column: TableColumn, question: str, tokens: set[str]) -> tuple[float, int]:
        """`name_score`, and for a column that counts something ("number of files", 镜像数量) at least the score
        of the thing it counts: "how many files", 镜像最多 name it without its "number of"."""
        score = self.name_score(column.name, question, tokens)
        thing = counted_thing(column.name) if column.kind != TEXT else None
        if thing:
            counted = self.name_score(thing, question, tokens)
            if counted[0] > score[0]:
                return counted
        return score

    def _word_share(self, name: str, tokens: set[str]) -> float:
        """The share of a column name's words among `tokens`, its bracketed words included ("Hospitality (meals)
        limit": "meals" is what tells it from the gift limit, where `name_score` drops brackets as units)."""
        words = set(self.analyzer(normalize(name).lower()))
        return len(words & tokens) / len(words) if words else 0.0

    def named_values(self, table: StoredTable, question: str) -> list[tuple[int, str, int]]:
        """Cells of the text columns the question names (column, text, where), longest first, no two overlapping."""
        found: list[tuple[int, str, int, int, float]] = []
        for column, value, term, stem in self.cell_terms(table):
            if term not in question and (not stem or stem not in question):
                continue  # what `contains_term` checks first, without a call per cell of every table
            where = contains_term(question, term) if len(term) >= 2 else -1
            length, weight = len(term), float(len(term))
            if where < 0 and stem:
                # "大阪" names the row "大阪府"; an exact name elsewhere ("東京都" beside "京都府") still wins
                where, length, weight = contains_term(question, stem), len(term) - 1, len(term) - 1.5
            if where >= 0:
                found.append((column, value, where, length, weight))
        found.sort(key=lambda f: -f[4])
        kept: list[tuple[int, str, int, int, float]] = []
        for item in found:
            if all(item[2] + item[3] <= k[2] or k[2] + k[3] <= item[2] for k in kept):
                kept.append(item)
        return sorted(((c, v, w) for c, v, w, *_ in kept), key=lambda f: f[2])

    # -- planning ------------------------------------------------------------
    def plan(self, question: str, intent: TableIntent, tables: list[StoredTable]) -> TablePlan | None:
        """The best table for the question with the columns and filters the operation needs; None when none fits.
        A table fits only if it holds every thing the question names (`key_terms`: "arm64", "MSS", "journald"):
        counting a table's rows does not answer a question about something the table never mentions."""
        return self.choose(question, intent, tables)[0]

    def choose(self, question: str, intent: TableIntent, tables: list[StoredTable]) -> tuple[TablePlan | None, TablePlan | None]:
        """`plan`'s plan, and when there is none, the table a ranking question names whose columns cannot rank its
        rows (`TablePlan.unranked`: "the oldest browser" of a browser table without a date), or None."""
        clean = normalize(question).lower()
        tokens = set(self.analyzer(clean))
        named = named_things(question, self.analyzer(question))
        found = [p for t in tables if holds_all(t, named) and (p := self._plan_one(clean, tokens, intent, t)) is not None]
        plans = [p for p in found if not p.unranked]
        unranked = max((p for p in found if p.unranked), key=lambda p: p.score, default=None)
        if not plans or (unranked is not None and unranked.score > max(p.score for p in plans)):
            return None, unranked  # the table the question names best cannot rank its rows: another's ranking is not asked
        best = max(plans, key=lambda p: p.score)
        if best.defer:
            return None, None  # the table the question names best holds one value to read: the lookup answers, or nothing
        best.certainty = _certainty(best, plans)
        return best, None

    def _plan_one(self, question: str, tokens: set[str], intent: TableIntent, table: StoredTable) -> TablePlan | None:
        columns = table.columns
        scores = [self.column_score(c, question, tokens) for c in columns]
        numeric = [i for i, c in enumerate(columns) if c.kind in (NUMBER, CURRENCY, PERCENT)]
        named_numeric = sorted((i for i in numeric if scores[i][0] >= MIN_NAME_SCORE), key=lambda i: (-scores[i][0], scores[i][1]))
        values = self.named_values(table, question)
        plan = TablePlan(table, intent, 0.0)
        plan.label = next((i for i, c in enumerate(columns) if c.kind == TEXT), None)
        score = sum(s for s, _ in scores if s >= MIN_NAME_SCORE)
        headings = heading_texts(table)
        score += SCRIPT_WEIGHT * (script_of(question) == script_of(" ".join([*headings, *(c.name for c in columns)])))
        if table.sheet and contains_term(question, normalize(table.sheet).lower()) >= 0:
            score += 2.0
        heading_share = max((self.heading_share(h, question, tokens) for h in headings), default=0.0)
        score += HEADING_WEIGHT * heading_share
        heading_names_rows = heading_share >= HEADING_NAMES_ROWS and any(self.names_head(h, tokens) for h in headings)
        # conditions: each on the numeric (or date) column the question names for it, else the only one that can hold it
        used: set[int] = set()
        for condition in intent.conditions:
            column = self._condition_column(condition.quantity, condition.start, scores, columns, bool(values) or _label_named(scores, columns))
            if column is None:
                return None
            used.add(column)
            plan.filters.append(Filter(column, condition.op, [condition.quantity.value]))
        # rows the question names: a sheet named as a value is the table itself, not a filter
        by_column: dict[int, list[str]] = {}
        for column, value, _ in values:
            if table.sheet and normalize(value).lower() == normalize(table.sheet).lower():
                continue
            if normalize(value).lower().strip() in headings:
                continue  # "the kernel tools" of a table headed "Kernel" names the table, not its "kernel" row
            by_column.setdefault(column, []).append(value)
            plan.named_values.append((column, value))
        for column, texts in by_column.items():
            plan.filters.append(Filter(column, "in", list(texts)))
            score += VALUE_WEIGHT * len(texts)
        if intent.contains:
            target = next((i for i in sorted(range(len(columns)), key=lambda i: -scores[i][0]) if columns[i].kind == TEXT), plan.label)
            if target is None:
                return None
            plan.filters.append(Filter(target, "contains", [intent.contains]))
        if intent.group:
            group_norm = normalize(intent.group).lower()
            candidates = [i for i, c in enumerate(columns) if c.kind == TEXT and
                          (self.name_score(c.name, group_norm, set(self.analyzer(group_norm)))[0] >= MIN_NAME_SCORE)]
            if not candidates:
                return None
            plan.group = candidates[0]
            score += 1.0
        operation = intent.operation
        if operation == COUNT and plan.group is None:
            # the table may hold the number asked: a column that counts the thing ("number of files" for "how
            # many files", of rows the question names by a cell, its key column or the heading), or a measure the
            # question asks the total of ("how many megabytes … together"): it is summed, not the rows counted
            rows_named = bool(by_column) or _label_named(scores, columns) or heading_share > 0
            counting = [i for i in named_numeric if i not in used and (thing := counted_thing(columns[i].name))
                        and self.name_score(thing, question, tokens)[0] >= MIN_NAME_SCORE]
            summed = counting if rows_named else []
            if not summed and intent.total:
                summed = [i for i in named_numeric if i not in used]
            if summed:
                intent = plan.intent = replace(intent, operation=SUM)
                operation = SUM
        measures = [i for i in named_numeric if i not in used] or named_numeric
        if operation == GROWTH:
            named = sorted((i for i in numeric if scores[i][0] >= MIN_NAME_SCORE), key=lambda i: scores[i][1])
            same_kind = [i for i in numeric if columns[i].kind == columns[numeric[0]].kind] if numeric else []
            if len(named) >= 2:
                plan.base, plan.measure = named[0], named[-1]
            elif len(same_kind) >= 2:
                plan.base, plan.measure = same_kind[0], same_kind[-1]
            else:
                return None
        elif intent.by_time:
            # a ranking by time reads a column that holds when; a table without one cannot rank its rows so
            timed = sorted(time_columns(columns), key=lambda i: (-scores[i][0], i))
            rows_named = heading_names_rows or _label_named(scores, columns) or bool(by_column)
            if not timed:
                return self._unranked(plan, score, rows_named)
            if not rows_named and scores[timed[0]][0] < MIN_NAME_SCORE:
                return None  # neither the rows nor the column: "the oldest" alone names no table
            plan.measure = timed[0]
            score += 1.0 if scores[plan.measure][0] >= MIN_NAME_SCORE else 0.0
            scores[plan.measure] = (1.0, scores[plan.measure][1]) if len(timed) == 1 else scores[plan.measure]
        elif operation in (SUM, AVG, MAX, MIN, TOP, BOTTOM, DIFFERENCE) or (operation == COUNT and plan.group is None and not plan.filters):
            if measures:
                plan.measure = measures[0]
                score += 1.0
            elif operation in (MAX, MIN, TOP, BOTTOM) and len(numeric) == 1 and _label_named(scores, columns):
                plan.measure = numeric[0]
            elif operation == COUNT:
                if not _label_named(scores, columns) and not values and not heading_names_rows:
                    return None
            elif operation in (MAX, MIN, TOP, BOTTOM):
                return self._unranked(plan, score, heading_names_rows or _label_named(scores, columns))
            else:
                return None
        if operation == DIFFERENCE and (len(plan.named_values) != 2 or plan.named_values[0][0] != plan.named_values[1][0]):
            return None
        if operation in (COUNT, LIST) and not plan.filters and plan.group is None and not _label_named(scores, columns) \
                and (operation == LIST or not heading_names_rows):
            return None
        if operation == COUNT and plan.measure is not None and not plan.filters and plan.group is None:
            return None  # "how many people live in …" names a number to read, not rows to count
        if operation in (COUNT, SUM) and plan.group is None and len(plan.filters) == 1 and plan.filters[0].op == "in" \
                and len(plan.filters[0].values) == 1 and len(table.values.get(plan.filters[0].column, [])) == table.n_rows:
            # one row named by its key ("how many days is 婚假", "how many files does 2020-garden hold") is a value to
            # read, never a count or a sum of one: read from the column that holds it, else by the lookup
            plan.score = score
            if operation == SUM and plan.measure is not None:
                plan.intent, plan.label = TableIntent(LOOKUP, intent.cue), plan.filters[0].column
                plan.column_score = min(1.0, scores[plan.measure][0])
                return plan
            plan.defer = True
            return plan
        if operation == COUNT and not plan.filters and plan.group is None and not heading_names_rows and not any(
                s >= 1.0 and c.kind == TEXT for (s, _), c in zip(scores, columns, strict=True)):
            # counting a whole table: only one whose rows the question names outright, by its key column ("how many
            # cities") or by most of its heading ("how many video archives" of a table headed "Video archives")
            return None
        if score <= 0 and not plan.filters:
            return None
        used_columns = {plan.label, plan.group, plan.measure, plan.base, *(f.column for f in plan.filters)}
        score -= UNUSED_TEXT_WEIGHT * sum(s for i, (s, _) in enumerate(scores)
                                          if s >= MIN_NAME_SCORE and columns[i].kind == TEXT and i not in used_columns)
        plan.score = score
        read = [c for c in (plan.measure, plan.base) if c is not None] + [f.column for f in plan.filters if f.op not in ("in", "contains")]
        plan.column_score = min([1.0, *(scores[c][0] for c in read)])
        return plan

    @staticmethod
    def _unranked(plan: TablePlan, score: float, rows_named: bool) -> TablePlan | None:
        """A ranking question's plan on a table whose rows the question names (its heading, or its key column: "which
        browser") but none of whose columns holds what the ranking is by: the table that cannot answer, marked so
        (`TablePlan.unranked`); None when the question does not name the table's rows."""
        if not rows_named:
            return None
        plan.unranked, plan.score = True, score
        return plan

    def names_head(self, heading: str, tokens: set[str]) -> bool:
        """Whether the question holds the heading's last word, the thing its rows are ("shortcut keys" of a table
        headed "Presenter console shortcut keys", 快捷键 of 演讲者控制台快捷键): a question that names only what the
        rows are about ("how many displays does the presenter console need?") does not ask to count them."""
        words = self.analyzer(heading)
        if not words:
            return False
        head = plural_stem(words[-1])
        return any(plural_stem(token) == head for token in tokens)

    def heading_share(self, heading: str, question: str, tokens: set[str]) -> float:
        """The share of the table's heading words the question holds (a plural or a header-dictionary word for one
        counts: "video archives" holds "Archives of home videos"' archives and videos)."""
        if not heading:
            return 0.0
        words = [w for w in re.findall(r"[a-z0-9][a-z0-9+._-]*", heading) if not re.fullmatch(r"[\d.]+", w)]
        words = [w for w in words if w in set(self.analyzer(w))]  # the analyzer's stopwords ("the", "and") name nothing
        stems = {plural_stem(t) for t in tokens}
        held = sum(1 for w in words if plural_stem(w) in stems or synonym_share(w, question)[0] >= 1.0)
        cjk = [i for i, ch in enumerate(heading) if JA_ZH_CHAR.match(ch) and not HIRAGANA_CHAR.match(ch)]
        covered: set[int] = set()
        for start in cjk:
            end = start
            while end < len(heading) and JA_ZH_CHAR.match(heading[end]) and heading[start:end + 1] in question:
                end += 1
            run = [i for i in range(start, end) if not HIRAGANA_CHAR.match(heading[i])]
            if len(run) >= HEADING_RUN:
                covered.update(run)
        units = len(words) + len(cjk)
        return (held + len(covered)) / units if units else 0.0

    def plan_lookup(self, question: str, tables: list[StoredTable], focus: str | None = None) -> TablePlan | None:
        """A question that names a row (a cell of a text column: "London", 大阪府) and a column ("hotel limit", 人口)
        of the same table: the cell where they cross. None unless both are named. Tables that write every thing the
        question names as written (`named_things`: "Multi-Arch" in a Chinese question, which a translated table calls
        多体系结构) are chosen from first: an answer from another would not name what was asked. `focus`: the words of a follow-up
        made standalone ("and for meals?" after the gift limit): a column they name is the one asked for, not the
        column the earlier turn named."""
        clean = normalize(question).lower()
        tokens = set(self.analyzer(clean))
        focused = normalize(focus).lower() if focus else ""
        focus_tokens = set(self.analyzer(focused)) if focused else set()
        plans: list[TablePlan] = []
        named = named_things(question, self.analyzer(question))
        for table in tables:
            values = [v for v in self.named_values(table, clean)
                      if not (table.sheet and normalize(v[1]).lower() == normalize(table.sheet).lower())]
            if not values:
                continue
            row_columns = {c for c, _, _ in values}
            scores = [self.column_score(c, clean, tokens) for c in table.columns]
            wanted = [i for i in range(len(table.columns)) if i not in row_columns and scores[i][0] >= LOOKUP_NAME_SCORE]
            if focused:  # the follow-up's own words name part of the column; the earlier turn, with them, the rest
                in_focus = [i for i in range(len(table.columns)) if i not in row_columns
                            and self._word_share(table.columns[i].name, focus_tokens) > 0
                            and self._word_share(table.columns[i].name, tokens) >= FOLLOW_UP_NAME_SCORE]
                wanted = in_focus or wanted
            if not wanted:
                continue
            measure = max(wanted, key=lambda i: (scores[i][0], len(table.columns[i].name), -i))  # the longer of two names it holds
            plan = TablePlan(table, TableIntent(LOOKUP, ""), scores[measure][0] + 0.8 * len(values), measure=measure)
            plan.label = min(row_columns)
            for column in sorted(row_columns):
                plan.filters.append(Filter(column, "in", [v for c, v, _ in values if c == column]))
                plan.named_values += [(c, v) for c, v, _ in values if c == column]
            if table.sheet and contains_term(clean, normalize(table.sheet).lower()) >= 0:
                plan.score += 2.0
            headings = heading_texts(table)
            plan.score += HEADING_WEIGHT * max((self.heading_share(h, clean, tokens) for h in headings), default=0.0)
            plan.score += SCRIPT_WEIGHT * (script_of(clean) == script_of(" ".join([*headings, *(c.name for c in table.columns)])))
            plan.column_score = min(1.0, scores[measure][0])
            plans.append(plan)
        naming = [p for p in plans if named and holds_all(p.table, named)] or plans
        best = max(naming, key=lambda p: p.score, default=None)  # the first of equals, in catalog order
        if best is not None:
            best.certainty = _certainty(best, naming)
        return best

    def run_lookup(self, plan: TablePlan, db: TableDB) -> TableResult:
        """The cells a lookup plan names, as shown in the source (not parsed)."""
        assert plan.measure is not None and plan.label is not None
        where, params = [], []
        for f in plan.filters:
            where.append(f"{text_col(f.column)} IN ({', '.join('?' * len(f.values))})")
            params.extend(f.values)
        sql = (f"SELECT _row, {text_col(plan.label)}, {text_col(plan.measure)} FROM {plan.table.sql_name} "
               f"WHERE {' AND '.join(where)} ORDER BY _row LIMIT {MAX_LISTED}")
        found = db.select(sql, params)
        rows = [ResultRow(str(label), None, int(r), text=str(text)) for r, label, text in found]
        cells = self._cells(plan, db, [r.row for r in rows if r.row is not None])
        return TableResult(plan, None, rows, cells, len(rows), sql, list(params))

    @staticmethod
    def _condition_column(
        quantity: Quantity, where: int, scores: list[tuple[float, int]], columns: list[TableColumn], table_named: bool,
    ) -> int | None:
        """The column a condition constrains: a column of a kind that can hold the quantity, which the question names
        (the nearest one to the condition); unnamed, only the one column with the quantity's own unit (yen, %, a
        date) of a table the question otherwise names. A bare number on an unnamed column is never guessed."""
        kind = quantity.kind
        fits = [i for i, c in enumerate(columns) if (c.kind == DATE) == (kind == DATE) and c.kind != TEXT
                and (kind in (NUMBER, DATE) or c.kind == kind or c.kind == NUMBER)]
        named = [i for i in range(len(columns)) if scores[i][0] >= MIN_NAME_SCORE and scores[i][1] >= 0]
        if named:
            # the column named nearest the condition, a preceding one first ("人口が500万人以上", "limit above 20,000");
            # when that is a text column, the condition is about text the table does not type: nothing fits
            nearest = min(named, key=lambda i: (where - scores[i][1] if scores[i][1] <= where else 1.5 * (scores[i][1] - where),
                                                -scores[i][0]))
            return nearest if nearest in fits else None
        if not table_named or kind == NUMBER:
            return None
        same = [i for i in fits if columns[i].kind == kind and (kind == DATE or columns[i].unit == quantity.unit)]
        return same[0] if len(same) == 1 else None

    # -- computing ------------------------------------------------------------
    def run(self, plan: TablePlan, db: TableDB) -> TableResult:
        table, intent = plan.table, plan.intent
        name = table.sql_name
        where = ["_total = 0"]
        params: list[str | float] = []
        for f in plan.filters:
            if f.op == "in":
                where.append(f"{text_col(f.column)} IN ({', '.join('?' * len(f.values))})")
                params.extend(f.values)
            elif f.op == "contains":
                where.append(f"{text_col(f.column)} LIKE ? ESCAPE '\\'")
                params.append("%" + str(f.values[0]).replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%")
            else:
                where.append(f"{value_col(f.column)} {f.op} ?")
                params.append(f.values[0])
        label = f"{text_col(plan.label)}" if plan.label is not None else "''"
        operation = intent.operation
        expression = None
        if plan.measure is not None:
            expression = value_col(plan.measure) if plan.base is None else f"({value_col(plan.measure)} - {value_col(plan.base)})"
            where.append(f"{expression} IS NOT NULL")
        condition = " AND ".join(where)
        value: float | None = None
        rows: list[ResultRow] = []
        chosen: list[int]
        if plan.group is not None:
            aggregate = {SUM: "SUM", AVG: "AVG", MAX: "SUM", MIN: "SUM", COUNT: "COUNT"}.get(operation, "SUM")
            target = expression if expression is not None and aggregate != "COUNT" else "*"
            order = "ASC" if intent.low or operation == MIN else "DESC"
            sql = (f"SELECT {text_col(plan.group)}, {aggregate}({target}), group_concat(_row) FROM {name} WHERE {condition} "
                   f"GROUP BY {text_col(plan.group)} ORDER BY 2 {order}")
            found = db.select(sql, params)
            if operation in (MAX, MIN) and found:
                found = found[:1]
            rows = [ResultRow(str(g), float(v) if v is not None else None) for g, v, _ in found]
            chosen = [int(r) for *_, members in found for r in str(members).split(",") if r]
            value = rows[0].value if len(rows) == 1 else None
        elif operation in (SUM, AVG):
            function = "SUM" if operation == SUM else "AVG"
            sql = f"SELECT {function}({expression}), group_concat(_row) FROM {name} WHERE {condition}"
            [(total, members)] = db.select(sql, params)
            value = float(total) if total is not None else None
            chosen = [int(r) for r in str(members or "").split(",") if r]
        elif operation in (MAX, MIN, GROWTH):
            low = operation == MIN or (operation == GROWTH and (intent.decline != intent.low))
            sql = (f"SELECT _row, {label}, {expression} FROM {name} WHERE {condition} AND {expression} = "
                   f"(SELECT {'MIN' if low else 'MAX'}({expression}) FROM {name} WHERE {condition}) ORDER BY _row")
            found = db.select(sql, [*params, *params])
            rows = [ResultRow(str(lbl), float(v), int(r)) for r, lbl, v in found]
            chosen = [r.row for r in rows if r.row is not None]
            value = rows[0].value if rows else None
        elif operation in (TOP, BOTTOM):
            order = "DESC" if operation == TOP else "ASC"
            sql = f"SELECT _row, {label}, {expression} FROM {name} WHERE {condition} ORDER BY {expression} {order}, _row LIMIT ?"
            found = db.select(sql, [*params, intent.n or 3])
            rows = [ResultRow(str(lbl), float(v), int(r)) for r, lbl, v in found]
            chosen = [r.row for r in rows if r.row is not None]
        elif operation == DIFFERENCE:
            column, _ = plan.named_values[0]
            sql = f"SELECT _row, {text_col(column)}, {expression} FROM {name} WHERE {condition}"
            sides = {str(t): (int(r), float(v)) for r, t, v in db.select(sql, params)}
            first, second = (sides.get(v) for _, v in plan.named_values)
            if first is not None and second is not None:
                value = first[1] - second[1]
                rows = [ResultRow(plan.named_values[0][1], first[1], first[0]), ResultRow(plan.named_values[1][1], second[1], second[0])]
            chosen = [r.row for r in rows if r.row is not None]
        else:  # count and list: the rows the filters keep
            sql = f"SELECT _row, {label} FROM {name} WHERE {condition} ORDER BY _row"
            found = db.select(sql, params)
            rows = [ResultRow(str(lbl), None, int(r)) for r, lbl in found]
            chosen = [r.row for r in rows if r.row is not None]
            value = float(len(rows))
        cells = self._cells(plan, db, chosen)
        return TableResult(plan, value, rows, cells, len(set(chosen)), sql, params)

    @staticmethod
    def _cells(plan: TablePlan, db: TableDB, chosen: list[int]) -> list[CellRef]:
        """The cells that went into the result: each chosen row's label, and the columns the operation read."""
        if not chosen:
            return []
        table = plan.table
        columns = [c for c in [plan.label, plan.group, plan.base, plan.measure, *(f.column for f in plan.filters)] if c is not None]
        columns = list(dict.fromkeys(columns))
        picked = ", ".join(text_col(c) for c in columns)
        unique = sorted(set(chosen))
        sql = (f"SELECT _row, _row_number, _page, _chunk, {picked} FROM {table.sql_name} "
               f"WHERE _row IN ({', '.join('?' * len(unique))}) ORDER BY _row")
        cells = []
        for row, number, page, chunk, *texts in db.select(sql, unique):
            for column, text in zip(columns, texts, strict=True):
                cells.append(CellRef(int(row), int(number), page, str(chunk), table.columns[column].name, str(text)))
        return cells


def _certainty(best: TablePlan, plans: list[TablePlan]) -> float:
    """How sure the chosen mapping is: how plainly its column is named, times how far the table is ahead of the
    best one holding other data (half as sure when two tables tie, fully when it leads by `MARGIN_SURE`)."""
    rivals = [p.score for p in plans if p is not best and not same_data(p.table, best.table)]
    margin = best.score - max(rivals) if rivals else MARGIN_SURE
    return round(best.column_score * min(1.0, 0.5 + 0.5 * max(margin, 0.0) / MARGIN_SURE), 3)


def time_columns(columns: list[TableColumn]) -> list[int]:
    """The columns that hold when a row happened: typed as dates, or numbers under a name that says when (a year, a
    release, a version: `TIME_COLUMNS`)."""
    found = []
    for i, column in enumerate(columns):
        name = normalize(column.name).lower()
        if column.kind == DATE or (column.kind == NUMBER and any(contains_term(name, word) >= 0 for word in TIME_COLUMNS)):
            found.append(i)
    return found


def _label_named(scores: list[tuple[float, int]], columns: list[TableColumn]) -> bool:
    return any(s >= MIN_NAME_SCORE and c.kind == TEXT for (s, _), c in zip(scores, columns, strict=True))
