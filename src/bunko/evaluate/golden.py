"""Golden sets: JSONL questions with what a correct answer contains and where the evidence lives.

The format is :data:`GOLDEN_FORMAT` (shown by ``bunko eval check --help`` and ``bunko eval run --help``). Every
mistake is reported with its line number and key, all at once (`check_lines`, ``bunko eval check``), because a
golden set is written by hand and fixing one error per run is slow.
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


@dataclass(frozen=True)
class GoldenProblem:
    """One mistake of a golden set: its line (0: the file as a whole), the key at fault (None: the line as a whole) and
    what is wrong, in words that name the key."""

    line: int
    key: str | None
    message: str

    def describe(self, origin: str) -> str:
        return f"{origin}:{self.line}: {self.message}" if self.line else f"{origin}: {self.message}"

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line or None, "key": self.key, "message": self.message}


class GoldenError(BunkoError):
    """The golden set is not valid; the message names every bad line (up to MAX_REPORTED_ERRORS), `problems` holds
    them all."""

    def __init__(self, message: str, problems: Sequence[GoldenProblem] = (), origin: str = "<golden>") -> None:
        super().__init__(message)
        self.problems = list(problems)
        self.origin = origin

    @property
    def details(self) -> dict[str, Any]:
        """What `--json` prints beside the message."""
        return {"file": self.origin, "problems": [p.to_json() for p in self.problems]}


_Problems = list[tuple[str | None, str]]
"""(key, message) of one line's problems."""


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


def _strings(value: Any, key: str, problems: _Problems) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        problems.append((key, f"{key} must be a list of non-empty strings"))
        return ()
    return tuple(v.strip() for v in value)


def _expected(value: Any, problems: _Problems) -> tuple[str, ...]:
    """The accepted answers; "" (or only spaces) and null both say there is none."""
    if value is None:
        return ()
    if isinstance(value, str):
        return (value.strip(),) if value.strip() else ()
    if isinstance(value, list) and value and all(isinstance(v, str) and v.strip() for v in value):
        return tuple(v.strip() for v in value)
    problems.append((
        "expected_answer",
        f"expected_answer {json.dumps(value, ensure_ascii=False)[:60]} must be a string, a non-empty list of non-empty "
        'strings (accepted alternatives), or "" / null for no answer',
    ))
    return ()


