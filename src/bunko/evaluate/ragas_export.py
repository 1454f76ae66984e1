"""Export a run as JSONL that ``ragas.EvaluationDataset.from_jsonl`` loads as single-turn samples.

One line per question with Ragas' field names: ``user_input`` (the question),
``retrieved_contexts`` (the texts of the retrieved chunks, best first), ``response`` (bunko's
answer) and ``reference`` (the expected answer; the first one when several are accepted).
Keys without a value are left out, as Ragas' own ``to_jsonl`` does, because its LLM-judged
metrics (faithfulness, context precision, answer correctness …) read only the fields they need.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bunko.evaluate.golden import GoldenItem
from bunko.evaluate.records import QuestionRecord


def ragas_rows(items: Sequence[GoldenItem], records: Sequence[QuestionRecord], contexts: int | None = None) -> list[dict[str, Any]]:
    """`contexts` keeps only the first n hits (Ragas judges every context it is given, one LLM call each)."""
    rows = []
    for item, record in zip(items, records, strict=True):
        hits = record.hits if contexts is None else record.hits[:contexts]
        row: dict[str, Any] = {"user_input": item.question, "retrieved_contexts": [h.text for h in hits], "response": record.answer}
        if item.expected_answers:
            row["reference"] = item.expected_answers[0]
        rows.append(row)
    return rows


def write_ragas(path: Path, items: Sequence[GoldenItem], records: Sequence[QuestionRecord], contexts: int | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        for row in ragas_rows(items, records, contexts):
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    return path
