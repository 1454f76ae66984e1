"""What each of the answerer's agent steps decided, as typed records (`AgentStep.output`).

One record per step name: `analysis`, `decompose`, `rewrite`, `critique`, `direct_answer`, `table` and
`table_lookup`. Each writes the JSON keys the steps wrote before they had types (a field left None is not
written), and reads stored steps of any version: a key it does not model is kept in `other`, a step name it
does not know becomes an `OtherStep`, so nothing stored is lost on the way back out.

Like `bunko.trace`, this module imports nothing from bunko.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Union

JSONValue = Union[str, int, float, bool, None, list["JSONValue"], dict[str, "JSONValue"]]  # noqa: UP007 (a string forward reference cannot take |)
"""A value as JSON holds it: what a record keeps of data it does not model, and what a SQL result is."""


def _written(record: Any) -> dict[str, JSONValue]:
    """The record's fields as JSON, None fields left out, then the keys it kept without modelling them."""
    data: dict[str, JSONValue] = {}
    for item in fields(record):
        if item.name == "other":
            continue
        value = getattr(record, item.name)
        if value is None:
            continue
        data[item.name] = value.to_dict() if hasattr(value, "to_dict") else value
    return {**data, **getattr(record, "other", {})}


def _unmodelled(data: Mapping[str, Any], cls: type) -> dict[str, JSONValue]:
    known = {f.name for f in fields(cls)}
    return {str(k): v for k, v in data.items() if k not in known}


def _text(data: Mapping[str, Any], key: str) -> str | None:
    value = data.get(key)
    return None if value is None else str(value)


def _texts(data: Mapping[str, Any], key: str) -> list[str]:
    value = data.get(key)
    return [str(v) for v in value] if isinstance(value, list) else []


def _number(data: Mapping[str, Any], key: str) -> float | None:
    value = data.get(key)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _flag(data: Mapping[str, Any], key: str) -> bool | None:
    value = data.get(key)
    return value if isinstance(value, bool) else None