def _pages(value: Any, problems: _Problems) -> tuple[PageRef, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        problems.append(("relevant_pages", 'relevant_pages must be a list of page numbers or {"source": …, "page": …} objects'))
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
            problems.append((
                "relevant_pages",
                f'relevant_pages entry {json.dumps(entry, ensure_ascii=False)} is neither a page number nor {{"source": …, "page": …}}',
            ))
    return tuple(pages)


def check_item(data: Any, line: int) -> tuple[GoldenItem | None, _Problems]:
    """One line's object → an item, or what is wrong with it: (key at fault or None, message naming it)."""
    if not isinstance(data, dict):
        return None, [(None, f"expected a JSON object, not {type(data).__name__}")]
    problems: _Problems = []
    unknown = sorted(set(data) - set(KNOWN_KEYS))
    if unknown:
        problems.extend((key, f"unknown key {key!r} (known: {', '.join(KNOWN_KEYS)})") for key in unknown)
    question = data.get("question")
    if not isinstance(question, str) or not question.strip():
        problems.append(("question", "question is missing or empty"))
        question = ""
    item_id = data.get("id", f"line{line}")
    if not isinstance(item_id, str | int) or isinstance(item_id, bool) or not str(item_id).strip():
        problems.append(("id", "id must be a non-empty string"))
        item_id = f"line{line}"
    tags = data.get("tags", {})
    if not isinstance(tags, dict):
        problems.append(("tags", "tags must be an object such as {\"lang\": \"ja\", \"type\": \"fact\"}"))
        tags = {}
    qtype = tags.get("type", "fact")
    if qtype not in QUESTION_TYPES:
        problems.append(("tags.type", f"tags.type {qtype!r} is not one of {', '.join(QUESTION_TYPES)}"))
    lang = tags.get("lang") or (query_language(question) if question else "en")
    if not isinstance(lang, str):
        problems.append(("tags.lang", "tags.lang must be a language code such as ja, zh or en"))
        lang = "en"
    draft = data.get("draft", False)
    if not isinstance(draft, bool):
        problems.append(("draft", "draft must be true or false"))
    notes = data.get("notes")
    if notes is not None and not isinstance(notes, str):
        problems.append(("notes", "notes must be a string"))
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
    if item.absent and item.expected_answers:
        problems.append(("expected_answer", "an 'absent' question must have expected_answer \"\" or null (the documents do not answer it)"))
    for key in ("relevant_sources", "relevant_chunk_ids", "relevant_pages"):
        if item.absent and data.get(key):
            problems.append((key, f"an 'absent' question must have no {key} (no document holds its answer)"))
    if not item.absent and not item.expected_answers and not item.has_relevance and not any(k == "expected_answer" for k, _ in problems):
        problems.append((
            "expected_answer",
            "nothing to measure: give expected_answer or relevant_sources / relevant_chunk_ids / relevant_pages, "
            "or tag the question {\"type\": \"absent\"} if the documents do not answer it",
        ))
    return (None if problems else item), problems


def check_lines(lines: Iterable[str], origin: str = "<golden>") -> tuple[list[GoldenItem], list[GoldenProblem]]:
    """Every valid item and every problem of JSONL text (blank lines skipped), each problem with its line and key."""
    items: list[GoldenItem] = []
    problems: list[GoldenProblem] = []
    seen: dict[str, int] = {}
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            problems.append(GoldenProblem(number, None, f"not valid JSON: {exc.msg} (column {exc.colno})"))
            continue
        item, found = check_item(data, number)
        problems.extend(GoldenProblem(number, key, message) for key, message in found)
        if item is None:
            continue
        if item.id in seen:
            problems.append(GoldenProblem(number, "id", f"id {item.id!r} is already used on line {seen[item.id]}"))
            continue
        seen[item.id] = number
        items.append(item)
    if not items and not problems:
        problems.append(GoldenProblem(0, None, "the golden set has no questions"))
    return items, problems


def parse_lines(lines: Iterable[str], origin: str = "<golden>") -> list[GoldenItem]:
    """Parse JSONL text; blank lines are skipped; every problem is reported with its line number."""
    items, problems = check_lines(lines, origin)
    if problems:
        raise golden_error(problems, origin)
    return items


def golden_error(problems: Sequence[GoldenProblem], origin: str) -> GoldenError:
    if len(problems) == 1 and not problems[0].line:
        return GoldenError(problems[0].describe(origin), problems, origin)
    errors = [p.describe(origin) for p in problems]
    shown = errors[:MAX_REPORTED_ERRORS]
    more = len(errors) - len(shown)
    return GoldenError("invalid golden set:\n  " + "\n  ".join(shown) + (f"\n  … and {more} more" if more else ""), problems, origin)


def read_golden(path: str | Path) -> list[str]:
    """The lines of a golden set; a GoldenError (with its one problem) when the file cannot be read."""
    path = Path(path)
    if not path.is_file():
        problem = GoldenProblem(0, None, f"no such golden set (create one with `bunko eval init {path}`)")
        raise GoldenError(problem.describe(str(path)), [problem], str(path))
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        problem = GoldenProblem(0, None, f"not UTF-8 text ({exc.reason} at byte {exc.start})")
        raise GoldenError(problem.describe(str(path)), [problem], str(path)) from None
    return text.splitlines()


def check_golden(path: str | Path) -> tuple[list[GoldenItem], list[GoldenProblem]]:
    """`check_lines` of a file: what `bunko eval check` reports. A file that cannot be read raises GoldenError."""
    return check_lines(read_golden(path), origin=str(path))


def load_golden(path: str | Path) -> list[GoldenItem]:
    return parse_lines(read_golden(path), origin=str(path))


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
