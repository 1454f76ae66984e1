"""Answer units: the sentences of prose and the rows of tables, each quotable on its own.

A table row alone ("| 東京 | 12,000円 |") means nothing; paired with its
header it reads "地域: 東京 / 上限額: 12,000円", which is both an answer and a
faithful quote of the cited table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bunko.text.lazy_regex import lazy_compile
from bunko.text.lexicon import en, ja, speaking, zh
from bunko.text.sentences import split_sentences

PROSE, ROW, CODE = "prose", "row", "code"

CODE_LINES_PER_UNIT = 6
"""A command block is quoted whole when short; a long listing is quoted a few lines at a time."""


ADMONITION_LABELS = frozenset((*en.ADMONITION_LABELS, *ja.ADMONITION_LABELS, *zh.ADMONITION_LABELS))
"""The titles manuals put over a note or a warning (DocBook, Sphinx, GitHub's [!NOTE]): alone, a unit that says
nothing, however close its page is to the question."""


def is_label(unit: str) -> bool:
    """Whether a unit is only an admonition's title ("Caution", 警告, 注：, [!NOTE]), which an answer must not quote."""
    return unit.strip().strip("[]!*#").rstrip(":：").strip().casefold() in ADMONITION_LABELS


@dataclass
class Unit:
    text: str
    hit_index: int
    position: int
    kind: str = PROSE
    term: str = ""
    """The definition-list term the unit describes (`definition_terms`), or ""."""


def _cells(line: str) -> list[str]:
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    return [c.strip().replace("\\|", "|") for c in inner.split(" | ")] if " | " in inner else [c.strip() for c in inner.split("|")]


def _is_separator(line: str) -> bool:
    return set(line.replace("|", "").replace(":", "").strip()) <= {"-"} and "-" in line


def table_row_units(lines: list[str]) -> list[str]:
    if len(lines) < 2 or not _is_separator(lines[1]):
        return [" ".join(lines)]
    header = _cells(lines[0])
    units = []
    for line in lines[2:]:
        cells = _cells(line)
        pairs = [f"{h}: {c}" if h else c for h, c in zip(header, cells, strict=False) if c]
        if pairs:
            units.append(" / ".join(pairs))
    return units


_SHELL_LINES = lazy_compile(r"^(?:[ \t]*[$#][ \t]+\S[^\n]*(?:\n|$))+$")
"""Lines that are all shell prompts ("$ ls -l", "# chvt 3"): a command block, whatever the format kept of it."""


def code_units(code: list[str], lead: str | None) -> list[str]:
    """A code block's lines in groups, each after the prose sentence that introduces the block.

    Commands and option lines live in code blocks ("You can change to console 3 from the
    command line." then "# chvt 3"): the line alone means nothing to a reader or an
    embedder, the sentence alone does not hold the answer.
    """
    lines = [line.rstrip() for line in code if line.strip()]
    groups = [lines[i:i + CODE_LINES_PER_UNIT] for i in range(0, len(lines), CODE_LINES_PER_UNIT)]
    return [("\n".join([lead, *group]) if lead else "\n".join(group)) for group in groups]


def split_typed_units(text: str) -> list[tuple[str, str]]:
    """(unit, kind) in reading order: prose sentences, table rows (with their header), code lines (with their lead-in)."""
    units: list[tuple[str, str]] = []
    prose: list[str] = []
    table: list[str] = []
    code: list[str] = []
    in_code = False

    def lead_in() -> str | None:
        """The prose sentence just before a code block, which says what the block does."""
        return units[-1][0] if units and units[-1][1] == PROSE else None

    def flush_prose() -> None:
        for sentence in split_sentences("\n".join(prose)):
            if _SHELL_LINES.match(sentence):  # a command block that lost its fence (PDF, Word): quoted as code
                units.extend((u, CODE) for u in code_units(sentence.splitlines(), lead_in()))
            else:
                units.append((sentence, PROSE))
        prose.clear()

    def flush_table() -> None:
        if table:
            units.extend((r, ROW) for r in table_row_units(table))
            table.clear()

    for line in text.splitlines():
        if line.strip().startswith("```"):
            if in_code:
                units.extend((u, CODE) for u in code_units(code, lead_in()))
                code.clear()
            else:
                flush_prose()
                flush_table()
            in_code = not in_code
            continue
        if in_code:
            code.append(line)
            continue
        if line.strip().startswith("|"):
            flush_prose()
            table.append(line)
            continue
        flush_table()
        prose.append(line)
    if in_code:  # an unclosed fence: its lines are still text
        units.extend((u, CODE) for u in code_units(code, None))
    flush_table()
    flush_prose()
    return [(u.strip(), kind) for u, kind in units if u.strip()]


TERM_CHARS = 200
"""A line longer than this above an indented block is a paragraph, not a term (signatures and option names are shorter)."""
LABEL_CHARS = 80
"""A line's "label: " prefix longer than this is a sentence with a colon, not the name of what the line describes."""
_LABEL_SEPARATORS = (": ", "：")


def definition_terms(text: str, units: Sequence[tuple[str, str]]) -> list[str]:
    """For each unit of `text` (`split_typed_units`), the term of the definition-list item it describes, or "".

    A sentence of a description is about its term as a section's sentence is about its heading: "If not set, the
    current directory is used." says what happens when WIDGET_HOME is unset only beside "WIDGET_HOME". Two layouts
    carry a term: description lines indented under a term line (an HTML <dl>, a list item's nested lines), and a
    line "term: description" (a manual page's tagged paragraph) for a unit that starts after the term. A unit that
    holds its term already, a table row and a code group get "" (a row has its header, code its lead-in)."""
    terms: list[str] = []
    cursor = 0
    for unit, kind in units:
        start = text.find(unit, cursor) if kind == PROSE else -1
        if start < 0:
            terms.append("")
            continue
        cursor = start + len(unit)
        line_start = text.rfind("\n", 0, start) + 1
        line_end = text.find("\n", start)
        line = text[line_start:line_end if line_end >= 0 else len(text)]
        term = _term_above(text, line_start) if line[:1].isspace() else _line_label(line[:start - line_start])
        terms.append(term if term and term not in unit else "")
    return terms


def _term_above(text: str, line_start: int) -> str:
    """The first unindented line above an indented one, within its block (a blank line ends the block)."""
    lines = text[:line_start].splitlines()
    for line in reversed(lines):
        if not line.strip():
            return ""
        if not line[:1].isspace():
            term = line.strip()
            return term if len(term) <= TERM_CHARS and not term.startswith(("|", "```")) else ""
    return ""


def _line_label(before: str) -> str:
    """The "term" of a "term: description" line, from the text of the line before the unit."""
    for separator in _LABEL_SEPARATORS:
        at = before.find(separator)
        if 0 < at <= LABEL_CHARS:
            label = before[:at].strip()
            return "" if any(end in label for end in (". ", "。", "！", "？", "? ", "! ")) else label
    return ""


def split_units(text: str) -> list[str]:
    return [unit for unit, _ in split_typed_units(text)]


_ROW = lazy_compile(r"^[^/\n]+?: [^\n]*?(?: / [^/\n]+?: [^\n]*?)+$")


def row_pairs(row: str) -> list[tuple[str, str]]:
    """The (header, cell) pairs of a row unit as `table_row_units` writes it ("error level value: 3 / error level name:
    KERN_ERR" → ("error level value", "3"), ("error level name", "KERN_ERR")); a cell without a header has header ""."""
    pairs = []
    for part in row.split(" / "):
        header, separator, cell = part.partition(": ")
        pairs.append((header, cell) if separator and header else ("", part))
    return pairs


def row_cells(unit: str) -> list[tuple[str, str]]:
    """`row_pairs` of a unit that reads as a row of two cells or more; nothing for any other unit."""
    return row_pairs(unit) if _ROW.match(unit) else []


def readable_row(unit: str, language: str) -> str:
    """A table-row unit ("地域: 東京 / 上限額: 12,000円") punctuated for the answer's language.

    "地域：東京、上限額：12,000円" reads as Japanese, "假期类型：婚假，天数：3天" as
    Chinese; the citation keeps the unit as quoted. Other units are returned unchanged.
    """
    cells = row_cells(unit)
    if not cells:
        return unit
    colon, comma = speaking(language).ROW_SEPARATORS
    return comma.join(f"{header}{colon}{cell}" if header else cell for header, cell in cells)