@dataclass
class ClassifierVerdict:
    """The packaged question-kind classifier's verdict."""

    kind: str
    probability: float
    probabilities: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, JSONValue]:
        return {"kind": self.kind, "probability": self.probability, "probabilities": dict(self.probabilities)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ClassifierVerdict:
        probabilities = data.get("probabilities")
        return cls(str(data.get("kind", "")), float(data.get("probability") or 0.0),
                   {str(k): float(v) for k, v in probabilities.items()} if isinstance(probabilities, Mapping) else {})


@dataclass
class ModelVerdict:
    """The chat model's reading of the question's kind: None when its reply named none, or it failed (`error`)."""

    kind: str | None
    raw: str | None = None
    error: str | None = None

    def to_dict(self) -> dict[str, JSONValue]:
        return {"kind": self.kind, "raw": self.raw, "error": self.error}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ModelVerdict:
        return cls(_text(data, "kind"), _text(data, "raw"), _text(data, "error"))


@dataclass
class AnalysisStep:
    """What kind of question it is, why, and its parts; with the classifier or a model, who decided."""

    kind: str
    reason: str
    parts: list[str] = field(default_factory=list)
    request: str | None = None
    """For a question about the conversation itself: summary, answered or asked."""
    rule_kind: str | None = None
    classifier: ClassifierVerdict | None = None
    llm: ModelVerdict | None = None
    decided_by: str | None = None
    other: dict[str, JSONValue] = field(default_factory=dict)

    def to_dict(self) -> dict[str, JSONValue]:
        return _written(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AnalysisStep:
        classifier, llm = data.get("classifier"), data.get("llm")
        return cls(
            str(data.get("kind", "")), str(data.get("reason", "")), _texts(data, "parts"), _text(data, "request"),
            _text(data, "rule_kind"), ClassifierVerdict.from_dict(classifier) if isinstance(classifier, Mapping) else None,
            ModelVerdict.from_dict(llm) if isinstance(llm, Mapping) else None, _text(data, "decided_by"), _unmodelled(data, cls),
        )


@dataclass
class DecomposeStep:
    """The parts searched apart, the chunks they added, and the grade's confidence before and after."""

    parts: list[str]
    added: list[str]
    whole: float
    """Confidence of the whole question's own evidence."""
    merged: float
    """Confidence of the evidence with each part's best passages interleaved."""
    other: dict[str, JSONValue] = field(default_factory=dict)

    def to_dict(self) -> dict[str, JSONValue]:
        return {"parts": list(self.parts), "added": list(self.added), "confidence": {"whole": self.whole, "merged": self.merged},
                **self.other}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DecomposeStep:
        confidence = data.get("confidence")
        pair = confidence if isinstance(confidence, Mapping) else {}
        return cls(_texts(data, "parts"), _texts(data, "added"), _number(pair, "whole") or 0.0, _number(pair, "merged") or 0.0,
                   {k: v for k, v in _unmodelled(data, cls).items() if k not in ("confidence", "whole", "merged")})


@dataclass
class RewriteStep:
    """One more search after a weak grade: how the query was made (prf terms or a hyde passage), and whether its
    evidence was kept."""

    method: str
    query: str | None = None
    terms: list[str] | None = None
    passage: str | None = None
    before: float | None = None
    after: float | None = None
    kept: bool | None = None
    error: str | None = None
    other: dict[str, JSONValue] = field(default_factory=dict)

    def to_dict(self) -> dict[str, JSONValue]:
        data: dict[str, JSONValue] = {"method": self.method}
        if self.terms is not None:
            data["terms"] = list(self.terms)
        for key, text in (("passage", self.passage), ("query", self.query)):
            if text is not None:
                data[key] = text
        if self.before is not None and self.after is not None:
            data["confidence"] = {"before": self.before, "after": self.after}
        for key, flag_or_text in (("kept", self.kept), ("error", self.error)):
            if flag_or_text is not None:
                data[key] = flag_or_text
        return {**data, **self.other}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RewriteStep:
        confidence = data.get("confidence")
        pair = confidence if isinstance(confidence, Mapping) else {}
        terms = data.get("terms")
        return cls(
            str(data.get("method", "")), _text(data, "query"), [str(t) for t in terms] if isinstance(terms, list) else None,
            _text(data, "passage"), _number(pair, "before"), _number(pair, "after"), _flag(data, "kept"), _text(data, "error"),
            {k: v for k, v in _unmodelled(data, cls).items() if k != "confidence"},
        )


@dataclass
class CritiqueStep:
    """The sentences the citation check rejected, the model's second answer, and whether it was kept."""

    rejected: list[str]
    rewritten: str | None = None
    still_rejected: list[str] | None = None
    kept: bool | None = None
    error: str | None = None
    other: dict[str, JSONValue] = field(default_factory=dict)

    def to_dict(self) -> dict[str, JSONValue]:
        return _written(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CritiqueStep:
        still = data.get("still_rejected")
        return cls(_texts(data, "rejected"), _text(data, "rewritten"), [str(s) for s in still] if isinstance(still, list) else None,
                   _flag(data, "kept"), _text(data, "error"), _unmodelled(data, cls))


@dataclass
class DirectAnswerStep:
    """A reply made without the documents (greeting, sum, a question about the conversation) and how."""

    kind: str
    text: str = ""
    request: str | None = None
    history_turns: int | None = None
    quoted: list[int] | None = None
    """Indexes of the history turns the reply quotes."""
    used_llm: bool | None = None
    llm_error: str | None = None
    other: dict[str, JSONValue] = field(default_factory=dict)

    def to_dict(self) -> dict[str, JSONValue]:
        return _written(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DirectAnswerStep:
        quoted = data.get("quoted")
        turns = data.get("history_turns")
        return cls(
            str(data.get("kind", "")), str(data.get("text", "")), _text(data, "request"), int(turns) if isinstance(turns, int) else None,
            [int(i) for i in quoted] if isinstance(quoted, list) else None, _flag(data, "used_llm"), _text(data, "llm_error"),
            _unmodelled(data, cls),
        )


@dataclass
class TableRef:
    """The table a plan chose."""

    id: str
    source: str
    title: str | None = None
    sheet: str | None = None
    rows: int | None = None

    def to_dict(self) -> dict[str, JSONValue]:
        return {"id": self.id, "source": self.source, "title": self.title, "sheet": self.sheet, "rows": self.rows}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TableRef:
        rows = data.get("rows")
        return cls(str(data.get("id", "")), str(data.get("source", "")), _text(data, "title"), _text(data, "sheet"),
                   int(rows) if isinstance(rows, int) else None)


@dataclass
class TableStep:
    """The table route's plan and result (`table`: an aggregate; `table_lookup`: a cell named by row and column), or
    why it did not answer (`outcome`)."""

    outcome: str
    operation: str | None = None
    cue: str | None = None
    tables: int | None = None
    """Tables the collection offered (within the filters)."""
    table: TableRef | None = None
    measure: str | None = None
    base: str | None = None
    label: str | None = None
    group: str | None = None
    filters: list[dict[str, JSONValue]] | None = None
    score: float | None = None
    """How plainly the question names the table, its row and its column (`TablePlanner`)."""
    certainty: float | None = None
    """How sure the mapping is (0–1): the chosen column named plainly, the table well ahead of any other that
    could answer (`TablePlan.certainty`); a computed answer's confidence is no higher."""
    sql: str | None = None
    params: list[JSONValue] | None = None
    value: JSONValue = None
    rows: int | None = None
    writer: str | None = None
    """``llm`` when the chat model wrote the query."""
    llm_sql_error: str | None = None
    other: dict[str, JSONValue] = field(default_factory=dict)

    def to_dict(self) -> dict[str, JSONValue]:
        return _written(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TableStep:
        table, tables, rows = data.get("table"), data.get("tables"), data.get("rows")
        filters, params = data.get("filters"), data.get("params")
        return cls(
            str(data.get("outcome", "")), _text(data, "operation"), _text(data, "cue"), int(tables) if isinstance(tables, int) else None,
            TableRef.from_dict(table) if isinstance(table, Mapping) else None, _text(data, "measure"), _text(data, "base"),
            _text(data, "label"), _text(data, "group"),
            [dict(f) for f in filters if isinstance(f, Mapping)] if isinstance(filters, list) else None, _number(data, "score"),
            _number(data, "certainty"), _text(data, "sql"), list(params) if isinstance(params, list) else None, data.get("value"),
            int(rows) if isinstance(rows, int) else None, _text(data, "writer"), _text(data, "llm_sql_error"), _unmodelled(data, cls),
        )


@dataclass
class OtherStep:
    """A stored step of a name this version does not know, kept as it was written."""

    values: dict[str, JSONValue] = field(default_factory=dict)

    def to_dict(self) -> dict[str, JSONValue]:
        return dict(self.values)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> OtherStep:
        return cls({str(k): v for k, v in data.items()})


StepOutput = AnalysisStep | DecomposeStep | RewriteStep | CritiqueStep | DirectAnswerStep | TableStep | OtherStep

READERS: dict[str, Any] = {
    "analysis": AnalysisStep.from_dict, "decompose": DecomposeStep.from_dict, "rewrite": RewriteStep.from_dict,
    "critique": CritiqueStep.from_dict, "direct_answer": DirectAnswerStep.from_dict, "table": TableStep.from_dict,
    "table_lookup": TableStep.from_dict,
}
"""Step name → the record that reads its stored output."""


def read_step_output(name: str, data: Mapping[str, Any]) -> StepOutput:
    reader = READERS.get(name, OtherStep.from_dict)
    output: StepOutput = reader(data)
    return output
