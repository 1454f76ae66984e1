"""Golden sets: JSONL questions with what a correct answer contains and where the evidence lives.

One JSON object per line::

    {"id": "q01", "question": "…", "expected_answer": "12,000円",
     "relevant_sources": ["travel-expense-policy-ja.md"],
     "relevant_chunk_ids": ["docs/travel-expense-policy-ja.md#3"],
     "relevant_pages": [4, {"source": "rules.pdf", "page": 7}],
     "tags": {"lang": "ja", "type": "table"}, "draft": false}

Only ``question`` is required. Any of the three ``relevant_*`` keys says which
evidence counts as relevant (the most specific one given is used: chunk ids, then
pages, then sources); ``expected_answer`` may be a string or a list of accepted
alternatives. ``tags.type`` is one of :data:`QUESTION_TYPES`; an ``absent``
question has no answer in the documents, so it must carry no expected answer and
no relevant evidence. Every mistake is reported with its line number, all at
once, because a golden set is written by hand and fixing one error per run is slow.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bunko.errors import BunkoError
from bunko.text.languages import query_language

QUESTION_TYPES = ("fact", "table", "multi-hop", "absent")
KNOWN_KEYS = (
    "id", "question", "expected_answer", "relevant_sources", "relevant_chunk_ids", "relevant_pages", "tags", "draft", "notes",
)
MAX_REPORTED_ERRORS = 20


class GoldenError(BunkoError):
    """The golden set is not valid; the message names every bad line."""


@dataclass(frozen=True)
class PageRef:
    """A relevant page, optionally of one source (a bare page number matches it in any relevant source)."""

    page: int
    source: str | None = None

    def key(self) -> str:
        return f"{self.source or ''}#p{self.page}"


@dataclass
class GoldenItem:
    id: str
    question: str
    expected_answers: tuple[str, ...] = ()
    relevant_sources: tuple[str, ...] = ()
    relevant_chunk_ids: tuple[str, ...] = ()
    relevant_pages: tuple[PageRef, ...] = ()
    lang: str = "en"
    type: str = "fact"
    tags: dict[str, Any] = field(default_factory=dict)
    draft: bool = False
    notes: str | None = None
    line: int = 0

    @property
    def absent(self) -> bool:
        """The documents do not answer this question: the right behaviour is to abstain."""
        return self.type == "absent"

    @property
    def has_relevance(self) -> bool:
        return bool(self.relevant_sources or self.relevant_chunk_ids or self.relevant_pages)

    def to_json(self) -> dict[str, Any]:
        """The line as it would be written back (drafts, templates, round trips)."""
        data: dict[str, Any] = {"id": self.id, "question": self.question}
        if not self.expected_answers:
            data["expected_answer"] = None
        elif len(self.expected_answers) == 1:
            data["expected_answer"] = self.expected_answers[0]
        else:
            data["expected_answer"] = list(self.expected_answers)
        data["relevant_sources"] = list(self.relevant_sources)
        if self.relevant_chunk_ids:
            data["relevant_chunk_ids"] = list(self.relevant_chunk_ids)
        if self.relevant_pages:
            data["relevant_pages"] = [p.page if p.source is None else {"source": p.source, "page": p.page} for p in self.relevant_pages]
        data["tags"] = {**self.tags, "lang": self.lang, "type": self.type}
        if self.draft:
            data["draft"] = True
        if self.notes:
            data["notes"] = self.notes
        return data


def _strings(value: Any, key: str, problems: list[str]) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        problems.append(f"{key} must be a list of non-empty strings")
        return ()
    return tuple(v.strip() for v in value)


def _expected(value: Any, problems: list[str]) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        if not value.strip():
            problems.append("expected_answer is an empty string (use null when there is no answer)")
        return (value.strip(),) if value.strip() else ()
    if isinstance(value, list) and value and all(isinstance(v, str) and v.strip() for v in value):
        return tuple(v.strip() for v in value)
    problems.append("expected_answer must be a string, a non-empty list of strings (accepted alternatives) or null")
    return ()


def _pages(value: Any, problems: list[str]) -> tuple[PageRef, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        problems.append('relevant_pages must be a list of page numbers or {"source": …, "page": …} objects')
        return ()
    pages: list[PageRef] = []
    for entry in value:
        if isinstance(entry, int) and not isinstance(entry, bool) and entry >= 0:
            pages.append(PageRef(entry))
        elif (
            isinstance(entry, dict) and set(entry) == {"source", "page"} and isinstance(entry["source"], str)
            and isinstance(entry["page"], int) and not isinstance(entry["page"], bool) and entry["page"] >= 0
        ):
            pages.append(PageRef(entry["page"], entry["source"]))
        else:
            problems.append(f'relevant_pages entry {json.dumps(entry, ensure_ascii=False)} is neither a page number nor {{"source": …, "page": …}}')
    return tuple(pages)


def parse_item(data: Any, line: int) -> tuple[GoldenItem | None, list[str]]:
    """One line's object → an item, or the list of what is wrong with it."""
    if not isinstance(data, dict):
        return None, ["expected a JSON object"]
    problems: list[str] = []
    unknown = sorted(set(data) - set(KNOWN_KEYS))
    if unknown:
        problems.append(f"unknown key{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))} (known: {', '.join(KNOWN_KEYS)})")
    question = data.get("question")
    if not isinstance(question, str) or not question.strip():
        problems.append("question is missing or empty")
        question = ""
    item_id = data.get("id", f"line{line}")
    if not isinstance(item_id, str | int) or isinstance(item_id, bool) or not str(item_id).strip():
        problems.append("id must be a non-empty string")
        item_id = f"line{line}"
    tags = data.get("tags", {})
    if not isinstance(tags, dict):
        problems.append("tags must be an object such as {\"lang\": \"ja\", \"type\": \"fact\"}")
        tags = {}
    qtype = tags.get("type", "fact")
    if qtype not in QUESTION_TYPES:
        problems.append(f"tags.type {qtype!r} is not one of {', '.join(QUESTION_TYPES)}")
    lang = tags.get("lang") or (query_language(question) if question else "en")
    if not isinstance(lang, str):
        problems.append("tags.lang must be a language code such as ja, zh or en")
        lang = "en"
    draft = data.get("draft", False)
    if not isinstance(draft, bool):
        problems.append("draft must be true or false")
    notes = data.get("notes")
    if notes is not None and not isinstance(notes, str):
        problems.append("notes must be a string")
        notes = None
    item = GoldenItem(
        id=str(item_id).strip(),
        question=question.strip(),
        expected_answers=_expected(data.get("expected_answer"), problems),
        relevant_sources=_strings(data.get("relevant_sources"), "relevant_sources", problems),
        relevant_chunk_ids=_strings(data.get("relevant_chunk_ids"), "relevant_chunk_ids", problems),
        relevant_pages=_pages(data.get("relevant_pages"), problems),
        lang=lang,
        type=qtype if qtype in QUESTION_TYPES else "fact",
        tags={k: v for k, v in tags.items() if k not in ("lang", "type")},
        draft=bool(draft),
        notes=notes,
        line=line,
    )
    if item.absent and (item.expected_answers or item.has_relevance):
        problems.append("an 'absent' question must have expected_answer null and no relevant_* evidence")
    if not item.absent and not item.expected_answers and not item.has_relevance:
        problems.append(
            "nothing to measure: give expected_answer or relevant_sources / relevant_chunk_ids / relevant_pages, "
            "or tag the question {\"type\": \"absent\"} if the documents do not answer it"
        )
    return (None if problems else item), problems


def parse_lines(lines: Iterable[str], origin: str = "<golden>") -> list[GoldenItem]:
    """Parse JSONL text; blank lines are skipped; every problem is reported with its line number."""
    items: list[GoldenItem] = []
    errors: list[str] = []
    seen: dict[str, int] = {}
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            errors.append(f"{origin}:{number}: not valid JSON: {exc.msg} (column {exc.colno})")
            continue
        item, problems = parse_item(data, number)
        errors.extend(f"{origin}:{number}: {problem}" for problem in problems)
        if item is None:
            continue
        if item.id in seen:
            errors.append(f"{origin}:{number}: id {item.id!r} is already used on line {seen[item.id]}")
            continue
        seen[item.id] = number
        items.append(item)
    if errors:
        shown = errors[:MAX_REPORTED_ERRORS]
        more = len(errors) - len(shown)
        raise GoldenError("invalid golden set:\n  " + "\n  ".join(shown) + (f"\n  … and {more} more" if more else ""))
    if not items:
        raise GoldenError(f"{origin}: the golden set has no questions")
    return items


def load_golden(path: str | Path) -> list[GoldenItem]:
    path = Path(path)
    if not path.is_file():
        raise GoldenError(f"{path}: no such golden set (create one with `bunko eval init {path}`)")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise GoldenError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    return parse_lines(text.splitlines(), origin=str(path))


def dump_lines(items: Sequence[GoldenItem]) -> str:
    return "".join(json.dumps(item.to_json(), ensure_ascii=False) + "\n" for item in items)


def template() -> list[GoldenItem]:
    """Example lines, one per kind of question, marked as drafts so an unedited template is never scored."""
    return [
        GoldenItem(
            "ex-fact-ja", "出張経費は何日以内に精算しますか？", expected_answers=("30日以内",),
            relevant_sources=("travel-expense-policy-ja.md",), lang="ja", type="fact", draft=True,
            notes="fact: the answer is in running text; expected_answer must appear in the answer",
        ),
        GoldenItem(
            "ex-table-zh", "婚假有几天？", expected_answers=("3天", "三天"), relevant_sources=("leave-policy-zh.md",),
            lang="zh", type="table", draft=True, notes="table: the answer is a table cell; a list gives accepted alternatives",
        ),
        GoldenItem(
            "ex-page-en", "What is the notice period in the contract?", expected_answers=("30 days",),
            relevant_pages=(PageRef(4, "contracts/master-agreement.pdf"),), lang="en", type="fact", draft=True,
            notes="relevant_pages: page numbers, optionally with their source; relevant_chunk_ids pin exact chunks",
        ),
        GoldenItem(
            "ex-absent-en", "Who is the CEO?", lang="en", type="absent", draft=True,
            notes="absent: no document answers it; the engine should abstain",
        ),
    ]
